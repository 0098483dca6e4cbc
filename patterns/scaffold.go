// This file reads a pattern's text in the scaffolds of a language's
// ladder: which scaffolds a pattern tries and in what order, one parse in
// one scaffold (tryScaffold), whether its errors sit only next to
// metavariables (tolerable), where an error is in the user's own text,
// and the peeling that finds the pattern's own nodes in the tree.

package patterns

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// ladderFor returns the scaffolds to try for pattern: the one context
// asked for, or the language's ladder with the context the pattern's
// opening asks for first and the scaffolds that cannot hold it left out.
func ladderFor(lang *Language, pattern, context string) ([]scaffold, error) {
	ladder := lang.ladder
	if context != "" {
		ladder = nil
		for _, s := range lang.ladder {
			if s.name == context {
				ladder = append(ladder, s)
			}
		}
		if ladder == nil {
			return nil, fmt.Errorf("context %q does not exist for %s: want one of %s", context, lang.ID, strings.Join(lang.contextNames(), ", "))
		}
	} else if lang.braceFirst && strings.HasPrefix(strings.TrimSpace(pattern), "{") {
		ladder = slices.Clone(ladder)
		sort.SliceStable(ladder, func(i, j int) bool { return ladder[i].name == "expression" && ladder[j].name != "expression" })
	} else if lang.ID == "css" && cssSelectorFirst(pattern) {
		ladder = slices.Clone(ladder)
		sort.SliceStable(ladder, func(i, j int) bool { return ladder[i].name == "selector" && ladder[j].name != "selector" })
	} else if ctx := keywordContext(lang, pattern); ctx != "" {
		// A pattern that opens with a declaration keyword or an access
		// modifier means a declaration or member, even where a statement
		// reading parses too (Go's func (r *T) M() *T { … } reads as a
		// multiplication statement).
		ladder = slices.Clone(ladder)
		sort.SliceStable(ladder, func(i, j int) bool { return ladder[i].name == ctx && ladder[j].name != ctx })
	}
	ladder = slices.DeleteFunc(slices.Clone(ladder), func(s scaffold) bool { return s.when != nil && !s.when(pattern) })
	// The annotation context serves patterns that are an annotation
	// alone; others need not hear about it.
	if tp := strings.TrimSpace(pattern); context == "" && !strings.HasPrefix(tp, "@") && !strings.HasPrefix(tp, "[") && !strings.HasPrefix(tp, "#[") {
		ladder = slices.DeleteFunc(slices.Clone(ladder), func(s scaffold) bool { return s.name == "annotation" })
	}
	if directiveLast(lang, pattern) {
		// A directive runs to the end of its line: a suffix glued to it
		// (the statement scaffold's ';') would be read as its argument.
		ladder = slices.DeleteFunc(slices.Clone(ladder), func(s scaffold) bool { return !strings.HasPrefix(s.suffix, "\n") })
	}
	return ladder, nil
}

// cssSelectorFirst says a CSS pattern is a selector though it also
// reads as a declaration: a:hover, $A:not(.x), li:href would be the
// property a, $A or li. It is one when a ':' is followed by a
// pseudo-class's name, or preceded by an HTML or SVG element's name (no
// property is named like one). The pseudo-classes spelled like a
// property's common value (float:left, cursor:default,
// animation-play-state:paused) are left out, so a minified declaration
// stays one.
func cssSelectorFirst(pattern string) bool {
	if strings.ContainsAny(pattern, "{};") {
		return false
	}
	for _, m := range cssPseudo.FindAllStringSubmatch(pattern, -1) {
		if cssPseudoClasses[strings.ToLower(m[1])] {
			return true
		}
	}
	for _, m := range cssElementColon.FindAllStringSubmatch(pattern, -1) {
		if cssElements[strings.ToLower(m[1])] {
			return true
		}
	}
	return false
}

var (
	// cssPseudo finds the word after a ':'.
	cssPseudo = regexp.MustCompile(`:([A-Za-z-]+)`)
	// cssElementColon finds the word before a ':' where it starts the
	// pattern or follows a combinator (an element's name there).
	cssElementColon = regexp.MustCompile(`(?:^|[\s>+~,(])([A-Za-z][A-Za-z0-9]*):`)
)

// cssPseudoClasses are the pseudo-classes of Selectors Level 4 and the
// CSS 2 pseudo-elements written with one ':', less those spelled like a
// property's value (left, right, first, default, paused, playing).
var cssPseudoClasses = wordSet(`active any-link autofill blank checked current defined dir disabled empty
	enabled first-child first-of-type focus focus-visible focus-within fullscreen future has host
	host-context hover in-range indeterminate invalid is lang last-child last-of-type link local-link
	modal not nth-child nth-col nth-last-child nth-last-col nth-last-of-type nth-of-type only-child
	only-of-type optional out-of-range past picture-in-picture placeholder-shown popover-open read-only
	read-write required root scope state target target-within user-invalid user-valid valid visited
	where before after first-line first-letter`)

// cssElements are the HTML and SVG elements' names, none of which names
// a CSS property.
var cssElements = wordSet(`a abbr address area article aside audio b base bdi bdo blockquote body br
	button canvas caption cite code col colgroup data datalist dd del details dfn dialog div dl dt em
	embed fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe
	img input ins kbd label legend li link main map mark menu meta meter nav noscript object ol
	optgroup option output p picture pre progress q rp rt ruby s samp script search section select
	slot small source span strong style sub summary sup svg table tbody td template textarea tfoot th
	thead time title tr track u ul var video wbr circle ellipse g line path polygon polyline rect
	tspan use defs symbol`)

func wordSet(words string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}

// directiveLast says pattern's last line is a C or C++ preprocessor
// directive (#undef $A, #pragma $P).
func directiveLast(lang *Language, pattern string) bool {
	if lang.ID != "c" && lang.ID != "cpp" {
		return false
	}
	t := strings.TrimSpace(pattern)
	return strings.HasPrefix(strings.TrimSpace(t[strings.LastIndexByte(t, '\n')+1:]), "#")
}

func tryScaffold(p *parser, lang *Language, s scaffold, pattern, expanded, selector string, tolerant bool) (*Pattern, string) {
	if s.single && tolerant {
		return nil, s.name + ": only a clean parse"
	}
	body := expanded
	if s.indent != "" {
		body = strings.ReplaceAll(body, "\n", "\n"+s.indent)
	}
	text := s.prefix + body + s.suffix
	tree, err := p.parse(lang, []byte(text), true)
	if err != nil {
		return nil, s.name + ": " + err.Error()
	}
	hs := uint32(len(s.prefix))
	he := hs + uint32(len(body))
	for hs < he && isSpace(text[hs]) {
		hs++
	}
	for he > hs && isSpace(text[he-1]) {
		he--
	}
	if i, bad := tree.firstError(); bad && (!tolerant || !tolerable(tree, hs, he)) {
		return nil, s.name + ": " + describeError(tree, i, hs, he, s.prefix, s.indent, pattern)
	}
	for i := range tree.nodes {
		if n := &tree.nodes[i]; n.start == n.end && n.start == he && n.named() && n.flags&flagMissing == 0 && !tree.skip(i) {
			// An empty node the grammar allows (Python's body after
			// def f():) is not code the pattern wrote: nothing could
			// match it.
			return nil, fmt.Sprintf("%s: the pattern is incomplete (an empty %s)", s.name, lang.kindName(lang.kind(n.sym)))
		}
	}
	roots, why := peel(tree, hs, he, false)
	if roots == nil {
		roots, _ = peel(tree, hs, he, true)
	}
	if roots == nil {
		return nil, s.name + ": " + why
	}
	if s.single && len(roots) > 1 {
		return nil, fmt.Sprintf("%s: %d nodes, not one", s.name, len(roots))
	}
	if selector != "" {
		if roots = selected(tree, hs, he, selector); roots == nil {
			return nil, fmt.Sprintf("%s: no %s node in the pattern", s.name, selector)
		}
	}
	c := &compiler{t: tree, he: he, indent: s.indent}
	pat := &Pattern{Source: pattern, Lang: lang, Context: s.name, scaffold: s}
	for _, r := range roots {
		pn := c.build(r)
		pat.nodes = append(pat.nodes, pn)
		pat.Roots = append(pat.Roots, lang.kindName(lang.kind(tree.nodes[r].sym)))
	}
	if len(pat.nodes) == 1 && pat.nodes[0].meta == metaMulti {
		return nil, s.name + ": a lone $$$ matches any run of nodes; put it inside code, e.g. foo($$$ARGS)"
	}
	pat.index()
	pat.nestBlind = nestBlind(pat)
	return pat, ""
}

// selected returns the first node of kind selector inside the pattern's
// text [hs, he) of the scaffold, as the pattern's root; nil for none.
func selected(tree *Tree, hs, he uint32, selector string) []int {
	for i := range tree.nodes {
		n := &tree.nodes[i]
		if n.start >= hs && n.end <= he && tree.Lang.kindName(tree.Lang.kind(n.sym)) == selector {
			return []int{i}
		}
	}
	return nil
}

// declKeywords are, per language, the words that open a declaration
// ("declaration") or only a class member ("member").
var declKeywords = map[string]map[string]string{
	"go":         {"func": "declaration", "type": "declaration", "import": "declaration", "package": "declaration"},
	"c":          {"#define": "declaration", "#include": "declaration", "#if": "declaration", "#ifdef": "declaration", "#ifndef": "declaration", "typedef": "declaration", "struct": "declaration", "static": "declaration"},
	"cpp":        {"#define": "declaration", "#include": "declaration", "#if": "declaration", "#ifdef": "declaration", "#ifndef": "declaration", "template": "declaration", "namespace": "declaration", "class": "declaration", "typedef": "declaration", "public:": "member", "private:": "member"},
	"java":       {"import": "declaration", "package": "declaration", "class": "declaration", "interface": "declaration", "enum": "declaration", "record": "declaration", "public": "member", "private": "member", "protected": "member", "@": "member"},
	"c-sharp":    {"using": "declaration", "namespace": "declaration", "class": "declaration", "interface": "declaration", "enum": "declaration", "struct": "declaration", "record": "declaration", "public": "member", "private": "member", "protected": "member", "internal": "member", "[": "member"},
	"kotlin":     {"import": "declaration", "package": "declaration", "class": "declaration", "interface": "declaration", "object": "declaration", "fun": "declaration", "data": "declaration", "private": "member", "public": "member", "protected": "member", "internal": "member", "override": "member"},
	"scala":      {"import": "declaration", "package": "declaration", "class": "declaration", "object": "declaration", "trait": "declaration", "def": "member", "private": "member", "override": "member"},
	"swift":      {"import": "declaration", "class": "declaration", "struct": "declaration", "enum": "declaration", "protocol": "declaration", "extension": "declaration", "func": "member", "private": "member", "public": "member", "@": "member"},
	"rust":       {"fn": "declaration", "impl": "declaration", "struct": "declaration", "enum": "declaration", "trait": "declaration", "use": "declaration", "mod": "declaration", "pub": "declaration", "#[": "declaration"},
	"dart":       {"import": "declaration", "export": "declaration", "library": "declaration", "part": "declaration", "class": "declaration", "mixin": "declaration", "extension": "declaration", "@": "member"},
	"php":        {"namespace": "declaration", "use": "declaration", "class": "declaration", "interface": "declaration", "trait": "declaration", "public": "member", "private": "member", "protected": "member"},
	"typescript": {"import": "declaration", "export": "declaration", "interface": "declaration", "type": "declaration", "private": "member", "public": "member", "protected": "member", "readonly": "member", "@": "member"},
	"tsx":        {"import": "declaration", "export": "declaration", "interface": "declaration", "type": "declaration", "private": "member", "public": "member", "protected": "member", "readonly": "member", "@": "member"},
	"javascript": {"import": "declaration", "export": "declaration", "@": "member"},
}

// keywordContext returns the context a pattern's first word asks for,
// when the language has it.
func keywordContext(lang *Language, pattern string) string {
	kw := declKeywords[lang.ID]
	if kw == nil {
		return ""
	}
	s := strings.TrimSpace(pattern)
	end := strings.IndexAny(s, " \t\n(<{'\"")
	if end < 0 {
		end = len(s)
	}
	word := s[:end]
	ctx, ok := kw[word]
	if !ok && s != "" && (s[0] == '@' || s[0] == '[') {
		ctx, ok = kw[s[:1]]
	}
	if !ok && strings.HasPrefix(s, "#[") {
		ctx, ok = kw["#["]
	}
	if !ok || !slices.Contains(lang.contextNames(), ctx) {
		return ""
	}
	return ctx
}

// tolerable reports whether every ERROR and MISSING node of a pattern's
// parse sits at or next to a metavariable: an ERROR whose whole text is
// one (a lone $$$ where the grammar wants a statement, member, arm or
// pair), or a MISSING token right before or after one (the ';' a bare
// $$$ lacks). Such a parse reads the metavariable where the user put it;
// an error anywhere else means the pattern is not code.
func tolerable(t *Tree, hs, he uint32) bool {
	e := t.Lang.expando
	var ok func(i int) bool
	ok = func(i int) bool {
		n := &t.nodes[i]
		if n.flags&flagMissing != 0 {
			// Only a separator may be missing: a missing body or name
			// (Python's class $A) means the pattern is incomplete.
			k := t.Lang.kindName(t.Lang.kind(n.sym))
			return (k == ";" || k == ",") && n.start >= hs && n.start <= he &&
				(endsWithMeta(string(t.Src[hs:n.start]), e) || startsWithMeta(string(t.Src[n.start:he]), e))
		}
		var prev int = -1
		for c := i + 1; c < int(n.next); c = int(t.nodes[c].next) {
			cn := &t.nodes[c]
			if cn.flags&flagError != 0 {
				// A metavariable standing alone where the grammar wanted
				// something else: between punctuation, not glued to a
				// word the pattern wrote (class $A).
				if cn.start < hs || cn.end > he || !t.metaError(c) {
					return false
				}
				nx := int(cn.next)
				for nx < int(n.next) && t.skip(nx) && !t.metaError(nx) {
					nx = int(t.nodes[nx].next)
				}
				if prev >= 0 && t.wordLeaf(prev) || nx < int(n.next) && t.wordLeaf(nx) {
					return false
				}
			} else if !ok(c) {
				return false
			}
			if !t.skip(c) || t.metaError(c) {
				prev = c
			}
		}
		if n.flags&flagError != 0 && i == 0 {
			return false
		}
		return true
	}
	return len(t.nodes) > 0 && ok(0)
}

// wordLeaf reports a named leaf that is not a metavariable: a word the
// pattern wrote, which an ERROR beside it may have been meant to join.
func (t *Tree) wordLeaf(i int) bool {
	n := &t.nodes[i]
	if !n.named() || n.next != uint32(i)+1 {
		return false
	}
	m, _ := t.Lang.metaText(string(t.Src[n.start:n.end]))
	return m == metaNone
}

// endsWithMeta reports whether s, trailing space trimmed, ends with a
// metavariable token (in the expanded text).
func endsWithMeta(s, e string) bool {
	s = strings.TrimRight(s, " \t\r\n")
	i := len(s)
	for i > 0 && (s[i-1] == '_' || s[i-1] >= 'A' && s[i-1] <= 'Z' || s[i-1] >= '0' && s[i-1] <= '9') {
		i--
	}
	if e == "" {
		e = "$"
	}
	return strings.HasSuffix(s[:i], e) && (i < len(s) || strings.HasSuffix(s[:i], e+e+e))
}

// startsWithMeta reports whether s, leading space trimmed, starts with a
// metavariable token.
func startsWithMeta(s, e string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	if e == "" {
		e = "$"
	}
	for range 3 {
		if !strings.HasPrefix(s, e) {
			break
		}
		s = s[len(e):]
		if s == "" || s[0] == '_' || s[0] >= 'A' && s[0] <= 'Z' {
			return true
		}
	}
	return false
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// describeError locates the first ERROR or MISSING node relative to the
// pattern, in the user's own text (metavariables as written, never the
// placeholder they were parsed as).
func describeError(t *Tree, i int, hs, he uint32, prefix, indent, pattern string) string {
	n := &t.nodes[i]
	what := "syntax error"
	if n.flags&flagMissing != 0 {
		what = "missing " + t.Lang.kindName(t.Lang.kind(n.sym))
	}
	if n.start < uint32(len(prefix)) || n.start > he {
		return what + " at the end of the pattern"
	}
	body := string(t.Src[len(prefix) : uint32(len(t.Src))-0])
	from := userOffset(pattern, t.Lang.expando, indent, body, int(n.start)-len(prefix))
	to := userOffset(pattern, t.Lang.expando, indent, body, int(min(n.end, he))-len(prefix))
	frag := pattern[:from]
	line := strings.Count(frag, "\n") + 1
	col := utf8.RuneCountInString(frag[strings.LastIndex(frag, "\n")+1:]) + 1
	near := pattern[from:max(from, to)]
	if r := []rune(near); len(r) > 20 {
		near = string(r[:20])
	}
	if near != "" && n.flags&flagMissing == 0 {
		return fmt.Sprintf("%s at %d:%d near %q", what, line, col, near)
	}
	return fmt.Sprintf("%s at %d:%d", what, line, col)
}

// userOffset maps an offset in the parsed body (the expanded pattern with
// indent after each newline) back to the user's pattern.
func userOffset(pattern, e, indent, body string, off int) int {
	exp := expand(pattern, e)
	// body → expanded: drop the indent inserted after each newline.
	x := 0
	for b := 0; b < off && b < len(body) && x < len(exp); {
		if body[b] == '\n' && indent != "" && strings.HasPrefix(body[b+1:], indent) {
			b += 1 + len(indent)
			x++
			continue
		}
		b++
		x++
	}
	// expanded → pattern: walk both as expand does.
	if e == "" {
		return min(x, len(pattern))
	}
	i, j := 0, 0
	for i < len(pattern) && j < x {
		if pattern[i] == '$' {
			k := 0
			for i+k < len(pattern) && pattern[i+k] == '$' {
				k++
			}
			switch {
			case k >= 3:
				i, j = i+3, j+3*len(e)
			case i+k < len(pattern) && (pattern[i+k] == '_' || pattern[i+k] >= 'A' && pattern[i+k] <= 'Z'):
				i, j = i+k, j+k*len(e)
			default:
				i, j = i+k, j+k
			}
			continue
		}
		i++
		j++
	}
	return i
}

// sequenceKinds are containers whose children are a run of statements: a
// pattern that fills one exactly is a sequence, not the container.
var sequenceKinds = map[string]bool{
	"statement_list": true, "block": true, "module": true, "program": true,
	"source_file": true, "translation_unit": true, "compound_statement": true,
	"statement_block": true, "declaration_list": true, "class_body": true,
	"body_statement": true, "chunk": true, "stylesheet": true, "document": true,
	"stream": true, "field_declaration_list": true, "block_body": true,
}

// peel finds the node(s) that make up the hole [hs,he) of the scaffold: the
// deepest node covering it when it covers exactly, or the run of its
// children that tiles it (a sequence).
func peel(t *Tree, hs, he uint32, semi bool) ([]int, string) {
	nodes := t.nodes
	he2 := endWithSemicolon(t.Src, he, semi)
	cur := innermostCovering(t, hs, he)
	var kids []int
	for c := cur + 1; c < int(nodes[cur].next); c = int(nodes[c].next) {
		if t.skip(c) && !t.metaError(c) || nodes[c].end <= hs || nodes[c].start >= he {
			continue
		}
		if ce := t.trimEnd(c, he); nodes[c].start < hs || ce > he && ce != he2 {
			return nil, "the pattern does not form whole syntax nodes"
		}
		kids = append(kids, c)
	}
	n := &nodes[cur]
	end := t.trimEnd(cur, he)
	if n.start == hs && (end == he || end == he2) {
		// A container of statements that the pattern fills with nodes
		// and separators is no node of the pattern's: C++'s class $C {
		// $$$ }; is a class and its ';', not a translation unit.
		nodesOnly := len(kids) >= 2
		for _, k := range kids {
			nodesOnly = nodesOnly && (nodes[k].named() || isSeparator(t, k))
		}
		if !(nodesOnly && sequenceKinds[t.Lang.kindName(t.Lang.kind(n.sym))]) {
			return []int{cur}, ""
		}
	}
	// Separators beside the pattern's nodes (a class member's ';') are
	// dropped; any other token is the pattern's own (C#'s throw before
	// new E(…): without it the pattern would match every new E(…)).
	named := kids[:0:0]
	for _, k := range kids {
		if nodes[k].named() {
			named = append(named, k)
		} else if !isSeparator(t, k) {
			return nil, fmt.Sprintf("the pattern's %q is not part of one of its nodes", strings.TrimSpace(string(t.Src[nodes[k].start:nodes[k].end])))
		}
	}
	if len(named) == 0 {
		return nil, "the pattern does not form whole syntax nodes"
	}
	return named, ""
}

// isSeparator reports a ';' or ',' token.
func isSeparator(t *Tree, i int) bool {
	tok := strings.TrimSpace(string(t.Src[t.nodes[i].start:t.nodes[i].end]))
	return !t.nodes[i].named() && (tok == ";" || tok == ",")
}

// endWithSemicolon is where the pattern ending at he ends with the ';'
// the scaffold put after it, when semi and that ';' follows (after
// blanks); he otherwise. A node ending there still ends with the pattern
// (Dart's if (…) $X.dispose()).
func endWithSemicolon(src []byte, he uint32, semi bool) uint32 {
	he2 := he
	for semi && he2 < uint32(len(src)) && (src[he2] == ' ' || src[he2] == '\t') {
		he2++
	}
	if semi && he2 < uint32(len(src)) && src[he2] == ';' {
		return he2 + 1
	}
	return he
}

// innermostCovering is the deepest node of t holding [hs, he) (comments
// aside, unless a metavariable's ERROR).
func innermostCovering(t *Tree, hs, he uint32) int {
	nodes := t.nodes
	cur := 0
	for {
		found := -1
		for c := cur + 1; c < int(nodes[cur].next); c = int(nodes[c].next) {
			if t.skip(c) && !t.metaError(c) {
				continue
			}
			if nodes[c].start <= hs && nodes[c].end >= he {
				found = c
				break
			}
		}
		if found < 0 {
			return cur
		}
		cur = found
	}
}

// trimEnd is node i's end, less the whitespace after the pattern's end
// he that it may hold (a TOML table or YAML item owns its newline).
func (t *Tree) trimEnd(i int, he uint32) uint32 {
	end := t.nodes[i].end
	for end > he && isSpace(t.Src[end-1]) {
		end--
	}
	return end
}

// skip reports nodes that matching ignores: comments, other extras, and
// MISSING nodes. An ERROR node is never one, though tree-sitter marks
// the tokens its error recovery skipped as an extra ERROR: the code
// there is code the pattern does not spell (C's static BROTLI_INLINE
// void f(), where the void is such an ERROR, is not static $T $F(), and
// a rewrite of it would drop the void); a $$$ may take it.
func (t *Tree) skip(i int) bool {
	n := &t.nodes[i]
	if n.flags&flagError != 0 {
		return false
	}
	if n.skipped() {
		return true
	}
	k := t.Lang.kind(n.sym)
	return k >= 0 && t.Lang.comment[k]
}

// metaError reports an ERROR node whose whole text is a metavariable: a
// tolerated parse keeps it as that metavariable (see tolerable), although
// tree-sitter may mark it extra.
func (t *Tree) metaError(i int) bool {
	n := &t.nodes[i]
	if n.flags&flagError == 0 {
		return false
	}
	m, _ := t.Lang.metaText(trimSeparators(string(t.Src[n.start:n.end])))
	return m != metaNone
}

// trimSeparators drops the space and commas around an ERROR
// node's text: an ERROR that swallowed the ',' before a lone $$$ (JSON's
// ["a", $$$]) still stands for that $$$ (build puts the comma back).
func trimSeparators(s string) string {
	return strings.Trim(s, " \t\r\n,")
}

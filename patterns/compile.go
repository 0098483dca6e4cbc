// This file compiles a pattern: metavariables are rewritten to a character
// the grammar accepts in identifiers, the fragment is parsed inside the
// language's ladder of scaffolds, the first scaffold without ERROR or
// MISSING nodes wins, and the scaffold is peeled so the pattern's own
// node(s) become the root.

package patterns

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

type metaKind uint8

const (
	metaNone   metaKind = iota
	metaSingle          // $X: one named node
	metaAny             // $$X: one node, named or not
	metaMulti           // $$$X: zero or more siblings
)

// pnode is one node of a compiled pattern.
type pnode struct {
	kind     int32
	named    bool
	leaf     bool
	text     string // leaves only ('$' restored)
	meta     metaKind
	name     string // metavariable name; "" when it captures nothing ($_, $$$)
	children []*pnode
}

// height is the number of levels below p.
func (p *pnode) height() int {
	h := 0
	for _, c := range p.children {
		h = max(h, 1+c.height())
	}
	return h
}

// repeatedNames returns the metavariable names used more than once in
// the pattern.
func repeatedNames(roots []*pnode) map[string]bool {
	seen, rep := map[string]bool{}, map[string]bool{}
	var walk func(p *pnode)
	walk = func(p *pnode) {
		if p.name != "" {
			rep[p.name] = seen[p.name]
			seen[p.name] = true
		}
		for _, c := range p.children {
			walk(c)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	for name, r := range rep {
		if !r {
			delete(rep, name)
		}
	}
	return rep
}

func (p *pnode) isSemicolon() bool {
	return p.meta == metaNone && p.leaf && !p.named && p.text == ";"
}

// isComma reports a ',' token: the separator that may be left out next
// to an empty $$$.
func (p *pnode) isComma() bool { return p.meta == metaNone && p.leaf && !p.named && p.text == "," }

// lowerMeta finds a would-be metavariable with a lowercase name ($args),
// which is plain text to the grammar.
var lowerMeta = regexp.MustCompile(`\$+[a-z][A-Za-z0-9_]*`)

// loneBody finds braces holding only a $$$ metavariable (expanded: any
// run of three identical non-space characters then a name).
var loneBody = regexp.MustCompile(`\{\s*((?:\$\$\$|µµµ|𐀀𐀀𐀀|___)[A-Z0-9_]*)\s*\}`)

// altMeta finds an expanded metavariable's marker run (see altPrefix).
var altMeta = regexp.MustCompile(`µ+`)

// loneFor finds a for header that is only a $$$ metavariable.
var loneFor = regexp.MustCompile(`\bfor\s*\(\s*((?:\$\$\$|µµµ|𐀀𐀀𐀀|___)[A-Z0-9_]*)\s*\)`)

// loneSwitch finds a Swift switch whose body is only a $$$ metavariable,
// which Swift's grammar reads as a call with a trailing closure.
var loneSwitch = regexp.MustCompile(`\bswitch\b([^{}]*)\{\s*((?:µµµ)[A-Z0-9_]*)\s*\}`)

// Bash reads $$$ right before a ';' as $$ then $; (while $$$; do), and
// takes $F() { … } for a command and a subshell: a name is a word there.
var (
	bashMultiSemi = regexp.MustCompile(`(\$\$\$[A-Z0-9_]*);`)
	bashFuncName  = regexp.MustCompile(`(^|\n)([ \t]*)\$([A-Z_][A-Z0-9_]*)([ \t]*\([ \t]*\))`)
)

// bashNameMark starts the word that stands for a function name's
// metavariable in the bash retry.
const bashNameMark = "agentToolsMeta_"

// unmarkNames turns the words bashFuncName's retry put in back into the
// metavariables they stand for.
func unmarkNames(p *pnode) {
	for _, c := range p.children {
		if c.leaf && c.meta == metaNone && strings.HasPrefix(c.text, bashNameMark) {
			name := strings.TrimPrefix(c.text, bashNameMark)
			if name == "_" {
				name = ""
			}
			*c = pnode{meta: metaSingle, name: name}
			continue
		}
		unmarkNames(c)
	}
}

// hoistDefault replaces a switch entry that is only default: $$$ (put
// there by the loneSwitch retry) with its $$$, so the run takes every
// entry of the switch.
func hoistDefault(p *pnode, lang *Language) {
	for i, c := range p.children {
		if lang.kindName(c.kind) == "switch_entry" && c.meta == metaNone && len(c.children) == 3 &&
			c.children[0].leaf && c.children[0].text == "default" && c.children[1].leaf && c.children[1].text == ":" && c.children[2].meta == metaMulti {
			p.children[i] = c.children[2]
			continue
		}
		hoistDefault(c, lang)
	}
}

// dropForSemis removes the two ';' a retried for ($$$;;) header added
// after its $$$, so the run takes the whole header.
func dropForSemis(p *pnode) {
	for i := 0; i+3 < len(p.children); i++ {
		c := p.children
		if c[i].meta == metaMulti && c[i+1].isSemicolon() && c[i+2].isSemicolon() && c[i+3].leaf && c[i+3].text == ")" {
			p.children = append(c[:i+1:i+1], c[i+3:]...)
			break
		}
	}
	for _, c := range p.children {
		dropForSemis(c)
	}
}

// keywordAsName reports a reading whose first token is a name spelled
// like one of the grammar's keywords (a method named switch).
func (p *Pattern) keywordAsName() bool {
	n := p.nodes[0]
	for !n.leaf && n.meta == metaNone && len(n.children) > 0 {
		n = n.children[0]
	}
	return n.leaf && n.named && isWord(n.text) && p.Lang.keywords[n.text]
}

// CompileOptions force how a pattern is read.
type CompileOptions struct {
	// Context restricts the ladder to one context: statement, expression,
	// member, declaration or type (where the language has it).
	Context string
	// Selector picks, inside the parsed fragment, the first node of this
	// kind as the pattern (ast-grep's --selector).
	Selector string
}

// Pattern is a compiled pattern for one language.
type Pattern struct {
	Source  string
	Lang    *Language
	Context string // the ladder context that accepted it
	// Roots are the kinds of the pattern's top node(s); several when the
	// pattern is a sequence of statements.
	Roots    []string
	nodes    []*pnode
	literals []literal
	// rootSyms marks the symbols a match's root node can have (1), for a
	// single-node pattern that is not a metavariable and has literals: a
	// match holds one of them, so only the subtrees around their
	// occurrences need flattening. Nil otherwise.
	rootSyms []uint8
	// repeated holds the metavariable names used more than once.
	repeated map[string]bool
	// depth is how deep below a match's root the matcher looks (the
	// pattern's height) when no metavariable repeats (a repeat compares
	// captured subtrees token by token); 0 means the whole subtree.
	depth int
	// nestBlind says a Python search may leave out nested statements
	// that cannot hold a match (see pyNest).
	nestBlind bool
}

// ReadAs says how the pattern was read, e.g. "statement: call_expression".
func (p *Pattern) ReadAs() string {
	if len(p.Roots) == 1 {
		return p.Context + ": " + p.Roots[0]
	}
	return fmt.Sprintf("%s: sequence of %d (%s)", p.Context, len(p.Roots), strings.Join(p.Roots, ", "))
}

// OtherReadings returns the patterns p's source compiles to when another
// context of the ladder is forced, when they read it as different nodes:
// the readings a user may have meant when p's own finds nothing.
func (p *Pattern) OtherReadings() []*Pattern {
	var out []*Pattern
	seen := map[string]bool{strings.TrimPrefix(p.ReadAs(), p.Context+": "): true}
	for _, name := range p.Lang.contextNames() {
		if name == p.Context {
			continue
		}
		q, err := Compile(p.Lang, p.Source, CompileOptions{Context: name})
		if err != nil {
			continue
		}
		node := strings.TrimPrefix(q.ReadAs(), q.Context+": ")
		if seen[node] {
			continue
		}
		seen[node] = true
		out = append(out, q)
	}
	return out
}

// Compile parses pattern for lang.
func Compile(lang *Language, pattern string, opts CompileOptions) (*Pattern, error) {
	if ok, why := lang.Available(); !ok {
		return nil, fmt.Errorf("language %s: %s", lang.ID, why)
	}
	if strings.TrimSpace(pattern) == "" {
		return nil, fmt.Errorf("empty pattern: give a code fragment such as foo($X)")
	}
	ladder, err := ladderFor(lang, pattern, opts.Context)
	if err != nil {
		return nil, err
	}
	expanded := lang.expand(pattern)
	p := newParser()
	defer p.close()
	var fails []string
	// A sequence, or a reading that takes a keyword for a name, is only
	// kept while the table is run: a single node of a later reading
	// beats it (see compileReadings).
	var seq, suspect *Pattern
	for _, r := range compileReadings {
		if r.retry && (opts.Selector != "" || r.applies != nil && !r.applies(lang)) {
			continue
		}
		text, selector := expanded, opts.Selector
		if r.retry {
			if text = r.rewrite(lang, expanded); text == expanded {
				continue
			}
			selector = ""
		}
		for _, s := range ladder {
			pat, why := tryScaffold(p, lang, s, pattern, text, selector, r.tolerant)
			switch {
			case pat == nil:
				if r.explains && !slices.Contains(fails, why) {
					fails = append(fails, why)
				}
			case pat.keywordAsName() && !r.keywordName:
				if r.fallbacks && suspect == nil {
					suspect = pat
				}
			case len(pat.nodes) == 1:
				if r.fix != nil {
					r.fix(pat)
				}
				return pat, nil
			case r.fallbacks && seq == nil:
				seq = pat
			}
		}
		if r.thenSequence && seq != nil {
			return seq, nil
		}
	}
	if suspect != nil {
		return suspect, nil
	}
	return nil, fmt.Errorf("unparseable pattern for %s: no context accepts it (%s); fix the syntax, or force a reading with context/selector%s", lang.ID, strings.Join(fails, "; "), lowerMetaHint(pattern))
}

// A reading is one way Compile tries to read a pattern: the pattern's
// text (expanded, or rewritten by a retry) parsed in every scaffold of
// the ladder, strictly or with the tolerance for errors next to
// metavariables (see tolerable). The first reading that yields a single
// node wins.
type reading struct {
	name     string // what the reading is, for people reading the table
	tolerant bool   // errors next to metavariables are tolerated
	// explains says the reading's failures are the reasons the error
	// gives when no reading accepts the pattern.
	explains bool
	// fallbacks says a sequence or a keyword-as-name reading found here
	// is kept as a fallback; other readings want a single node.
	fallbacks bool
	// thenSequence says a sequence kept so far is taken once this
	// reading is done, before the retries below it.
	thenSequence bool
	// keywordName accepts a reading whose first token is a name spelled
	// like a keyword.
	keywordName bool
	// A retry rewrites the text (rewrite; skipped when it changes
	// nothing, and under a selector), where applies says it is meant for
	// the language (nil: any), and fix makes the pattern read undo what
	// the rewrite added.
	retry   bool
	applies func(lang *Language) bool
	rewrite func(lang *Language, expanded string) string
	fix     func(pat *Pattern)
}

// compileReadings is what Compile tries, in order. A clean parse in any
// context beats one that needs the tolerance for errors next to
// metavariables, and a single node covering the whole pattern, even a
// tolerated one, beats a sequence (C's #define $M $$$ is a preproc_def,
// not an identifier and an argument; Dart's for ($$$) { $$$ } a loop, not
// a method). A reading that takes a keyword for a name (Java's for ($$$)
// { $$$ } as a constructor named for) comes last of all.
//
// A language quirk that a rewrite of the text gets past is a retry here:
// its rewrite, its fix, and applies naming the language when it is only
// one's.
var compileReadings = []reading{
	{name: "as written", explains: true, fallbacks: true},
	{name: "as written, tolerant", tolerant: true, fallbacks: true, thenSequence: true},
	{
		// A body that is a lone $$$ where a statement needs its ';' (C#
		// reads { $$$ } after if (…) as an initializer), and a for header
		// that is a lone $$$: retry with the ';'s, which the pattern then
		// drops again.
		name: "lone $$$ body or for header, with ';'", tolerant: true, retry: true,
		rewrite: func(_ *Language, x string) string {
			x = loneBody.ReplaceAllString(x, "{ ${1}; }")
			return loneFor.ReplaceAllString(x, "for (${1};;)")
		},
		fix: func(pat *Pattern) { dropForSemis(pat.nodes[0]) },
	},
	{
		// A Swift switch { $$$ }: retry with the $$$ as a default entry's
		// statements, then let it stand for all the entries.
		name: "Swift switch body as a default entry", retry: true,
		applies: func(l *Language) bool { return l.ID == "swift" },
		rewrite: func(_ *Language, x string) string {
			return loneSwitch.ReplaceAllString(x, "switch${1}{ default: ${2} }")
		},
		fix: func(pat *Pattern) {
			hoistDefault(pat.nodes[0], pat.Lang)
			pat.literals = literals(pat.nodes, pat.Lang) // default is not the user's
			if pat.rootSyms != nil && pat.depth > 0 {
				pat.depth = pat.nodes[0].height()
			}
		},
	},
	{
		// Bash reads $$$ right before a ';' as $$ then $; and $F() { … }
		// as a command and a subshell: retry with a space before the ';'
		// and the name as a word, which the pattern turns back into the
		// metavariable.
		name: "Bash $$$; and function name", retry: true, keywordName: true,
		applies: func(l *Language) bool { return l.ID == "bash" },
		rewrite: func(_ *Language, x string) string {
			x = bashMultiSemi.ReplaceAllString(x, "$1 ;")
			return bashFuncName.ReplaceAllString(x, "${1}${2}"+bashNameMark+"${3}${4}")
		},
		fix: func(pat *Pattern) {
			unmarkNames(pat.nodes[0])
			pat.index()
		},
	},
	// PHP writes variables with '$', and Ruby's class names are
	// constants: a $X where the grammar wants one ($X = $Y, catch
	// (Exception $E), class $C < $B) is read as one, with the language's
	// prefix before the placeholder.
	{name: "metavariables with the language's prefix", retry: true, applies: hasAltPrefix, rewrite: withAltPrefix},
	{name: "metavariables with the language's prefix, tolerant", tolerant: true, retry: true, applies: hasAltPrefix, rewrite: withAltPrefix},
}

func hasAltPrefix(l *Language) bool { return l.altPrefix != "" }

func withAltPrefix(l *Language, x string) string {
	return altMeta.ReplaceAllStringFunc(x, func(m string) string { return l.altPrefix + m })
}

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
	} else if ctx := keywordContext(lang, pattern); ctx != "" {
		// A pattern that opens with a declaration keyword or an access
		// modifier means a declaration or member, even where a statement
		// reading parses too (Go's func (r *T) M() *T { … } reads as a
		// multiplication statement).
		ladder = slices.Clone(ladder)
		sort.SliceStable(ladder, func(i, j int) bool { return ladder[i].name == ctx && ladder[j].name != ctx })
	}
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

// lowerMetaHint is the error's hint for a would-be metavariable written
// in lowercase; "" when the pattern has none.
func lowerMetaHint(pattern string) string {
	for _, loc := range lowerMeta.FindAllStringIndex(pattern, -1) {
		// Right after a quote it is a string's text ("$ref" in JSON), as
		// the user meant.
		if loc[0] > 0 && strings.ContainsRune("\"'`", rune(pattern[loc[0]-1])) {
			continue
		}
		m := pattern[loc[0]:loc[1]]
		return fmt.Sprintf("; %s is not a metavariable: names are uppercase (%s)", m, strings.ToUpper(m))
	}
	return ""
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
	if selector != "" {
		if roots = selected(tree, hs, he, selector); roots == nil {
			return nil, fmt.Sprintf("%s: no %s node in the pattern", s.name, selector)
		}
	}
	c := &compiler{t: tree, he: he}
	pat := &Pattern{Source: pattern, Lang: lang, Context: s.name}
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

// index sets what search reads from the pattern's nodes besides the
// nodes: its literals, repeated names, root symbols and depth.
func (pat *Pattern) index() {
	lang := pat.Lang
	pat.literals = literals(pat.nodes, lang)
	pat.repeated = repeatedNames(pat.nodes)
	pat.rootSyms, pat.depth = nil, 0
	if r := pat.nodes[0]; len(pat.nodes) == 1 && r.meta == metaNone && len(pat.literals) > 0 {
		pat.rootSyms = make([]uint8, len(lang.kinds))
		for sym := range lang.kinds {
			if lang.kinds[sym] == r.kind {
				pat.rootSyms[sym] = 1
			}
		}
		if len(pat.repeated) == 0 {
			pat.depth = r.height()
		}
	}
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
	// With semi, a ';' the scaffold put after the pattern may end the
	// pattern's statement (Dart's if (…) $X.dispose()): a node ending
	// there still ends with the pattern.
	he2 := he
	for semi && he2 < uint32(len(t.Src)) && (t.Src[he2] == ' ' || t.Src[he2] == '\t') {
		he2++
	}
	if semi && he2 < uint32(len(t.Src)) && t.Src[he2] == ';' {
		he2++
	} else {
		he2 = he
	}
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
			break
		}
		cur = found
	}
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
		allNamed := len(kids) >= 2
		for _, k := range kids {
			allNamed = allNamed && nodes[k].named()
		}
		if !(allNamed && sequenceKinds[t.Lang.kindName(t.Lang.kind(n.sym))]) {
			return []int{cur}, ""
		}
	}
	// Tokens beside the pattern's nodes (a class member's ';') are dropped.
	named := kids[:0:0]
	for _, k := range kids {
		if nodes[k].named() {
			named = append(named, k)
		}
	}
	if len(named) == 0 {
		return nil, "the pattern does not form whole syntax nodes"
	}
	return named, ""
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
// MISSING nodes.
func (t *Tree) skip(i int) bool {
	n := &t.nodes[i]
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

type compiler struct {
	t  *Tree
	he uint32 // where the pattern's text ends in the scaffold
}

func (c *compiler) build(i int) *pnode {
	t := c.t
	n := &t.nodes[i]
	text := string(t.Src[n.start:n.end])
	if n.flags&flagError != 0 {
		text = trimSeparators(text)
	}
	if m, name := t.Lang.metaText(text); m != metaNone {
		return &pnode{meta: m, name: name}
	}
	p := &pnode{kind: t.Lang.kind(n.sym), named: n.named()}
	missing := false
	for ch := i + 1; ch < int(n.next); ch = int(t.nodes[ch].next) {
		// A token the parser invented, or the ';' the scaffold put after
		// the pattern, is not the user's.
		invented := t.nodes[ch].flags&flagMissing != 0 || t.nodes[ch].start >= c.he && c.he > 0
		missing = missing || invented
		if t.skip(ch) && !t.metaError(ch) || invented {
			continue
		}
		if t.metaError(ch) && strings.HasPrefix(strings.TrimSpace(string(t.Src[t.nodes[ch].start:t.nodes[ch].end])), ",") {
			if k, ok := t.Lang.kindOf(",", false); ok {
				p.children = append(p.children, &pnode{kind: k, leaf: true, text: ","})
			}
		}
		p.children = append(p.children, c.build(ch))
	}
	// The ';' after a $$$ in a body ({ $$$; }) may parse as an empty
	// statement of its own: it only ends the $$$.
	for k := 1; k < len(p.children); k++ {
		if e := p.children[k]; p.children[k-1].meta == metaMulti && !e.leaf && len(e.children) == 1 && e.children[0].isSemicolon() {
			p.children = append(p.children[:k], p.children[k+1:]...)
			break
		}
	}
	if len(p.children) == 0 {
		p.leaf = true
		p.text = restore(text, t.Lang.expando)
	}
	// A statement that is only a $$$ and its ';' is that $$$: { $$$; }
	// is a body of any statements. A node that is only a metavariable and
	// a token the parser had to invent (C's $S in if ($X) $S, missing its
	// ';') is that metavariable: any statement.
	if len(p.children) == 2 && p.children[0].meta == metaMulti && p.children[1].isSemicolon() ||
		len(p.children) == 1 && p.children[0].meta != metaNone && missing {
		return p.children[0]
	}
	return dartBlock(t.Lang, p)
}

// dartBlock reads Dart's { $$$ } statement as the block a person means:
// after if (…) or for (…) the grammar takes it for a set literal statement
// (ast-grep's documented Dart trap), which no loop body would match.
func dartBlock(l *Language, p *pnode) *pnode {
	if l.ID != "dart" || l.kindName(p.kind) != "expression_statement" || len(p.children) == 0 {
		return p
	}
	lit := p.children[0]
	if lit.meta != metaNone || l.kindName(lit.kind) != "set_or_map_literal" || len(lit.children) < 2 {
		return p
	}
	for _, c := range lit.children[1 : len(lit.children)-1] {
		if c.meta == metaNone {
			return p
		}
	}
	block, ok := l.kindOf("block", true)
	if !ok {
		return p
	}
	return &pnode{kind: block, named: true, children: lit.children}
}

// expand rewrites metavariables for grammars that cannot parse '$' in
// identifiers: every $$$, and $ or $$ before [A-Z_].
func expand(s, e string) string {
	if e == "" {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '$' {
			b.WriteByte(s[i])
			i++
			continue
		}
		k := 0
		for i+k < len(s) && s[i+k] == '$' {
			k++
		}
		switch {
		case k >= 3:
			b.WriteString(strings.Repeat(e, 3))
			i += 3
		case i+k < len(s) && (s[i+k] == '_' || s[i+k] >= 'A' && s[i+k] <= 'Z'):
			b.WriteString(strings.Repeat(e, k))
			i += k
		default:
			b.WriteString(s[i : i+k])
			i += k
		}
	}
	return b.String()
}

// expand rewrites a pattern's metavariables for l's grammar. TOML has
// no token that is both a key and a value but a quoted string, so there
// each metavariable not already inside quotes is also quoted.
func (l *Language) expand(s string) string {
	x := expand(s, l.expando)
	if !l.quoteMeta {
		return x
	}
	var b strings.Builder
	e := l.expando
	for i := 0; i < len(x); {
		if !strings.HasPrefix(x[i:], e) {
			b.WriteByte(x[i])
			i++
			continue
		}
		j := i
		for strings.HasPrefix(x[j:], e) {
			j += len(e)
		}
		for j < len(x) && (x[j] == '_' || x[j] >= 'A' && x[j] <= 'Z' || x[j] >= '0' && x[j] <= '9') {
			j++
		}
		if i > 0 && x[i-1] == '"' {
			if l.quotedContent {
				b.WriteString(restore(x[i:j], e)) // "$V": see metaText
			} else {
				b.WriteString(x[i:j])
			}
		} else {
			b.WriteString(`"` + x[i:j] + `"`)
		}
		i = j
	}
	return b.String()
}

// metaText recognises a node whose whole text is a metavariable (for
// TOML, inside the quotes expand added).
func (l *Language) metaText(text string) (metaKind, string) {
	if l.quotedContent && strings.HasPrefix(text, "$") {
		return metaOf(text, "$") // a string's content the user quoted
	}
	if l.quoteMeta && len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
		text = text[1 : len(text)-1]
	}
	if l.altPrefix != "" && strings.HasPrefix(text, l.altPrefix+l.expando) {
		text = text[len(l.altPrefix):] // a metavariable read as a PHP variable or Ruby constant
	}
	return metaOf(text, l.expando)
}

func restore(s, e string) string {
	if e == "" || e == "_" {
		return s
	}
	return strings.ReplaceAll(s, e, "$")
}

// metaOf recognises a node whose whole text is a metavariable.
func metaOf(text, e string) (metaKind, string) {
	if e == "" {
		e = "$"
	}
	if !strings.HasPrefix(text, e) {
		return metaNone, ""
	}
	kind, rest := metaSingle, text[len(e):]
	if strings.HasPrefix(rest, e+e) {
		kind, rest = metaMulti, rest[2*len(e):]
		if rest == "" {
			return metaMulti, ""
		}
	} else if strings.HasPrefix(rest, e) {
		kind, rest = metaAny, rest[len(e):]
	}
	if !validMetaName(rest) {
		return metaNone, ""
	}
	if rest[0] == '_' {
		rest = ""
	}
	return kind, rest
}

func validMetaName(s string) bool {
	if s == "" || !(s[0] == '_' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// A literal is a token a file's text must contain for the pattern to
// match there. A word literal (an ASCII identifier or keyword) must occur
// as a whole word: not right after a letter or '_', nor right before a
// letter, digit or '_'. A digit may precede it, as in Python's 1if.
type literal struct {
	text []byte
	word bool
}

// literals returns up to four of the pattern's longest literal tokens.
func literals(roots []*pnode, lang *Language) []literal {
	seen := map[string]bool{} // text → may be checked as a word
	var walk func(p *pnode)
	walk = func(p *pnode) {
		if p.meta != metaNone {
			return
		}
		// Semicolons and commas may be missing where the pattern has them
		// (see seq): they are no evidence.
		optional := p.isSemicolon() || p.isComma()
		if p.leaf && !optional && p.text != "" && (p.named || lang.ID != "php") && !strings.ContainsAny(p.text, " \t\r\n") {
			// Keywords (anonymous leaves), identifiers and keyword
			// constants (a node None of kind none) are whole tokens; other
			// named leaves, such as string contents, can sit next to
			// letters (an escape before "\nhello"), and Bash words and
			// HTML text can too.
			kind := lang.kindName(p.kind)
			text := p.text
			word := isWord(text) && lang.ID != "bash" && lang.ID != "html" &&
				(!p.named || strings.Contains(kind, "identifier") || strings.EqualFold(kind, text))
			// A preprocessor keyword's token may hold spaces after its
			// '#' (#  define): the word after it is what the text holds.
			if !p.named && len(text) > 1 && text[0] == '#' && isWord(text[1:]) {
				text, word = text[1:], true
			}
			if prev, ok := seen[text]; !ok || prev {
				seen[text] = word
			}
		}
		for _, c := range p.children {
			walk(c)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	var ls []string
	for s := range seen {
		ls = append(ls, s)
	}
	sort.Slice(ls, func(i, j int) bool {
		if len(ls[i]) != len(ls[j]) {
			return len(ls[i]) > len(ls[j])
		}
		return ls[i] < ls[j]
	})
	if len(ls) > 4 {
		ls = ls[:4]
	}
	out := make([]literal, len(ls))
	for i, s := range ls {
		out[i] = literal{text: []byte(s), word: seen[s]}
	}
	return out
}

// isWord reports an ASCII identifier: [A-Za-z_][A-Za-z0-9_]*.
func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

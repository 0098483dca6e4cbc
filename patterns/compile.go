// This file compiles a pattern: Compile runs the table of readings
// (compileReadings), each parsing the pattern's text, metavariables
// rewritten (metavars.go), in the ladder's scaffolds (scaffold.go); the
// first single node wins, and the compiler builds the pattern's own
// nodes (pnode) from the peeled tree.

package patterns

import (
	"fmt"
	"math/bits"
	"regexp"
	"slices"
	"strings"
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
	// gap is the text inside the node that no child covers (a Dart
	// string's content), as gapText writes it; a match's must be the
	// same when hasGap. Off where a metavariable could stand in that
	// text or a $$$ child could take children whose gaps are not ours.
	gap    string
	hasGap bool
	// gapRe, where the uncovered text holds metavariables (a Scala
	// string's "RESIDUAL: $A\n", whose text is no child), is that text
	// with each metavariable standing for any run of text: the literal
	// parts must be there (they were not compared at all, so the string
	// matched any string with one escape sequence). Nothing is bound.
	gapRe *regexp.Regexp
}

// height is the number of levels below p in the code it matches: one
// per level of the pattern, two where l may wrap the node.
func (p *pnode) height(l *Language) int {
	h := 0
	for _, c := range p.children {
		up := 1
		if l.mayBeWrapped(c.kind) && c.meta == metaNone {
			up = 2 // the code may hold it in a wrapper (see unwrapped)
		}
		h = max(h, up+c.height(l))
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
// after its $$$, so the run takes the whole header. (JavaScript reads the
// second as an empty statement: left in, it took the second ';' of a
// for (;;) from the run, and a rewrite lost it.)
func dropForSemis(p *pnode) {
	semi := func(n *pnode) bool {
		return n.isSemicolon() || n.meta == metaNone && !n.leaf && len(n.children) == 1 && n.children[0].isSemicolon()
	}
	for i := 0; i+3 < len(p.children); i++ {
		c := p.children
		if c[i].meta == metaMulti && semi(c[i+1]) && semi(c[i+2]) && c[i+3].leaf && c[i+3].text == ")" {
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
	// scaffold is the ladder's entry that read it (a context may have
	// several: C's declaration is a line, or a declarator after int).
	scaffold scaffold
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
	// gapBlind makes sameTokens compare as ast-grep does: the tokens and
	// the named nodes' kinds, not the text no child covers. Set only by
	// the generated differential, to show a difference from ast-grep is
	// that one alone.
	gapBlind bool
	// nestBlind says a Python search may leave out nested statements
	// that cannot hold a match (see pyNest).
	nestBlind bool
	// lineDirective says a C or C++ search parses only the directive
	// lines that can hold a match (see parseDirectives).
	lineDirective lineDirective
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
		texts, selector := []string{expanded}, opts.Selector
		if r.retry {
			switch {
			case r.variants != nil:
				texts = r.variants(lang, expanded)
			case r.rewrite(lang, expanded) == expanded:
				continue
			default:
				texts = []string{r.rewrite(lang, expanded)}
			}
			selector = ""
		}
		for _, text := range texts {
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
				case s.sequenceWins:
					return pat, nil
				case len(pat.nodes) == 1:
					if r.fix != nil {
						r.fix(pat)
					}
					return pat, nil
				case r.fallbacks && seq == nil:
					seq = pat
				}
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
	// variants, in place of rewrite, gives a retry's texts to try in
	// turn; the first that reads as a single node wins.
	variants func(lang *Language, expanded string) []string
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
				pat.depth = pat.nodes[0].height(pat.Lang)
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
	// Where only some of them stand for a constant (Haskell's type $T
	// $A $B = ($A, $B): a type's name, then its variables), some of them.
	{name: "some metavariables with the language's prefix", retry: true, applies: hasAltPrefix, variants: altPrefixVariants},
	{name: "metavariables with the language's prefix, tolerant", tolerant: true, retry: true, applies: hasAltPrefix, rewrite: withAltPrefix},
	// A body that is a lone $$$ where no member of the grammar is a bare
	// name (Kotlin's object $O { $$$ }, whose parse is all ERROR): retry
	// with the body empty, and put the $$$ back in it.
	{name: "lone $$$ body, emptied", retry: true, rewrite: emptyLoneBody, fix: refillLoneBody},
	// A $X where the grammar takes only a string: a module in JS and
	// TS (import { $$$ } from $M) and Dart (import $M;), an import path
	// in Go (import $P). Each metavariable in turn is retried as a marked
	// string literal, which the pattern reads as the metavariable
	// standing for that string, whatever its quotes (see quotedMeta).
	{name: "a metavariable as a string literal", retry: true, variants: quotedMetaVariants},
}

// emptyLoneBody empties the pattern's one lone-$$$ body; it leaves a
// pattern with more than one, or with an empty body of its own, as it is
// (refillLoneBody could not tell which body to refill).
func emptyLoneBody(_ *Language, x string) string {
	if len(loneBody.FindAllStringIndex(x, -1)) != 1 || emptyBody.MatchString(x) {
		return x
	}
	return loneBody.ReplaceAllString(x, "{}")
}

// emptyBody finds braces with nothing but blanks inside.
var emptyBody = regexp.MustCompile(`\{\s*\}`)

// refillLoneBody puts the $$$ that emptyLoneBody took out back into the
// one empty body of the pattern.
func refillLoneBody(pat *Pattern) {
	m := loneBodySource.FindStringSubmatch(pat.Source)
	if m == nil {
		return
	}
	_, name := metaOf(m[1], "$")
	var fill func(p *pnode) bool
	fill = func(p *pnode) bool {
		if len(p.children) == 2 && p.children[0].leaf && p.children[0].text == "{" && p.children[1].leaf && p.children[1].text == "}" {
			p.children = []*pnode{p.children[0], {meta: metaMulti, name: name}, p.children[1]}
			p.hasGap = false
			return true
		}
		for _, c := range p.children {
			if fill(c) {
				return true
			}
		}
		return false
	}
	fill(pat.nodes[0])
	pat.index()
	pat.nestBlind = nestBlind(pat)
}

// loneBodySource is loneBody in a pattern as the user wrote it.
var loneBodySource = regexp.MustCompile(`\{\s*(\$\$\$[A-Z0-9_]*)\s*\}`)

// quoteMark opens the string literal that quotedMetaVariants writes for
// a metavariable: no pattern has it, and every grammar here takes it
// inside a string.
const quoteMark = "\x01"

// quotedMetaVariants returns the pattern's text once for each single
// metavariable ($X, $$X) not already inside quotes, that one written as
// a marked string literal.
func quotedMetaVariants(l *Language, x string) []string {
	e := l.expando
	if e == "" {
		e = "$"
	}
	var out []string
	for i := 0; i < len(x); {
		if !strings.HasPrefix(x[i:], e) {
			i++
			continue
		}
		j := i
		for strings.HasPrefix(x[j:], e) {
			j += len(e)
		}
		k := j
		for k < len(x) && (x[k] == '_' || x[k] >= 'A' && x[k] <= 'Z' || x[k] >= '0' && x[k] <= '9') {
			k++
		}
		if m, _ := metaOf(x[i:k], e); m != metaNone && m != metaMulti && (i == 0 || !strings.ContainsRune("\"'`", rune(x[i-1]))) {
			out = append(out, x[:i]+`"`+quoteMark+x[i:k]+`"`+x[k:])
		}
		i = k
	}
	return out
}

// quotedMeta recognises the marked string literal of quotedMetaVariants.
func (l *Language) quotedMeta(text string) (metaKind, string) {
	n := len(text)
	if n < 2+len(quoteMark) || text[0] != '"' || text[n-1] != '"' || text[1:1+len(quoteMark)] != quoteMark {
		return metaNone, ""
	}
	return metaOf(text[1+len(quoteMark):n-1], l.expando)
}

func hasAltPrefix(l *Language) bool { return l.altPrefix != "" }

// altPrefixVariants gives x with the language's prefix before some of
// its single metavariables (each use of one), fewest first: each one
// alone, then each pair, and so on, short of all of them (a reading of
// its own). Past five names, only one at a time.
func altPrefixVariants(l *Language, x string) []string {
	var names []string
	for _, name := range altMetaName.FindAllString(x, -1) {
		if m, _ := metaOf(name, l.expando); (m == metaSingle || m == metaAny) && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	most := len(names) - 1
	if len(names) > 5 {
		most = 1
	}
	var out []string
	for size := 1; size <= most; size++ {
		for set := 1; set < 1<<len(names); set++ {
			if bits.OnesCount(uint(set)) != size {
				continue
			}
			out = append(out, altMetaName.ReplaceAllStringFunc(x, func(m string) string {
				if k := slices.Index(names, m); k >= 0 && set&(1<<k) != 0 {
					return l.altPrefix + m
				}
				return m
			}))
		}
	}
	return out
}

// altMetaName finds an expanded metavariable with its name.
var altMetaName = regexp.MustCompile(`µ+[A-Z0-9_]*`)

func withAltPrefix(l *Language, x string) string {
	return altMeta.ReplaceAllStringFunc(x, func(m string) string { return l.altPrefix + m })
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
			if lang.kindMatches(lang.kinds[sym], r.kind) {
				pat.rootSyms[sym] = 1
			}
		}
		if len(pat.repeated) == 0 {
			pat.depth = r.height(lang)
		}
	}
	pat.lineDirective = lineDirectiveOf(pat)
}

type compiler struct {
	t  *Tree
	he uint32 // where the pattern's text ends in the scaffold
	// indent is what the scaffold put after each of the pattern's
	// newlines; a leaf's text is the user's without it (the lines of a
	// Python string or a Haskell quasiquote in a statement).
	indent string
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
	if m, name := t.Lang.quotedMeta(text); m != metaNone {
		return &pnode{meta: m, name: name} // the node that is only the string
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
		// The ',' an ERROR swallowed before or after its metavariable
		// (JSON's ["a", $$$] and {$$$, "a": 1}) is put back: it stays a
		// separator and no part of what the $$$ takes.
		var errText string
		if t.metaError(ch) {
			errText = strings.TrimSpace(string(t.Src[t.nodes[ch].start:t.nodes[ch].end]))
		}
		comma := func() {
			if k, ok := t.Lang.kindOf(",", false); ok {
				p.children = append(p.children, &pnode{kind: k, leaf: true, text: ","})
			}
		}
		if strings.HasPrefix(errText, ",") {
			comma()
		}
		p.children = append(p.children, c.build(ch))
		if len(errText) > 1 && strings.HasSuffix(errText, ",") {
			comma()
		}
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
		if c.indent != "" {
			text = strings.ReplaceAll(text, "\n"+c.indent, "\n")
		}
		p.text = restore(text, t.Lang.expando)
	} else if n.flags&flagError == 0 && !slices.ContainsFunc(p.children, func(c *pnode) bool { return c.meta == metaMulti }) {
		raw := string(t.gapText(nil, i, c.he))
		p.hasGap = true
		if mayHoldMeta(raw, t.Lang.expando) {
			p.gapRe = gapPattern(restore(raw, t.Lang.expando))
		}
		if p.gapRe == nil {
			p.gap = raw // (text that is no regular expression's, not UTF-8, is compared as it is)
		}
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

// This file compiles a parsed rule for one language and runs it over a
// flattened tree. A rule needs the whole tree (its relations look at
// parents and siblings), so files are parsed whole; the file prefilter
// still applies: the literal tokens of every pattern a match cannot do
// without (the rule's own, those of all, and of the relational rules'
// targets — not those under any or not) must all occur in a file's code.
// Candidates are the nodes of the kinds the rule can match at its root
// (ast-grep's potential kinds), so a rule must name some: a pattern or a
// kind at the top, or in all.

package patterns

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

type ruleOp uint8

const (
	opPattern ruleOp = iota
	opKind
	opRegex
	opAll
	opAny
	opNot
	opMatches
	opInside
	opHas
	opPrecedes
	opFollows
)

// rnode is one compiled rule operator.
type rnode struct {
	op    ruleOp
	pat   *Pattern
	kind  int32
	re    *regexp.Regexp
	subs  []*rnode // all, any
	sub   *rnode   // not, matches, relational target
	stop  int      // relational: stopNeighbor, stopEnd, stopRule
	until *rnode   // stopRule
	field uint16   // has, inside: 0 for none
	// kinds are the kinds a node this rule matches can have; nil: any.
	kinds map[int32]bool
}

// Rule is a rule compiled for one language.
type Rule struct {
	Lang     *Language
	root     *rnode
	cons     []ruleConstraint
	kinds    []bool // canonical kind → a candidate
	literals []literal
	// Patterns are the rule's patterns, for saying how each was read.
	Patterns []*Pattern
	names    map[string]bool // every metavariable name in the rule
	bound    []string        // names bound outside not, as spelled ($A, $$$B)
}

type ruleConstraint struct {
	name string
	rule *rnode
}

// ruleCompiler compiles one spec for one language.
type ruleCompiler struct {
	lang  *Language
	spec  *RuleSpec
	utils map[string]*rnode
	r     *Rule
}

// CompileRule reads spec for lang.
func CompileRule(lang *Language, spec *RuleSpec) (*Rule, error) {
	if ok, why := lang.Available(); !ok {
		return nil, fmt.Errorf("language %s: %s", lang.ID, why)
	}
	c := &ruleCompiler{lang: lang, spec: spec, utils: map[string]*rnode{}, r: &Rule{Lang: lang, names: map[string]bool{}}}
	r := c.r
	var err error
	if r.root, err = c.expr(spec.root, false); err != nil {
		return nil, err
	}
	if r.root.kinds == nil {
		return nil, fmt.Errorf("rule: it does not say which kind of node to match, so every node of every file would be a candidate: " +
			"give a pattern or a kind (at the top of the rule, or in all); regex, not, inside, has, precedes and follows only narrow what a pattern or kind finds (ast-grep refuses such a rule too)")
	}
	for _, ce := range spec.constraints {
		if !r.names[ce.name] {
			binds := "it binds no metavariable"
			if len(r.bound) > 0 {
				binds = "it binds " + strings.Join(r.bound, ", ")
			}
			return nil, fmt.Errorf("constraints.%s: $%s is not in the rule; %s", ce.name, ce.name, binds)
		}
		cr, err := c.expr(ce.expr, false)
		if err != nil {
			return nil, err
		}
		r.cons = append(r.cons, ruleConstraint{ce.name, cr})
	}
	r.kinds = make([]bool, len(lang.kindNames))
	for k := range r.root.kinds {
		if k >= 0 && int(k) < len(r.kinds) {
			r.kinds[k] = true
		}
	}
	r.literals = topLiterals(c.necessary(r.root, map[*rnode]bool{}))
	return r, nil
}

// expr compiles a rule object: its parts in ast-grep's order, all of
// them required.
func (c *ruleCompiler) expr(e *ruleExpr, inNot bool) (*rnode, error) {
	var parts []*rnode
	for _, compile := range []func(*ruleExpr, bool) ([]*rnode, error){c.atomic, c.composite, c.relations} {
		ns, err := compile(e, inNot)
		if err != nil {
			return nil, err
		}
		parts = append(parts, ns...)
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	n := &rnode{op: opAll, subs: parts}
	n.kinds = allKinds(parts)
	return n, nil
}

// atomic compiles e's tests of the node itself: pattern, kind, regex.
func (c *ruleCompiler) atomic(e *ruleExpr, inNot bool) ([]*rnode, error) {
	var parts []*rnode
	if e.pattern != nil {
		p, err := c.pattern(e.pattern, e.path+".pattern", inNot)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	if e.hasKind {
		k, ok := c.lang.kindOf(e.kind, true)
		if !ok {
			return nil, fmt.Errorf("%s.kind: %s has no node kind %q%s", e.path, c.lang.ID, e.kind, c.kindHint(e.kind))
		}
		parts = append(parts, &rnode{op: opKind, kind: k, kinds: map[int32]bool{k: true}})
	}
	if e.regex != nil {
		parts = append(parts, &rnode{op: opRegex, re: e.regex})
	}
	return parts, nil
}

// composite compiles e's combinations of rules: all, any, not, matches.
func (c *ruleCompiler) composite(e *ruleExpr, inNot bool) ([]*rnode, error) {
	var parts []*rnode
	for _, list := range []struct {
		op    ruleOp
		subs  []*ruleExpr
		kinds func([]*rnode) map[int32]bool
	}{{opAll, e.all, allKinds}, {opAny, e.any, anyKinds}} {
		if list.subs == nil {
			continue
		}
		n := &rnode{op: list.op}
		for _, s := range list.subs {
			sn, err := c.expr(s, inNot)
			if err != nil {
				return nil, err
			}
			n.subs = append(n.subs, sn)
		}
		n.kinds = list.kinds(n.subs)
		parts = append(parts, n)
	}
	if e.not != nil {
		sn, err := c.expr(e.not, true)
		if err != nil {
			return nil, err
		}
		parts = append(parts, &rnode{op: opNot, sub: sn})
	}
	if e.matches != "" {
		u, err := c.util(e.matches, inNot)
		if err != nil {
			return nil, err
		}
		parts = append(parts, &rnode{op: opMatches, sub: u, kinds: u.kinds})
	}
	return parts, nil
}

// relations compiles e's relational rules: inside, has, precedes,
// follows.
func (c *ruleCompiler) relations(e *ruleExpr, inNot bool) ([]*rnode, error) {
	var parts []*rnode
	for _, rel := range []struct {
		op ruleOp
		r  *relExpr
	}{{opInside, e.inside}, {opHas, e.has}, {opPrecedes, e.precedes}, {opFollows, e.follows}} {
		if rel.r == nil {
			continue
		}
		n, err := c.relation(rel.op, rel.r, inNot)
		if err != nil {
			return nil, err
		}
		parts = append(parts, n)
	}
	return parts, nil
}

// kindHint suggests kinds near the one asked for: a misspelling (a few
// edits away) first, then kinds whose name contains it.
func (c *ruleCompiler) kindHint(want string) string {
	type cand struct {
		name string
		dist int
	}
	var near []cand
	seen := map[string]bool{}
	for sym, k := range c.lang.kinds {
		name := c.lang.kindNames[k]
		if c.lang.namedSyms[sym] != 1 || seen[name] {
			continue
		}
		d := editDistance(name, want)
		switch {
		case d <= max(2, len(want)/4):
		case strings.Contains(name, want) || strings.Contains(want, name) && len(name) > 3:
			d = 1 << 20 // after every misspelling
		default:
			continue
		}
		seen[name] = true
		near = append(near, cand{name, d})
	}
	if len(near) == 0 {
		return " (dump: \"code\" shows the kinds of a snippet)"
	}
	sort.Slice(near, func(i, j int) bool {
		if near[i].dist != near[j].dist {
			return near[i].dist < near[j].dist
		}
		return near[i].name < near[j].name
	})
	var names []string
	for i := 0; i < len(near) && i < 8; i++ {
		names = append(names, near[i].name)
	}
	return "; did you mean " + strings.Join(names, ", ") + "?"
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (kind names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (c *ruleCompiler) pattern(pe *patternExpr, path string, inNot bool) (*rnode, error) {
	p, err := Compile(c.lang, pe.src, CompileOptions{Selector: pe.selector})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(p.nodes) != 1 {
		return nil, fmt.Errorf("%s: reads as %s; a rule's pattern must be one node (wrap it, or give {\"context\": ..., \"selector\": kind})", path, p.ReadAs())
	}
	c.r.Patterns = append(c.r.Patterns, p)
	for _, b := range p.Bound() {
		name := strings.TrimLeft(b, "$")
		if !inNot && !slices.ContainsFunc(c.r.bound, func(s string) bool { return strings.TrimLeft(s, "$") == name }) {
			c.r.bound = append(c.r.bound, b)
		}
		c.r.names[name] = true
	}
	n := &rnode{op: opPattern, pat: p}
	if r := p.nodes[0]; r.meta == metaNone {
		n.kinds = map[int32]bool{}
		for k := range int32(len(p.Lang.kindNames)) {
			if p.Lang.kindMatches(k, r.kind) {
				n.kinds[k] = true // its family's too (C++ vector<$T> finds a type)
			}
		}
	}
	return n, nil
}

// util compiles a util once per polarity: the names its patterns bind
// count for a rewrite only where it is called outside not.
func (c *ruleCompiler) util(name string, inNot bool) (*rnode, error) {
	key := name
	if inNot {
		key = "!" + name
	}
	if u := c.utils[key]; u != nil {
		return u, nil
	}
	u, err := c.expr(c.spec.utils[name], inNot)
	if err != nil {
		return nil, err
	}
	c.utils[key] = u
	return u, nil
}

func (c *ruleCompiler) relation(op ruleOp, r *relExpr, inNot bool) (*rnode, error) {
	sub, err := c.expr(r.rule, inNot)
	if err != nil {
		return nil, err
	}
	n := &rnode{op: op, sub: sub, stop: r.stop}
	if r.stopRule != nil {
		if n.until, err = c.expr(r.stopRule, inNot); err != nil {
			return nil, err
		}
	}
	if r.field != "" {
		c.lang.load()
		n.field = fieldID(c.lang.ptr, r.field)
		if n.field == 0 {
			return nil, fmt.Errorf("%s.field: %s has no field %q", r.path, c.lang.ID, r.field)
		}
		if n.field > 254 {
			return nil, fmt.Errorf("%s.field: field %q has an id past what the engine records (254)", r.path, r.field)
		}
	}
	return n, nil
}

// allKinds intersects the kinds of those parts that have some.
func allKinds(parts []*rnode) map[int32]bool {
	var out map[int32]bool
	for _, p := range parts {
		if p.kinds == nil {
			continue
		}
		if out == nil {
			out = map[int32]bool{}
			for k := range p.kinds {
				out[k] = true
			}
			continue
		}
		for k := range out {
			if !p.kinds[k] {
				delete(out, k)
			}
		}
	}
	return out
}

// anyKinds unites the kinds of the branches, nil if one has none.
func anyKinds(subs []*rnode) map[int32]bool {
	out := map[int32]bool{}
	for _, s := range subs {
		if s.kinds == nil {
			return nil
		}
		for k := range s.kinds {
			out[k] = true
		}
	}
	return out
}

// necessary collects the literals every match needs: those of patterns
// on the positive path (not below any, not or a stopBy rule).
func (c *ruleCompiler) necessary(n *rnode, seen map[*rnode]bool) []literal {
	if n == nil || seen[n] {
		return nil
	}
	seen[n] = true
	switch n.op {
	case opPattern:
		return n.pat.literals
	case opAll:
		var out []literal
		for _, s := range n.subs {
			out = append(out, c.necessary(s, seen)...)
		}
		return out
	case opMatches, opInside, opHas, opPrecedes, opFollows:
		return c.necessary(n.sub, seen)
	}
	return nil
}

// topLiterals keeps the four longest distinct literals.
func topLiterals(ls []literal) []literal {
	seen := map[string]int{}
	var out []literal
	for _, l := range ls {
		if i, ok := seen[string(l.text)]; ok {
			out[i].word = out[i].word && l.word
			continue
		}
		seen[string(l.text)] = len(out)
		out = append(out, l)
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].text) > len(out[j].text) })
	if len(out) > 4 {
		out = out[:4]
	}
	return out
}

// ruleRun runs one rule over one tree.
type ruleRun struct {
	r      *Rule
	m      *matcher
	parent []uint32 // node → parent; noParent for the root
	prev   []uint32 // node → previous sibling, computed on first use
}

const noParent = ^uint32(0)

// FindRule returns the matches of r in t: every node of a candidate kind
// the rule matches, in pre-order, with the captures of the whole rule.
func (r *Rule) FindRule(t *Tree) []Span { return r.findRule(t, nil) }

// findRule is FindRule stopping early (with what it found so far) once
// stopped reports true; it is asked every 256 candidates, so cancelling a
// call is not held up by one large file and a costly rule.
func (r *Rule) findRule(t *Tree, stopped func() bool) []Span {
	if t.Lang != r.Lang || len(t.nodes) == 0 {
		return nil
	}
	run := &ruleRun{r: r, m: &matcher{t: t, nodes: t.nodes, repeated: r.names, selector: t.Lang.selectorKind}}
	run.parent = parents(t.nodes)
	var out []Span
	lang := t.Lang
	tried := 0
	for i := range t.nodes {
		k := lang.kind(t.nodes[i].sym)
		if k < 0 || int(k) >= len(r.kinds) || !r.kinds[k] || t.nodes[i].flags&flagMissing != 0 {
			continue
		}
		if tried++; stopped != nil && tried%256 == 0 && stopped() {
			return out
		}
		run.m.unbind(0)
		if !run.match(r.root, uint32(i)) || !run.constraints() {
			continue
		}
		// (The binds with no name are code the match passed over: see
		// matcher.emit.)
		var caps []Capture
		var unspelled [][2]uint32
		for _, b := range run.m.binds {
			if b.Name == "" {
				unspelled = append(unspelled, [2]uint32{b.Start, b.End})
			} else {
				caps = append(caps, b)
			}
		}
		out = append(out, Span{Start: t.nodes[i].start, End: t.nodes[i].end, Captures: caps, unspelled: unspelled})
	}
	return out
}

// parents computes every node's parent from the pre-order layout.
func parents(nodes []node) []uint32 {
	par := make([]uint32, len(nodes))
	stack := make([]uint32, 0, 64)
	for i := range nodes {
		for len(stack) > 0 && uint32(i) >= nodes[stack[len(stack)-1]].next {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			par[i] = noParent
		} else {
			par[i] = stack[len(stack)-1]
		}
		stack = append(stack, uint32(i))
	}
	return par
}

// constraints checks the rule's constraints on the captures of a match:
// a metavariable that captured one node must satisfy its rule (one that
// captured a run, or nothing, is not checked, as in ast-grep).
func (run *ruleRun) constraints() bool {
	for _, c := range run.r.cons {
		var node uint32
		found := false
		for _, b := range run.m.binds {
			if b.Name == c.name && !b.Multi && b.first < b.stop {
				node, found = b.first, true
				break
			}
		}
		if !found {
			continue
		}
		mark := len(run.m.binds)
		if !run.match(c.rule, node) {
			run.m.unbind(mark)
			return false
		}
	}
	return true
}

// match reports whether n matches at node i; on success the bindings it
// made stay, on failure none do.
func (run *ruleRun) match(n *rnode, i uint32) bool {
	m := run.m
	nd := &m.nodes[i]
	if n.kinds != nil && n.op != opPattern && n.op != opKind && !n.kinds[m.t.Lang.kind(nd.sym)] {
		return false
	}
	mark := len(m.binds)
	ok := false
	switch n.op {
	case opPattern:
		ok = run.pattern(n.pat, i)
	case opKind:
		ok = m.t.Lang.kind(nd.sym) == n.kind
	case opRegex:
		ok = n.re.Match(m.t.Src[nd.start:nd.end])
	case opAll:
		ok = true
		for _, s := range n.subs {
			if !run.match(s, i) {
				ok = false
				break
			}
		}
	case opAny:
		for _, s := range n.subs {
			if run.match(s, i) {
				ok = true
				break
			}
		}
	case opNot:
		ok = !run.match(n.sub, i)
		m.unbind(mark)
	case opMatches:
		ok = run.match(n.sub, i)
	case opInside:
		ok = run.inside(n, i)
	case opHas:
		ok = run.has(n, i)
	case opPrecedes, opFollows:
		ok = run.sibling(n, i)
	}
	if !ok {
		m.unbind(mark)
	}
	return ok
}

// pattern matches a single-node pattern with its root at node i.
func (run *ruleRun) pattern(p *Pattern, i uint32) bool {
	m := run.m
	r := p.nodes[0]
	n := &m.nodes[i]
	if r.meta == metaNone && !m.t.Lang.kindMatches(m.t.Lang.kind(n.sym), r.kind) || m.t.skip(int(i)) {
		return false
	}
	m.steps = 0
	if r.meta != metaNone || r.leaf {
		return m.wholeFirst(func() bool { return m.node(r, i) })
	}
	if n.next == i+1 {
		return false
	}
	return m.wholeFirst(func() bool { return m.seq(r.children, 0, i+1, n.next, true, n.start) })
}

// tryEach tries the target rule on nodes in order until one matches;
// with a stopBy rule, the node that matches it is the last one tried.
func (run *ruleRun) tryEach(n *rnode, next func() (uint32, bool)) bool {
	for {
		c, ok := next()
		if !ok {
			return false
		}
		if run.match(n.sub, c) {
			return true
		}
		if n.stop == stopNeighbor || n.stop == stopRule && run.stops(n.until, c) {
			return false
		}
	}
}

// stops reports whether c matches a stopBy rule (binding nothing).
func (run *ruleRun) stops(until *rnode, c uint32) bool {
	mark := len(run.m.binds)
	ok := run.match(until, c)
	run.m.unbind(mark)
	return ok
}

func (run *ruleRun) inside(n *rnode, i uint32) bool {
	cur, last := i, i
	return run.tryEach(n, func() (uint32, bool) {
		for {
			p := run.parent[cur]
			if p == noParent {
				return 0, false
			}
			prev := last
			cur, last = p, p
			if n.field == 0 || run.fieldChild(p, n.field) == prev {
				return p, true
			}
			// With field, an ancestor whose field is not the way up is
			// skipped (for stopBy neighbor: no match at all).
			if n.stop == stopNeighbor {
				return 0, false
			}
			if n.stop == stopRule && run.stops(n.until, p) {
				return 0, false
			}
		}
	})
}

// fieldChild returns p's first child in field f, or noParent.
func (run *ruleRun) fieldChild(p uint32, f uint16) uint32 {
	nodes := run.m.nodes
	for c := p + 1; c < nodes[p].next; c = nodes[c].next {
		if uint16(nodes[c].field) == f {
			return c
		}
	}
	return noParent
}

func (run *ruleRun) has(n *rnode, i uint32) bool {
	nodes := run.m.nodes
	if n.field != 0 {
		return run.hasInField(n, i)
	}
	switch n.stop {
	case stopNeighbor:
		for c := i + 1; c < nodes[i].next; c = nodes[c].next {
			if run.match(n.sub, c) {
				return true
			}
		}
		return false
	case stopEnd:
		for d := i + 1; d < nodes[i].next; d++ {
			if run.match(n.sub, d) {
				return true
			}
		}
		return false
	}
	// stopBy a rule: depth first, not descending below a node that
	// matches it (that node itself is tried).
	for c := i + 1; c < nodes[i].next; c = nodes[c].next {
		if run.match(n.sub, c) {
			return true
		}
		if !run.stops(n.until, c) && run.has(n, c) {
			return true
		}
	}
	return false
}

// hasInField is has with a field: the search starts at node i's child
// in that field.
func (run *ruleRun) hasInField(n *rnode, i uint32) bool {
	nodes := run.m.nodes
	fc := run.fieldChild(i, n.field)
	if fc == noParent {
		return false
	}
	switch n.stop {
	case stopNeighbor:
		return run.match(n.sub, fc)
	case stopEnd:
		for d := fc; d < nodes[fc].next; d++ {
			if run.match(n.sub, d) {
				return true
			}
		}
		return false
	}
	// ast-grep looks at the field's node, then (unless it stops there)
	// at its children only.
	if run.match(n.sub, fc) {
		return true
	}
	if run.stops(n.until, fc) {
		return false
	}
	for c := fc + 1; c < nodes[fc].next; c = nodes[c].next {
		if run.match(n.sub, c) {
			return true
		}
	}
	return false
}

// sibling runs precedes (later siblings, nearest first) and follows
// (earlier siblings, nearest first).
func (run *ruleRun) sibling(n *rnode, i uint32) bool {
	p := run.parent[i]
	if p == noParent {
		return false
	}
	nodes := run.m.nodes
	if n.op == opPrecedes {
		c := i
		return run.tryEach(n, func() (uint32, bool) {
			if c = nodes[c].next; c >= nodes[p].next {
				return 0, false
			}
			return c, true
		})
	}
	if run.prev == nil {
		run.prev = prevSiblings(nodes)
	}
	c := i
	return run.tryEach(n, func() (uint32, bool) {
		if c = run.prev[c]; c == noParent {
			return 0, false
		}
		return c, true
	})
}

// prevSiblings computes every node's previous sibling (noParent for a
// first child).
func prevSiblings(nodes []node) []uint32 {
	prev := make([]uint32, len(nodes))
	for i := range prev {
		prev[i] = noParent
	}
	for p := range nodes {
		if nodes[p].next == uint32(p)+1 {
			continue
		}
		last := noParent
		for c := uint32(p) + 1; c < nodes[p].next; c = nodes[c].next {
			prev[c] = last
			last = c
		}
	}
	return prev
}

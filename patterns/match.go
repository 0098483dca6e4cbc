// This file matches a compiled pattern against a flattened tree, in Go on
// plain data: every node is a candidate in pre-order (outer matches first,
// nested ones reported too); children are compared in sequence with
// backtracking for $$$.
//
// Semantics (see the README). They follow ast-grep's default ("smart")
// strictness, read from its matcher and checked against its CLI by
// TestDifferential and TestDifferentialTokens:
//
//   - Comments are skipped on both sides, everywhere.
//   - Pattern and code children are walked in step. Where the pattern's
//     next item is a token (a leaf: keyword, operator, word) and the code's
//     next child is an unnamed token that is not it, the code's token is
//     stepped over (def matches async def). Where the pattern's next item
//     is a metavariable or a node with children, an unnamed code token
//     there is a mismatch: yield $X does not match yield* g() nor yield
//     from g(), export function $F() {} not export default function. A
//     named code node is never stepped over (fn does not match pub fn).
//   - $X binds one named node, never an unnamed token; $$X one node,
//     named or not.
//   - $$$ takes the shortest run after which the rest matches; a trailing
//     one takes all that is left.
//   - When the pattern's children are used up, the code's remaining
//     children are ignored, and the match is still the whole node: a span
//     never ends inside a node (&$X over &mut x is &mut x, X = mut). A
//     rewrite replaces what the pattern spelled and keeps those children
//     (Span.keep; ast-grep drops them). Code passed over anywhere else in
//     the match is noted (Span.unspelled): a rewrite is refused rather
//     than drop it.
//   - When the code's children are used up first, only $$$ may be left in
//     the pattern.
//
// Ours on top, each documented where it is done: a ';' in the pattern and
// a ',' beside an empty $$$ are optional, and before a closing '}' more
// siblings like the pattern's last one are ignored (all three in skips,
// the one place that decides what may be passed over); Dart member
// chains and Scala dotted paths are read as a person reads them (the
// language hooks memberChain and flatPath); a metavariable repeated must
// capture the same tokens (bindRange); text inside a node that no child
// covers (a Dart string's content, a YAML scalar's) must be the same, where
// ast-grep compares only the children (sameGap).

package patterns

import (
	"bytes"
	"slices"
	"strings"
	"unicode"
)

// Capture is what a metavariable bound in one match.
type Capture struct {
	Name       string
	Multi      bool
	Start, End uint32 // byte range; empty for a $$$ that matched nothing
	first      uint32 // node range [first, stop) of the captured subtrees
	stop       uint32
}

// Span is one match: a byte range and its captures.
type Span struct {
	Start, End uint32
	Captures   []Capture
	// tail is how many bytes at the end of the span close the matched
	// node without the pattern spelling them (a statement's ';'): they
	// are part of the match, as in ast-grep, but a rewrite keeps them.
	tail uint32
	// keep is how many bytes at the end of the span hold children the
	// pattern left unspelled after its last one (the else clause after
	// if $C: $A): part of the match, which covers whole nodes, but a
	// rewrite replaces only what the pattern spelled and keeps them.
	keep uint32
	// unspelled are the ranges of code inside the span that the match
	// passed over without the pattern spelling it or a capture taking it
	// (async of async def under def $F(): $$$, the other cases of a switch
	// before its '}', or children left after the pattern's last inside a
	// node that does not end the match): a rewrite would drop them.
	unspelled [][2]uint32
}

type matcher struct {
	t       *Tree
	nodes   []node
	binds   []Capture
	rootEnd uint32
	// failed remembers seq calls that failed, so that backtracking $$$
	// runs over long sibling lists (where skipped tokens make every
	// attempt rescan the rest) stay polynomial. An entry holds while gen
	// is unchanged: gen moves whenever a binding that a later comparison
	// could read (a repeated name's) is made or undone.
	failed   map[failKey]uint32
	gen      uint32
	work     int // seq calls in all (see find)
	repeated map[string]bool
	steps    int // seq calls for the current candidate
	// selector is the kind of Dart's member-chain links, which a $X may
	// absorb after its first node; -1 in other languages.
	selector int32
	out      []Span // the matches found so far
	gapBuf   []byte // sameGap's and sameTokens' scratch
	gapBuf2  []byte // sameTokens' second
	gapBlind bool   // the pattern's (see Pattern.gapBlind)
	// sequence says the pattern's items are siblings under no pattern
	// node (a pattern of several nodes): between them only separators
	// may be passed over (see skips).
	sequence bool
	// whole refuses a match that leaves children inside a node, and
	// leftover says it refused one (see wholeFirst).
	whole, leftover bool
}

// wholeFirst runs try, a candidate's match, first refusing children left
// inside a node, then, only where that refused one, allowing them: of
// the ways a pattern can match, one that spells every child is taken
// (Scala's header $$$ $A + sep over header + lbrace + sep: $$$ takes the
// '+' and $A lbrace, not $$$ nothing, $A the '+' and lbrace left over).
func (m *matcher) wholeFirst(try func() bool) bool {
	m.whole, m.leftover = true, false
	ok := try()
	m.whole = false
	if ok || !m.leftover {
		return ok
	}
	m.unbind(0)
	m.gen++ // what failed under whole may not fail now
	return try()
}

// memoAfter is how many seq calls a candidate makes before failures are
// remembered: ordinary candidates never get there, so they pay nothing.
const memoAfter = 4096

type failKey struct {
	p      *pnode
	t, end uint32
}

// unbind drops the bindings made since mark.
func (m *matcher) unbind(mark int) {
	for _, b := range m.binds[mark:] {
		if m.repeated[b.Name] {
			m.gen++
			break
		}
	}
	m.binds = m.binds[:mark]
}

// Find returns every match of p in t, in pre-order of their start node.
func (p *Pattern) Find(t *Tree) []Span {
	spans, _ := p.find(t)
	return spans
}

// find is Find, and how many steps of matching it took (seq calls: the
// measure of its cost that tests hold to the tree's size).
func (p *Pattern) find(t *Tree) ([]Span, int) {
	if t.Lang != p.Lang || len(t.nodes) == 0 {
		return nil, 0
	}
	m := &matcher{t: t, nodes: t.nodes, repeated: p.repeated, selector: t.Lang.selectorKind, gapBlind: p.gapBlind}
	if len(p.nodes) == 1 {
		m.findNode(p.nodes[0])
	} else {
		m.findSequence(p.nodes)
	}
	return m.out, m.work
}

// emit records a match with the bindings made for it.
func (m *matcher) emit(start, end uint32) {
	var caps []Capture
	var unspelled [][2]uint32
	for _, b := range m.binds {
		if b.Name == "" {
			unspelled = append(unspelled, [2]uint32{b.Start, b.End})
		} else {
			caps = append(caps, b)
		}
	}
	m.out = append(m.out, Span{Start: start, End: end, Captures: caps, unspelled: unspelled})
}

// passOver notes target nodes [t, end) (siblings, after the last one
// consumed, which ended at from) that the match passes over, when any is
// code: a named node or a token other than a ',', a ';' or a bracket (a
// word, async, or an operator: the second '.' of Python's from ..a). It
// is noted as a capture with no name, which backtracking takes back with
// the others; emit moves it to Span.unspelled.
func (m *matcher) passOver(from, t, end uint32) {
	code, last := false, t
	for c := t; c < end; c = m.nodes[c].next {
		n := &m.nodes[c]
		if m.t.skip(int(c)) {
			continue
		}
		last = c
		code = code || n.named() || n.end > n.start && bytes.ContainsFunc(m.t.Src[n.start:n.end], func(r rune) bool {
			return !strings.ContainsRune(",;()[]{}", r) && !unicode.IsSpace(r)
		})
	}
	if code {
		m.binds = append(m.binds, Capture{Start: min(from, m.nodes[t].start), End: m.nodes[last].end})
	}
}

// passOverToken records target token t, passed over, as code the
// match does not spell (see passOver), however it is spelled.
func (m *matcher) passOverToken(t uint32) {
	n := &m.nodes[t]
	m.binds = append(m.binds, Capture{Start: n.start, End: n.end})
}

// findNode tries a one-node pattern r at every node of the tree.
func (m *matcher) findNode(r *pnode) {
	t, lang := m.t, m.t.Lang
	family := lang.hasFamily(r.kind) // else only r.kind matches, with no lookup a node
	for i := range m.nodes {
		n := &m.nodes[i]
		if k := lang.kind(n.sym); r.meta == metaNone && k != r.kind && (!family || !lang.sameFamily(k, r.kind)) || n.flags&flagInner != 0 || t.skip(i) {
			continue
		}
		m.unbind(0)
		m.steps = 0
		if r.meta != metaNone || r.leaf {
			if m.wholeFirst(func() bool { return m.node(r, uint32(i)) }) {
				m.emit(n.start, n.end)
			}
			continue
		}
		if n.next == uint32(i)+1 {
			continue
		}
		// The root's text no child covers is compared where it holds a
		// letter or digit on either side (CSS 10px, an integer_value
		// whose digits are no node, is no match for 2px). Punctuation
		// there may be a token's on the other side: Kotlin's ?. split
		// over two lines leaves its '?' to no node.
		if m.wholeFirst(func() bool { return m.seq(r.children, 0, uint32(i)+1, n.next, true, n.start) }) && (!r.hasGap || m.sameRootGap(r, uint32(i))) {
			if r.hasGap && !m.childFrom(uint32(i), m.rootEnd) {
				// Text after the last child that the pattern's compared
				// text spells (a Scala string's closing quote) is the
				// match's, not left over: a rewrite kept it and wrote
				// "DONE\n"" over "RESIDUAL\n".
				m.rootEnd = n.end
			}
			m.emitWhole(uint32(i))
		}
	}
}

// emitWhole records a match of node i, whatever children the pattern
// left unspelled after its last one: a span never ends inside a node. It
// is the node's extent as the grammar has it, as in ast-grep, whitespace
// the node owns included (a C directive's newline); only the blank lines
// a TOML table owns are left out. What the pattern did not spell is
// marked: terminators (tail) or children a rewrite keeps (keep).
func (m *matcher) emitWhole(i uint32) {
	n := &m.nodes[i]
	e := n.end
	for m.t.Lang.trimsBlankTail && e > m.rootEnd && isSpace(m.t.Src[e-1]) {
		e--
	}
	m.emit(n.start, e)
	sp := &m.out[len(m.out)-1]
	if m.rootEnd < e {
		if m.onlyTerminators(i, m.rootEnd) {
			sp.tail = e - m.rootEnd
		} else {
			sp.keep = e - m.rootEnd
		}
	}
	// Children left inside the match's last node, and in that node's last
	// one and so on, end the match too: a rewrite keeps them as it keeps
	// the root's (type $A $B over type T[P any] struct{…} keeps the
	// struct). Those that end before it stay unspelled.
	if sp.tail == 0 {
		kept := sp.unspelled[:0]
		for _, r := range sp.unspelled {
			if r[1] <= e && len(bytes.TrimSpace(m.t.Src[r[1]:e])) == 0 && e-r[0] > sp.keep {
				sp.keep = e - r[0]
				continue
			}
			kept = append(kept, r)
		}
		sp.unspelled = kept
	}
	// A range the kept tail covers is no longer dropped.
	kept := sp.unspelled[:0]
	for _, r := range sp.unspelled {
		if r[0] < e-sp.keep {
			kept = append(kept, r)
		}
	}
	sp.unspelled = kept
}

// findSequence tries a pattern of several sibling nodes at each run of
// siblings under every node.
func (m *matcher) findSequence(ps []*pnode) {
	t, lang := m.t, m.t.Lang
	first := ps[0]
	m.sequence = true
	for i := range m.nodes {
		n := &m.nodes[i]
		// The steps count for all the runs under one node: a start that
		// scans on over its siblings (a leaf item passes unnamed tokens)
		// would otherwise do so afresh from each of thousands of starts
		// (C's 0#!::::…, 8,000 tokens in an ERROR, took 2.4 s), and
		// failures remembered from one start serve the next.
		m.steps = 0
		for c := uint32(i) + 1; c < n.next; c = m.nodes[c].next {
			// In a Dart member chain (kept flat) a $X that starts the
			// pattern is a receiver, which a selector (.c, !, (…)) never
			// is: $X.dispose() must not bind X = .c inside b.c.dispose().
			if t.skip(int(c)) || first.meta == metaNone && !lang.kindMatches(lang.kind(m.nodes[c].sym), first.kind) ||
				first.meta == metaSingle && (!m.nodes[c].named() || m.selector >= 0 && lang.kind(m.nodes[c].sym) == m.selector) {
				continue
			}
			m.unbind(0)
			if m.wholeFirst(func() bool { return m.seq(ps, 0, c, n.next, true, m.nodes[c].start) }) {
				m.emit(m.nodes[c].start, m.rootEnd)
			}
		}
	}
}

// onlyTerminators reports a node whose children from offset end on,
// left over by the pattern, are ';' tokens (and comments): the statement's
// terminator, which belongs to the match.
func (m *matcher) onlyTerminators(i, end uint32) bool {
	n := &m.nodes[i]
	semi := false
	for c := i + 1; c < n.next; c = m.nodes[c].next {
		k := &m.nodes[c]
		if k.start < end || m.t.skip(int(c)) {
			continue
		}
		if k.named() || k.end-k.start != 1 || m.t.Src[k.start] != ';' {
			return false
		}
		semi = true
	}
	return semi
}

// dottedRun matches the siblings from c to end against ('.' named)+ and
// returns the index past them and the last one; stop is c when they are
// anything else.
func (m *matcher) dottedRun(c, end uint32) (stop, last uint32) {
	stop = c
	for c = m.skipTo(c, end); c < end; c = m.skipTo(c, end) {
		dot := &m.nodes[c]
		if dot.named() || dot.end-dot.start != 1 || m.t.Src[dot.start] != '.' {
			return stop, 0
		}
		k := m.skipTo(dot.next, end)
		if k >= end || !m.nodes[k].named() {
			return stop, 0
		}
		c, last = m.nodes[k].next, k
	}
	if last == 0 {
		return stop, 0
	}
	return c, last
}

// skipTo advances t past nodes matching ignores, stopping at end.
func (m *matcher) skipTo(t, end uint32) uint32 {
	for t < end && m.t.skip(int(t)) {
		t = m.nodes[t].next
	}
	return t
}

// seq matches pattern children ps[pi:] against the target siblings
// starting at t (before end). lastEnd is the end of the last consumed
// target node; at the top level it becomes the match's end.
func (m *matcher) seq(ps []*pnode, pi int, t, end uint32, top bool, lastEnd uint32) bool {
	m.work++
	if m.steps++; pi == len(ps) || m.steps < memoAfter {
		return m.seq1(ps, pi, t, end, top, lastEnd)
	}
	k := failKey{ps[pi], t, end}
	if g, ok := m.failed[k]; ok && g == m.gen {
		return false
	}
	if m.seq1(ps, pi, t, end, top, lastEnd) {
		return true
	}
	if m.failed == nil {
		m.failed = map[failKey]uint32{}
	}
	m.failed[k] = m.gen
	return false
}

// seq1 is seq without the memo: the pattern's items ps[pi:] against the
// target siblings from t. A $$$ takes a run of siblings (seqMulti); any
// other item meets the sibling at t, or a language hook reads a run of
// siblings as the one node it stands for (meets); failing that, the skip
// policy says what may be passed over (skips).
func (m *matcher) seq1(ps []*pnode, pi int, t, end uint32, top bool, lastEnd uint32) bool {
	t = m.skipTo(t, end)
	if pi == len(ps) {
		if top {
			m.rootEnd = lastEnd
		} else if t < end {
			if m.whole {
				m.leftover = true
				return false
			}
			m.passOver(lastEnd, t, end) // children left inside a node
		}
		return true
	}
	if ps[pi].meta == metaMulti {
		return m.seqMulti(ps, pi, t, end, top, lastEnd)
	}
	if t < end && m.meets(ps, pi, t, end, top) {
		return true
	}
	target, item := m.skips(ps, pi, t, end, top)
	mark := len(m.binds)
	if target {
		if n := &m.nodes[t]; m.sequence && top && !n.named() && n.end-n.start == 1 && m.t.Src[n.start] == ',' {
			// A ',' passed over between a sequence's items is code the
			// rewrite drops (f(a, b) → a b): marked as such.
			m.passOverToken(t)
		} else {
			m.passOver(m.nodes[t].start, t, m.nodes[t].next)
		}
		if m.seq(ps, pi, m.nodes[t].next, end, top, lastEnd) {
			return true
		}
	}
	m.unbind(mark)
	if item && m.seq(ps, pi+1, t, end, top, lastEnd) {
		return true
	}
	m.unbind(mark)
	return false
}

// seqMulti matches the $$$ at ps[pi] and the items after it.
func (m *matcher) seqMulti(ps []*pnode, pi int, t, end uint32, top bool, lastEnd uint32) bool {
	p := ps[pi]
	mark := len(m.binds)
	if pi == len(ps)-1 {
		// A trailing $$$ takes everything that is left (possibly nothing).
		e, last := lastEnd, uint32(0)
		for c := t; c < end; c = m.skipTo(m.nodes[c].next, end) {
			e, last = m.nodes[c].end, c
		}
		stop := t
		if t < end {
			stop = m.nodes[last].next
		}
		if !m.bindRange(p, t, stop, lastEnd, e) {
			m.unbind(mark)
			return false
		}
		if top {
			m.rootEnd = e
		}
		return true
	}
	// Lazy, with backtracking: the shortest run after which the rest
	// matches.
	cur, e := t, lastEnd
	next := ps[pi+1]
	for {
		// The run keeps the separators it owns: an unnamed token the
		// next pattern node cannot be (the trailing ',' before a ')') is
		// absorbed, not left between the run and what follows, so a
		// rewrite keeps it. A ';' next may be left out (skips), so the
		// run may also end before a token that is not one: bash's
		// $$$B; fi ends at the fi of a body written on lines of its own.
		probe := cur >= end || m.nodes[cur].named() || next.meta == metaAny ||
			next.meta == metaNone && next.leaf && (m.t.Lang.kind(m.nodes[cur].sym) == next.kind || next.isSemicolon())
		if probe && m.bindRange(p, t, cur, lastEnd, e) {
			if m.seq(ps, pi+1, cur, end, top, e) {
				return true
			}
			// An empty $$$ makes the comma after it optional:
			// foo($$$A, b) matches foo(b).
			if cur == t && pi+2 < len(ps) && ps[pi+1].isComma() && m.seq(ps, pi+2, cur, end, top, e) {
				return true
			}
		}
		m.unbind(mark)
		if cur >= end {
			return false
		}
		e = m.nodes[cur].end
		cur = m.skipTo(m.nodes[cur].next, end)
	}
}

// meets matches the item ps[pi] (not a $$$) at target sibling t, and the
// items after it: the node itself, or, through a language hook, a run
// of siblings that the grammar keeps flat where a reader sees one node
// (flatPath, memberChain).
func (m *matcher) meets(ps []*pnode, pi int, t, end uint32, top bool) bool {
	if m.flatPath(ps, pi, t, end, top) {
		return true
	}
	mark := len(m.binds)
	n := &m.nodes[t]
	if (m.node(ps[pi], t) || m.unwrapped(ps[pi], t)) && m.seq(ps, pi+1, n.next, end, top, n.end) {
		return true
	}
	m.unbind(mark)
	return m.memberChain(ps, pi, t, end, top)
}

// unwrapped matches p against target t where one of the two is a wrapper
// (Language.wrappers) holding a single node and the other is not: the
// wrapped node is matched in its place. Only below a pattern's root, so
// that nothing is found twice, as the wrapper and as what it holds.
func (m *matcher) unwrapped(p *pnode, t uint32) bool {
	l := m.t.Lang
	if len(l.wrappers) == 0 || p.meta != metaNone {
		return false
	}
	n := &m.nodes[t]
	k := l.kind(n.sym)
	switch pw, tw := slices.Contains(l.wrappers, p.kind), slices.Contains(l.wrappers, k); {
	case tw && !pw && l.mayBeWrapped(p.kind):
		c := t + 1 // the wrapper's only node
		return c < n.next && m.nodes[c].next == n.next && m.node(p, c)
	case pw && !tw:
		return len(p.children) == 1 && m.node(p.children[0], t)
	}
	return false
}

// flatPath is the hook for dotted paths kept flat: a $X that ends the
// pattern takes a dotted path that ends its parent. Scala keeps import
// a.b.c flat (a, ., b, ., c), and $P in import $P is the path, as a
// reader means it.
func (m *matcher) flatPath(ps []*pnode, pi int, t, end uint32, top bool) bool {
	p, n := ps[pi], &m.nodes[t]
	if p.meta != metaSingle || pi != len(ps)-1 || !n.named() {
		return false
	}
	stop, last := m.dottedRun(n.next, end)
	if stop <= n.next {
		return false
	}
	mark := len(m.binds)
	if m.bindRange(p, t, stop, n.start, m.nodes[last].end) && m.seq(ps, pi+1, stop, end, top, m.nodes[last].end) {
		return true
	}
	m.unbind(mark)
	return false
}

// memberChain is the hook for Dart's member chains: Dart keeps a
// receiver's chain flat (b, .c, .dispose, ()) under one parent, so a $X
// also takes the selectors that follow its first node, shortest run
// first, and $X.dispose() binds X = b.c. The language names the
// selectors' kind (Language.selectorKind); without one it does nothing.
func (m *matcher) memberChain(ps []*pnode, pi int, t, end uint32, top bool) bool {
	p, n := ps[pi], &m.nodes[t]
	if p.meta != metaSingle || m.selector < 0 || !n.named() || m.t.Lang.kind(n.sym) == m.selector {
		return false
	}
	mark := len(m.binds)
	last := t
	for c := m.skipTo(n.next, end); c < end && m.t.Lang.kind(m.nodes[c].sym) == m.selector; c = m.skipTo(m.nodes[c].next, end) {
		last = c
		stop := m.nodes[c].next
		if m.bindRange(p, t, stop, n.start, m.nodes[last].end) && m.seq(ps, pi+1, stop, end, top, m.nodes[last].end) {
			return true
		}
		m.unbind(mark)
	}
	return false
}

// skips is the match's skip policy, for a pattern item ps[pi] (not a
// $$$) that did not meet the target sibling at t (t is end when the
// siblings are used up). target says the sibling may be passed over and
// the item tried after it; item says the item may be left out.
//
// The target's sibling is passed over when it is
//   - a token the pattern does not spell, where the pattern expects a
//     token: def $F() matches async def f() (async stands before the def
//     the pattern spells), but yield $X does not match yield* g() or
//     yield from g(), nor export function $F export default function f:
//     a metavariable or a whole node never steps over a token that
//     changes the meaning;
//   - before a closing '}', another sibling like the pattern's last one
//     (the other cases of a switch, arms of a match): switch $X { case
//     $V: $$$ } matches a switch with several cases.
//
// The item is left out when it is
//   - a comma before a $$$ that matches nothing: foo(a, $$$B) matches
//     foo(a);
//   - a ';': Go and JavaScript end statements with newlines as well. A
//     ';' that ends the pattern's node may be missing only where the
//     target has no more named nodes to offer: CSS margin: 0 auto; must
//     not match the start of margin: 0 auto 1px; nor $A: $B; the start
//     of font-family: a, b; (between Go statements, where the pattern
//     goes on, it may).
func (m *matcher) skips(ps []*pnode, pi int, t, end uint32, top bool) (target, item bool) {
	p := ps[pi]
	sepBeforeMulti := pi > 0 && p.isComma() && pi+1 < len(ps) && ps[pi+1].meta == metaMulti
	item = (sepBeforeMulti || p.isSemicolon()) && (sepBeforeMulti || pi+1 < len(ps) || !m.namedFrom(t, end))
	if t >= end {
		return false, item
	}
	n := &m.nodes[t]
	if !n.named() && m.sequence && top && pi > 0 {
		// Between the items of a pattern of several nodes, which no
		// parent kind holds together, only a separator is passed over,
		// whatever the item: C++ $A input_end (a type and a name side
		// by side) is no comparison input_begin != input_end, and Go's
		// a()⏎b() matches a(); b().
		switch sep := bytes.TrimSpace(m.t.Src[n.start:n.end]); {
		case string(sep) == "," || string(sep) == ";" || len(sep) == 0:
			return true, item
		}
		return false, item
	}
	if p.meta != metaNone || !p.leaf {
		return false, item
	}
	closing := pi > 0 && !p.named && p.text == "}"
	if !n.named() {
		// Before a '}', a ',' with more items after it separates the
		// elements of a list, whose count the pattern spells: Go
		// []$A{"$B"} is a one-element literal, JSON {"$A": true} an
		// object of one pair (ast-grep agrees). A trailing ',' is passed.
		return !closing || !m.separatesMore(t, end), item
	}
	if closing {
		// More siblings like the pattern's last one: the other cases of
		// a switch, arms of a match (README).
		q := ps[pi-1]
		target = q.meta == metaNone && !q.leaf && q.kind == m.t.Lang.kind(n.sym)
	}
	return target, item
}

// separatesMore says target token t is a ',' with a named node after it
// among the siblings before end.
func (m *matcher) separatesMore(t, end uint32) bool {
	n := &m.nodes[t]
	return n.end-n.start == 1 && m.t.Src[n.start] == ',' && m.namedFrom(n.next, end)
}

// namedFrom says a named node that matching does not skip is among the
// siblings [t, end).
func (m *matcher) namedFrom(t, end uint32) bool {
	for ; t < end; t = m.nodes[t].next {
		if m.nodes[t].named() && !m.t.skip(int(t)) {
			return true
		}
	}
	return false
}

// node matches one pattern node against target node t.
func (m *matcher) node(p *pnode, t uint32) bool {
	n := &m.nodes[t]
	switch p.meta {
	case metaSingle:
		if !n.named() {
			return false
		}
		return m.bindRange(p, t, n.next, n.start, n.end)
	case metaAny:
		return m.bindRange(p, t, n.next, n.start, n.end)
	case metaMulti:
		return false
	}
	// Another kind of the same family matches (C++: a type_identifier
	// where the pattern, read as an expression, has an identifier).
	if !m.t.Lang.kindMatches(m.t.Lang.kind(n.sym), p.kind) {
		return false
	}
	if p.leaf {
		return !p.named || string(m.t.Src[n.start:n.end]) == p.text
	}
	if n.next == t+1 {
		return false
	}
	if m.seq(p.children, 0, t+1, n.next, false, n.start) {
		// Text no child covers is compared too: print("a") is no match
		// for print("b") where the grammar keeps a string's content as
		// no node of its own (Dart).
		return !p.hasGap || m.sameGap(p, t)
	}
	return m.stringContent(p, t)
}

// stringContent matches a string pattern whose whole content is a
// metavariable ('$P') against a string whose content is plain text, which
// some grammars (Dart) keep as no node at all: the metavariable captures
// the text between the quotes, and the quotes must be the same.
func (m *matcher) stringContent(p *pnode, t uint32) bool {
	// Text beside the metavariable ("a $A") is no string's whole content.
	if p.gap != "" || p.gapRe != nil || len(p.children) != 3 || p.children[1].meta != metaSingle || !p.children[0].leaf || !p.children[2].leaf || p.children[0].named || p.children[2].named {
		return false
	}
	open := m.skipTo(t+1, m.nodes[t].next)
	if open >= m.nodes[t].next {
		return false
	}
	cl := m.skipTo(m.nodes[open].next, m.nodes[t].next)
	if cl >= m.nodes[t].next || m.skipTo(m.nodes[cl].next, m.nodes[t].next) != m.nodes[t].next {
		return false
	}
	o, c := &m.nodes[open], &m.nodes[cl]
	src := m.t.Src
	if string(src[o.start:o.end]) != p.children[0].text || string(src[c.start:c.end]) != p.children[2].text {
		return false
	}
	// Only a string's quotes, around some text: an empty argument list,
	// parameter list or array, or a bare return ('return' then ';'), has
	// the same shape, and a $X must never match nothing there.
	if c.start <= o.end || !isQuote(src[o.end-1]) {
		return false
	}
	name := p.children[1].name
	if name == "" {
		return true
	}
	cp := Capture{Name: name, Start: o.end, End: c.start, first: cl, stop: cl}
	for _, b := range m.binds {
		if b.Name == name {
			return bytes.Equal(src[b.Start:b.End], src[cp.Start:cp.End])
		}
	}
	m.binds = append(m.binds, cp)
	if m.repeated[name] {
		m.gen++
	}
	return true
}

// isQuote reports a byte that ends a string's opening delimiter.
func isQuote(b byte) bool { return b == '"' || b == '\'' || b == '`' }

// bindRange binds p's metavariable to the target nodes [first, stop) with
// byte range [start, end); a name bound before must capture the same
// tokens.
func (m *matcher) bindRange(p *pnode, first, stop, start, end uint32) bool {
	if p.name == "" {
		return true
	}
	if first >= stop {
		end = start // empty: positioned where the run would be
	} else {
		start = m.nodes[first].start
		// Statement terminators such as Go's newline tokens are not part
		// of what a run captured. A single node's blanks on its last line
		// are its own text (a string's content "goFixInline ", which a
		// rewrite of "$A" must keep). A line continuation before them
		// goes too: a capture that ends with its '\' would join the
		// template's next text to it (a #define whose body ends with '\'
		// and a blank line). A string's text, taken by a single node or
		// by a $$$ that starts at it, is kept whole: its last line's '\'
		// and blanks are its value (Python's '…dog.\n\⏎    ', a
		// docstring's under """$$$A"""). The kind is looked up only where
		// there is a blank to take off: this runs at every binding.
		e := end
		text := end > start && isSpace(m.t.Src[end-1]) && (p.meta == metaMulti || m.nodes[first].next == stop) &&
			strings.Contains(m.t.Lang.kindName(m.t.Lang.kind(m.nodes[first].sym)), "string")
		for !text {
			for e > start && isSpace(m.t.Src[e-1]) {
				e--
			}
			if e <= start+1 || m.t.Src[e-1] != '\\' || !bytes.HasPrefix(m.t.Src[e:end], []byte("\n")) && !bytes.HasPrefix(m.t.Src[e:end], []byte("\r\n")) {
				break
			}
			e--
		}
		if !text && (p.meta == metaMulti || bytes.IndexByte(m.t.Src[e:end], '\n') >= 0) {
			end = e
		}
	}
	c := Capture{Name: p.name, Multi: p.meta == metaMulti, Start: start, End: end, first: first, stop: stop}
	for _, b := range m.binds {
		if b.Name == p.name {
			return m.sameTokens(b, c)
		}
	}
	m.binds = append(m.binds, c)
	if m.repeated[p.name] {
		m.gen++
	}
	return true
}

// sameTokens compares two captures token by token, ignoring whitespace
// and comments: a+b equals a + b, a.b never equals a.c. Text no child
// covers is compared too: CSS's 5px is a number (text) and a px token,
// and $A:$B $B; must not match padding: 5px 2px.
func (m *matcher) sameTokens(a, b Capture) bool {
	i, j := m.nextToken(a.first, a.stop), m.nextToken(b.first, b.stop)
	for i < a.stop && j < b.stop {
		ni, nj := &m.nodes[i], &m.nodes[j]
		if !bytes.Equal(m.t.Src[ni.start:ni.end], m.t.Src[nj.start:nj.end]) {
			return false
		}
		i, j = m.nextToken(i+1, a.stop), m.nextToken(j+1, b.stop)
	}
	if i < a.stop || j < b.stop {
		return false
	}
	if m.gapBlind {
		return m.sameKinds(a, b)
	}
	m.gapBuf, m.gapBuf2 = m.gaps(m.gapBuf[:0], a), m.gaps(m.gapBuf2[:0], b)
	return bytes.Equal(m.gapBuf, m.gapBuf2)
}

// sameKinds reports captures whose nodes, in pre-order, have the same
// subtree sizes and, where both are named and have children, the same
// kinds: ast-grep's test of a repeated metavariable besides the tokens
// (only for gapBlind; ours compares text, so CSS's 0.5rem, a float, is
// never 1rem, an integer, anyway). Leaves compare by text alone there:
// Go's var y y matches var $A $A, an identifier and a type.
func (m *matcher) sameKinds(a, b Capture) bool {
	kind := m.t.Lang.kind
	i, j := a.first, b.first
	for {
		for i < a.stop && m.t.skip(int(i)) {
			i = m.nodes[i].next
		}
		for j < b.stop && m.t.skip(int(j)) {
			j = m.nodes[j].next
		}
		if i >= a.stop || j >= b.stop {
			return i >= a.stop && j >= b.stop
		}
		ni, nj := &m.nodes[i], &m.nodes[j]
		if ni.next-i != nj.next-j || ni.next != i+1 && ni.named() && nj.named() && kind(ni.sym) != kind(nj.sym) {
			return false
		}
		i, j = i+1, j+1
	}
}

// gaps appends the text no child covers of each node of capture c that
// has children, in order (gapText's form: 0 bytes between gaps).
func (m *matcher) gaps(buf []byte, c Capture) []byte {
	for i := c.first; i < c.stop; {
		if m.t.skip(int(i)) {
			i = m.nodes[i].next
			continue
		}
		if m.nodes[i].next != i+1 {
			buf = m.t.gapText(buf, int(i), 0)
		}
		i++
	}
	return buf
}

// nextToken returns the first leaf at or after i (before stop) that is not
// skipped; skipped subtrees are jumped over.
func (m *matcher) nextToken(i, stop uint32) uint32 {
	for i < stop {
		if m.t.skip(int(i)) {
			i = m.nodes[i].next
			continue
		}
		if m.nodes[i].next == i+1 {
			return i
		}
		i++
	}
	return stop
}

// gapText appends to buf the text of node i, up to end (0: its own end),
// that none of its children covers: a Dart string's content, a YAML
// scalar's. Gaps of blanks alone are left out (the space between
// tokens), the others are separated by a 0 byte, and a run of blanks
// holding a newline is one newline (indentation is the pattern's, not
// the code's) or, at either end of the gap, nothing.
func (t *Tree) gapText(buf []byte, i int, end uint32) []byte {
	n := &t.nodes[i]
	if end == 0 || end > n.end {
		end = n.end
	}
	at := n.start
	for ch := uint32(i) + 1; ; ch = t.nodes[ch].next {
		to := end
		if ch < n.next {
			to = min(t.nodes[ch].start, end)
		}
		if at < to {
			buf = appendGap(buf, t.Src[at:to])
		}
		if ch >= n.next {
			return buf
		}
		at = max(at, t.nodes[ch].end)
	}
}

// appendGap appends one gap as gapText writes it.
func appendGap(buf, gap []byte) []byte {
	if onlyLayout(gap) {
		return buf
	}
	// Blanks that end a line, at either end, are the layout around the
	// text (a YAML block scalar's last newline), not part of it.
	lo, hi := 0, len(gap)
	for isSpace(gap[lo]) {
		lo++
	}
	for isSpace(gap[hi-1]) {
		hi--
	}
	if bytes.IndexByte(gap[:lo], '\n') >= 0 {
		gap = gap[lo:]
		hi -= lo
	}
	if bytes.IndexByte(gap[hi:], '\n') >= 0 {
		gap = gap[:hi]
	}
	if len(buf) > 0 {
		buf = append(buf, 0)
	}
	for k := 0; k < len(gap); {
		if !isSpace(gap[k]) {
			buf = append(buf, gap[k])
			k++
			continue
		}
		j := k
		for j < len(gap) && isSpace(gap[j]) {
			j++
		}
		if bytes.IndexByte(gap[k:j], '\n') >= 0 {
			buf = append(buf, '\n')
		} else {
			buf = append(buf, gap[k:j]...)
		}
		k = j
	}
	return buf
}

// onlyLayout says a gap is blanks and line continuations (a backslash
// before a newline: a C macro's body split over lines) only.
func onlyLayout(gap []byte) bool {
	for k := 0; k < len(gap); k++ {
		switch c := gap[k]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == '\\' && k+1 < len(gap) && (gap[k+1] == '\n' || gap[k+1] == '\r'):
			k++
		default:
			return false
		}
	}
	return true
}

// sameRootGap is sameGap for a pattern's root: gaps without a letter or
// digit on both sides count as the same.
func (m *matcher) sameRootGap(p *pnode, t uint32) bool {
	if m.sameGap(p, t) {
		return true
	}
	return p.gapRe == nil && !slices.ContainsFunc(m.gapBuf, isWordByte) && !slices.ContainsFunc([]byte(p.gap), isWordByte)
}

// sameGap reports whether target node t's uncovered text is p's.
func (m *matcher) sameGap(p *pnode, t uint32) bool {
	m.gapBuf = m.t.gapText(m.gapBuf[:0], int(t), 0)
	if p.gapRe != nil {
		return p.gapRe.Match(m.gapBuf)
	}
	return string(m.gapBuf) == p.gap
}

// childFrom says node i has a child that starts at or after at.
func (m *matcher) childFrom(i, at uint32) bool {
	n := &m.nodes[i]
	for ch := i + 1; ch < n.next; ch = m.nodes[ch].next {
		if m.nodes[ch].start >= at {
			return true
		}
	}
	return false
}

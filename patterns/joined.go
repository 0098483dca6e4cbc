// This file checks that a rewrite which still parses is read the way it
// was written: the syntax check (newErrorNodes, in checkRewrite) cannot
// see a replacement that the parser reads together with the code beside
// it.

package patterns

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// A joined replacement is one whose new text the parser reads with the
// code around it, so that the file parses but means something else:
//
//   - JavaScript's automatic semicolons: over x = null⏎a && b, the
//     template ($A) && ($B) writes x = null⏎(a) && (b), which calls null
//     (the statement before now ends later: "before");
//   - a replacement that leaves the code after it to continue it (f()
//     without its ';' before a line that starts with '(': "after");
//   - a grouping the code had only through what the template dropped:
//     (a + b) * c with ($X) → $X is a + b * c, where the replacement is
//     no longer one expression, and f((a, b)) with f(($X)) → f($X) is
//     f(a, b), where the capture is not ("regrouped").
//
// Only nodes outside every replacement are compared, so a template free
// to write anything in its own span is not held to the code it replaces.
type joined struct {
	rep  int    // index in the file's replacements
	how  string // what the parser now does, for the model to read
	at   uint32 // where in the new text the change shows
	side string // "before", "after" or "regrouped"
}

// nodeKey is a named node by its place and symbol.
type nodeKey struct {
	start, end uint32
	sym        uint16
}

// joinedReplacements compares the trees of a file before and after its
// rewrite (reps in order, as rewrite makes them) and lists the
// replacements the new tree reads with their neighbours (see joined). A
// replacement next to broken code in the old tree is not judged: error
// recovery is free to read it either way.
func joinedReplacements(oldTree, newTree *Tree, reps []Replacement) []joined {
	if len(reps) == 0 {
		return nil
	}
	newHas := func(k nodeKey) bool { return newTree.hasNode(k.start, k.end, k.sym) }
	// inRep says off is where a replacement starts, or inside one: a node
	// that starts there is the template's to shape.
	inRep := func(off uint32) bool {
		// The last replacement starting at or before off (reps are in
		// order and apart).
		k := sort.Search(len(reps), func(i int) bool { return reps[i].Start > off }) - 1
		return k >= 0 && (off < reps[k].End || off == reps[k].Start)
	}
	// carried is n's key in the new tree, for a node no replacement shapes.
	carried := func(n *node) (nodeKey, bool) {
		if inRep(n.start) {
			return nodeKey{}, false
		}
		s, ok1 := shiftOffset(n.start, reps)
		e, ok2 := shiftOffset(n.end, reps)
		return nodeKey{s, e, n.sym}, ok1 && ok2
	}
	var errs [][2]uint32
	for i := range oldTree.nodes {
		if n := &oldTree.nodes[i]; n.flags&(flagError|flagMissing) != 0 {
			errs = append(errs, [2]uint32{n.start, n.end})
		}
	}
	newSpans := rewrittenSpans(reps)
	var out []joined
	for j, r := range reps {
		// The named nodes that end with the last token before the
		// replacement or start with the first after it (comments aside:
		// a comment does not end a statement).
		var around []uint32
		prevEnd, havePrev := oldTree.lastEndBefore(r.Start)
		if havePrev {
			around = oldTree.onPath(prevEnd-1, func(n *node) bool { return n.end == prevEnd && n.start < prevEnd }, around)
		}
		if next, ok := oldTree.firstStartFrom(r.End); ok {
			around = oldTree.onPath(next, func(n *node) bool { return n.start == next }, around)
		}
		lo, hi := r.Start, r.End
		for _, i := range around {
			lo, hi = min(lo, oldTree.nodes[i].start), max(hi, oldTree.nodes[i].end)
		}
		if slices.ContainsFunc(errs, func(e [2]uint32) bool { return e[0] <= hi && e[1] >= lo }) {
			continue
		}
		var found *joined
		for _, i := range around {
			n := &oldTree.nodes[i]
			k, ok := carried(n)
			if !ok || newHas(k) {
				continue
			}
			// A ';' that starts the replacement may end the statement
			// before it (semicolonBefore writes one there).
			if t := strings.TrimLeft(r.Text, " \t\r\n"); n.end == prevEnd && strings.HasPrefix(t, ";") {
				k.end = newSpans[j][0] + uint32(len(r.Text)-len(t)) + 1
				if newHas(k) {
					continue
				}
			}
			kind := oldTree.Lang.kindName(oldTree.Lang.kind(n.sym))
			if n.end == prevEnd {
				found = &joined{rep: j, side: "before", at: newSpans[j][0],
					how: fmt.Sprintf("the %s before it no longer ends where it did: the parser reads the replacement as its continuation (end that statement first, or start the template otherwise)", kind)}
			} else {
				found = &joined{rep: j, side: "after", at: newSpans[j][1],
					how: fmt.Sprintf("the %s after it no longer starts where it did: the parser reads it as the replacement's continuation (end the template as the replaced code ended, with its ';')", kind)}
			}
			break
		}
		if found == nil {
			// The replacement, one node or a run of siblings in the old
			// tree, is one in the new tree too (after a ';' it starts
			// with, which may end the statement before).
			olds, olde := trimBlanks(oldTree.Src, r.Start, r.End)
			ns, ne := trimBlanks(newTree.Src, newSpans[j][0], newSpans[j][1])
			if olds < olde && ns < ne && newTree.Src[ns] == ';' && oldTree.Src[olds] != ';' {
				ns, ne = trimBlanks(newTree.Src, ns+1, ne)
			}
			if olds < olde && ns < ne && tiles(oldTree, olds, olde) && !tiles(newTree, ns, ne) {
				found = &joined{rep: j, side: "regrouped", at: newSpans[j][0],
					how: "the replacement is no longer a whole: the parser groups part of it with the code around it (parenthesize it, or the capture it writes)"}
			}
		}
		if found == nil && castsMisread(newTree, newSpans[j][0], newSpans[j][1]) > castsMisread(oldTree, r.Start, r.End) {
			found = &joined{rep: j, side: "regrouped", at: newSpans[j][0],
				how: "the TypeScript compiler reads the type after `as` or `satisfies` on through the `.` that follows (`e as Error.message` casts to the type Error.message), not a member of the cast (parenthesize the cast)"}
		}
		if found == nil {
			if c, at, ok := splitCapture(oldTree, newTree, r, newSpans[j]); !ok {
				found = &joined{rep: j, side: "regrouped", at: at,
					how: fmt.Sprintf("%q, one expression where it was captured, is no longer one where the template writes it (parenthesize it in the template)", clip(c, 60))}
			}
		}
		if found != nil {
			out = append(out, *found)
		}
	}
	return out
}

// lastEndBefore is the last end at or before off of a node that is no
// comment.
func (t *Tree) lastEndBefore(off uint32) (uint32, bool) {
	best, ok := uint32(0), false
	for i := uint32(0); ; {
		n, into := &t.nodes[i], uint32(0)
		for c := i + 1; c < n.next; c = t.nodes[c].next {
			cn := &t.nodes[c]
			if cn.flags&flagExtra != 0 || cn.end == cn.start {
				continue
			}
			if cn.end <= off {
				best, ok = max(best, cn.end), true
				continue
			}
			if cn.start < off {
				into = c
			}
			break
		}
		if into == 0 {
			return best, ok
		}
		i = into
	}
}

// firstStartFrom is the first start at or after off of a node that is no
// comment.
func (t *Tree) firstStartFrom(off uint32) (uint32, bool) {
	best, ok := uint32(0), false
	for i := uint32(0); ; {
		n, into := &t.nodes[i], uint32(0)
		for c := i + 1; c < n.next; c = t.nodes[c].next {
			cn := &t.nodes[c]
			if cn.flags&flagExtra != 0 || cn.end == cn.start {
				continue
			}
			if cn.start >= off {
				if !ok || cn.start < best {
					best, ok = cn.start, true
				}
				break
			}
			if cn.end > off && into == 0 {
				into = c // and the sibling after it, if none inside it starts at off or later
			}
		}
		if into == 0 {
			return best, ok
		}
		i = into
	}
}

// holdingEach calls f with each node of t that holds the byte at off,
// from the root's child down, while f says to go on.
func (t *Tree) holdingEach(off uint32, f func(i uint32, n *node) bool) {
	for i := uint32(0); ; {
		n, into := &t.nodes[i], uint32(0)
		for c := i + 1; c < n.next; c = t.nodes[c].next {
			if cn := &t.nodes[c]; cn.start <= off && off < cn.end {
				into = c
				break
			}
		}
		if into == 0 || !f(into, &t.nodes[into]) {
			return
		}
		i = into
	}
}

// onPath appends to out the named nodes (no comment, no error node, not
// the root) that hold the byte at off and that keep says to.
func (t *Tree) onPath(off uint32, keep func(*node) bool, out []uint32) []uint32 {
	t.holdingEach(off, func(i uint32, n *node) bool {
		if n.named() && n.flags&(flagExtra|flagMissing) == 0 && keep(n) {
			out = append(out, i)
		}
		return true
	})
	return out
}

// hasNode says t has a named node of symbol sym spanning [start, end).
func (t *Tree) hasNode(start, end uint32, sym uint16) bool {
	for i := uint32(0); ; {
		n := &t.nodes[i]
		if n.start == start && n.end == end && n.sym == sym && n.named() && n.flags&(flagExtra|flagMissing|flagError) == 0 {
			return true
		}
		into := uint32(0)
		for c := i + 1; c < n.next; c = t.nodes[c].next {
			if cn := &t.nodes[c]; cn.start <= start && end <= cn.end && cn.end > cn.start {
				into = c
				break
			}
		}
		if into == 0 {
			return false
		}
		i = into
	}
}

// trimBlanks narrows [s, e) of src to its first and last byte that is no
// blank.
func trimBlanks(src []byte, s, e uint32) (uint32, uint32) {
	for s < e && isSpace(src[s]) {
		s++
	}
	for e > s && isSpace(src[e-1]) {
		e--
	}
	return s, e
}

// tiles says [a, b) of t's source is one node, or a run of siblings (with
// the comments between them).
func tiles(t *Tree, a, b uint32) bool {
	in := t.holding(a, b)
	if in < 0 {
		return false
	}
	n := &t.nodes[in]
	if n.start == a && n.end == b {
		return true
	}
	started := false
	for c := uint32(in) + 1; c < n.next; c = t.nodes[c].next {
		cn := &t.nodes[c]
		if !started {
			if cn.start > a {
				return false
			}
			started = cn.start == a
		}
		if started {
			if cn.end == b {
				return true
			}
			if cn.end > b {
				return false
			}
		}
	}
	return false
}

// asiLeads are the characters that continue a JavaScript statement on the
// line before when a line starts with them.
const asiLeads = "([`+-/<"

// semicolonBefore gives, in the JavaScript family, each replacement that
// joins the statement before it and starts a line with a character that
// continues that statement (asiLeads) a leading ';', as code written
// without semicolons does; it reports whether it changed any. newText is
// the rewrite with reps written in: a replacement right after another
// (two statements rewritten) joins it as "regrouped", since the one
// before is the template's.
func semicolonBefore(lang *Language, newText []byte, reps []Replacement, joins []joined) bool {
	if lang == nil || !jsFamily(lang.ID) {
		return false
	}
	spans := rewrittenSpans(reps)
	changed := false
	for _, jn := range joins {
		r := &reps[jn.rep]
		t := strings.TrimLeft(r.Text, " \t\r\n")
		if jn.side == "after" || t == "" || !strings.ContainsRune(asiLeads, rune(t[0])) {
			continue
		}
		before := bytes.TrimRight(newText[:spans[jn.rep][0]], " \t")
		if len(before) == 0 || before[len(before)-1] != '\n' && before[len(before)-1] != '\r' {
			continue // not at the start of its line: no ';' the line before lacks
		}
		if b := bytes.TrimRight(before, " \t\r\n"); len(b) > 0 && b[len(b)-1] == ';' {
			continue
		}
		lead := len(r.Text) - len(t)
		r.Text = r.Text[:lead] + ";" + t
		changed = true
	}
	return changed
}

// applyReplacements is src with reps (in order, not overlapping) written
// in.
func applyReplacements(src []byte, reps []Replacement) []byte {
	var b bytes.Buffer
	last := uint32(0)
	for _, r := range reps {
		b.Write(src[last:r.Start])
		b.WriteString(r.Text)
		last = r.End
	}
	b.Write(src[last:])
	return b.Bytes()
}

// splitCapture checks the single-node captures a replacement writes: each
// that was one node in the old tree must be one node wherever it is
// written in the new text (f(($A)) → f($A) over f((a, b)) writes two
// arguments; ($X) → $X over (a + b) * c groups b with c). A place inside
// a node without named children (a string's text) is not judged; of
// several places one that is a node is enough. It returns the capture
// and where it is written when it is split.
func splitCapture(oldTree, newTree *Tree, r Replacement, span [2]uint32) (string, uint32, bool) {
	for _, c := range r.singles {
		// Blanks at a capture's edges are layout (C's preproc_arg holds
		// the blank before a comment; the replacement may end before it).
		cs, ce := trimBlanks(oldTree.Src, c[0], c[1])
		if cs == ce || !oldTree.wholeNode(cs, ce) {
			continue
		}
		text := oldTree.Src[cs:ce]
		split, at := false, uint32(0)
		for from := span[0]; from < span[1]; {
			k := bytes.Index(newTree.Src[from:span[1]], text)
			if k < 0 {
				break
			}
			a := from + uint32(k)
			b := a + uint32(len(text))
			from = a + 1
			if !newTree.tokenEdges(a, b) {
				continue // inside a token (28 in F128)
			}
			if newTree.wholeNode(a, b) {
				split = false
				break
			}
			if newTree.straddles(a, b) && !split {
				split, at = true, a
			}
		}
		if split {
			return string(text), at, false
		}
	}
	return "", 0, true
}

// wholeNode says some node of t spans [a, b), blanks at its edges aside
// (the smallest node holding the range is then that node).
func (t *Tree) wholeNode(a, b uint32) bool {
	in := t.holding(a, b)
	if in < 0 {
		return false
	}
	s, e := trimBlanks(t.Src, t.nodes[in].start, t.nodes[in].end)
	return s == a && e == b
}

// tokenEdges says a token of t starts at a and one ends at b.
func (t *Tree) tokenEdges(a, b uint32) bool {
	return b > a && t.edgeAt(a, true) && t.edgeAt(b-1, false)
}

// edgeAt says a node of t holding the byte at off starts there (or, for
// !start, ends just after it).
func (t *Tree) edgeAt(off uint32, start bool) bool {
	found := false
	t.holdingEach(off, func(_ uint32, n *node) bool {
		found = start && n.start == off || !start && n.end == off+1
		return !found
	})
	return found
}

// holding is the smallest node of t that holds [a, b), or -1.
func (t *Tree) holding(a, b uint32) int {
	in := -1
	for i := uint32(0); i < uint32(len(t.nodes)); {
		n := &t.nodes[i]
		if n.start <= a && b <= n.end && n.end > n.start {
			in = int(i)
			i++
			continue
		}
		i = n.next
	}
	return in
}

// straddles says the smallest node of t holding [a, b) has named children
// and [a, b) is not one of them: the range cuts across the structure,
// rather than lying in a token or a string's text. Parentheses that hold
// just the range and make a group or a tuple keep it whole (Python's for
// i in (1, 2, 3), where 1, 2, 3 was an expression list: a tuple now, the
// same to Python); a call's do not (f((a, b)) → f(a, b)).
func (t *Tree) straddles(a, b uint32) bool {
	in := t.holding(a, b)
	if in < 0 {
		return false
	}
	n := &t.nodes[in]
	if s, e := trimBlanks(t.Src, n.start+1, n.end-1); n.end-n.start >= 2 && s == a && e == b &&
		t.Src[n.start] == '(' && t.Src[n.end-1] == ')' {
		if kind := t.Lang.kindName(t.Lang.kind(n.sym)); strings.HasPrefix(kind, "parenthesized") || kind == "tuple" {
			return false
		}
	}
	for c := uint32(in) + 1; c < n.next; c = t.nodes[c].next {
		if t.nodes[c].named() && t.nodes[c].flags&flagExtra == 0 {
			return true
		}
	}
	return false
}

// castsMisread counts, in t between a and b, the casts (`as`, `satisfies`)
// that a `.` after them reads on: a member access or call whose object is
// a cast without parentheses (`x as any.y`: the TypeScript grammar reads
// a cast and then a member, the compiler a cast to the type any.y), and a
// cast to a dotted type (`e as Error.message`: both read the type
// Error.message). A rewrite that drops the parentheses of `(e as
// Error).message` makes one or the other, where the code had neither,
// and it parses with every node the checks above look at in place. Only
// TypeScript and TSX have casts; elsewhere it is 0.
func castsMisread(t *Tree, a, b uint32) int {
	if id := t.Lang.ID; id != "typescript" && id != "tsx" {
		return 0
	}
	kind := func(i int) string { return t.Lang.kindName(t.Lang.kind(t.nodes[i].sym)) }
	n := 0
	// Nodes are in preorder, so starts never fall: the walk passes over
	// the subtrees that end before a and stops at the first node that
	// starts at or after b (it runs once a replacement, on each side).
	for i := 0; i < len(t.nodes); {
		nd := &t.nodes[i]
		if nd.start >= b {
			break
		}
		if nd.end <= a {
			i = int(nd.next)
			continue
		}
		i++
		if nd.start < a || nd.end > b || nd.next <= uint32(i) {
			continue
		}
		switch kind(i - 1) {
		case "member_expression", "call_expression":
			if k := kind(i); k == "as_expression" || k == "satisfies_expression" {
				n++
			}
		case "as_expression", "satisfies_expression":
			// The type is the cast's last child.
			last := i
			for c := i; c < int(nd.next); c = int(t.nodes[c].next) {
				last = c
			}
			if k := kind(last); k == "nested_type_identifier" || k == "generic_type" && last+1 < len(t.nodes) && kind(last+1) == "nested_type_identifier" {
				n++
			}
		}
	}
	return n
}

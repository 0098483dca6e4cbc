// This file renders syntax trees for people: how a pattern was read (its
// node kinds, metavariables marked) and how a snippet of code parses,
// for ast_grep's dump option (ast-grep's --debug-query).

package patterns

import (
	"fmt"
	"strconv"
	"strings"
)

// dumpTree renders a flattened tree as an indented outline with byte
// offsets, for debugging how a pattern or source is read.
func dumpTree(t *Tree) string {
	var b strings.Builder
	var walk func(i, depth int)
	walk = func(i, depth int) {
		n := &t.nodes[i]
		name := t.Lang.kindName(t.Lang.kind(n.sym))
		if n.flags&flagError != 0 {
			name = "ERROR"
		}
		flags := ""
		if n.flags&flagMissing != 0 {
			flags += " MISSING"
		}
		if !n.named() {
			name = fmt.Sprintf("%q", name)
		}
		fmt.Fprintf(&b, "%s%s [%d,%d)%s", strings.Repeat("  ", depth), name, n.start, n.end, flags)
		if n.next == uint32(i)+1 {
			fmt.Fprintf(&b, " %q", t.Src[n.start:n.end])
		}
		b.WriteByte('\n')
		for c := i + 1; c < int(n.next); c = int(t.nodes[c].next) {
			walk(c, depth+1)
		}
	}
	if len(t.nodes) > 0 {
		walk(0, 0)
	}
	return b.String()
}

// maxDumpLines bounds a dump: a snippet is for reading, not a file.
const maxDumpLines = 2000

// DumpCode parses src as plain code in lang (a metavariable is whatever
// the grammar makes of it) and renders the tree: one node a line,
// indented by depth, with its kind (a token's kind quoted), its range
// (line:column, 1-based, end exclusive) and a leaf's text; error nodes
// read ERROR, a token error recovery inserted MISSING. It also returns
// how many ERROR and MISSING nodes there are, and whether the rendering
// was cut at maxDumpLines.
func DumpCode(lang *Language, src string) (tree string, errs int, capped bool, err error) {
	if ok, why := lang.Available(); !ok {
		return "", 0, false, fmt.Errorf("language %s: %s", lang.ID, why)
	}
	p := newParser()
	defer p.close()
	t, err := p.parse(lang, []byte(src), true)
	if err != nil {
		return "", 0, false, err
	}
	li := newLineIndex(t.Src)
	var b strings.Builder
	lines := 0
	var walk func(i, depth int)
	walk = func(i, depth int) {
		n := &t.nodes[i]
		if n.flags&(flagError|flagMissing) != 0 {
			errs++
		}
		if lines == maxDumpLines {
			capped = true
		} else {
			lines++
			name := t.Lang.kindName(t.Lang.kind(n.sym))
			if !n.named() {
				name = strconv.Quote(name)
			}
			switch {
			case n.flags&flagError != 0:
				name = "ERROR"
			case n.flags&flagMissing != 0:
				name = "MISSING " + name
			}
			from, to := li.pos(n.start), li.pos(n.end)
			fmt.Fprintf(&b, "%s%s %d:%d-%d:%d", strings.Repeat("  ", depth), name, from.Line, from.Column, to.Line, to.Column)
			if n.flags&flagExtra != 0 {
				b.WriteString(" (extra)")
			}
			if n.next == uint32(i)+1 && n.end > n.start && n.named() {
				b.WriteString(" " + strconv.Quote(clip(string(t.Src[n.start:n.end]), 60)))
			}
			b.WriteByte('\n')
		}
		for c := i + 1; c < int(n.next); c = int(t.nodes[c].next) {
			walk(c, depth+1)
		}
	}
	if len(t.nodes) > 0 {
		walk(0, 0)
	}
	return b.String(), errs, capped, nil
}

// Dump renders how the pattern was read: one pattern node a line,
// indented by depth, with its node kind (a token's kind quoted, a leaf's
// text after it). A metavariable shows as written with what it matches:
// $X one named node, $$X one node named or not, $$$X zero or more
// siblings; $_ and $$$ capture nothing. A sequence pattern has several
// top-level nodes.
func (p *Pattern) Dump() string {
	var b strings.Builder
	var walk func(n *pnode, depth int)
	walk = func(n *pnode, depth int) {
		b.WriteString(strings.Repeat("  ", depth))
		switch {
		case n.meta != metaNone:
			name := n.name
			if name == "" && n.meta != metaMulti {
				name = "_"
			}
			what := map[metaKind]string{metaSingle: "one named node", metaAny: "one node, named or not", metaMulti: "zero or more sibling nodes"}[n.meta]
			if n.name == "" {
				what += ", not captured"
			}
			fmt.Fprintf(&b, "%s%s  metavariable: %s\n", strings.Repeat("$", int(n.meta)), name, what)
		case n.leaf && !n.named:
			fmt.Fprintf(&b, "%s\n", strconv.Quote(p.Lang.kindName(n.kind)))
		case n.leaf:
			fmt.Fprintf(&b, "%s %s\n", p.Lang.kindName(n.kind), strconv.Quote(n.text))
		default:
			fmt.Fprintf(&b, "%s\n", p.Lang.kindName(n.kind))
		}
		for _, c := range n.children {
			walk(c, depth+1)
		}
	}
	for _, n := range p.nodes {
		walk(n, 0)
	}
	return b.String()
}

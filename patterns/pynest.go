// This file goes one step past the top-level split for Python: inside the
// statements that are parsed, it leaves out the statements of indented
// blocks that cannot hold a match and whose presence the pattern cannot
// see, so that a file full of functions is not parsed whole to find their
// headers (the bench's def $F($$$): $$$ spends nine tenths of its time in
// the parser).
//
// A statement nested in a block is left out when
//   - it holds no whole-word occurrence of the pattern's rarest literal, so
//     no match lies inside it;
//   - it is neither the first nor the last statement of its block, so every
//     node keeps its start and end (a block spans from its first statement
//     to its last, and so does every node around it); and
//   - the pattern cannot tell a block with it from one without it: a block
//     in the target is then only ever absorbed by a $$$ or bound by a
//     metavariable, which read its position, not its statements (see
//     nestBlind).
//
// Python's statements in a block are read independently of each other
// (a new logical line at the block's indentation starts a new one), so
// the statements kept parse as they do in the whole file. The scan answers
// "unsure" on what it cannot follow (tabs in indentation, a dedent to no
// enclosing level), and then only top-level statements are left out; a
// parse of the ranges that has a syntax error is redone on the whole file.

package patterns

import (
	"bytes"
	"sort"
)

// pyLine is a logical line of Python source: one that does not continue
// an open bracket, a string or a backslash, and is not blank or a
// comment.
type pyLine struct {
	start  uint32 // the line's first byte (column 0)
	indent int32  // spaces before its code
	// stmt says the line begins a statement at its indentation: not a
	// clause (else:, except:), not the line after a decorator, not a line
	// after one that cannot end there (a trailing operator or ':').
	stmt bool
}

// pyLines appends src's logical lines to lines, and to dented the
// starts of the lines that go on a logical line (in brackets or after a
// backslash) left of its indentation: tree-sitter's scanner may read
// such a dedent as the end of a block where Python does not, so the
// statement holding one is parsed, to let that error show. False when
// unsure.
func pyLines(src []byte, lines []pyLine, dented []uint32) ([]pyLine, []uint32, bool) {
	s := newPyScan(src)
	decorator := false
	fromOpen := false // the last logical line that started anew is a from with no import on its line
	// line examines the line starting at i (after a newline outside
	// brackets, or at 0).
	line := func(i int) bool {
		j := i
		for j < len(src) && src[j] == ' ' {
			j++
		}
		if j == len(src) {
			return true
		}
		if i > 0 && endsZeroWidth(src, i) {
			return false // see splitPython
		}
		if zeroWidth(src, j) > 0 {
			if i > 0 || j > 0 {
				return false // see splitPython
			}
			j = bom(src) // the file's byte-order mark: indent 0
			i = j
		}
		switch c := src[j]; c {
		case '\n', '#':
			return true // blank or a comment: not a logical line
		case '\t', '\f', '\r':
			// The scanner counts a tab as 8 columns and resets at \f and
			// \r: allowed only on a line with nothing else on it.
			for k := j; k < len(src) && src[k] != '\n'; k++ {
				if b := src[k]; b != ' ' && b != '\t' && b != '\f' && b != '\r' {
					return false
				}
			}
			return true
		default:
			open := s.open()
			s.header = startsHeader(src[j:]) || open && s.header // see nextHeader
			stmt := !open && !decorator && !continues(src[j:]) && (decoratorAt(src, j) || startsStatement(c))
			// A from with no import yet goes on across newlines, and
			// import b read alone is another statement: the line after it
			// starts none (nor after an '@' midLine takes as a
			// decorator's, on a line with a from). The other lines
			// midLine finds glued to the next, as x = 1 def f⏎(): pass,
			// hold half a construct each: a part that keeps one without
			// the other has a syntax error and the file is parsed whole,
			// so they are not looked for here, where every line would pay
			// for it.
			if stmt && fromOpen {
				stmt = false
			}
			if !open && (decoratorAt(src, j) || startsStatement(c)) {
				rest, _, _ := bytes.Cut(src[j:], []byte("\n"))
				fromOpen = false
				if bytes.Contains(rest, []byte("from")) {
					_, fromOpen = midLine(rest) // also 1jfrom a, import a\u2060from b
				}
			}
			lines = append(lines, pyLine{start: uint32(i), indent: int32(j - i), stmt: stmt})
			decorator = decoratorAt(src, j)
			return true
		}
	}
	// goesOn notes the line starting at i, which goes on the current
	// logical line, when its code lies left of that line's.
	goesOn := func(i int) {
		if len(lines) == 0 {
			return
		}
		j := i
		for j < len(src) && src[j] == ' ' {
			j++
		}
		if j < len(src) && src[j] != '\n' && src[j] != '\r' && src[j] != '#' && int32(j-i) < lines[len(lines)-1].indent {
			dented = append(dented, uint32(i))
		}
	}
	if !line(0) {
		return lines, dented, false
	}
	ok := s.run(line, goesOn)
	return lines, dented, ok && s.depth == 0
}

// pyNest finds the nested statements of one file to leave out.
type pyNest struct {
	lines []pyLine
	offs  []uint32 // sorted offsets of the rarest literal
	keep  []uint32 // sorted offsets whose statements are parsed anyway (pyLines' dented)
	drops []uint32 // pairs: [start, end) byte ranges left out, in order
}

// statement adds the drops inside the statement made of lines[lo:hi],
// whose first line has the given indentation and which ends at end:
// its runs of deeper lines are its blocks. False when unsure.
func (n *pyNest) statement(lo, hi int, indent int32, end uint32) bool {
	for i := lo + 1; i < hi; {
		if n.lines[i].indent <= indent {
			i++ // a clause (else:) or a line that goes on the one before
			continue
		}
		j := i + 1
		for j < hi && n.lines[j].indent > indent {
			j++
		}
		runEnd := end
		if j < hi {
			runEnd = n.lines[j].start
		}
		if !n.block(i, j, runEnd) {
			return false
		}
		i = j
	}
	return true
}

// block adds the drops inside the block made of lines[lo:hi] (its first
// line sets its indentation), which ends at end.
func (n *pyNest) block(lo, hi int, end uint32) bool {
	b := n.lines[lo].indent
	for k := lo; k < hi; {
		m := k + 1
		for m < hi && !(n.lines[m].indent == b && n.lines[m].stmt) {
			if n.lines[m].indent < b {
				return false // a dedent to no enclosing block's level
			}
			m++
		}
		stmtEnd := end
		if m < hi {
			stmtEnd = n.lines[m].start
		}
		if start := n.lines[k].start; k > lo && m < hi && !n.holds(start, stmtEnd) {
			n.drops = append(n.drops, start, stmtEnd)
		} else if !n.statement(k, m, b, stmtEnd) {
			return false
		}
		k = m
	}
	return true
}

// holds reports an offset of the literal, or one to keep, in [start, end).
func (n *pyNest) holds(start, end uint32) bool {
	return within(n.offs, start, end) || within(n.keep, start, end)
}

// within reports an offset of offs (sorted) in [start, end).
func within(offs []uint32, start, end uint32) bool {
	i := sort.Search(len(offs), func(i int) bool { return offs[i] >= start })
	return i < len(offs) && offs[i] < end
}

// pyBlockHolders are the Python kinds whose children can be blocks or
// statements.
var pyBlockHolders = map[string]bool{
	"block": true, "module": true, "decorated_definition": true,
	"function_definition": true, "class_definition": true,
	"if_statement": true, "elif_clause": true, "else_clause": true,
	"for_statement": true, "while_statement": true, "with_statement": true,
	"try_statement": true, "except_clause": true, "except_group_clause": true, "finally_clause": true,
	"match_statement": true, "case_clause": true,
}

// nestBlind reports a Python pattern that cannot tell a block from the
// same block missing some middle statements: it spells no block (whose
// children it would compare one by one), and no repeated metavariable
// can capture a block or statement (a repeat compares every token of
// what it captured). A block is then only absorbed by a $$$ or bound by
// a metavariable, which read where it starts and ends.
func nestBlind(p *Pattern) bool {
	if p.Lang.ID != "python" || p.rootSyms == nil {
		return false
	}
	var blind func(n *pnode) bool
	blind = func(n *pnode) bool {
		if n.meta != metaNone {
			return true
		}
		name := p.Lang.kindName(n.kind)
		if name == "block" || name == "module" {
			return false
		}
		for _, c := range n.children {
			if c.meta != metaNone && c.name != "" && p.repeated[c.name] && pyBlockHolders[name] {
				return false
			}
			if !blind(c) {
				return false
			}
		}
		return true
	}
	for _, r := range p.nodes {
		if !blind(r) {
			return false
		}
	}
	return true
}

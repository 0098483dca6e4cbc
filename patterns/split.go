// This file splits a Python, Go or C file into its top-level statements
// with a lexical scan (Python's is pyscan.go's; TypeScript's and
// JavaScript's is jssplit.go's), so that a search parses only the
// statements that hold the pattern's rarest literal (tree-sitter's
// included ranges). A top-level statement parses the same
// alone as in its file (in C, with the lines of the conditional it lies
// in: withConditionals): it starts at column 0 with no open bracket,
// string, comment or line continuation, and nothing before it changes
// how it is read. The scan answers "unsure" (parse the whole file) on
// anything it cannot follow, and a parse of the chosen ranges that has a
// syntax error is redone on the whole file.

package patterns

import (
	"bytes"
	"regexp"
	"slices"
)

// A splitter appends to starts the offsets where src's top-level
// statements begin, in order, the first being 0; false when unsure.
type splitter func(src []byte, starts []uint32) ([]uint32, bool)

var splitters = map[string]splitter{"python": splitPython, "go": splitGo, "c": splitC,
	"typescript": splitJS(false), "tsx": splitJS(true), "javascript": splitJS(true)}

// ranges returns the parts of src to parse so that every statement
// holding one of offs (sorted) is parsed: five numbers per range (start
// byte, end byte, start row, end row, end column). With nest (Python,
// for a pattern nestBlind accepts), the statements nested in those that
// cannot hold a match are left out too, where pyNest allows. False when
// the split is unsure or nothing would be left out.
func (p *parser) ranges(src []byte, offs []uint32, split splitter, nest bool) ([]uint32, bool) {
	if jsFamily(p.lang) && len(offs)*jsDense > len(src) {
		return nil, false // see jsDense
	}
	starts, ok := p.stmts, p.splitOK
	if !p.splitDone { // parseDirectives has not split this file already
		starts, ok = split(src, p.stmts[:0])
		p.stmts = starts
	}
	if !ok || len(starts) < 2 && !nest {
		return nil, false
	}
	n := &p.nest
	n.drops, n.offs = n.drops[:0], offs
	if nest {
		n.lines, n.keep, nest = pyLines(src, n.lines[:0], n.keep[:0])
	}
	out, kept, ok := p.keptRanges(src, offs, starts, nest)
	if !ok {
		return nil, false
	}
	if p.lang == "c" {
		out, kept = withConditionals(src, starts, out, kept)
	}
	out = capRanges(out, maxRanges)
	p.rng = out
	if kept == len(src) || p.lang == "c" && kept > len(src)/2 || jsFamily(p.lang) && 10*kept > jsKeepMost*len(src) {
		// In C, where one file in six has a syntax error somewhere (a
		// macro tree-sitter cannot read) and its partial parse must be
		// redone whole, a part that saves less than half is not worth
		// the risk of two parses. In the JavaScript family a parse of
		// ranges costs more a byte than a whole parse (the lexer checks
		// its range at every token): measured on zod's sources, keeping
		// nine tenths of a file was slower than parsing it all.
		return nil, false
	}
	fillRangePoints(src, out)
	return out, true
}

// keptRanges are the statements (from starts) that hold an offset of
// offs, less (with nest) the nested Python statements that cannot hold
// a match, as ranges of five: start, end and three slots
// fillRangePoints fills; kept is how many bytes they cover. False when
// an offset lies in the condition of a C #elif that starts a part: parsed
// without its #if, the line is a generic preproc_call, whose condition
// is no expression (the whole file is parsed instead).
func (p *parser) keptRanges(src []byte, offs, starts []uint32, nest bool) (out []uint32, kept int, ok bool) {
	n := &p.nest
	out = p.rng[:0]
	add := func(s, e uint32) {
		if k := len(out); k > 0 && out[k-4] == s {
			out[k-4] = e // extends the previous range
			return
		}
		out = append(out, s, e, 0, 0, 0)
	}
	oi, li := 0, 0
	for k, s := range starts {
		e := uint32(len(src))
		if k+1 < len(starts) {
			e = starts[k+1]
		}
		for oi < len(offs) && offs[oi] < s {
			oi++
		}
		if oi == len(offs) || offs[oi] >= e {
			continue
		}
		if p.lang == "c" && conditionalOnly(src[s:e]) && inKeyword(offs[oi:], e, s+directiveKeywordEnd(src[s:e])) {
			continue // see conditionalOnly
		}
		if p.lang == "c" && src[s] == '#' && inDefineBody(src, s, offs[oi:], e) {
			// A #define between declarations, parsed alone, has no token
			// in its body: a part whose offsets all lie there has no
			// match. (Inside braces, error recovery can read a body as
			// code, as after an enum's last member without a comma; such
			// a #define starts no part.)
			continue
		}
		if p.lang == "c" && startsElif(src[s:e]) {
			if end, ok := skipDirective(src[s:e], 0); !ok || !inKeyword(offs[oi:], s+uint32(end), s+directiveKeywordEnd(src[s:e])) {
				return out, kept, false
			}
		}
		if nest {
			for li < len(n.lines) && n.lines[li].start < s {
				li++
			}
			hi := li
			for hi < len(n.lines) && n.lines[hi].start < e {
				hi++
			}
			mark := len(n.drops)
			if hi > li && n.lines[li].indent == 0 && n.statement(li, hi, 0, e) {
				for d := mark; d < len(n.drops); d += 2 {
					if s < n.drops[d] {
						add(s, n.drops[d])
						kept += int(n.drops[d] - s)
					}
					s = n.drops[d+1]
				}
			} else {
				n.drops = n.drops[:mark]
			}
		}
		if s < e {
			add(s, e)
			kept += int(e - s)
		}
	}
	return out, kept, true
}

// withConditionals adds to C's kept ranges (out, of five numbers each)
// the lines of the conditional directive each kept part lies in: its
// #if (#ifdef, #ifndef), the #else or #elif that starts its branch, and
// its #endif, all parts of their own (splitC makes a conditional line at
// a statement boundary one). Parsed alone a part is read as at file
// scope, and tree-sitter's C grammar reads some code otherwise inside a
// conditional, where a block's statements may stand: SECItem
// *(*cb)(void *arg); is a declaration at file scope and an expression
// statement inside #ifndef, foo_t (*baz)(int); a call (the split
// mutation soak, seed 1796669450968279827). With those lines the part is
// read as in its file. A kept conditional line gets the lines that
// close it too. Where the lines do not pair up, out is left as it is
// (a part then read otherwise is caught by the syntax check of the
// partial parse only when it breaks).
func withConditionals(src []byte, starts, out []uint32, kept int) ([]uint32, int) {
	type frame struct{ open, branch int }
	const (
		other = iota
		opens
		branches
		ends
	)
	kindOf := func(part []byte) int {
		part = bytes.TrimLeft(part, " \t")
		if len(part) == 0 || part[0] != '#' {
			return other // most parts: no regexp for them
		}
		loc := conditionalDirective.FindSubmatchIndex(part)
		if loc == nil || loc[0] != 0 {
			return other
		}
		switch string(part[loc[2]:loc[3]]) {
		case "if", "ifdef", "ifndef":
			return opens
		case "endif":
			return ends
		}
		return branches
	}
	n := len(starts)
	partEnd := func(k int) uint32 {
		if k+1 < n {
			return starts[k+1]
		}
		return uint32(len(src))
	}
	// Each part's innermost conditional (its opening part, and the part
	// of its branch's #else or #elif, or -1), and each opening part's
	// #endif part.
	ctx := make([]frame, n)
	endOf := map[int]int{}
	var stack []frame
	any := false
	for k := range n {
		ctx[k] = frame{-1, -1}
		if len(stack) > 0 {
			ctx[k] = stack[len(stack)-1]
		}
		switch kindOf(src[starts[k]:partEnd(k)]) {
		case opens:
			stack = append(stack, frame{k, -1})
			any = true
		case branches:
			if len(stack) == 0 {
				return out, kept
			}
			stack[len(stack)-1].branch = k
			ctx[k] = frame{stack[len(stack)-1].open, -1}
		case ends:
			if len(stack) == 0 {
				return out, kept
			}
			endOf[stack[len(stack)-1].open] = k
			stack = stack[:len(stack)-1]
		}
	}
	if !any || len(stack) > 0 {
		return out, kept
	}
	// The parts to parse: those kept, and the lines around each.
	keep := make([]bool, n)
	r := 0
	for k := range n {
		s, e := starts[k], partEnd(k)
		for r < len(out) && out[r+1] <= s {
			r += 5
		}
		if r >= len(out) || out[r] >= e {
			continue
		}
		keep[k] = true
	}
	need := slices.Clone(keep)
	for k := range n {
		if !keep[k] {
			continue
		}
		c := ctx[k]
		if kindOf(src[starts[k]:partEnd(k)]) == opens {
			c = frame{k, -1}
		}
		if c.open < 0 {
			continue
		}
		need[c.open] = true
		if c.branch >= 0 {
			need[c.branch] = true
		}
		if e, ok := endOf[c.open]; ok {
			need[e] = true
		}
	}
	// Kept ranges may cover part of a part (Python's nest does; C's do
	// not, but a range is kept as it was): each part needed only for its
	// lines is added whole, the kept ranges stay.
	var merged []uint32
	add := func(s, e uint32) {
		if k := len(merged); k > 0 && merged[k-4] >= s {
			merged[k-4] = max(merged[k-4], e)
			return
		}
		merged = append(merged, s, e, 0, 0, 0)
	}
	r = 0
	for k := range n {
		s, e := starts[k], partEnd(k)
		for ; r < len(out) && out[r] < e; r += 5 {
			add(out[r], out[r+1])
		}
		if need[k] && !keep[k] {
			add(s, e)
		}
	}
	for ; r < len(out); r += 5 {
		add(out[r], out[r+1])
	}
	kept = 0
	for i := 0; i < len(merged); i += 5 {
		kept += int(merged[i+1] - merged[i])
	}
	return merged, kept
}

// inDefineBody reports that the offsets of offs below e all lie in the
// body of the #define at s.
func inDefineBody(src []byte, s uint32, offs []uint32, e uint32) bool {
	from, end := defineBody(src, int(s))
	if from == end {
		return false
	}
	for _, o := range offs {
		if o >= e {
			break
		}
		if int(o) < from || int(o) >= end {
			return false
		}
	}
	return true
}

// defineBody returns the body of the #define whose '#' is at i (the text
// after its name and parameter list, to tree-sitter's C grammar one
// preproc_arg token): it ends at the line's end (a backslash-newline
// continues it) or earlier at a comment or a quote, as the grammar's
// token may; it is empty (i+1, i+1) when the line is no #define this
// reading is sure of.
func defineBody(src []byte, i int) (int, int) {
	none := i + 1
	for j := i - 1; j >= 0 && src[j] != '\n'; j-- {
		if src[j] != ' ' && src[j] != '\t' {
			return none, none // not the line's first token
		}
	}
	blanks := func(j int) int {
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		return j
	}
	j := blanks(i + 1)
	if !bytes.HasPrefix(src[j:], []byte("define")) {
		return none, none
	}
	j += len("define")
	if j >= len(src) || src[j] != ' ' && src[j] != '\t' {
		return none, none
	}
	j = blanks(j)
	name := j
	for j < len(src) && (isLetter(src[j]) || j > name && isDigit(src[j])) {
		j++
	}
	if j == name || j < len(src) && src[j] >= 0x80 {
		return none, none
	}
	if j < len(src) && src[j] == '(' { // a parameter list: names, commas, ...
		k := j + 1
		for k < len(src) && (isLetter(src[k]) || isDigit(src[k]) || bytes.IndexByte([]byte(" \t,."), src[k]) >= 0) {
			k++
		}
		if k == len(src) || src[k] != ')' {
			return none, none
		}
		j = k + 1
	}
	from := j
	for ; j < len(src); j++ {
		switch c := src[j]; {
		case c == '\\' && j+1 < len(src) && src[j+1] == '\n':
			j++
		case c == '\\' && j+2 < len(src) && src[j+1] == '\r' && src[j+2] == '\n':
			j += 2
		case c == '\n', c == '"', c == '\'', c == '/' && j+1 < len(src) && (src[j+1] == '*' || src[j+1] == '/'):
			return from, j
		}
	}
	return from, j
}

// fillRangePoints writes each range's start row, end row and end column
// (a statement start is at column 0; the file's end may not be).
func fillRangePoints(src []byte, out []uint32) {
	row, rowAt := uint32(0), uint32(0) // row is the line of offset rowAt
	rowOf := func(off uint32) uint32 {
		row += uint32(bytes.Count(src[rowAt:off], []byte{'\n'}))
		rowAt = off
		return row
	}
	for i := 0; i < len(out); i += 5 {
		out[i+2] = rowOf(out[i])
		if e := out[i+1]; e == uint32(len(src)) {
			out[i+3] = rowOf(e)
			out[i+4] = e - uint32(bytes.LastIndexByte(src[:e], '\n')+1)
		} else {
			out[i+3] = rowOf(e) // a statement start: column 0
		}
	}
}

// maxRanges bounds the ranges of one parse: tree-sitter's lexer looks
// for the current range from the first one at every token, so a parse
// of r ranges costs up to r steps a token.
const maxRanges = 256

// capRanges merges the ranges (five numbers each, rows not yet set)
// across their smallest gaps until at most max are left.
func capRanges(out []uint32, max int) []uint32 {
	n := len(out) / 5
	if n <= max {
		return out
	}
	gaps := make([]uint32, n-1)
	for i := range gaps {
		gaps[i] = out[5*(i+1)] - out[5*i+1]
	}
	sorted := slices.Clone(gaps)
	slices.Sort(sorted)
	k := n - max         // gaps to parse across: the k smallest
	limit := sorted[k-1] // the largest of them
	ties := 0            // how many gaps equal to limit go, first ones first
	for _, g := range sorted[:k] {
		if g == limit {
			ties++
		}
	}
	w := 0
	for i := 0; i < n; i++ {
		if i > 0 {
			if g := gaps[i-1]; g < limit || g == limit && ties > 0 {
				if g == limit {
					ties--
				}
				out[5*(w-1)+1] = out[5*i+1] // parse across the gap
				continue
			}
		}
		copy(out[5*w:5*w+5], out[5*i:5*i+5])
		w++
	}
	return out[:5*w]
}

// splitPython finds the lines where a top-level statement starts: at
// column 0, outside brackets, strings and backslash continuations (the
// scan is pyScan's), not a comment, not else/elif/except/finally (which
// continue the statement before), not right after a decorator line, and
// not after a line whose header or decorator started after other code
// (see midLine).
func splitPython(src []byte, starts []uint32) ([]uint32, bool) {
	starts = append(starts, 0)
	lead := bom(src)
	first := pastBlanks(src, lead)
	decorated := decoratorAt(src, first) // the last line with code was a decorator
	s := newPyScan(src)
	code := 0 // where the last logical line with code starts
	// gluedOn says the logical line before i leaves the line at i part of
	// its statement (see midLine).
	gluedOn := func(i int) bool {
		h, d := midLine(src[code:i])
		s.header = s.header || h
		return h || d
	}
	ok := s.run(func(i int) bool {
		j := pastBlanks(src, i)
		if zeroWidth(src, j) > 0 || endsZeroWidth(src, i) {
			// tree-sitter skips it, and its scanner's indentation stops
			// there, or it does not see the newline after it: the line's
			// statement, or the next one's, starts where the scan cannot
			// tell (if 0:\n 0\n \u2060\n0, 0\ufeff\n()): unsure (rare).
			return false
		}
		open := s.open()
		s.header = nextHeader(src, i, open, s.header)
		// tree-sitter's scanner counts indentation anew after each \r or
		// \f and stops counting at a \v: a line whose blanks leave it at
		// 0 (\r@0⏎def A():) is at column 0 to it, its code at j.
		k := i
		if j > i && j < len(src) && indentZero(src[i:j]) {
			k = j
		}
		switch b := src[k]; {
		case b == ' ' || b == '\t' || b == '\f' || b == '\r' || b == '\n' || b == '#':
			// Indented, blank or a comment. An indented decorator is one
			// to tree-sitter too when no block opened before it (0⏎
			// ⎵⎵@0⏎def A(): is one decorated definition), so what
			// follows it starts nothing; any other indented code ends
			// that.
			if j < len(src) && src[j] != '\n' && src[j] != '\r' && src[j] != '#' && j > i && !open {
				decorated = decoratorAt(src, j)
			}
		case decoratorAt(src, k):
			if !decorated && !open {
				if !gluedOn(i) {
					starts = append(starts, uint32(k))
				}
			}
			decorated = true
		default:
			// A line that starts with, say, '=' goes on the statement
			// before it for tree-sitter ((a)\n= 0 is one assignment).
			if !decorated && !open && startsStatement(b) && !continues(src[k:]) {
				if !gluedOn(i) {
					starts = append(starts, uint32(k))
				}
			}
			if !open { // a line that goes on a decorator (@⏎0) leaves it one
				decorated = false
			}
		}
		// A line that starts with '.' or '=' goes on the statement before
		// as an open one does: code stays where that statement started.
		if !open && j < len(src) && (decoratorAt(src, j) || startsStatement(src[j])) {
			code = i
		}
		return true
	}, nil)
	// A file that ends in a comment inside open brackets is split all the
	// same: that parse's syntax error sends the search to the whole file.
	return starts, ok && (s.depth == 0 || s.endComment)
}

// indentZero says blanks at a line's start leave tree-sitter-python's
// indentation at 0: it adds 1 a space and 8 a tab, starts again at 0
// after a \r or \f, and stops counting at a \v.
func indentZero(blanks []byte) bool {
	n := 0
	for _, c := range blanks {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 8
		case '\r', '\f':
			n = 0
		case '\v':
			return n == 0
		}
	}
	return n == 0
}

// splitGo finds the lines where a top-level declaration starts: func,
// type, var, const or import at column 0, outside brackets, comments and
// literals, after a line that ends a statement by Go's semicolon rule.
func splitGo(src []byte, starts []uint32) ([]uint32, bool) {
	starts = append(starts, 0)
	if !goDeclHead(src, true) {
		return starts, false
	}
	depth := 0
	// The last two tokens seen, as the offset of their last byte (-1 for
	// none yet): comments and white space, newlines too, are not tokens.
	last, prev := -1, -1
	see := func(end int) { prev, last = last, end }
	// open is where the outermost bracket now open is, sig where the
	// last '(' … ')' closed at the top level ends when its line starts
	// with func (a signature, or an unnamed func's parameters), else -1.
	open, sig := -1, -1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '/' || c == '"' || c == '\'' || c == '`':
			// A comment spanning lines acts as a newline; the line after
			// it is left with the statement before (costing only speed).
			end, stop, inCode := skipGo(src, i)
			if stop {
				return starts, !inCode && depth == 0 // unsure, or the rest is a comment
			}
			if c != '/' || end == i+1 { // a literal, or a division
				see(end - 1)
			}
			i = end
		case c == '(' || c == '[' || c == '{':
			if depth == 0 {
				open = i
			}
			depth++
			see(i)
			i++
		case c == ')' || c == ']' || c == '}':
			if depth--; depth < 0 {
				return starts, false
			}
			if depth == 0 {
				sig = -1
				if at := bytes.LastIndexByte(src[:open], '\n') + 1; c == ')' && src[open] == '(' && startsWord(src[at:], "func") {
					sig = i
				}
			}
			see(i)
			i++
		case c == '\n':
			i++
			if depth != 0 || last < 0 || !endsGoStatement(src[:last+1]) {
				break
			}
			// A func type after a declaration's type or signature goes
			// on it (var f map[string]⏎func()).
			typed := bytes.HasPrefix(src[i:], []byte("func")) && typeMayFollow(src, last, prev, last == sig, src[i+4:])
			switch {
			case typed:
			case !goDeclHead(src[i:], false):
				return starts, false // see goDeclHead
			case startsGoDecl(src[i:]):
				starts = append(starts, uint32(i))
			}
		case isWordByte(c):
			j := i + 1
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			see(j - 1)
			i = j
		default:
			// tree-sitter-go reads \v and \f as blanks too (var\vA\nfunc()
			// is var A func(); FuzzSplitGo).
			if c != ' ' && c != '\t' && c != '\r' && c != '\v' && c != '\f' {
				see(i)
			}
			i++
		}
	}
	return starts, depth == 0
}

// goDeclHead reports code that starts (after blanks and comments) as a
// top-level declaration does: import, type, var, const, or func and a
// name, or a receiver in parentheses and a name; with first (the file's
// start), package too. Blanks and comments alone count as one. Anything
// else after a statement's end is code Go forbids at the top level,
// which tree-sitter-go still reads without error, but where a newline
// need not end a statement (func⏎()⏎func(){} is one function literal to
// it, 0%func()⏎func(){} one expression): the split is then unsure
// (FuzzSplitGo).
func goDeclHead(part []byte, first bool) bool {
	i := 0
	for i < len(part) {
		switch c := part[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f':
			i++
			continue
		case c == '/' && i+1 < len(part) && (part[i+1] == '/' || part[i+1] == '*'):
			end, stop, _ := skipGo(part, i)
			if stop {
				return true // the rest is a comment
			}
			i = end
			continue
		}
		break
	}
	rest := part[i:]
	if len(rest) == 0 || rest[0] == '\n' {
		return true
	}
	switch {
	case first && startsWord(rest, "package"):
		return true
	case !startsGoDecl(rest):
		return false
	case !startsWord(rest, "func"):
		return true // type, var, const, import
	}
	j := 4
	for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
		j++
	}
	if j < len(rest) && rest[j] == '(' { // a receiver, then the name
		close := bytes.IndexByte(rest[j:], ')')
		if close < 0 {
			return false
		}
		j += close + 1
		for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
			j++
		}
	}
	return j < len(rest) && (isLetter(rest[j]) || rest[j] >= 0x80)
}

// isWordByte reports a byte of a Go name, keyword or number (a byte of
// a multi-byte rune counts as a letter).
func isWordByte(c byte) bool { return isLetter(c) || isDigit(c) || c >= 0x80 }

// endsGoStatement reports code whose last token makes a newline end the
// statement (the Go spec's semicolon rule): a name, a literal, one of
// break continue fallthrough return, ++, --, or a closing bracket.
func endsGoStatement(code []byte) bool {
	c := code[len(code)-1]
	switch {
	case c == ')' || c == ']' || c == '}' || c == '"' || c == '\'' || c == '`':
		return true
	case c == '+' || c == '-':
		return len(code) > 1 && code[len(code)-2] == c
	case isWordByte(c):
		start := len(code) - 1
		for start > 0 && isWordByte(code[start-1]) {
			start--
		}
		switch string(code[start:]) {
		case "break", "continue", "fallthrough", "return":
			return true
		case "case", "chan", "const", "default", "defer", "else", "for", "func", "go", "goto",
			"if", "import", "interface", "map", "package", "range", "select", "struct", "switch", "type", "var":
			return false
		}
		return true
	}
	return false
}

// typeMayFollow reports tokens after which tree-sitter may read a func
// type on the next line as more of the same declaration, semicolon rule
// or not (var m map[string]\nfunc() is one declaration to it): the last
// token (ending at src[last]) is ']', or a name whose token before
// (ending at src[prev]) is ',' or var, type or const, with any white
// space or comment between them (var\nx\nfunc() is one declaration too),
// or the ')' that ends a func's parameters or results (sig: on a line
// that starts with func) before an unnamed func (after is what follows
// the next line's func): func()\nfunc(){} is one function literal to
// it, the first func() its result type (FuzzSplitGo).
func typeMayFollow(src []byte, last, prev int, sig bool, after []byte) bool {
	switch src[last] {
	case ']':
		return true
	case ')':
		after = bytes.TrimLeft(after, " \t\v\f\r")
		return sig && len(after) > 0 && after[0] == '('
	}
	if !isWordByte(src[last]) || prev < 0 {
		return false
	}
	if src[prev] == ',' {
		return true
	}
	w := prev + 1
	for w > 0 && isWordByte(src[w-1]) {
		w--
	}
	switch string(src[w : prev+1]) {
	case "var", "type", "const":
		return true
	}
	return false
}

// startsGoDecl reports a line that opens a top-level declaration.
func startsGoDecl(line []byte) bool {
	for _, kw := range []string{"func", "type", "var", "const", "import"} {
		if startsWord(line, kw) {
			return true
		}
	}
	return false
}

// startsWord reports a line that starts with the Go word kw, something
// else after it.
func startsWord(line []byte, kw string) bool {
	return len(line) > len(kw) && string(line[:len(kw)]) == kw && !isWordByte(line[len(kw)])
}

// splitC splits a C file at the lines that start a top-level declaration
// or preprocessor directive: a line at bracket depth 0 whose first byte
// is a letter, '_' or (a directive) '#', after code that ended with ';'
// or '}' or after a directive that itself stood between declarations.
// Comments, strings and character literals are skipped, a directive runs
// to the first newline without a backslash before it. A split in the
// middle of a declaration (struct s {…}⏎name;) leaves a syntax error in
// a part, and the file is then parsed whole. Patterns with a conditional
// directive (#if … #endif spans declarations) are never split (see
// splitsConditional).
func splitC(src []byte, starts []uint32) ([]uint32, bool) {
	c := cSplitter{src: src, starts: append(starts, 0), last: ';'}
	lineStart := true
	for i := 0; i < len(src); {
		if lineStart {
			lineStart = false
			next, directive, ok := c.lineHead(i)
			if !ok {
				return c.starts, false
			}
			if directive {
				i = next
				continue
			}
		}
		next, nl, done, ok := c.step(i)
		if done {
			return c.starts, ok
		}
		i, lineStart = next, nl
	}
	return c.starts, c.depth == 0
}

// cSplitter is splitC's scan state.
type cSplitter struct {
	src    []byte
	starts []uint32
	depth  int
	last   byte // the last code byte before this point; ';' at the start
	// readOn says the last directive reads on: the grammar takes the
	// next line with text as its value (see directiveLines), and then
	// goes on as after the directive, whose last is readOnLast.
	readOn     bool
	readOnLast byte
}

// boundary says a statement may start here.
func (c *cSplitter) boundary() bool {
	return !c.readOn && c.depth == 0 && (c.last == ';' || c.last == '}' || c.last == '#')
}

// endValue ends a directive's reading on at a line with text: the
// scan goes on as after the directive.
func (c *cSplitter) endValue() {
	if c.readOn {
		c.readOn, c.last = false, c.readOnLast
	}
}

// at records a statement start at i.
func (c *cSplitter) at(i int) {
	if i > 0 && c.starts[len(c.starts)-1] != uint32(i) {
		c.starts = append(c.starts, uint32(i))
	}
}

// lineHead reads the start of the line at i: a directive (after any
// blanks) is skipped whole and returned as such, with next where the
// scan goes on; a word at column 0 on a boundary starts a statement.
func (c *cSplitter) lineHead(i int) (next int, directive, ok bool) {
	src := c.src
	j := i
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	if j < len(src) && src[j] == '#' {
		split := c.boundary()
		if split {
			c.at(i)
		}
		end, ok := skipDirective(src, j)
		if !ok || codeAfterDirective(src[j:end]) {
			return 0, true, false
		}
		if split {
			c.last = '#'
		}
		c.endValue()
		if end < len(src) && endsInBlank(src, end+1) && !conditionalLine(src[j:end+1]) {
			c.readOn, c.readOnLast = true, c.last
		}
		return end, true, true
	}
	if j == i && c.boundary() && (isLetter(src[i]) || src[i] == '_') {
		c.at(i)
	}
	if j < len(src) && src[j] != '\n' && src[j] != '\r' && !(src[j] == '/' && j+1 < len(src) && (src[j+1] == '/' || src[j+1] == '*')) {
		c.endValue() // a line with text (one a comment opens reads on)
	}
	return i, false, true
}

// step scans the lexical item at i (a comment, a quoted literal, a
// bracket, a newline, any other byte): next is where the scan goes on,
// lineStart says a line starts there; done stops the scan, with ok its
// answer.
func (c *cSplitter) step(i int) (next int, lineStart, done, ok bool) {
	src, ch := c.src, c.src[i]
	switch {
	case ch == '/' && i+1 < len(src) && src[i+1] == '/':
		nl := bytes.IndexByte(src[i:], '\n')
		if nl < 0 {
			return 0, false, true, c.depth == 0
		}
		if nl > 0 && src[i+nl-1] == '\\' {
			return 0, false, true, false // a comment continued on the next line
		}
		return i + nl, false, false, true
	case ch == '/' && i+1 < len(src) && src[i+1] == '*':
		end := bytes.Index(src[i+2:], []byte("*/"))
		if end < 0 {
			return 0, false, true, false
		}
		return i + 2 + end + 2, false, false, true
	case ch == '"' || ch == '\'':
		end, ok := skipQuoted(src, i)
		if !ok {
			return 0, false, true, false
		}
		c.last = ch
		return end, false, false, true
	case ch == '(' || ch == '[' || ch == '{':
		c.depth++
	case ch == ')' || ch == ']' || ch == '}':
		if c.depth--; c.depth < 0 {
			return 0, false, true, false
		}
	case ch == '#':
		// A '#' in code, not starting its line: C has none outside a
		// directive, and tree-sitter-c reads #else there as the
		// directive (A;#else struct S{};): unsure.
		return 0, false, true, false
	case ch == '\n':
		return i + 1, true, false, true
	case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v':
		return i + 1, false, false, true
	}
	c.last = ch
	return i + 1, false, false, true
}

// skipDirective returns the offset of the newline that ends the
// directive starting at i (or the end of the file), skipping /* */
// comments and backslash-newlines; false for an unterminated comment.
func skipDirective(src []byte, i int) (int, bool) {
	if bareDirective(src, i) {
		return 0, false
	}
	for i < len(src) {
		switch c := src[i]; {
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return 0, false
			}
			i += 2 + end + 2
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
		case c == '\\' && i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n':
			i += 3
		case c == '\n':
			return i, true
		default:
			i++
		}
	}
	return i, true
}

// bareDirective reports a directive at i whose keyword stands alone on
// its line although it takes an argument (#define⏎A A()): tree-sitter-c
// reads the argument from the next line.
func bareDirective(src []byte, i int) bool {
	if i >= len(src) || src[i] != '#' {
		return false
	}
	word, k := directiveWord(src, i)
	switch string(word) {
	case "", "else", "endif":
		return false
	}
	for k < len(src) && (src[k] == ' ' || src[k] == '\t' || src[k] == '\r' || src[k] == '\f' || src[k] == '\v') {
		k++
	}
	return k == len(src) || src[k] == '\n'
}

// codeAfterDirective says the directive line (from its '#') holds code
// after the tokens the grammar reads as the directive: tree-sitter-c
// reads #else and #endif as tokens alone and #ifdef X as two, and goes
// on with the rest of the line as code (#endif X_H, old code's spelling
// of a comment, or #else struct S⏎{…}; a statement that starts on that
// line and may run on past it). Comments there are no code.
func codeAfterDirective(line []byte) bool {
	word, k := directiveWord(line, 0)
	switch string(word) {
	case "else", "endif":
	case "ifdef", "ifndef", "elifdef", "elifndef":
		k = skipBlanksAndComments(line, k)
		for k < len(line) && (isLetter(line[k]) || isDigit(line[k]) || line[k] >= 0x80) {
			k++
		}
	default:
		return false
	}
	return skipBlanksAndComments(line, k) < len(line)
}

// directiveWord returns the word of the directive whose '#' is at i
// (else of # else) and the offset past it.
func directiveWord(src []byte, i int) ([]byte, int) {
	j := i + 1
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	k := j
	for k < len(src) && (isLetter(src[k]) || isDigit(src[k])) {
		k++
	}
	return src[j:k], k
}

// skipBlanksAndComments returns the offset in line past the blanks,
// continued line ends and comments from i.
func skipBlanksAndComments(line []byte, i int) int {
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n':
			i++
		case c == '\\' && i+1 < len(line) && (line[i+1] == '\n' || line[i+1] == '\r'):
			i += 2
		case c == '/' && i+1 < len(line) && line[i+1] == '/':
			return len(line)
		case c == '/' && i+1 < len(line) && line[i+1] == '*':
			end := bytes.Index(line[i+2:], []byte("*/"))
			if end < 0 {
				return len(line)
			}
			i += 2 + end + 2
		default:
			return i
		}
	}
	return i
}

// startsElif says a part starts with an #elif (#elifdef, #elifndef).
func startsElif(part []byte) bool {
	part = bytes.TrimLeft(part, " \t")
	if len(part) == 0 || part[0] != '#' {
		return false
	}
	return bytes.HasPrefix(bytes.TrimLeft(part[1:], " \t"), []byte("elif"))
}

// conditionalDirective finds a conditional directive in a pattern.
var conditionalDirective = regexp.MustCompile(`#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b`)

// conditionalOnly says a part splitC made is one conditional directive
// line (#if X, #endif) and blank lines: it is not kept for itself (a
// part holding half of one would be a syntax error and cost a second
// parse of the whole file), only as the lines around a kept part
// (withConditionals). An occurrence of a pattern's
// literal in its keyword (the if of #if) cannot be in a match, as the
// pattern spells no conditional directive (splitsConditional); one in
// its condition may (inKeyword).
func conditionalOnly(part []byte) bool {
	j := 0
	for j < len(part) && (part[j] == ' ' || part[j] == '\t') {
		j++
	}
	loc := conditionalDirective.FindIndex(part[j:])
	if loc == nil || loc[0] != 0 {
		return false
	}
	end, ok := skipDirective(part, j)
	if !ok {
		return false
	}
	// What follows is blank lines and comments only.
	for rest := part[end:]; ; {
		rest = bytes.TrimLeft(rest, " \t\r\n\f\v")
		switch {
		case len(rest) == 0:
			return true
		case bytes.HasPrefix(rest, []byte("//")):
			nl := bytes.IndexByte(rest, '\n')
			if nl < 0 {
				return true
			}
			if nl > 0 && rest[nl-1] == '\\' {
				return false
			}
			rest = rest[nl:]
		case bytes.HasPrefix(rest, []byte("/*")):
			e := bytes.Index(rest[2:], []byte("*/"))
			if e < 0 {
				return false
			}
			rest = rest[2+e+2:]
		default:
			return false
		}
	}
}

// directiveKeywordEnd is where the keyword of the directive that opens
// part (#if, #  ifdef) ends.
func directiveKeywordEnd(part []byte) uint32 {
	j := 0
	for j < len(part) && (part[j] == ' ' || part[j] == '\t') {
		j++
	}
	loc := conditionalDirective.FindIndex(part[j:])
	if loc == nil {
		return 0
	}
	return uint32(j + loc[1])
}

// inKeyword says each offset of offs before end is before kwEnd: the
// literal occurs in a conditional's keyword only (the if of #if), not in
// its condition, where an expression pattern may match (C $A < $B in
// #if PY_VERSION+0 < 0x030b0000).
func inKeyword(offs []uint32, end, kwEnd uint32) bool {
	for _, o := range offs {
		if o >= end {
			break
		}
		if o >= kwEnd {
			return false
		}
	}
	return true
}

// splitsConditional says a C pattern spells a conditional directive,
// whose node spans the declarations a split would part.
func splitsConditional(pat *Pattern) bool {
	return conditionalDirective.MatchString(pat.Source)
}

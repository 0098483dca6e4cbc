// This file splits a Python, Go or C file into its top-level statements with
// a lexical scan, so that a search parses only the statements that hold
// the pattern's rarest literal (tree-sitter's included ranges). A
// top-level statement parses the same alone as in its file: it starts at
// column 0 with no open bracket, string, comment or line continuation,
// and nothing before it changes how it is read. The scan answers "unsure" (parse the whole
// file) on anything it cannot follow, and a parse of the chosen ranges
// that has a syntax error is redone on the whole file.

package patterns

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
)

// A splitter appends to starts the offsets where src's top-level
// statements begin, in order, the first being 0; false when unsure.
type splitter func(src []byte, starts []uint32) ([]uint32, bool)

var splitters = map[string]splitter{"python": splitPython, "go": splitGo, "c": splitC}

// ranges returns the parts of src to parse so that every statement
// holding one of offs (sorted) is parsed: five numbers per range (start
// byte, end byte, start row, end row, end column). With nest (Python,
// for a pattern nestBlind accepts), the statements nested in those that
// cannot hold a match are left out too, where pyNest allows. False when
// the split is unsure or nothing would be left out.
func (p *parser) ranges(src []byte, offs []uint32, split splitter, nest bool) ([]uint32, bool) {
	starts, ok := split(src, p.stmts[:0])
	p.stmts = starts
	if !ok || len(starts) < 2 && !nest {
		return nil, false
	}
	n := &p.nest
	n.drops, n.offs = n.drops[:0], offs
	if nest {
		n.lines, n.keep, nest = pyLines(src, n.lines[:0], n.keep[:0])
	}
	out := p.rng[:0]
	add := func(s, e uint32) {
		if k := len(out); k > 0 && out[k-4] == s {
			out[k-4] = e // extends the previous range
			return
		}
		out = append(out, s, e, 0, 0, 0)
	}
	kept, oi, li := 0, 0, 0
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
		if p.lang == "c" && conditionalOnly(src[s:e]) {
			continue // see conditionalOnly
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
	out = capRanges(out, maxRanges)
	p.rng = out
	if kept == len(src) || p.lang == "c" && kept > len(src)/2 {
		// In C, where one file in six has a syntax error somewhere (a
		// macro tree-sitter cannot read) and its partial parse must be
		// redone whole, a part that saves less than half is not worth
		// the risk of two parses.
		return nil, false
	}
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
	return out, true
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
// column 0, outside brackets, strings and backslash continuations, not a
// comment, not else/elif/except/finally (which continue the statement
// before), and not right after a decorator line.
func splitPython(src []byte, starts []uint32) ([]uint32, bool) {
	starts = append(starts, 0)
	depth := 0
	decorated := len(src) > 0 && src[0] == '@' // the last top-level line was a decorator
	last := -1                                 // the last byte of code seen (a string's closing quote)
	header := startsHeader(src)                // in a def or class header, before its ':'
	for i := 0; i < len(src); {
		c := src[i]
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '#' && c != '\\' {
			last = i
		}
		switch {
		case c == '#':
			nl := bytes.IndexByte(src[i:], '\n')
			if nl < 0 {
				return starts, true
			}
			i += nl
		case c == '\'' || c == '"':
			end, ok := skipPyString(src, i)
			if !ok {
				return starts, false
			}
			i, last = end, end-1
		case c == '(' || c == '[' || c == '{':
			depth++
			i++
		case c == ')' || c == ']' || c == '}':
			if depth--; depth < 0 {
				return starts, false
			}
			i++
		case c == '\\':
			// A continuation (or a stray backslash, a syntax error the
			// parser will see): the next line is not a new statement.
			i += 2
			if i <= len(src) && src[i-1] == '\r' && i < len(src) && src[i] == '\n' {
				i++
			}
		case c == ':' && depth == 0:
			header = false
			i++
		case c == '\n':
			i++
			if depth > 0 || i == len(src) {
				continue
			}
			open := last >= 0 && endsOpen(src[:last+1]) || header
			header = nextHeader(src, i, open, header)
			switch b := src[i]; {
			case b == ' ' || b == '\t' || b == '\f' || b == '\r' || b == '\n' || b == '#':
				continue // indented, blank or a comment
			case b == '@':
				if !decorated && !open {
					starts = append(starts, uint32(i))
				}
				decorated = true
			default:
				// A line that starts with, say, '=' goes on the statement
				// before it for tree-sitter ((a)\n= 0 is one assignment).
				if !decorated && !open && startsStatement(b) && !continues(src[i:]) {
					starts = append(starts, uint32(i))
				}
				decorated = false
			}
		default:
			i, last = plainRun(src, i+1, last)
		}
	}
	return starts, depth == 0
}

// pySpecial marks the bytes the Python scans act on; runs of the others
// are skipped by plainRun.
var pySpecial = func() (t [256]bool) {
	for _, c := range []byte("#'\"()[]{}\\:\n") {
		t[c] = true
	}
	return t
}()

// plainRun returns the end of the run of bytes from i that are not
// pySpecial, and the last byte of code seen by then (last if none).
func plainRun(src []byte, i, last int) (int, int) {
	for ; i < len(src) && !pySpecial[src[i]]; i++ {
		if c := src[i]; c != ' ' && c != '\t' && c != '\r' && c != '\f' {
			last = i
		}
	}
	return i, last
}

// endsOpen reports code ending in a token after which a statement cannot
// end (an operator, a comma, a colon, a keyword such as and): tree-sitter
// then reads the next line as more of it, newline or not.
func endsOpen(code []byte) bool {
	c := code[len(code)-1]
	switch {
	case c == '\'' || c == '"' || c == ')' || c == ']' || c == '}':
		return false
	case isLetter(c) || isDigit(c) || c >= 0x80:
		start := len(code) - 1
		for start > 0 && (isLetter(code[start-1]) || isDigit(code[start-1]) || code[start-1] >= 0x80) {
			start--
		}
		switch string(code[start:]) {
		case "and", "or", "not", "in", "is", "if", "else", "elif", "for", "from", "import", "as",
			"lambda", "await", "with", "while", "del", "assert", "async", "def", "class", "global", "nonlocal":
			return true
		}
		return false
	}
	return true
}

// startsHeader reports code that opens a def or class header, which
// tree-sitter goes on reading across newlines until its ':' (def f\n():
// is one definition to it).
func startsHeader(code []byte) bool {
	for _, kw := range []string{"def", "class", "async"} {
		if len(code) > len(kw) && string(code[:len(kw)]) == kw &&
			!isLetter(code[len(kw)]) && !isDigit(code[len(kw)]) && code[len(kw)] < 0x80 {
			return true
		}
	}
	return false
}

// nextHeader says whether the line starting at i is in a def or class
// header: it goes on one (open) or opens one. Blank and comment lines
// leave header as it is.
func nextHeader(src []byte, i int, open, header bool) bool {
	j := i
	for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\f') {
		j++
	}
	if j == len(src) || src[j] == '\n' || src[j] == '\r' || src[j] == '#' {
		return header
	}
	if open {
		return header
	}
	return startsHeader(src[j:])
}

// startsStatement reports a byte a top-level statement can start with
// that cannot go on an expression from the line before: a name, keyword,
// number, string or bracket (not an operator: statements such as -x or
// *a, b = c are left with the one before, which costs only speed).
func startsStatement(b byte) bool {
	return isLetter(b) || isDigit(b) || b >= 0x80 || b == '\'' || b == '"' || b == '(' || b == '[' || b == '{'
}

// continues reports a line that goes on the compound statement before it.
func continues(line []byte) bool {
	for _, kw := range []string{"else", "elif", "except", "finally"} {
		if len(line) >= len(kw) && string(line[:len(kw)]) == kw &&
			(len(line) == len(kw) || !isLetter(line[len(kw)]) && !isDigit(line[len(kw)]) && line[len(kw)] < 0x80) {
			return true
		}
	}
	return false
}

// skipPyString returns the offset just past the string whose quote is at
// q, with any prefix (the letters before it); an f- or t-string's
// replacement fields are scanned as code, nested strings included. False
// when the string does not end.
func skipPyString(src []byte, q int) (int, bool) {
	prefix, _ := pythonPrefix(src, q) // not a prefix: a plain string after a name
	interpolated := strings.ContainsAny(prefix, "ft")
	quote := src[q]
	triple := q+2 < len(src) && src[q+1] == quote && src[q+2] == quote
	j := q + 1
	if triple {
		j = q + 3
	}
	for j < len(src) {
		switch c := src[j]; {
		case c == '\\':
			j += 2
		case c == quote && (!triple || j+2 < len(src) && src[j+1] == quote && src[j+2] == quote):
			if triple {
				return j + 3, true
			}
			return j + 1, true
		case c == '\n' && !triple:
			return j, false
		case c == '{' && interpolated:
			if j+1 < len(src) && src[j+1] == '{' {
				j += 2
				continue
			}
			end, ok := skipPyField(src, j+1)
			if !ok {
				return j, false
			}
			j = end
		default:
			j++
		}
	}
	return len(src), false
}

// skipPyField returns the offset just past the '}' that closes the
// replacement field whose code starts at i: code with brackets and
// strings, then optionally !conversion and :format spec, which may hold
// fields of its own.
func skipPyField(src []byte, i int) (int, bool) {
	depth := 0
	for i < len(src) {
		switch c := src[i]; {
		case c == '\'' || c == '"':
			end, ok := skipPyString(src, i)
			if !ok {
				return i, false
			}
			i = end
		case c == '(' || c == '[' || c == '{':
			depth++
			i++
		case c == ')' || c == ']':
			if depth--; depth < 0 {
				return i, false
			}
			i++
		case c == '}':
			if depth == 0 {
				return i + 1, true
			}
			depth--
			i++
		case c == ':' && depth == 0:
			return skipPySpec(src, i+1)
		case c == '#':
			nl := bytes.IndexByte(src[i:], '\n')
			if nl < 0 {
				return i, false
			}
			i += nl
		default:
			i++
		}
	}
	return i, false
}

// skipPySpec skips a format spec up to and past its field's closing '}'.
func skipPySpec(src []byte, i int) (int, bool) {
	for i < len(src) {
		switch src[i] {
		case '{':
			end, ok := skipPyField(src, i+1)
			if !ok {
				return i, false
			}
			i = end
		case '}':
			return i + 1, true
		case '\n', '\'', '"':
			return i, false // unsure
		default:
			i++
		}
	}
	return i, false
}

// splitGo finds the lines where a top-level declaration starts: func,
// type, var, const or import at column 0, outside brackets, comments and
// literals, after a line that ends a statement by Go's semicolon rule.
func splitGo(src []byte, starts []uint32) ([]uint32, bool) {
	starts = append(starts, 0)
	depth := 0
	last := -1 // the last byte of code seen (a literal's closing quote)
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
				last = end - 1
			}
			i = end
		case c == '(' || c == '[' || c == '{':
			depth++
			last = i
			i++
		case c == ')' || c == ']' || c == '}':
			if depth--; depth < 0 {
				return starts, false
			}
			last = i
			i++
		case c == '\n':
			i++
			if depth == 0 && last >= 0 && endsGoStatement(src[:last+1]) && startsGoDecl(src[i:]) &&
				!(bytes.HasPrefix(src[i:], []byte("func")) && typeMayFollow(src[:last+1])) {
				starts = append(starts, uint32(i))
			}
		default:
			if c != ' ' && c != '\t' && c != '\r' {
				last = i
			}
			i++
		}
	}
	return starts, depth == 0
}

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
	case isLetter(c) || isDigit(c) || c >= 0x80:
		start := len(code) - 1
		for start > 0 && (isLetter(code[start-1]) || isDigit(code[start-1]) || code[start-1] >= 0x80) {
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

// typeMayFollow reports code after which tree-sitter may read a func
// type on the next line as more of the same declaration, semicolon rule
// or not (var m map[string]\nfunc() is one declaration to it): code
// ending in ']', or in a name right after ',' or after var, type or
// const.
func typeMayFollow(code []byte) bool {
	end := len(code)
	if code[end-1] == ']' {
		return true
	}
	start := end
	for start > 0 && (isLetter(code[start-1]) || isDigit(code[start-1]) || code[start-1] >= 0x80) {
		start--
	}
	if start == end {
		return false
	}
	k := start
	for k > 0 && (code[k-1] == ' ' || code[k-1] == '\t') {
		k--
	}
	if k > 0 && code[k-1] == ',' {
		return true
	}
	w := k
	for w > 0 && isLetter(code[w-1]) {
		w--
	}
	switch string(code[w:k]) {
	case "var", "type", "const":
		return w == 0 || !isLetter(code[w-1]) && !isDigit(code[w-1]) && code[w-1] < 0x80
	}
	return false
}

// startsGoDecl reports a line that opens a top-level declaration.
func startsGoDecl(line []byte) bool {
	for _, kw := range []string{"func", "type", "var", "const", "import"} {
		if len(line) > len(kw) && string(line[:len(kw)]) == kw &&
			!isLetter(line[len(kw)]) && !isDigit(line[len(kw)]) && line[len(kw)] < 0x80 {
			return true
		}
	}
	return false
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
	starts = append(starts, 0)
	depth := 0
	var last byte = ';' // the last code byte before this point; ';' at the start
	boundary := func() bool { return depth == 0 && (last == ';' || last == '}' || last == '#') }
	at := func(i int) {
		if i > 0 && starts[len(starts)-1] != uint32(i) {
			starts = append(starts, uint32(i))
		}
	}
	lineStart := true
	for i := 0; i < len(src); {
		c := src[i]
		if lineStart {
			lineStart = false
			j := i
			for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			if j < len(src) && src[j] == '#' {
				split := boundary()
				if split {
					at(i)
				}
				end, ok := skipDirective(src, j)
				if !ok {
					return starts, false
				}
				if split {
					last = '#'
				}
				i = end
				continue
			}
			if j == i && boundary() && (isLetter(c) || c == '_') {
				at(i)
			}
		}
		switch {
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			nl := bytes.IndexByte(src[i:], '\n')
			if nl < 0 {
				return starts, depth == 0
			}
			if nl > 0 && src[i+nl-1] == '\\' {
				return starts, false // a comment continued on the next line
			}
			i += nl
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return starts, false
			}
			i += 2 + end + 2
		case c == '"' || c == '\'':
			end, ok := skipQuoted(src, i)
			if !ok {
				return starts, false
			}
			last = c
			i = end
		case c == '(' || c == '[' || c == '{':
			depth++
			last = c
			i++
		case c == ')' || c == ']' || c == '}':
			if depth--; depth < 0 {
				return starts, false
			}
			last = c
			i++
		case c == '\n':
			lineStart = true
			i++
		default:
			if c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v' {
				last = c
			}
			i++
		}
	}
	return starts, depth == 0
}

// skipDirective returns the offset of the newline that ends the
// directive starting at i (or the end of the file), skipping /* */
// comments and backslash-newlines; false for an unterminated comment.
func skipDirective(src []byte, i int) (int, bool) {
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

// conditionalDirective finds a conditional directive in a pattern.
var conditionalDirective = regexp.MustCompile(`#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b`)

// conditionalOnly says a part splitC made is one conditional directive
// line (#if X, #endif) and blank lines: it is left out of a partial
// parse, whose parts are then read as if outside the conditional (the
// same nodes; a part holding half of one would be a syntax error and
// cost a second parse of the whole file). An occurrence of a pattern's
// literal there (the if of #if) cannot be in a match, as the pattern
// spells no conditional directive (splitsConditional).
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

// splitsConditional says a C pattern spells a conditional directive,
// whose node spans the declarations a split would part.
func splitsConditional(pat *Pattern) bool {
	return conditionalDirective.MatchString(pat.Source)
}

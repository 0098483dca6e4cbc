// This file is the one lexical scan of Python source: splitPython
// (split.go) finds top-level statements with it and pyLines (pynest.go)
// the logical lines of nested blocks. It follows brackets, strings
// (f-strings' replacement fields as code), comments and backslash
// continuations, and calls back at the start of each line; the helpers
// below read the code around a line start.

package patterns

import (
	"bytes"
	"slices"
	"strings"
)

// pyScan is one scan of a Python source.
type pyScan struct {
	src []byte
	// last is the last byte of code seen (a string's closing quote), -1
	// before any; a line callback sees it as of the line's start.
	last int
	// header says the scan is in a def or class header, before its ':';
	// a line callback may change it.
	header bool
	// After run: depth is how many brackets are left open, and
	// endComment says the source ended in a comment.
	depth      int
	endComment bool
}

func newPyScan(src []byte) pyScan {
	return pyScan{src: src, last: -1, header: nextHeader(src, bom(src), false, false)}
}

// bom returns the length of the zero-width characters src starts with
// (a byte-order mark, usually), which tree-sitter skips.
func bom(src []byte) int {
	i := 0
	for n := zeroWidth(src, i); n > 0; n = zeroWidth(src, i) {
		i += n
	}
	return i
}

// open says the code so far cannot end where it stops (a trailing
// operator, comma or keyword such as and, or a def header before its
// ':'): the next line goes on it, newline or not.
func (s *pyScan) open() bool {
	return s.last >= 0 && endsOpen(s.src[:s.last+1]) || s.header
}

// run scans the source from its start. line(i) is called at the start i
// of each line that begins outside brackets and continuations (after a
// newline, before the end of the source; never for the first line);
// false from it stops the scan as unsure. goesOn(i), when not nil, is
// called at the start of each line that goes on the one before (inside
// brackets, or after a backslash). run returns false when unsure: a
// string that does not end, a closing bracket with none open, or line
// said so.
func (s *pyScan) run(line func(i int) bool, goesOn func(i int)) bool {
	src, depth, last := s.src, 0, s.last
	for i := 0; i < len(src); {
		c := src[i]
		if c >= 0x80 {
			if n := zeroWidth(src, i); n > 0 {
				i += n // a blank to tree-sitter (see zeroWidth)
				continue
			}
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '#' && c != '\\' {
			last = i
		}
		switch {
		case c == '#':
			nl := bytes.IndexByte(src[i:], '\n')
			if nl < 0 {
				s.last, s.depth, s.endComment = last, depth, true
				return true
			}
			i += nl
		case c == '\'' || c == '"':
			end, ok := skipPyString(src, i)
			if !ok {
				return false
			}
			i, last = end, end-1
		case c == '(' || c == '[' || c == '{':
			depth++
			i++
		case c == ')' || c == ']' || c == '}':
			if depth--; depth < 0 {
				return false
			}
			i++
		case c == '\\': // a continuation, or a stray backslash the parser will see
			i += 2
			if i <= len(src) && src[i-1] == '\r' && i < len(src) && src[i] == '\n' {
				i++
			}
			if goesOn != nil && i <= len(src) && src[i-1] == '\n' {
				goesOn(i)
			}
		case c == ':' && depth == 0:
			s.header = false
			i++
		case c == '\n':
			i++
			if depth > 0 {
				if goesOn != nil {
					goesOn(i)
				}
			} else if i < len(src) {
				s.last = last
				if !line(i) {
					return false
				}
			}
		default:
			i, last = plainRun(src, i+1, last)
		}
	}
	s.last, s.depth = last, depth
	return true
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
			if c >= 0x80 {
				if n := zeroWidth(src, i); n > 0 {
					i += n - 1
					continue
				}
			}
			last = i
		}
	}
	return i, last
}

// zeroWidth returns the length of the zero-width character at i that
// tree-sitter-python skips as white space (its extras hold U+FEFF, U+2060
// and U+200B besides \s and \f), or 0. One at a line's start does not
// indent it: the statement after it starts where it ends, at the top
// level ("x\n\ufeffy" is two statements, the second at y).
func zeroWidth(src []byte, i int) int {
	if i+2 < len(src) {
		switch string(src[i : i+3]) {
		case "\ufeff", "\u2060", "\u200b":
			return 3
		}
	}
	return 0
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
		word := string(code[start:])
		if isDigit(word[0]) {
			// A number's lexer stops where its digits do, so a keyword
			// may follow with no space (0in, 1if, 2else): any keyword
			// at the end is taken as one (when it is not, the line is
			// only left with the one before, which costs speed).
			for _, kw := range openKeywords {
				if strings.HasSuffix(word, kw) {
					return true
				}
			}
			return false
		}
		return slices.Contains(openKeywords, word)
	}
	return true
}

// openKeywords are the keywords after which a statement cannot end.
var openKeywords = []string{"and", "or", "not", "in", "is", "if", "else", "elif", "for", "from", "import", "as",
	"lambda", "await", "with", "while", "del", "assert", "async", "def", "class", "global", "nonlocal"}

// startsHeader reports code that opens a compound statement's header,
// which tree-sitter goes on reading across newlines until its ':' (def
// f\n(): is one definition to it, if""\nin 0: one if statement).
func startsHeader(code []byte) bool {
	for _, kw := range []string{"def", "class", "async", "if", "elif", "while", "for", "with", "except"} {
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
	j := pastBlanks(src, i)
	if j == len(src) || src[j] == '\n' || src[j] == '\r' || src[j] == '#' {
		return header
	}
	if open {
		return header
	}
	return startsHeader(src[j:])
}

// pastBlanks returns the offset of the first byte at or after i that is
// no blank within a line to tree-sitter-python (a space, tab, form feed,
// vertical tab or a \r not before \n).
func pastBlanks(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\f' || src[i] == '\v' ||
		src[i] == '\r' && (i+1 == len(src) || src[i+1] != '\n')) {
		i++
	}
	return i
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

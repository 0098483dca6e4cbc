// This file narrows the literal prefilter for languages whose comments and
// strings can be told apart from code by a cheap scan (Python, Go): an identifier or
// keyword that occurs only inside comments and plain strings cannot be
// matched by a pattern, so the file need not be parsed. Whenever the scan
// is unsure (an f-string, an unterminated string, a name glued to a
// quote), it answers "in code": a wrong "in code" costs a parse, a wrong
// "not in code" would lose a match.

package patterns

import "bytes"

// inCode reports, for languages with a scanner, whether the word literal
// l occurs in src outside comments and plain strings; for the others, it
// is l.in(src).
func (l literal) inCode(lang *Language, src []byte) bool {
	if !l.word {
		return l.in(src)
	}
	switch lang.ID {
	case "python":
		return pythonHasCode(src, l)
	case "go":
		return goHasCode(src, l)
	}
	return l.in(src)
}

// next returns the offset of the first whole-word occurrence of l at or
// after from, or -1.
func (l literal) next(src []byte, from int) int {
	for from <= len(src) {
		i := bytes.Index(src[from:], l.text)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(l.text)
		if (i == 0 || !isLetter(src[i-1])) && (end == len(src) || !isLetter(src[end]) && !isDigit(src[end])) {
			return i
		}
		from = i + 1
	}
	return -1
}

// pythonHasCode scans Python source up to the first occurrence of l that
// is in code: not in a # comment, not in a string without an f (or t)
// prefix.
func pythonHasCode(src []byte, l literal) bool {
	next := l.next(src, 0)
	i := 0
	for next >= 0 {
		for i < next {
			switch c := src[i]; c {
			case '#':
				nl := bytes.IndexByte(src[i:], '\n')
				if nl < 0 {
					return false // the rest of the file is this comment
				}
				i += nl
			case '\'', '"':
				if !plainPythonPrefix(src, i) {
					return true // an f-string holds code; or unsure
				}
				end, ok := skipPythonString(src, i)
				if !ok {
					return true // unterminated: let the parser decide
				}
				i = end
			default:
				i++
			}
		}
		if i == next {
			return true
		}
		next = l.next(src, i) // the occurrence was inside a comment or string
	}
	return false
}

// plainPythonPrefix reports whether the quote at q opens a string whose
// prefix (the letters glued before it) is one of Python's plain ones:
// none, r, u, b, rb, br in any case. f and t prefixes, and anything that
// is not a valid prefix, say no.
func plainPythonPrefix(src []byte, q int) bool {
	start := q
	for start > 0 && isLetter(src[start-1]) && src[start-1] != '_' {
		start--
	}
	if start > 0 && (isLetter(src[start-1]) || isDigit(src[start-1]) || src[start-1] >= 0x80) {
		return false
	}
	switch string(bytes.ToLower(src[start:q])) {
	case "", "r", "u", "b", "rb", "br":
		return true
	}
	return false
}

// skipPythonString returns the offset just past the string whose opening
// quote is at q, and false when the string is not terminated (a single-
// quoted one at the end of its line, any at the end of the file).
func skipPythonString(src []byte, q int) (int, bool) {
	quote := src[q]
	triple := q+2 < len(src) && src[q+1] == quote && src[q+2] == quote
	j := q + 1
	if triple {
		j = q + 3
	}
	for j < len(src) {
		switch c := src[j]; {
		case c == '\\':
			j += 2 // an escaped character, even in raw strings, never ends one
		case c == quote && !triple:
			return j + 1, true
		case c == quote && j+2 < len(src) && src[j+1] == quote && src[j+2] == quote:
			return j + 3, true
		case c == '\n' && !triple:
			return j, false
		default:
			j++
		}
	}
	return len(src), false
}

// goHasCode scans Go source up to the first occurrence of l that is in
// code: not in a // or /* */ comment, an interpreted or raw string, or a
// rune literal. Go's lexical grammar has no interpolation, so the scan is
// exact; an unterminated literal or comment still answers "in code".
func goHasCode(src []byte, l literal) bool {
	next := l.next(src, 0)
	i := 0
	for next >= 0 {
		for i < next {
			switch c := src[i]; {
			case c == '/' && i+1 < len(src) && src[i+1] == '/':
				nl := bytes.IndexByte(src[i:], '\n')
				if nl < 0 {
					return false // the rest of the file is this comment
				}
				i += nl
			case c == '/' && i+1 < len(src) && src[i+1] == '*':
				end := bytes.Index(src[i+2:], []byte("*/"))
				if end < 0 {
					return true
				}
				i += 2 + end + 2
			case c == '"' || c == '\'':
				end, ok := skipQuoted(src, i)
				if !ok {
					return true
				}
				i = end
			case c == '`':
				end := bytes.IndexByte(src[i+1:], '`')
				if end < 0 {
					return true
				}
				i += 1 + end + 1
			default:
				i++
			}
		}
		if i == next {
			return true
		}
		next = l.next(src, i)
	}
	return false
}

// skipQuoted returns the offset just past the one-line literal (a Go
// string or rune) opened at q, where a backslash escapes the next byte;
// false when a newline or the end of the file comes first.
func skipQuoted(src []byte, q int) (int, bool) {
	quote := src[q]
	for j := q + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case quote:
			return j + 1, true
		case '\n':
			return j, false
		}
	}
	return len(src), false
}

// This file splits a TypeScript, TSX or JavaScript file into top-level
// statements for split.go's partial parse. JavaScript's lexical grammar
// depends on the parser's state in two places a plain scan cannot
// always follow: a '/' is a division or opens a regular expression, and
// (in TSX and JavaScript, whose grammars read JSX) a '<' may open an
// element whose text is not code. The scan decides them where the
// previous token settles it (a '/' after a name or ')' divides, after an
// operator or return opens a regular expression); where it does not (a
// '/' after '}', a '<' where an expression may start), it stops and
// keeps only the cuts it made before that point: each cut depends only
// on the bytes before it, so the rest of the file is one part, parsed as
// it stands.

package patterns

import (
	"bytes"
	"slices"
)

// jsContinueWords are the words that at the start of a line may go on
// the statement before it even after a ';' or '}' (if (a) b;⏎else c;
// do {} while (x); export {a}⏎from 'x'; x = {}⏎as T; a = {}⏎in b): any
// other word there, at column 0 at the top level, starts a statement.
var jsContinueWords = []string{
	"else", "catch", "finally", "while", "from", "as", "satisfies", "instanceof", "in", "of",
	"extends", "implements", "is", "keyof",
}

// What the previous token says about a '/' (and in JSX grammars a '<').
const (
	jsExpr    = iota // an expression may start: '/' opens a regular expression
	jsValue          // a value ended: '/' divides
	jsBrace          // '}': a block or an object literal ended; unsure
	jsUnsure         // ++, --, of, yield, await: unsure
	jsKeyword        // if, while, for, with: their '(' is a statement's
)

// splitJS returns the splitter for a JavaScript-family grammar; jsx says
// the grammar reads JSX (TSX and JavaScript, not TypeScript).
func splitJS(jsx bool) splitter {
	return func(src []byte, starts []uint32) ([]uint32, bool) {
		s := jsScan{src: src, jsx: jsx, starts: append(starts, 0), last: ';'}
		s.run()
		return s.starts, true
	}
}

// jsFamily says a language's splitter is splitJS.
func jsFamily(id string) bool { return id == "typescript" || id == "tsx" || id == "javascript" }

// jsKeepMost is the most of a file (in tenths, against ten times the
// kept bytes) that a partial parse may keep; more, and it is parsed whole.
var jsKeepMost = 8

// jsDense: a literal that occurs more than once every jsDense bytes is
// in nearly every top-level statement (zod's average 470 bytes), so the
// scan would cost more than the parse it saves ($X.$M($$$)'s '.').
const jsDense = 256

// jsScan is splitJS's scan state.
type jsScan struct {
	src    []byte
	jsx    bool
	starts []uint32
	// stack holds the open brackets: '(' , '[', '{', 'k' for the '(' of
	// if/while/for/with, '$' for a template literal's ${.
	stack []byte
	prev  int  // what the last token says about a '/' (jsExpr…)
	last  byte // the last byte of code; ';' at the start
	dot   bool // the last token was '.': a word after it is a property name
}

// run scans src, recording statement starts, until its end or the first
// byte it cannot read for sure.
func (s *jsScan) run() {
	src := s.src
	i := 0
	if len(src) > 1 && src[0] == '#' && src[1] == '!' { // a hashbang line
		for i < len(src) && src[i] != '\n' {
			i++
		}
	}
	for i < len(src) {
		next, ok := s.step(i)
		if !ok {
			return
		}
		i = next
	}
}

// step scans the lexical item at i and returns where the scan goes on;
// false where the scan cannot go on for sure.
func (s *jsScan) step(i int) (int, bool) {
	src := s.src
	c := src[i]
	switch {
	case c == '\n':
		if len(s.stack) == 0 && (s.last == ';' || s.last == '}') && jsStartsStatement(src[i+1:]) {
			s.starts = append(s.starts, uint32(i+1))
		}
		return i + 1, true
	case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
		return i + 1, true
	case c == '/' && i+1 < len(src) && src[i+1] == '/':
		for i < len(src) && src[i] != '\n' {
			i++
		}
		return i, true
	case c == '/' && i+1 < len(src) && src[i+1] == '*':
		end := bytes.Index(src[i+2:], []byte("*/"))
		if end < 0 {
			return 0, false
		}
		return i + 2 + end + 2, true
	case c == '/':
		switch s.prev {
		case jsValue:
			return s.punct(i, 1), true
		case jsExpr, jsKeyword:
			end, ok := skipJSRegex(src, i)
			if !ok {
				return 0, false
			}
			s.value('/')
			return end, true
		}
		return 0, false
	case c == '\'' || c == '"':
		end, ok := skipJSString(src, i)
		if !ok {
			return 0, false
		}
		s.value(c)
		return end, true
	case c == '`':
		return s.template(i + 1)
	case isLetter(c) || c == '$' || c == '#' || c >= 0x80:
		return s.word(i), true
	case isDigit(c):
		j := i + 1
		for j < len(src) && (isLetter(src[j]) || isDigit(src[j]) || src[j] == '.') {
			j++
		}
		s.value('0')
		return j, true
	case c == '(' || c == '[' || c == '{':
		b := c
		if c == '(' && s.prev == jsKeyword {
			b = 'k'
		}
		s.stack = append(s.stack, b)
		return s.punct(i, 1), true
	case c == ')' || c == ']' || c == '}':
		if len(s.stack) == 0 {
			return 0, false
		}
		top := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		switch {
		case top == '$':
			if c != '}' {
				return 0, false
			}
			return s.template(i + 1)
		case c == ')' && top == 'k':
			s.punct(i, 1)
			s.last = ')'
			return i + 1, true // a statement's body follows: '/' opens a regular expression
		case c == '}' && top == '{':
			s.prev, s.last, s.dot = jsBrace, '}', false
			return i + 1, true
		case c == ')' && top == '(' || c == ']' && top == '[':
			s.value(c)
			return i + 1, true
		}
		return 0, false
	case c == '<' && s.jsx && s.prev != jsValue:
		return 0, false // maybe a JSX element
	case c == '<' && i+3 < len(src) && string(src[i:i+4]) == "<!--":
		return 0, false // an HTML-like comment
	case c == '!' && s.prev == jsValue && (i+1 == len(src) || src[i+1] != '='):
		s.last, s.dot = '!', false // TypeScript's x!: still a value
		return i + 1, true
	case (c == '+' || c == '-') && i+1 < len(src) && src[i+1] == c:
		s.punct(i, 2)
		s.prev = jsUnsure
		return i + 2, true
	}
	return s.punct(i, 1), true
}

// punct records the n-byte punctuator at i and returns its end.
func (s *jsScan) punct(i, n int) int {
	s.prev, s.last, s.dot = jsExpr, s.src[i+n-1], s.src[i] == '.' && n == 1
	return i + n
}

// value records a token that ends a value, whose last byte is b.
func (s *jsScan) value(b byte) {
	s.prev, s.last, s.dot = jsValue, b, false
}

// word scans the name or keyword at i.
func (s *jsScan) word(i int) int {
	src := s.src
	j := i + 1
	for j < len(src) && (isLetter(src[j]) || isDigit(src[j]) || src[j] == '$' || src[j] >= 0x80) {
		j++
	}
	dot := s.dot
	s.value('a')
	if !dot && j-i <= 10 {
		switch string(src[i:j]) {
		case "return", "typeof", "instanceof", "in", "new", "delete", "void", "throw", "case", "default", "do", "else":
			s.prev = jsExpr // a '/' opens a regular expression
		case "of", "yield", "await":
			s.prev = jsUnsure // names in some code
		case "if", "while", "for", "with":
			s.prev = jsKeyword // a '/' after their (…) opens a regular expression
		}
	}
	return j
}

// template scans a template literal's text from i (after its '`' or a
// '}' that closes one of its ${…}) to its end or its next ${.
func (s *jsScan) template(i int) (int, bool) {
	src := s.src
	for i < len(src) {
		switch src[i] {
		case '\\':
			i += 2
		case '`':
			s.value('`')
			return i + 1, true
		case '$':
			if i+1 < len(src) && src[i+1] == '{' {
				s.stack = append(s.stack, '$')
				s.prev, s.last, s.dot = jsExpr, '{', false
				return i + 2, true
			}
			i++
		default:
			i++
		}
	}
	return 0, false
}

// jsStartsStatement reports a line that opens a top-level statement
// after one that ended with ';' or '}': a decorator, or a word at column
// 0 that is not one of jsContinueWords.
func jsStartsStatement(line []byte) bool {
	if len(line) == 0 || line[0] == '@' {
		return len(line) > 0
	}
	if !isLetter(line[0]) && line[0] != '$' {
		return false
	}
	j := 1
	for j < len(line) && (isLetter(line[j]) || isDigit(line[j]) || line[j] == '$') {
		j++
	}
	if j < len(line) && line[j] >= 0x80 {
		return false // a name the scan does not read whole
	}
	return !slices.Contains(jsContinueWords, string(line[:j]))
}

// skipJSString returns the end of the quoted string at i; false if a
// line ends in it (no string spans lines but by a backslash) or the file
// does.
func skipJSString(src []byte, i int) (int, bool) {
	q := src[i]
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++ // also a backslash-newline
			if i+1 < len(src) && src[i] == '\r' && src[i+1] == '\n' {
				i++
			}
		case q:
			return i + 1, true
		case '\n':
			return 0, false
		}
	}
	return 0, false
}

// skipJSRegex returns the end of the regular expression literal at i,
// flags included; false if a line or the file ends in it.
func skipJSRegex(src []byte, i int) (int, bool) {
	class := false
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			if i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r') {
				return 0, false
			}
			i++
		case '[':
			class = true
		case ']':
			class = false
		case '/':
			if !class {
				i++
				for i < len(src) && (isLetter(src[i]) || isDigit(src[i]) || src[i] == '$') {
					i++
				}
				return i, true
			}
		case '\n', '\r':
			return 0, false
		}
	}
	return 0, false
}

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
	return pyScan{src: src, last: -1, header: nextHeader(src, leadingBlanks(src), false, false)}
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

// leadingBlanks returns the length of the blanks and zero-width
// characters src starts with: tree-sitter skips both before the first
// statement ( \ufeffdef f⏎(): is one definition).
func leadingBlanks(src []byte) int {
	i := 0
	for {
		i = pastBlanks(src, i)
		n := zeroWidth(src, i)
		if n == 0 {
			return i
		}
		i += n
	}
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
			if i+1 < len(src) && src[i+1] == 0 {
				return false // \ and NUL is a blank to tree-sitter (a line continuation): unsure
			}
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
	case c == '*':
		// from m import * ends there.
		rest := bytes.TrimRight(code[:len(code)-1], " \t\f\\\n\r")
		return !bytes.HasSuffix(rest, []byte("import")) || len(rest) > 6 && (isLetter(rest[len(rest)-7]) || isDigit(rest[len(rest)-7]))
	case isLetter(c) || isDigit(c) || c >= 0x80:
		start := len(code) - 1
		for start > 0 && (isLetter(code[start-1]) || isDigit(code[start-1]) || code[start-1] >= 0x80) {
			if start >= 3 && zeroWidth(code, start-3) > 0 {
				break // a blank to tree-sitter: a\u2060as ends in the keyword as
			}
			start--
		}
		word := string(code[start:])
		if isDigit(word[0]) || start >= 2 && code[start-1] == '.' && isDigit(code[start-2]) {
			// A number's lexer stops where its digits do, so a keyword
			// may follow with no space (0in, 1if, 2else, and after a
			// float's '.': 0.jimport is 0.j and import): any keyword
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

// headerKeywords open a header at a line's start (see startsHeader);
// headerStarts marks their first letters.
var headerKeywords = []string{"def", "class", "async", "if", "elif", "while", "for", "with", "except"}

var headerStarts = func() (t [256]bool) {
	for _, kw := range headerKeywords {
		t[kw[0]] = true
	}
	return t
}()

// startsHeader reports code that opens a compound statement's header,
// which tree-sitter goes on reading across newlines until its ':' (def
// f\n(): is one definition to it, if""\nin 0: one if statement).
func startsHeader(code []byte) bool {
	if len(code) == 0 || !headerStarts[code[0]] {
		return false
	}
	for _, kw := range headerKeywords {
		if len(code) > len(kw) && pyStartsWord(code, kw) {
			return true
		}
	}
	return false
}

// pyStartsWord reports code that starts with the Python keyword kw: the
// code ends there, or a byte follows that no name holds, or a zero-width
// blank (def\ufeffname is def and a name to tree-sitter).
func pyStartsWord(code []byte, kw string) bool {
	if len(code) < len(kw) || string(code[:len(kw)]) != kw {
		return false
	}
	if len(code) == len(kw) {
		return true
	}
	c := code[len(kw)]
	return !isLetter(c) && !isDigit(c) && (c < 0x80 || zeroWidth(code, len(kw)) > 0)
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
		// A line that goes on an open one may still open a header
		// (x = ...⏎def f⏎(): reads the ellipsis as open, and a def after
		// it is one): merging up to its ':' costs only speed.
		return header || startsHeader(src[j:])
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

// decoratorAt reports an '@' at i that starts a decorator, not the
// operator '@=' (a line that starts with one goes on the statement
// before it to tree-sitter, as one that starts with '=' does: (a)⏎@=0
// is one augmented assignment).
func decoratorAt(src []byte, i int) bool {
	return i < len(src) && src[i] == '@' && (i+1 == len(src) || src[i+1] != '=')
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
		if pyStartsWord(line, kw) {
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

// midKeywords start a compound statement's header where tree-sitter-python
// lets one start after other code on its line (x = 1 def f⏎(): pass is an
// assignment and a definition to it, no syntax error), or, for lambda, an
// expression that goes on across newlines up to its ':'. if, else, elif,
// except and case are left out: after code they are part of it or an
// error.
var midKeywords = []string{"def", "class", "for", "while", "with", "async", "try", "match", "lambda"}

// midLine reads a logical line (its code from its start up to the next
// one's, with the blank and comment lines after it) for what leaves the
// next line part of its statement, where a line-start scan cannot see it:
// header, a compound statement's header (or a lambda) started after other
// code that has not reached its ':' at the top level, which tree-sitter
// goes on reading across newlines; glued, an '@' at the top level that
// tree-sitter reads as a decorator's though code stands before it (after
// pass, ';', an import's names or a zero-width blank, or first on a
// continued line: the line after is what it decorates; after an operand
// it is matrix product), or a from that starts a statement with no
// import yet (from a⏎⏎import b is one statement). A number glued to a
// keyword (0_def) is taken as one ending in it, and so is a word after a
// number's '.' or an ellipsis (1.jclass, ...def: the float or the '...'
// ends where the word's letters stop fitting it); a word after another
// '.' is an attribute. Strings, comments and brackets are followed.
// Where the scan is unsure it answers true (the line after then goes on
// this one, which costs speed, not matches).
func midLine(line []byte) (header, glued bool) {
	if !mayGlue(line) {
		return false, false
	}
	depth, first, dot := 0, true, false
	// num: the last token is a number or a '.', so that a '.' after it is
	// a float's or an ellipsis', not an attribute's; numDot: the last
	// token is such a '.'.
	num, numDot := false, false
	decorator, from := false, false
	// bare: the last token ends a statement that takes no operand after
	// it (pass, ';'); lineStart: no token yet on this physical line;
	// names: the statement (import, global…) takes names, not
	// expressions, so an '@' after them is no product.
	bare, lineStart, names := false, true, false
	// raising: the statement is a raise; yielded: the last token is the
	// word yield (a from after either is no import's).
	raising, yielded := false, false
	// zw: a zero-width blank stands before this token; an '@' after one
	// may start a decorator even after an operand (v: T\u2060@d⏎class C:
	// is two statements to tree-sitter, the second from the '@').
	zw := false
	// colon: a ':' stood at the top level (an annotation's, x: T);
	// closed: the last token is a ']'. In an annotation, x: A[0]@d⏎class
	// C: is two statements to tree-sitter (the type's subscript ends
	// the type, and the '@' starts a decorator).
	colon, closed := false, false
	for i := 0; i < len(line); {
		c := line[i]
		if c >= 0x80 {
			if n := zeroWidth(line, i); n > 0 {
				i += n
				zw = true
				continue
			}
		}
		afterZW := zw
		if c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v' {
			zw = false // (blanks between keep it: v: T\u2060 @d)
		}
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n':
			lineStart = lineStart || c == '\n'
			i++
			continue
		case c == '#':
			nl := bytes.IndexByte(line[i:], '\n')
			if nl < 0 {
				return header, decorator || from
			}
			i += nl
			continue
		case c == '\\':
			lineStart = true // a continued line
			i += 2
			continue
		case c == '\'' || c == '"':
			end, ok := skipPyString(line, i)
			if !ok {
				return true, true
			}
			i = end
		case c == '(' || c == '[' || c == '{':
			depth++
			i++
		case c == ')' || c == ']' || c == '}':
			depth--
			i++
		case c == ':' && depth == 0:
			header, colon = false, true
			i++
		case c == '@' && depth == 0 && i+1 < len(line) && line[i+1] == '=':
			i += 2 // '@=', an operator
		case c == '@' && depth == 0:
			// After an operand it is matrix product (return a @ b);
			// one that starts a physical line is a decorator (after a
			// line the scan took as open, x = ...).
			decorator = decorator || !first && (bare || lineStart || names || afterZW || colon && closed)
			i++
		case isLetter(c) || isDigit(c) || c >= 0x80:
			k := i + 1
			for k < len(line) && (isLetter(line[k]) || isDigit(line[k]) || line[k] >= 0x80 && zeroWidth(line, k) == 0) {
				k++
			}
			w := line[i:k]
			if depth == 0 && string(w) == "import" { // also after a '.' (from . import m)
				from = false
			}
			if depth == 0 && (!dot || numDot || isDigit(c)) { // (.5class: a float's digits after a '.')
				switch {
				case string(w) == "from" && !numDot:
					// A from starts an import statement, also after
					// other code (f(x) from a⏎import b is two statements
					// to tree-sitter, the second across the newline),
					// but in raise E from e or yield from x.
					from = !raising && !yielded
				case isDigit(c) || numDot: // (1.5class, 1.jclass, ...def)
					// A number glued to a keyword is code before it, also
					// first on its line (0def f⏎(): is 0 and a definition).
					for _, kw := range midKeywords {
						header = header || bytes.HasSuffix(w, []byte(kw))
					}
					from = from || bytes.HasSuffix(w, []byte("from")) // 1jfrom a⏎import b
				case !first && isMidKeyword(w):
					// match is a soft keyword: only a subject after it
					// makes one (return match ends where it stands).
					header = header || string(w) != "match" || subjectAfter(line, k)
				}
			}
			if first {
				switch string(w) {
				case "import", "from", "global", "nonlocal":
					names = true
				case "raise":
					raising = true
				}
			}
			yielded = !dot && string(w) == "yield"
			i = k
			bare = !dot && bareWord(w)
			num = isDigit(c) || numDot // (1.5e3.def: the word ends the float)
			first, dot, numDot, lineStart, closed = false, false, false, false, false
			continue
		default:
			i++
		}
		numDot = c == '.' && num
		num = c == '.'
		first, dot, bare, lineStart = false, c == '.', c == ':' || c == ';', false
		yielded, closed = false, c == ']'
		if c == ';' && depth == 0 {
			names, raising, colon = false, false, false
		}
	}
	return header, decorator || from
}

// subjectAfter reports code after i, on its line, that makes a match
// before it the soft keyword: a name (not an operator word: match in x),
// number, string, '{' or '~'. After a '(', '[', '-' or '*' the name
// reading goes on (return match(name) is a call), and tree-sitter ends
// the line where the name reading can.
func subjectAfter(line []byte, i int) bool {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i == len(line) {
		return false
	}
	switch c := line[i]; {
	case isDigit(c) || c >= 0x80 || c == '\'' || c == '"' || c == '{' || c == '~':
		return true
	case isLetter(c):
		k := i
		for k < len(line) && (isLetter(line[k]) || isDigit(line[k])) {
			k++
		}
		switch string(line[i:k]) {
		case "in", "is", "and", "or", "not", "if", "else", "for", "async":
			return false
		}
		return true
	}
	return false
}

// mayGlue is midLine's quick test: only a line with an '@', a word that
// starts one of midKeywords after other code or from at its start, or a
// number with a letter in it, can leave the next line part of its
// statement. Most lines have none, and one pass over them costs a
// fraction of midLine's.
func mayGlue(line []byte) bool {
	first := 0 // where the line's code starts
	for first < len(line) && (line[first] == ' ' || line[first] == '\t' || line[first] == '\f' || line[first] == '\r' || line[first] == '\n') {
		first++
	}
	prevWord := false // the byte before i is a letter, digit or '_'
	for i := 0; i < len(line); i++ {
		c := line[i]
		word := isLetter(c) || isDigit(c)
		if word && prevWord {
			continue
		}
		prevWord = word
		switch {
		case c == '@':
			return true
		case isDigit(c):
			// A number with a letter in it (0_def, 0x1f, 1.jclass) may
			// end in a keyword.
			for i+1 < len(line) && (isLetter(line[i+1]) || isDigit(line[i+1]) || line[i+1] == '.') {
				if i++; isLetter(line[i]) {
					return true
				}
			}
		case word:
			switch kw := glueWordAt(line[i:]); {
			case kw == "from":
				if !hasImport(line[i:]) {
					return true
				}
			case kw != "" && i != first:
				return true
			}
		}
	}
	return false
}

// hasImport reports the word import in line (not importlib).
func hasImport(line []byte) bool {
	return literal{text: []byte("import"), word: true}.in(line)
}

// glueWordAt returns the one of midKeywords, or from, that code starts
// with, or "".
func glueWordAt(code []byte) string {
	var cands []string
	switch code[0] {
	case 'd':
		cands = []string{"def"}
	case 'c':
		cands = []string{"class"}
	case 'f':
		cands = []string{"for", "from"}
	case 'w':
		cands = []string{"while", "with"}
	case 'a':
		cands = []string{"async"}
	case 't':
		cands = []string{"try"}
	case 'm':
		cands = []string{"match"}
	case 'l':
		cands = []string{"lambda"}
	default:
		return ""
	}
	for _, kw := range cands {
		if len(code) >= len(kw) && string(code[:len(kw)]) == kw {
			return kw
		}
	}
	return ""
}

// bareWord reports a keyword after which a statement may end with no
// operand, so that an '@' after it starts a decorator (pass@d).
func bareWord(w []byte) bool {
	switch string(w) {
	case "pass", "break", "continue", "return", "raise", "yield":
		return true
	}
	return false
}

// isMidKeyword reports one of midKeywords.
func isMidKeyword(w []byte) bool {
	for _, kw := range midKeywords {
		if string(w) == kw {
			return true
		}
	}
	return false
}

// endsZeroWidth reports a line, ending just before i, whose last
// character other than blanks is one zeroWidth skips: tree-sitter's
// scanner does not see the newline after it (0\u2060⏎0 is one statement),
// so the scans are unsure there.
func endsZeroWidth(src []byte, i int) bool {
	j := i - 2 // before the newline
	for j >= 0 && (src[j] == ' ' || src[j] == '\t' || src[j] == '\f' || src[j] == '\v' || src[j] == '\r') {
		j--
	}
	return j >= 2 && zeroWidth(src, j-2) == 3
}

// This file lists a compiled pattern's literals (the tokens a file's text
// must hold for it to match there) and holds the literal prefilter's
// tests of a file's text, and
// narrows them for languages whose comments and strings can be told apart
// from code by a cheap scan (Python, Go): an identifier or keyword that
// occurs only inside comments and plain strings cannot be matched by a
// pattern, so the file need not be parsed. Whenever a scan is unsure (an
// f-string, an unterminated string, a name glued to a quote), it answers
// "in code": a wrong "in code" costs a parse, a wrong "not in code" would
// lose a match.

package patterns

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// in reports whether src contains l (as a whole word when l.word).
func (l literal) in(src []byte) bool {
	if !l.word {
		return bytes.Contains(src, l.text)
	}
	return l.next(src, 0) >= 0
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
		if (i == 0 || !isLetter(src[i-1]) || inNumber(src, i)) && (end == len(src) || !isLetter(src[end]) && !isDigit(src[end])) &&
			!(l.notDirective && directiveName(src, i)) {
			return i
		}
		from = i + 1
	}
	return -1
}

// inNumber reports whether the run of letters, digits and '_' that ends
// just before i starts with a digit: the lexer's number token may end
// anywhere in it and the next token start at i (tree-sitter-python reads
// 0_def as the integer 0_ and the keyword def; C reads 1Lif as 1L and
// if), or follows a number's '.' (Python reads 1.jimport as the float
// 1.j and the keyword import). A run longer than numberRun is taken as
// such a number too (a wrong "yes" costs a parse).
func inNumber(src []byte, i int) bool {
	const numberRun = 256
	j := i - 1
	for ; j >= 0 && (isLetter(src[j]) || isDigit(src[j])); j-- {
		if i-j > numberRun {
			return true
		}
	}
	return isDigit(src[j+1]) || j >= 1 && src[j] == '.' && isDigit(src[j-1])
}

// directiveName reports a word at i that names a preprocessor directive:
// only blanks lie between it and a '#' that starts its line (# if, #else).
func directiveName(src []byte, i int) bool {
	j := i - 1
	for j >= 0 && (src[j] == ' ' || src[j] == '\t') {
		j--
	}
	if j < 0 || src[j] != '#' {
		return false
	}
	for j--; j >= 0 && (src[j] == ' ' || src[j] == '\t'); j-- {
	}
	return j < 0 || src[j] == '\n'
}

// occurrences appends to offs the offsets where l's text occurs in src,
// only as a whole word when l.word and whole, stopping once there are
// more than limit (when limit >= 0).
func (l literal) occurrences(src []byte, offs []uint32, limit int, whole bool) []uint32 {
	for from := 0; limit < 0 || len(offs) <= limit; {
		var i int
		if l.word && whole {
			i = l.next(src, from)
		} else if i = bytes.Index(src[from:], l.text); i >= 0 {
			i += from
		}
		if i < 0 {
			break
		}
		offs = append(offs, uint32(i))
		from = i + 1
	}
	return offs
}

func isLetter(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

func (l literal) String() string {
	if l.word {
		return fmt.Sprintf("word %q", l.text)
	}
	return fmt.Sprintf("%q", l.text)
}

// A lexer finds a language's comments and literals. skip is called at
// each byte in opens that lies in code; it returns the offset just past
// the comment or literal starting there (i+1 when there is none), or
// stop=true with the answer when the scan cannot go on: the rest of the
// file is one comment (not in code), or the scan is unsure (in code).
type lexer struct {
	opens string
	skip  func(src []byte, i int) (end int, stop, inCode bool)
}

var lexers = map[string]*lexer{
	"python": {opens: "#'\"", skip: skipPython},
	"go":     {opens: "/'\"`", skip: skipGo},
	"c":      {opens: "/'\"", skip: skipC},
	"cpp":    {opens: "/'\"", skip: skipC},
}

// skipC skips a C or C++ comment, string or character literal. A C++
// raw string (R"(…)", whose body may hold quotes) leaves the scan unsure,
// and so does a ' that closes on no line (a digit separator, 1'000).
func skipC(src []byte, i int) (int, bool, bool) {
	if src[i] == '"' && i > 0 && src[i-1] == 'R' {
		return 0, true, true
	}
	return skipGo(src, i)
}

// inCode reports whether l occurs in src, and for a word literal in a
// language with a lexer, outside comments and plain strings.
func (l literal) inCode(lang *Language, src []byte) bool {
	lx := lexers[lang.ID]
	if !l.word || lx == nil {
		return l.in(src)
	}
	next, i := l.next(src, 0), 0
	for next >= 0 {
		for i < next {
			k := bytes.IndexAny(src[i:next], lx.opens)
			if k < 0 {
				i = next
				break
			}
			end, stop, code := lx.skip(src, i+k)
			if stop {
				return code
			}
			i = end
		}
		if i == next {
			return true
		}
		next = l.next(src, i) // that one was inside a comment or literal
	}
	return false
}

// inCodeOnly appends to out the offsets of offs (sorted) that lie outside
// the comments and plain strings of src, as far as the scan can tell: from
// where it is unsure, every later offset counts as in code.
func (lx *lexer) inCodeOnly(src []byte, offs, out []uint32) []uint32 {
	i := 0
	for k, off := range offs {
		for i < int(off) {
			j := bytes.IndexAny(src[i:off], lx.opens)
			if j < 0 {
				i = int(off)
				break
			}
			end, stop, code := lx.skip(src, i+j)
			if stop {
				if code {
					return append(out, offs[k:]...)
				}
				return out // the rest of the file is one comment
			}
			i = end
		}
		if i == int(off) {
			out = append(out, off)
		}
	}
	return out
}

// skipPython skips a # comment or a string without an f (or t) prefix.
func skipPython(src []byte, i int) (int, bool, bool) {
	if src[i] == '#' {
		nl := bytes.IndexByte(src[i:], '\n')
		if nl < 0 {
			return 0, true, false // the rest of the file is this comment
		}
		return i + nl, false, false
	}
	if prefix, ok := pythonPrefix(src, i); !ok || strings.ContainsAny(prefix, "ft") {
		return 0, true, true // an f-string holds code; or unsure
	}
	end, ok := skipPyString(src, i)
	return end, !ok, true // unterminated: let the parser decide
}

// pythonPrefix returns, lower-cased, the prefix of the string whose quote
// is at q: the name glued before the quote when it is one of Python's
// prefixes (none, r, u, b, f, t and the two-letter mixes of r with b, f
// or t, in any case); false when the glued name is something else (as in
// if"x", the keyword if and a plain string).
func pythonPrefix(src []byte, q int) (string, bool) {
	start := q
	for start > 0 && (isLetter(src[start-1]) || isDigit(src[start-1]) || src[start-1] >= 0x80) {
		start--
	}
	n := q - start
	if n > 2 {
		return "", false
	}
	var b [2]byte
	for k := range n {
		b[k] = src[start+k] | 0x20 // ASCII lower case; digits and '_' stay out of the set below
	}
	switch p := string(b[:n]); p {
	case "", "r", "u", "b", "f", "t", "br", "rb", "fr", "rf", "tr", "rt":
		return p, true
	}
	return "", false
}

// skipGo skips a // or /* */ comment, an interpreted or raw string, or a
// rune literal. Go's lexical grammar has no interpolation, so this is
// exact; an unterminated literal or comment still answers "in code".
func skipGo(src []byte, i int) (int, bool, bool) {
	switch {
	case src[i] == '/' && i+1 < len(src) && src[i+1] == '/':
		nl := bytes.IndexByte(src[i:], '\n')
		if nl < 0 {
			return 0, true, false // the rest of the file is this comment
		}
		return i + nl, false, false
	case src[i] == '/' && i+1 < len(src) && src[i+1] == '*':
		end := bytes.Index(src[i+2:], []byte("*/"))
		if end < 0 {
			return 0, true, true
		}
		return i + 2 + end + 2, false, false
	case src[i] == '/':
		return i + 1, false, false // division
	case src[i] == '`':
		end := bytes.IndexByte(src[i+1:], '`')
		if end < 0 {
			return 0, true, true
		}
		return i + 1 + end + 1, false, false
	}
	end, ok := skipQuoted(src, i)
	return end, !ok, true
}

// skipQuoted returns the offset just past the one-line literal opened at
// q (a Go string or rune, a Python single-quoted string), where a
// backslash escapes the next byte; false when a newline or the end of the
// file comes first.
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

// A literal is a token a file's text must contain for the pattern to
// match there. A word literal (an ASCII identifier or keyword) must occur
// as a whole word: not right after a letter or '_', nor right before a
// letter, digit or '_'. A number may precede it, as in Python's 1if and
// 0_def (see inNumber).
type literal struct {
	text []byte
	word bool
	// notDirective says a word's occurrence as a directive's name (the
	// if of # if) is none of the pattern's: in C and C++ such a word is
	// part of its directive's token, and only a directive of the pattern
	// (#if, # define) could match it. Headers are full of # if: without
	// it, if ($C) { $$$ } parsed every header with a conditional.
	notDirective bool
	// code says every occurrence a match can hold lies in code: a word
	// (see inCode), or a token with no character that opens a comment or
	// literal in the languages with a lexer. A string's contents or
	// quotes are neither. Only the occurrences in code mark the
	// statements worth parsing (see inCodeOnly).
	code bool
}

// literals returns up to four of the pattern's longest literal tokens.
func literals(roots []*pnode, lang *Language) []literal {
	seen := map[string]bool{}      // text → may be checked as a word
	directive := map[string]bool{} // text → a directive's name in the pattern
	code := map[string]bool{}      // text → may be looked for in code only
	var walk func(p *pnode)
	walk = func(p *pnode) {
		if p.meta != metaNone {
			return
		}
		// Semicolons and commas may be missing where the pattern has them
		// (see seq): they are no evidence.
		optional := p.isSemicolon() || p.isComma()
		// An unnamed token matches by kind (README): its text is evidence
		// only where the kind has no other spelling. YAML's block scalar
		// header "|2" is a "|", which every block scalar's header matches.
		respelled := !p.named && p.text != lang.kindName(p.kind)
		if p.leaf && !optional && !respelled && p.text != "" && (p.named || lang.ID != "php") && !strings.ContainsAny(p.text, " \t\r\n") {
			// Keywords (anonymous leaves), identifiers and keyword
			// constants (a node None of kind none) are whole tokens; other
			// named leaves, such as string contents, can sit next to
			// letters (an escape before "\nhello"), and Bash words and
			// HTML text can too.
			kind := lang.kindName(p.kind)
			text := p.text
			word := isWord(text) && lang.ID != "bash" && lang.ID != "html" &&
				(!p.named || strings.Contains(kind, "identifier") || strings.EqualFold(kind, text))
			// A preprocessor keyword's token may hold spaces after its
			// '#' (#  define): the word after it is what the text holds.
			if !p.named && len(text) > 1 && text[0] == '#' && isWord(text[1:]) {
				text, word = text[1:], true
				directive[text] = true
			}
			if prev, ok := seen[text]; !ok || prev {
				seen[text] = word
			}
			token := word || !p.named && !strings.ContainsAny(text, "/'\"`#")
			if prev, ok := code[text]; !ok || prev {
				code[text] = token
			}
		}
		for _, c := range p.children {
			walk(c)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	var ls []string
	for s := range seen {
		ls = append(ls, s)
	}
	sort.Slice(ls, func(i, j int) bool {
		if len(ls[i]) != len(ls[j]) {
			return len(ls[i]) > len(ls[j])
		}
		return ls[i] < ls[j]
	})
	if len(ls) > 4 {
		ls = ls[:4]
	}
	out := make([]literal, len(ls))
	preprocessed := lang.ID == "c" || lang.ID == "cpp"
	for i, s := range ls {
		out[i] = literal{text: []byte(s), word: seen[s], notDirective: preprocessed && seen[s] && !directive[s], code: code[s]}
	}
	return out
}

// isWord reports an ASCII identifier: [A-Za-z_][A-Za-z0-9_]*.
func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// This file parses, for a C or C++ pattern that is one preprocessor
// line (#define, #include, #pragma and the like), only the directive
// lines that can hold a match. Such a node begins at its line's '#' and
// ends with its logical line (backslash continuations, and a comment
// begun on it, included), so the rest of the file need not be parsed: on
// headers, where nearly every file holds a #define, that leaves out two
// thirds of the bytes (issue 23's C #define row).
//
// A #define reads the same alone as wherever the grammar allows it (at
// top level, in a block, in a struct's body). Where it does not (an
// enum's body, an initializer), the whole file's parse has a syntax
// error there and reads the line as no definition (in an enum's body a
// generic preproc_call, with a ',' MISSING after it), and so does
// ast-grep's; read alone, the line is found: a deliberate difference,
// more complete. An
// #include or other directive is read alone only where it starts a
// top-level statement (splitC's split points): in a struct's body the
// grammar reads #include as a preproc_call. As with the statement split,
// a parse of the chosen lines that has a syntax error is redone on the
// whole file, and a file the scan cannot follow is parsed as before.

package patterns

import (
	"bytes"
	"strings"
)

// lineDirectives are the C and C++ node kinds one preprocessor line
// makes whole, each with where it is read alone: anywhere (a definition)
// or only at top level. Conditionals (#if … #endif) span lines and are
// not here.
var lineDirectives = map[string]lineDirective{
	"preproc_def": directiveAnywhere, "preproc_function_def": directiveAnywhere,
	"preproc_include": directiveTopLevel, "preproc_call": directiveTopLevel,
}

// lineDirective says whether a pattern's matches are line directives,
// and where they are read alone.
type lineDirective uint8

const (
	notDirective lineDirective = iota
	directiveTopLevel
	directiveAnywhere
)

// lineDirectiveOf says how a pattern's matches are read (set by index).
func lineDirectiveOf(pat *Pattern) lineDirective {
	if pat.rootSyms == nil || pat.Lang.ID != "c" && pat.Lang.ID != "cpp" {
		return notDirective
	}
	return lineDirectives[pat.Lang.kindName(pat.nodes[0].kind)]
}

// directiveLines appends to out, as ranges of five (start, end and three
// slots fillRangePoints fills), the logical lines of src that begin, in
// code, with '#' and hold one of offs (sorted). A line ends after its
// first newline that no backslash continues and no comment or literal
// holds, and a line's '#' may follow block comments. A directive other
// than a conditional that ends in a blank (#define X⎵⏎) reads on: the grammar wants the newline
// right after the name or value, so it goes on through blank and comment
// lines and takes the next line's text as its value (#endif, #undef Y);
// such a directive and the lines up to that one are a single group.
// Otherwise it answers linesSplit when a directive holding an offset
// does not begin one of starts (sorted; splitC's top-level statements)
// where starts is not nil, or the scan is unsure of a line holding an
// offset (a '#' in code outside a directive: the grammar reads int x;
// #define Y 1 as a definition too; a quote unclosed on its line) or of
// the file (a C++ raw string).
func directiveLines(src []byte, offs, starts []uint32, out []uint32) ([]uint32, linesVerdict) {
	n, oi, si := len(src), 0, 0
	for i := 0; i < n && oi < len(offs); {
		k, directive, _, unsure, ok := scanLine(src, i)
		if !ok {
			return out, linesSplit
		}
		for open := directive && endsInBlank(src, k) && !conditionalLine(src[i:k]); open && k < n; {
			next, _, content, uns, ok := scanLine(src, k)
			if !ok {
				return out, linesSplit
			}
			k, unsure = next, unsure || uns
			if content {
				open = endsInBlank(src, k) // read on, it may read on again
			}
		}
		held := false
		for oi < len(offs) && offs[oi] < uint32(k) {
			held = held || offs[oi] >= uint32(i)
			oi++
		}
		if held && unsure {
			return out, linesSplit
		}
		if held && directive && starts != nil {
			for si < len(starts) && starts[si] < uint32(i) {
				si++
			}
			if si == len(starts) || starts[si] != uint32(i) {
				return out, linesSplit // not at top level
			}
		}
		if held && directive {
			if m := len(out); m > 0 && out[m-4] == uint32(i) {
				out[m-4] = uint32(k)
			} else {
				out = append(out, uint32(i), uint32(k), 0, 0, 0)
			}
		}
		i = k
	}
	return out, linesOK
}

// scanLine reads the logical line of src that starts at i: it ends at k
// (past its newline); directive says it opens, after blanks and block
// comments, with '#'; content that it holds more than blanks and
// comments; unsure that it has a '#' in code outside a directive or a
// quote that does not close on the line. False
// for a C++ raw string, which may span lines (a line in it that starts
// with # is no directive), so the scan cannot go on.
func scanLine(src []byte, i int) (k int, directive, content, unsure, ok bool) {
	n := len(src)
	j := i
	for j < n {
		if c := src[j]; c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r' {
			j++
		} else if e := blockCommentEnd(src, j); e > j {
			j = e // a comment before the '#' (/* … */ #define) belongs to the line
		} else {
			break
		}
	}
	directive = j < n && src[j] == '#'
	content = j < n && src[j] != '\n'
	k = j
line:
	for k < n {
		switch c := src[k]; c {
		case '\n':
			if k > 0 && src[k-1] == '\\' || k > 1 && src[k-1] == '\r' && src[k-2] == '\\' {
				k++
				continue
			}
			k++
			break line
		case '#':
			unsure = unsure || !directive // a '#' in code outside a directive
		case '/':
			if e := blockCommentEnd(src, k); e > k {
				k = e
				continue
			}
			if k+1 < n && src[k+1] == '/' {
				if k == j {
					content = false // a comment line
				}
				for k < n && src[k] != '\n' {
					k++
				}
				continue // the newline (maybe continued) is seen above
			}
		case '"', '\'':
			if c == '"' && k > 0 && src[k-1] == 'R' {
				return k, directive, content, unsure, false
			}
			if c == '\'' && digitSeparator(src, k) {
				k++
				continue
			}
			e := k + 1
			for e < n && src[e] != c && src[e] != '\n' {
				if src[e] == '\\' {
					e++ // an escape, or a continuation inside the literal
				}
				e++
			}
			if e < n && src[e] == c {
				k = e + 1
			} else {
				// Unclosed on its line: a C++ digit separator (1'000),
				// which hides the rest of the line from this scan.
				k, unsure = e, true
			}
			continue
		}
		k++
	}
	return min(k, n), directive, content, unsure, true // min: an escape or a comment cut off by the end
}

// conditionalLine says a directive line is a conditional (#if, #endif):
// its keyword or condition takes no value from the lines after it.
func conditionalLine(line []byte) bool {
	j := 0
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	loc := conditionalDirective.FindIndex(line[j:])
	return loc != nil && loc[0] == 0
}

// digitSeparator says the ' at k separates digits of a number (C++14's
// 1'000, 0xFF'FF), where it opens no character literal.
func digitSeparator(src []byte, k int) bool {
	hex := func(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	if k == 0 || k+1 >= len(src) || !hex(src[k-1]) || !hex(src[k+1]) {
		return false
	}
	s := k - 1
	for s > 0 && (isLetter(src[s-1]) || isDigit(src[s-1]) || src[s-1] == '.' || src[s-1] == '\'') {
		s--
	}
	return isDigit(src[s]) // the token is a number
}

// endsInBlank says the line that ends at k ends in a blank before its
// newline, or in a '/' (which a directive's value takes with the newline
// after it: #define A 1/⏎ reads on too), or is an empty line after a
// backslash continuation.
func endsInBlank(src []byte, k int) bool {
	if k < 2 || src[k-1] != '\n' {
		return false
	}
	k--
	if src[k-1] == '\r' {
		k--
	}
	// A '\n' there ended a continued line: the last line is empty. A
	// '\r' before the newline's own is a blank (#define A⎵\r\r\n).
	return k > 0 && strings.IndexByte(" \t\f\v\r/\n", src[k-1]) >= 0
}

// linesVerdict is directiveLines' answer: the lines stand alone, or the
// file is parsed as before (the statement split), or whole.
type linesVerdict uint8

const (
	linesOK linesVerdict = iota
	linesSplit
	linesWhole
)

// blockCommentEnd returns the offset past the block comment starting at
// i (the end of src when it is not closed), or i when none starts there.
func blockCommentEnd(src []byte, i int) int {
	if i+1 >= len(src) || src[i] != '/' || src[i+1] != '*' {
		return i
	}
	if e := bytes.Index(src[i+2:], []byte("*/")); e >= 0 {
		return i + 2 + e + 2
	}
	return len(src)
}

// parseDirectives parses only the directive lines of src that hold one
// of nb.stmtOffs (see directiveLines); when it cannot, it answers
// linesSplit (the caller parses as it would otherwise) or linesWhole.
// Lines beyond maxRanges are parsed
// in groups across blanked gaps: a copy of src whose bytes outside the
// lines are spaces (newlines kept, so rows stay).
func (p *parser) parseDirectives(lang *Language, src []byte, nb *nearby) (*Tree, linesVerdict, error) {
	var starts []uint32
	if nb.directive == directiveTopLevel {
		var ok bool
		starts, ok = splitC(src, p.stmts[:0])
		p.stmts, p.splitDone, p.splitOK = starts, true, ok
		if !ok {
			return nil, linesSplit, nil
		}
	}
	out, verdict := directiveLines(src, nb.stmtOffs, starts, p.rng[:0])
	p.rng = out
	if verdict != linesOK {
		return nil, verdict, nil
	}
	if len(out) == 0 {
		p.directives++
		return &Tree{Lang: lang, Src: src}, linesOK, nil // no directive holds the literal
	}
	text := src
	if len(out)/5 > maxRanges {
		if cap(p.blank) < len(src) {
			p.blank = make([]byte, len(src))
		}
		text = p.blank[:len(src)]
		at := 0
		for r := 0; r < len(out); r += 5 {
			blankGap(text[at:out[r]], src[at:out[r]])
			copy(text[out[r]:out[r+1]], src[out[r]:out[r+1]])
			at = int(out[r+1])
		}
		blankGap(text[at:], src[at:])
		out = capRanges(out, maxRanges)
		p.rng = out
	}
	fillRangePoints(src, out)
	t, err := p.parseIn(lang, text, false, nb, out)
	if err == errRetry {
		p.retries++
		return nil, linesWhole, nil
	}
	p.parts++
	p.directives++
	if t != nil {
		t.Src = src // the lines parsed read the same in both
	}
	return t, linesOK, err
}

// blankGap writes src into dst with every byte but a newline a space.
func blankGap(dst, src []byte) {
	for i, c := range src {
		if c == '\n' {
			dst[i] = '\n'
		} else {
			dst[i] = ' '
		}
	}
}

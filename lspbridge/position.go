// This file defines addressing: a 1-based line plus a symbol on it becomes
// a position in the server's encoding, and server positions become 1-based
// line:column for the agent.

package lspbridge

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// target is a resolved symbol: 0-based line, byte offsets of the aimed-at
// segment in that line.
type target struct {
	Line      int // 0-based
	StartByte int
	EndByte   int
	// Inside is the longer name the symbol was found in when it is on the
	// line only as part of one (Call inside DispatchCall); "" otherwise.
	Inside string
}

// linesShown caps the lines a "not on line N" error lists.
const linesShown = 10

// locate finds symbol on line (1-based) of text. Identifier-boundary
// matches are preferred to plain substring matches; for "a.b", "pkg::Name"
// or "x->y" the target is the last segment; occurrence (1-based, 0 = the
// only one) picks among several matches.
func locate(text string, line int, symbol string, occurrence int) (target, error) {
	if strings.TrimSpace(symbol) == "" {
		return target{}, fmt.Errorf("argument 'symbol': required for this action: the name on that line to aim at")
	}
	if hint, ok := expressionHint(symbol); ok {
		return target{}, fmt.Errorf("argument 'symbol': `%s` is an expression, not a name: pass one name on the line, e.g. `%s` (a qualified name such as pkg.Name is fine)", symbol, hint)
	}
	lines := splitLines(text)
	if line < 1 || line > len(lines) {
		return target{}, fmt.Errorf("argument 'line': %d is outside the file (it has %d lines)", line, len(lines))
	}
	src := lines[line-1]
	starts, needle, bounded := matches(src, symbol)
	if len(starts) == 0 {
		return target{}, notOnLine(lines, line, symbol)
	}
	if occurrence < 0 || occurrence > len(starts) {
		return target{}, fmt.Errorf("argument 'occurrence': %d, but %q occurs %d time(s) on line %d", occurrence, symbol, len(starts), line)
	}
	if occurrence == 0 && len(starts) > 1 {
		// The one in code, when the others are in strings: `foo` on
		// import { foo } from './foo'.
		var code []int
		for _, s := range starts {
			if !quoted(src, s) {
				code = append(code, s)
			}
		}
		if len(code) == 1 {
			starts = code
		}
	}
	if occurrence == 0 && len(starts) > 1 && !bounded {
		return target{}, insideNames(lines, line, src, starts, needle)
	}
	if occurrence == 0 {
		if len(starts) > 1 {
			cols := make([]string, len(starts))
			for i, s := range starts {
				cols[i] = fmt.Sprintf("%d at column %d", i+1, utf8.RuneCountInString(src[:s])+1)
			}
			return target{}, fmt.Errorf("%q occurs %d times on line %d (%s): pass occurrence (1-based) to pick one", symbol, len(starts), line, strings.Join(cols, ", "))
		}
		occurrence = 1
	}
	start := starts[occurrence-1]
	off, seg := lastSegment(needle)
	t := target{Line: line - 1, StartByte: start + off, EndByte: start + off + len(seg)}
	if !bounded {
		t.Inside = enclosingName(src, t.StartByte, t.EndByte)
	}
	return t, nil
}

// quoted reports whether byte offset at of line is inside a '…', "…" or
// `…` string that opens and closes on the line.
func quoted(line string, at int) bool {
	var open rune
	escaped := false
	for i, r := range line {
		switch {
		case escaped:
			escaped = false
		case open != 0 && r == '\\':
			escaped = true
		case open != 0 && r == open:
			if i > at {
				return true
			}
			open = 0
		case open == 0 && i >= at:
			return false
		case open == 0 && (r == '\'' || r == '"' || r == '`'):
			open = r
		}
	}
	return false
}

// enclosingName widens src[start:end] to the whole identifier around it.
func enclosingName(src string, start, end int) string {
	for start > 0 {
		r, n := utf8.DecodeLastRuneInString(src[:start])
		if !isIdent(r) {
			break
		}
		start -= n
	}
	for end < len(src) {
		r, n := utf8.DecodeRuneInString(src[end:])
		if !isIdent(r) {
			break
		}
		end += n
	}
	return src[start:end]
}

// expressionHint reports whether symbol is an expression rather than a
// name (c.DispatchCall(ctx, x), vector<int>, *p) and, if so, the name to
// pass instead: the last name before the expression begins, else the
// first name in it.
func expressionHint(symbol string) (hint string, isExpr bool) {
	nameChar := func(r rune) bool { return isIdent(r) || strings.ContainsRune(".:->#~", r) }
	i := strings.IndexFunc(symbol, func(r rune) bool { return !nameChar(r) })
	if i < 0 {
		return "", false
	}
	if names := strings.FieldsFunc(symbol[:i], func(r rune) bool { return !isIdent(r) }); len(names) > 0 {
		return names[len(names)-1], true
	}
	if names := strings.FieldsFunc(symbol, func(r rune) bool { return !isIdent(r) }); len(names) > 0 {
		return names[0], true
	}
	return "", false // no name in it at all: the search says it is not there
}

// matches returns the byte offsets of symbol in src, identifier-boundary
// matches if any (bounded), else substring matches; for a qualified name
// that is not on the line it falls back to its last segment. needle is
// what matched.
func matches(src, symbol string) (starts []int, needle string, bounded bool) {
	for _, n := range []string{symbol, lastOf(symbol)} {
		if n == "" {
			continue
		}
		all := indexAll(src, n)
		var bounded []int
		for _, s := range all {
			if boundary(src, s, s+len(n)) {
				bounded = append(bounded, s)
			}
		}
		if len(bounded) > 0 {
			return bounded, n, true
		}
		if len(all) > 0 {
			return all, n, false
		}
	}
	return nil, symbol, false
}

func lastOf(symbol string) string {
	_, seg := lastSegment(symbol)
	if seg == symbol {
		return ""
	}
	return seg
}

// lastSegment returns the offset and text of the part after the last ".",
// "::", "->" or "#".
func lastSegment(s string) (int, string) {
	best := 0
	for _, sep := range []string{".", "::", "->", "#"} {
		if i := strings.LastIndex(s, sep); i >= 0 && i+len(sep) < len(s) && i+len(sep) > best {
			best = i + len(sep)
		}
	}
	return best, s[best:]
}

func indexAll(s, sub string) []int {
	var out []int
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return out
		}
		out = append(out, i+j)
		i += j + 1
	}
}

func isIdent(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// boundary reports whether src[start:end] is not glued to identifier
// characters on either side.
func boundary(src string, start, end int) bool {
	if r, _ := utf8.DecodeLastRuneInString(src[:start]); start > 0 && isIdent(r) {
		if f, _ := utf8.DecodeRuneInString(src[start:]); isIdent(f) {
			return false
		}
	}
	if r, _ := utf8.DecodeRuneInString(src[end:]); end < len(src) && isIdent(r) {
		if l, _ := utf8.DecodeLastRuneInString(src[:end]); isIdent(l) {
			return false
		}
	}
	return true
}

// notOnLine is the error for a symbol missing from its line: it names the
// lines of the file that hold it as a whole name (else as part of one),
// nearest first, up to linesShown.
func notOnLine(lines []string, line int, symbol string) error {
	var whole, part []int
	for i, l := range lines {
		if starts, _, bounded := matches(l, symbol); len(starts) > 0 && bounded {
			whole = append(whole, i+1)
		} else if len(starts) > 0 {
			part = append(part, i+1)
		}
	}
	found, how := whole, ""
	if len(found) == 0 {
		found, how = part, " (only as part of a longer name)"
	}
	if len(found) == 0 {
		return fmt.Errorf("`%s` is not on line %d, nor anywhere in the file: check the symbol and the file (line %d is %q)", symbol, line, line, strings.TrimSpace(lines[line-1]))
	}
	return fmt.Errorf("`%s` is not on line %d; it is on %s%s", symbol, line, lineList(found, line), how)
}

// lineList names 1-based lines, the linesShown nearest to line, in file
// order: "line 3", "lines 5, 7 and 2 more".
func lineList(found []int, line int) string {
	found = slices.Clone(found)
	slices.SortStableFunc(found, func(a, b int) int { return cmp.Compare(abs(a-line), abs(b-line)) })
	more := ""
	if len(found) > linesShown {
		more = fmt.Sprintf(" and %d more", len(found)-linesShown)
		found = found[:linesShown]
	}
	slices.Sort(found)
	nums := make([]string, len(found))
	for i, n := range found {
		nums[i] = strconv.Itoa(n)
	}
	word := "lines"
	if len(nums) == 1 && more == "" {
		word = "line"
	}
	return word + " " + strings.Join(nums, ", ") + more
}

// insideNames is the error for a symbol that is on line only inside
// longer names, more than once (Call in DispatchCall and CallOption): it
// names them, and the lines where the symbol is a name of its own.
func insideNames(lines []string, line int, src string, starts []int, needle string) error {
	parts := make([]string, len(starts))
	for i, s := range starts {
		parts[i] = fmt.Sprintf("%d at column %d in %s", i+1, utf8.RuneCountInString(src[:s])+1, enclosingName(src, s, s+len(needle)))
	}
	msg := fmt.Sprintf("`%s` is on line %d only inside longer names (%s): pass the whole name, or occurrence (1-based) to pick one", needle, line, strings.Join(parts, ", "))
	var whole []int
	for i, l := range lines {
		if st, _, bounded := matches(l, needle); len(st) > 0 && bounded {
			whole = append(whole, i+1)
		}
	}
	if len(whole) > 0 {
		msg += fmt.Sprintf("; as a name of its own it is on %s", lineList(whole, line))
	}
	return errors.New(msg)
}

func abs(n int) int { return max(n, -n) }

// splitLines splits text into lines without their terminators ("\r\n" or
// "\n").
func splitLines(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// encoding is a negotiated position encoding.
type encoding string

const (
	utf16Enc encoding = "utf-16"
	utf8Enc  encoding = "utf-8"
	utf32Enc encoding = "utf-32"
)

// character converts a byte offset in line to a character offset in enc.
func (enc encoding) character(line string, byteOff int) int {
	byteOff = min(byteOff, len(line))
	switch enc {
	case utf8Enc:
		return byteOff
	case utf32Enc:
		return utf8.RuneCountInString(line[:byteOff])
	}
	n := 0
	for _, r := range line[:byteOff] {
		n += utf16.RuneLen(r)
	}
	return n
}

// byteOffset converts a character offset in enc to a byte offset in line
// (clamped to the line).
func (enc encoding) byteOffset(line string, char int) int {
	if enc == utf8Enc {
		return min(max(char, 0), len(line))
	}
	n := 0
	for i, r := range line {
		if n >= char {
			return i
		}
		if enc == utf32Enc {
			n++
		} else {
			n += utf16.RuneLen(r)
		}
	}
	return len(line)
}

// column is the 1-based column (in characters) of a server position in
// line, for display.
func (enc encoding) column(line string, char int) int {
	return utf8.RuneCountInString(line[:enc.byteOffset(line, char)]) + 1
}

// This file handles metavariables in a pattern's text: the rewrite of
// '$' to the placeholder a grammar accepts in identifiers (and back), and
// the recognition of a node whose whole text is one.

package patterns

import (
	"regexp"
	"strings"
)

type metaKind uint8

const (
	metaNone   metaKind = iota
	metaSingle          // $X: one named node
	metaAny             // $$X: one node, named or not
	metaMulti           // $$$X: zero or more siblings
)

// dollarRun reads the run of '$' at s[i]: its length k, and whether it
// begins a metavariable — a $$$, or $ or $$ before [A-Z_]. A longer run
// is code, as in ast-grep: Haskell's operator $$$$ was read as a $$$ and
// a '$', so a pattern cut from code using it did not match that code.
func dollarRun(s string, i int) (k int, meta bool) {
	for i+k < len(s) && s[i+k] == '$' {
		k++
	}
	return k, runIsMeta(k, s[i+k:])
}

// runIsMeta says a run of k '$' (or stand-ins for it) followed by rest
// begins a metavariable (see dollarRun).
func runIsMeta(k int, rest string) bool {
	return k == 3 || k < 3 && rest != "" && (rest[0] == '_' || rest[0] >= 'A' && rest[0] <= 'Z')
}

// expand rewrites metavariables (see dollarRun) for grammars that
// cannot parse '$' in identifiers.
func expand(s, e string) string {
	if e == "" {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '$' {
			b.WriteByte(s[i])
			i++
			continue
		}
		k, meta := dollarRun(s, i)
		if meta {
			b.WriteString(strings.Repeat(e, k))
		} else {
			b.WriteString(s[i : i+k])
		}
		i += k
	}
	return b.String()
}

// mayHoldMeta says a pattern's text could hold a metavariable as expand
// reads one (dollarRun), or the stand-in e for '$' that expand wrote. A
// '$' before anything else is text: a YAML string 'gs://${BUCKET}/a' is
// compared, not taken for any string.
func mayHoldMeta(s, e string) bool {
	if e != "" && strings.Contains(s, e) {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		k, meta := dollarRun(s, i)
		if meta {
			return true
		}
		i += k - 1
	}
	return false
}

// expand rewrites a pattern's metavariables for l's grammar. TOML has
// no token that is both a key and a value but a quoted string, so there
// each metavariable not already inside quotes is also quoted.
func (l *Language) expand(s string) string {
	x := expand(s, l.expando)
	if !l.quoteMeta {
		return x
	}
	var b strings.Builder
	e := l.expando
	// inString says x[i] stands inside a double-quoted string: a
	// metavariable there is the string's content, or a run of it
	// between escapes (JSON "\\$A\\c", whose content nodes the
	// escapes split), never a quoted value of its own.
	inString, escaped := false, false
	for i := 0; i < len(x); {
		if !strings.HasPrefix(x[i:], e) {
			switch c := x[i]; {
			case escaped:
				escaped = false
			case inString && c == '\\':
				escaped = true
			case c == '"':
				inString = !inString
			}
			b.WriteByte(x[i])
			i++
			continue
		}
		escaped = false
		j := i
		for strings.HasPrefix(x[j:], e) {
			j += len(e)
		}
		for j < len(x) && (x[j] == '_' || x[j] >= 'A' && x[j] <= 'Z' || x[j] >= '0' && x[j] <= '9') {
			j++
		}
		if inString {
			if l.quotedContent {
				b.WriteString(restore(x[i:j], e)) // "$V": see metaText
			} else {
				b.WriteString(x[i:j])
			}
		} else {
			b.WriteString(`"` + x[i:j] + `"`)
		}
		i = j
	}
	return b.String()
}

// metaText recognises a node whose whole text is a metavariable (for
// TOML, inside the quotes expand added).
func (l *Language) metaText(text string) (metaKind, string) {
	if l.quotedContent && strings.HasPrefix(text, "$") {
		return metaOf(text, "$") // a string's content the user quoted
	}
	if l.quoteMeta && len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
		text = text[1 : len(text)-1]
	}
	if l.altPrefix != "" && strings.HasPrefix(text, l.altPrefix+l.expando) {
		text = text[len(l.altPrefix):] // a metavariable read as a PHP variable or Ruby constant
	}
	return metaOf(text, l.expando)
}

func restore(s, e string) string {
	if e == "" || e == "_" {
		return s
	}
	// Only the runs expand wrote (see dollarRun): HTML's stand-in is a
	// letter, z, which text holds (developer.mozilla.org).
	var b strings.Builder
	for i := 0; i < len(s); {
		if !strings.HasPrefix(s[i:], e) {
			b.WriteByte(s[i])
			i++
			continue
		}
		k, j := 0, i
		for strings.HasPrefix(s[j:], e) {
			j += len(e)
			k++
		}
		if runIsMeta(k, s[j:]) {
			b.WriteString(strings.Repeat("$", k))
		} else {
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

// metaOf recognises a node whose whole text is a metavariable.
func metaOf(text, e string) (metaKind, string) {
	if e == "" {
		e = "$"
	}
	if !strings.HasPrefix(text, e) {
		return metaNone, ""
	}
	kind, rest := metaSingle, text[len(e):]
	if strings.HasPrefix(rest, e+e) {
		kind, rest = metaMulti, rest[2*len(e):]
		if rest == "" {
			return metaMulti, ""
		}
	} else if strings.HasPrefix(rest, e) {
		kind, rest = metaAny, rest[len(e):]
	}
	if !validMetaName(rest) {
		return metaNone, ""
	}
	if rest[0] == '_' {
		rest = ""
	}
	return kind, rest
}

func validMetaName(s string) bool {
	if s == "" || !(s[0] == '_' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// gapPattern is a regular expression for text that holds metavariables
// ($A, $$A, $$$, $$$A; see dollarRun): the rest literal, a single one
// any text that is not empty, a $$$ any text; nil where the text is no
// regular expression's (not UTF-8).
func gapPattern(s string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^(?s)`)
	lit := 0
	for i := 0; i < len(s); {
		if s[i] != '$' {
			i++
			continue
		}
		k, meta := dollarRun(s, i)
		if !meta {
			i += k
			continue
		}
		b.WriteString(regexp.QuoteMeta(s[lit:i]))
		_, j := scanMeta(s, i) // its name's end
		if k == 3 {
			b.WriteString(`.*?`)
		} else {
			b.WriteString(`.+?`)
		}
		i, lit = j, j
	}
	b.WriteString(regexp.QuoteMeta(s[lit:]))
	b.WriteString(`$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil // text that is not UTF-8
	}
	return re
}

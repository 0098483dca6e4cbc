// This file computes rewrites: a template with metavariables substituted
// (a $$$ capture as its original source slice), multi-line captures
// re-indented to where they land, the template's own indentation converted
// to the file's indent unit (tabs or spaces), and the non-overlapping
// replacements applied to a file (outermost match wins).

package patterns

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// Replacement is one applied edit in a file's original text.
type Replacement struct {
	Start, End uint32
	Text       string
}

// Rewrite applies template to every match in fm and returns the new text
// and the replacements used. Nested or overlapping matches: a match is
// skipped when it overlaps one already taken, scanning outermost first, so
// the outermost wins (run ast_edit again for the inner ones).
func Rewrite(fm *FileMatches, template string) ([]byte, []Replacement) {
	src := fm.Src
	spans := make([]Span, len(fm.Matches))
	for i, m := range fm.Matches {
		spans[i] = m.Span
	}
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].Start != spans[j].Start {
			return spans[i].Start < spans[j].Start
		}
		return spans[i].End > spans[j].End
	})
	fileUnit := indentUnit(string(src))
	tmpl := template
	if tu := indentUnit(template); tu != "" && fileUnit != "" && tu != fileUnit {
		tmpl = convertIndent(template, tu, fileUnit)
	}
	comments := &lineComments{lang: fm.Lang, src: src}
	var reps []Replacement
	var out strings.Builder
	last := uint32(0)
	for _, s := range spans {
		if s.Start < last || s.Start == s.End && len(reps) > 0 && s.Start == reps[len(reps)-1].Start {
			continue
		}
		text := substitute(tmpl, src, s, comments)
		end := s.End
		// The terminator the pattern did not spell (a ';', after any
		// comment) stays, unless the template ends with its own.
		if s.tail > 0 && !strings.HasSuffix(strings.TrimRight(text, " \t\r\n"), ";") {
			end = s.End - s.tail
		}
		// Children the pattern did not spell after its last one stay.
		end -= s.keep
		reps = append(reps, Replacement{Start: s.Start, End: end, Text: text})
		out.Write(src[last:s.Start])
		out.WriteString(text)
		last = end
	}
	out.Write(src[last:])
	return []byte(out.String()), reps
}

// substitute fills the template for one match. Lines after the first are
// indented like the line the match starts on; a multi-line capture is
// de-indented from its own line's indentation and re-indented to the
// indentation of the template line it is placed on.
//
// Template text after a capture that ends in a line comment (a Scala case
// body f(a) // note) goes on the next line, not into the comment.
func substitute(tmpl string, src []byte, s Span, comments *lineComments) string {
	var b strings.Builder
	for i := 0; i < len(tmpl); {
		if tmpl[i] != '$' {
			b.WriteByte(tmpl[i])
			i++
			continue
		}
		j, k := scanMeta(tmpl, i)
		if k == j { // not a metavariable: a literal '$'
			b.WriteString(tmpl[i:j])
			i = j
			continue
		}
		name := tmpl[j:k]
		i = k
		for _, c := range s.Captures {
			if c.Name != name {
				continue
			}
			indent := currentIndent(b.String())
			text := string(src[c.Start:c.End])
			if strings.Contains(text, "\n") {
				text = reindent(text, lineIndent(src, c.Start), indent)
			}
			b.WriteString(text)
			if !restOfLineBlank(tmpl[k:]) && comments.endsAt(c.Start, c.End) {
				b.WriteString("\n" + indent)
			}
			break
		}
	}
	return indentAfterFirst(b.String(), lineIndent(src, s.Start))
}

// restOfLineBlank says s up to its first newline is blanks only.
func restOfLineBlank(s string) bool {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line) == ""
}

// lineComments knows where a file's line comments end. A search's tree
// may leave a capture's subtree unflattened, so the file is parsed again,
// once, the first time a capture followed by template text on its line
// holds a line comment's opener.
type lineComments struct {
	lang   *Language
	src    []byte
	parsed bool
	ends   map[uint32]bool
}

// endsAt says the capture [start, end) ends in a line comment.
func (lc *lineComments) endsAt(start, end uint32) bool {
	if lc == nil || lc.lang == nil || end <= start {
		return false
	}
	lastLine := lc.src[start:end]
	if i := bytes.LastIndexByte(lastLine, '\n'); i >= 0 {
		lastLine = lastLine[i+1:]
	}
	if !bytes.Contains(lastLine, []byte("//")) && !bytes.Contains(lastLine, []byte("#")) && !bytes.Contains(lastLine, []byte("--")) {
		return false
	}
	if !lc.parsed {
		lc.parsed = true
		lc.ends = lineCommentEnds(lc.lang, lc.src)
	}
	return lc.ends[end]
}

// lineCommentEnds parses src and returns the end offsets of its line
// comments: comment nodes opening with //, # or -- (not Lua's --[[).
func lineCommentEnds(lang *Language, src []byte) map[uint32]bool {
	pr := newParser()
	defer pr.close()
	t, err := pr.parse(lang, src, false)
	if err != nil {
		return nil
	}
	ends := map[uint32]bool{}
	for i, n := range t.nodes {
		if n.end > n.start && t.skip(i) && isLineComment(src[n.start:n.end]) {
			ends[n.end] = true
		}
	}
	return ends
}

// isLineComment says a comment's text runs to the end of its line.
func isLineComment(text []byte) bool {
	if bytes.HasPrefix(text, []byte("--")) {
		return !bytes.HasPrefix(text, []byte("--[[")) && !bytes.HasPrefix(text, []byte("--[="))
	}
	return bytes.HasPrefix(text, []byte("//")) || bytes.HasPrefix(text, []byte("#"))
}

// scanMeta reads the metavariable at tmpl[i] (a '$'): up to three '$'
// end at j, the name (an uppercase letter or '_', then uppercase letters,
// digits and '_') at k; k == j when no name follows (a literal '$'). The
// number of '$' does not change what a name refers to: $A and $$$A both
// place the capture named A.
func scanMeta(tmpl string, i int) (j, k int) {
	j = i
	for j < len(tmpl) && j-i < 3 && tmpl[j] == '$' {
		j++
	}
	k = j
	if k < len(tmpl) && (tmpl[k] == '_' || tmpl[k] >= 'A' && tmpl[k] <= 'Z') {
		for k < len(tmpl) && (tmpl[k] == '_' || tmpl[k] >= 'A' && tmpl[k] <= 'Z' || tmpl[k] >= '0' && tmpl[k] <= '9') {
			k++
		}
	}
	return j, k
}

// Bound lists the metavariables the pattern captures, as spelled in it
// ($A, $$$ARGS), in order of first appearance; $_ and $$$ capture nothing
// and are not listed.
func (p *Pattern) Bound() []string {
	var out []string
	seen := map[string]bool{}
	var walk func(n *pnode)
	walk = func(n *pnode) {
		if n.meta != metaNone && n.name != "" && !seen[n.name] {
			seen[n.name] = true
			out = append(out, strings.Repeat("$", int(n.meta))+n.name)
		}
		for _, c := range n.children {
			walk(c)
		}
	}
	for _, n := range p.nodes {
		walk(n)
	}
	return out
}

// CheckTemplate refuses a rewrite template that names a metavariable a
// pattern does not capture: substitute would place nothing there, so a
// typo ($C for $B) would silently delete code. A name counts as bound
// whatever its '$'s ($A places a $$$A capture, as substitute reads it).
// With several patterns (one per language) each must bind every name.
func CheckTemplate(ps []*Pattern, tmpl string) error {
	for _, p := range ps {
		bound := p.Bound()
		name, spelled, ok := unboundIn(tmpl, bound)
		if !ok {
			continue
		}
		where := "the pattern"
		if len(ps) > 1 {
			where = "the " + p.Lang.ID + " reading of the pattern"
		}
		if name[0] == '_' {
			return fmt.Errorf("%s captures nothing (a name starting with _ never does), so the rewrite cannot use it; %s", spelled, bindsText(bound))
		}
		return fmt.Errorf("%s is not in %s; %s", spelled, where, bindsText(bound))
	}
	return nil
}

// unboundIn finds the first metavariable tmpl names that bound (names as
// spelled, with their '$'s) lacks: its bare name and its spelling in tmpl.
func unboundIn(tmpl string, bound []string) (name, spelled string, ok bool) {
	has := map[string]bool{}
	for _, b := range bound {
		has[strings.TrimLeft(b, "$")] = true
	}
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] != '$' {
			continue
		}
		j, k := scanMeta(tmpl, i)
		if k == j {
			i = j - 1
			continue
		}
		if !has[tmpl[j:k]] {
			return tmpl[j:k], tmpl[i:k], true
		}
		i = k - 1
	}
	return "", "", false
}

// bindsText is the end of an unbound-metavariable error.
func bindsText(bound []string) string {
	if len(bound) == 0 {
		return "it binds no metavariable"
	}
	return "it binds " + strings.Join(bound, ", ")
}

// lineIndent is the leading whitespace of the line containing off.
func lineIndent(src []byte, off uint32) string {
	start := int(off)
	for start > 0 && src[start-1] != '\n' {
		start--
	}
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// currentIndent is the leading whitespace of the last line of s.
func currentIndent(s string) string {
	line := s[strings.LastIndexByte(s, '\n')+1:]
	return line[:len(line)-len(strings.TrimLeft(line, " \t"))]
}

// reindent moves the lines after the first from indentation from to
// indentation to.
func reindent(text, from, to string) string {
	lines := strings.Split(text, "\n")
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, from) {
			l = l[len(from):]
		} else {
			l = strings.TrimLeft(l, " \t")
		}
		if l != "" {
			l = to + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

func indentAfterFirst(text, indent string) string {
	if indent == "" || !strings.Contains(text, "\n") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" {
			lines[i] = indent + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// indentUnit guesses a text's indent unit: "\t" when most indented lines
// start with a tab, else the smallest run of two or more leading spaces;
// "" when no line is indented.
func indentUnit(text string) string {
	tabs, spaces, unit := 0, 0, 0
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "\t") {
			tabs++
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if n >= 2 && n < len(l) {
			spaces++
			if unit == 0 || n < unit {
				unit = n
			}
		}
	}
	switch {
	case tabs == 0 && spaces == 0:
		return ""
	case tabs >= spaces:
		return "\t"
	}
	return strings.Repeat(" ", unit)
}

// convertIndent rewrites each line's leading indentation from unit from to
// unit to, keeping any remainder.
func convertIndent(text, from, to string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		levels := 0
		rest := l
		for strings.HasPrefix(rest, from) {
			levels++
			rest = rest[len(from):]
		}
		lines[i] = strings.Repeat(to, levels) + rest
	}
	return strings.Join(lines, "\n")
}

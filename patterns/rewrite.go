// This file computes rewrites: a template with metavariables substituted
// (a $$$ capture as its original source slice, with the comments beside
// it), multi-line captures re-indented to where they land, the template's
// own indentation converted to the file's indent unit (tabs or spaces,
// read from its blocks), and the non-overlapping replacements applied to
// a file (outermost match wins).

package patterns

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Replacement is one applied edit in a file's original text.
type Replacement struct {
	Start, End uint32
	Text       string
	// Dropped are the comments of the replaced text that the new text
	// does not carry (no capture the template places holds them).
	Dropped []Span
	// Unspelled is code of the replaced text that the match passed over
	// without the pattern spelling it or a capture taking it (Span's
	// unspelled): no template can place it, so the rewrite would drop it.
	Unspelled []Span
	// singles are the source ranges of the single-node captures the
	// template writes (checked by joinedReplacements).
	singles [][2]uint32
}

// Rewrite applies template to every match in fm and returns the new text
// and the replacements used. Nested or overlapping matches: a match is
// skipped when it overlaps one already taken, scanning outermost first, so
// the outermost wins (run ast_edit again for the inner ones).
//
// The matcher passes over comments, so a $$$ capture stops at the last
// node it took; here it is widened over the comments between it and the
// pattern's neighbouring tokens, so that a rewrite keeps them. A comment
// of a replaced span that no capture placed by the template carries is
// lost: each replacement lists those it drops (Replacement.Dropped).
func Rewrite(fm *FileMatches, template string) ([]byte, []Replacement) {
	out, reps, _ := rewrite(nil, fm, template)
	return out, reps
}

// rewrite is Rewrite with a parser to read the file's comments with (nil:
// one of its own); unread says that parse failed, so the comments the
// replacements drop are not known (none is listed).
func rewrite(p *parser, fm *FileMatches, template string) (_ []byte, _ []Replacement, unread bool) {
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
	comments := &fileComments{lang: fm.Lang, src: src, p: p, tmplText: templateTextLines(fm.Lang, p, template)}
	tmpl := template
	if tu := indentUnit(template); tu != "" && len(spans) > 0 {
		if fu := blockIndentUnit(string(src), comments.inToken); fu != "" && tu != fu {
			tmpl = convertIndent(template, tu, fu)
		}
	}
	placed := templateNames(tmpl)
	literalText := templateLiteral(tmpl)
	// A template that ends with a capture ends with its text: blanks
	// there are a string's value ('…\n\⏎    ' under $A), not layout.
	capEnds := strings.TrimRight(tmpl, " \t\r\n") == tmpl && endsWithMeta(tmpl, "")
	var reps []Replacement
	var out strings.Builder
	last := uint32(0)
	for _, s := range spans {
		if s.Start < last || s.Start == s.End && len(reps) > 0 && s.Start == reps[len(reps)-1].Start {
			continue
		}
		caps := comments.widen(s, s.End-s.keep)
		text := substitute(tmpl, src, s.Start, caps, comments)
		end := s.End
		// The terminator the pattern did not spell (a ';', after any
		// comment) stays, unless the template ends with its own.
		if s.tail > 0 && !strings.HasSuffix(strings.TrimRight(text, " \t\r\n"), ";") {
			end = s.End - s.tail
		}
		// Children the pattern did not spell after its last one stay.
		end -= s.keep
		// The template's closing ';' is the pattern's optional one, which
		// the code did not have there: before the children that stay it
		// would cut the code in two (const $A: $B; over const e: T = {…}
		// wrote const e: T; = {…}).
		if t := strings.TrimRight(text, " \t\r\n"); s.keep > 0 && strings.HasSuffix(t, ";") &&
			!bytes.HasSuffix(bytes.TrimRight(src[s.Start:end], " \t\r\n"), []byte(";")) {
			text = strings.TrimSuffix(t, ";")
		}
		// Nor is it written before the code's own ';' after the match, which
		// the node did not hold (C's union {…}; in a struct: the ';' is
		// the field declaration's; a Bash case arm's ;;).
		if t := strings.TrimRight(text, " \t\r\n"); strings.HasSuffix(t, ";") &&
			!bytes.HasSuffix(bytes.TrimRight(src[s.Start:end], " \t\r\n"), []byte(";")) &&
			bytes.HasPrefix(bytes.TrimLeft(src[end:], " \t"), []byte(";")) {
			text = strings.TrimSuffix(t, ";") + text[len(t):]
		}
		// Blanks that close the replaced text are layout, not code (a
		// YAML block's node holds its last line break; the capture does
		// not): they stay unless the template ends with its own.
		if strings.TrimRight(text, " \t\r\n") == text {
			for end > s.Start && isSpace(src[end-1]) {
				end--
			}
		} else if t := strings.TrimRight(text, " \t"); strings.HasSuffix(t, "\n") && !capEnds {
			// Blanks after the last line break are the next line's
			// indentation (a Scala lambda's node holds them): the
			// source's stay, not the template's.
			for end > s.Start && (src[end-1] == ' ' || src[end-1] == '\t') {
				end--
			}
			text = t
		}
		// A template's closing line break is kept only where the text it
		// replaces ends with one (a directive's newline): after an
		// expression, or before kept children (#define $A⏎ over #define
		// X 1, whose value stays), it would cut the code in two.
		// (Not where the template's last line may end in a comment: code
		// after the match on its line would go into it.)
		if t := strings.TrimRight(text, " \t"); strings.HasSuffix(t, "\n") && !capEnds && !bytes.HasSuffix(src[s.Start:end], []byte("\n")) {
			if body := strings.TrimRight(t, " \t\r\n"); !mayEndInComment(fm.Lang, body) {
				text = body
			}
		}
		// Code the match passed over is dropped unless the template's
		// own text writes it again (async def $F… written over async
		// def f…), as whole words: str of &'static str is not written
		// again by $C!(…) placing include_str.
		var unspelled []Span
		for _, r := range s.unspelled {
			if r[0] < end && r[1] > s.Start && !writesAgain(literalText, string(punctRun(src, r[0], min(r[1], end), s.Start, end))) {
				unspelled = append(unspelled, Span{Start: r[0], End: min(r[1], end)})
			}
		}
		var singles [][2]uint32
		for _, c := range s.Captures {
			if !c.Multi && c.Start < c.End && placed[c.Name] {
				singles = append(singles, [2]uint32{c.Start, c.End})
			}
		}
		reps = append(reps, Replacement{Start: s.Start, End: end, Text: text, Dropped: comments.dropped(s.Start, end, caps, placed), Unspelled: unspelled, singles: singles})
		out.Write(src[last:s.Start])
		out.WriteString(text)
		last = end
	}
	out.Write(src[last:])
	return []byte(out.String()), reps, comments.failed
}

// templateLiteral is the template's own text, each metavariable (as
// substitute reads them) cut out and a NUL in its place.
func templateLiteral(tmpl string) string {
	var b strings.Builder
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] == '$' {
			if j, k := scanMeta(tmpl, i); k > j {
				b.WriteByte(0)
				i = k - 1
				continue
			}
		}
		b.WriteByte(tmpl[i])
	}
	return b.String()
}

// punctRun is src[lo:hi], or, where that holds no word, the whole run of
// punctuation around it within [from, to): the second '.' of Python's
// from ..a, passed over by from .$A, is written again only by a template
// that writes "..", not by the '.' the pattern spelled.
func punctRun(src []byte, lo, hi, from, to uint32) []byte {
	if slices.ContainsFunc(src[lo:hi], isWordByte) {
		return src[lo:hi]
	}
	punct := func(c byte) bool { return !isWordByte(c) && !isSpace(c) }
	for lo > from && punct(src[lo-1]) {
		lo--
	}
	for hi < to && punct(src[hi]) {
		hi++
	}
	return src[lo:hi]
}

// writesAgain says the template's literal text holds code, blanks aside,
// with no word character glued to either end of it.
func writesAgain(literalText, code string) bool {
	words := strings.Fields(code)
	if len(words) == 0 {
		return true
	}
	for _, part := range strings.Split(literalText, "\x00") {
		flat := strings.Join(strings.Fields(part), " ")
		want := strings.Join(words, " ")
		for from := 0; ; {
			at := strings.Index(flat[from:], want)
			if at < 0 {
				break
			}
			at += from
			end := at + len(want)
			if (at == 0 || !isWordByte(flat[at-1]) || !isWordByte(want[0])) && (end == len(flat) || !isWordByte(flat[end]) || !isWordByte(want[len(want)-1])) {
				return true
			}
			from = at + 1
		}
	}
	return false
}

// placedCapture is a capture as a rewrite places it: its text's range
// (a $$$ widened over the comments beside it) and the indentation its
// lines after the first are moved from.
type placedCapture struct {
	name       string
	start, end uint32
	from       string
	// own says the capture started its own line as a nested block, which
	// a rewrite keeps on a line of its own (see ownLine); extra is the
	// indentation it had beyond the code line before it.
	own   bool
	alone bool // and is a statement that must start its line (headerLine)
	extra string
	prev  byte // the last byte of the code before it (see ownLine)
	// lead is where the comment lines before it start: placed on a line
	// of its own, the capture takes them along (substitute).
	lead uint32
}

// substitute fills the template for one match starting at matchStart
// with its placed captures. Lines after the first are indented like the
// line the match starts on; a multi-line capture is de-indented from its
// own first line's indentation and re-indented to the indentation of the
// template line it is placed on (that line's lines, not a string's).
//
// Template text after a capture that ends in a line comment (a Scala case
// body f(a) // note) goes on the next line, not into the comment.
func substitute(tmpl string, src []byte, matchStart uint32, caps []placedCapture, comments *fileComments) string {
	var b strings.Builder
	matchIndent := lineIndent(src, matchStart)
	if comments.lang != nil && comments.lang.columnBlocks {
		// A block is held to the column its first token is at, not to
		// its line's indentation: the template's lines go under the
		// match's column (a YAML entry after a '- ', a Haskell binding
		// after let). Not Python's: a bracket's lines follow the line.
		matchIndent = columnIndent(src, matchStart)
	}
	placed := map[int]bool{} // lines a capture placed, by number: indented already
	tline := 0               // the template's line at i
	for i := 0; i < len(tmpl); {
		if tmpl[i] != '$' {
			if tmpl[i] == '\n' {
				if tline++; comments.tmplText[tline] {
					placed[strings.Count(b.String(), "\n")+1] = true // a string's text: as written
				}
			}
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
		name, multi := tmpl[j:k], j-i == 3
		i = k
		for ci, c := range caps {
			if c.name != name {
				continue
			}
			indent := currentIndent(b.String())
			text := string(src[c.start:c.end])
			multiLine := strings.Contains(text, "\n")
			// A block that started its own line goes on one where the
			// template writes it after other text. One line stays where
			// the template puts it (if $C: $B), but for a YAML value: a
			// one-line mapping or list is a block too.
			out := b.String()
			written := strings.TrimRight(out[strings.LastIndexByte(out, '\n')+1:], " \t")
			own := c.own && written != "" && written[len(written)-1] == c.prev &&
				(multiLine || c.alone || comments.lang.ID == "yaml")
			if own || multiLine {
				line := strings.Count(out, "\n")
				to := matchIndent + indent
				if placed[line] {
					to = indent // a capture's line: indented already
				}
				if own {
					if c.lead < c.start {
						// The comment lines that lead the block go with
						// it (and count as placed, not dropped).
						// The block's indentation stays its code's: a
						// comment's column says nothing of it (Python's
						// comment at column 0 inside a block).
						caps[ci].start, c.start = c.lead, c.lead
						text = string(src[c.lead:c.end])
					}
					// A block that started its own line stays on one:
					// if x:⏎    a⏎    b under if not ($C): $$$B, or a
					// YAML mapping's value under $A: $B, written after
					// the template's text would change what it means or
					// not parse.
					// Under the header's first line: the lines a capture
					// continued (while a and \⏎  b:) are not its own.
					hdr := line
					lines := strings.Split(out, "\n")
					for hdr > 0 && placed[hdr] {
						hdr--
					}
					to = matchIndent + currentIndent(lines[hdr])
					if placed[hdr] {
						to = currentIndent(lines[hdr])
					}
					b.Reset()
					b.WriteString(strings.TrimRight(out, " \t") + "\n" + to + c.extra)
					line++
					placed[line] = true
					to += c.extra
				}
				for i := 1; i <= strings.Count(text, "\n"); i++ {
					placed[line+i] = true
				}
				text = reindent(text, c.from, to, func(off int) bool { return comments.inText(c.start + uint32(off)) })
			}
			if text == "" && multi {
				// An empty $$$ takes a ',' beside it, as in matching (f($$$A,
				// b) matches f(b)): g($$$A, c) is then g(c), not g(, c).
				if n := commaAfter(tmpl[k:]); n > 0 {
					i = k + n
				} else if out := b.String(); commaBefore(out) < len(out) {
					b.Reset()
					b.WriteString(out[:commaBefore(out)])
				}
				break
			}
			b.WriteString(text)
			if !restOfLineBlank(tmpl[k:]) && comments.endsAt(c.start, c.end) {
				b.WriteString("\n" + indent)
			}
			break
		}
	}
	return indentAfterFirst(b.String(), matchIndent, placed)
}

// ownLine says whether a capture starting at start began its own line as
// a nested block, in a language of blockLayout, in the match that starts
// at from: the code token before it is the match's (not code before the
// match), it is more indented than that token's line (where blocks hold
// to a column, the match's own first line counts from the match's
// column), or it is a YAML value under its key's ':' or entry's '-'; not
// inside brackets nor after a line that goes on with a '\' (where a line
// break is only layout). prev is that token's last byte: the template
// keeps the capture on a line of its own only after text ending the same
// way (if x: before a body, key: before a value). lead is where the
// comment lines just before the capture start (start if none), extra the
// indentation it had beyond that token's line.
func (fc *fileComments) ownLine(start, from uint32) (own bool, lead uint32, extra string, prev byte) {
	l := fc.lang
	if l == nil || !l.blockLayout {
		return false, start, "", 0
	}
	fc.parse()
	src := fc.src
	ls := lineStartOf(src, start)
	if fc.failed || strings.TrimSpace(string(src[ls:start])) != "" || ls == 0 {
		return false, start, "", 0
	}
	if continued(src, ls) {
		return false, start, "", 0
	}
	lead = start
	i := sort.Search(len(fc.leaves), func(i int) bool { return fc.leaves[i].end > start }) - 1
	for ; i >= 0 && fc.leaves[i].comment; i-- {
		if strings.TrimSpace(string(src[lineStartOf(src, fc.leaves[i].start):fc.leaves[i].start])) == "" {
			lead = fc.leaves[i].start // a comment on a line of its own
		}
	}
	if i < 0 || fc.leaves[i].start < from || fc.bracketDepth(i) > 0 {
		return false, start, "", 0
	}
	prevAt := fc.leaves[i].end - 1
	prev = src[prevAt]
	if lineStartOf(src, prevAt) == ls {
		return false, start, "", 0
	}
	if lead < start && lineStartOf(src, lead) == lineStartOf(src, prevAt) {
		lead = start // a comment after the code on its line stays there
	}
	// The header's indentation is its first line's: lines inside its
	// brackets (for a, b in (⏎    x,⏎):) or after a '\' say nothing of
	// it.
	hdr := lineStartOf(src, prevAt)
	for k := i; k >= 0; k-- {
		if at := lineStartOf(src, fc.leaves[k].start); at != hdr {
			if fc.bracketDepth(k) == 0 && !continued(src, hdr) {
				break
			}
			hdr = at
		}
	}
	own0, before := lineIndent(src, start), lineIndent(src, hdr)
	if l.columnBlocks && hdr == lineStartOf(src, from) {
		before = columnIndent(src, from)
	}
	if l.ID == "yaml" {
		if prev != ':' && prev != '-' || len(own0) < len(before) {
			return false, start, "", 0
		}
		if strings.HasPrefix(own0, before) {
			extra = own0[len(before):]
		}
		return true, lead, extra, prev
	}
	if len(own0) > len(before) && strings.HasPrefix(own0, before) {
		return true, lead, own0[len(before):], prev
	}
	return false, start, "", 0
}

// continued says the line before the one starting at ls ends with a
// '\\' that continues it.
func continued(src []byte, ls uint32) bool {
	if ls == 0 {
		return false
	}
	before := bytes.TrimRight(src[:ls-1], " \t\r")
	return len(before) > 0 && before[len(before)-1] == '\\'
}

// bracketDepth is how many brackets are open after leaf i (the file's
// tokens counted once, when first asked).
func (fc *fileComments) bracketDepth(i int) int32 {
	if fc.depth == nil {
		fc.depth = make([]int32, len(fc.leaves))
		var d int32
		for k, lf := range fc.leaves {
			if !lf.comment && !lf.str && lf.end == lf.start+1 {
				switch fc.src[lf.start] {
				case '(', '[', '{':
					d++
				case ')', ']', '}':
					d = max(0, d-1)
				}
			}
			fc.depth[k] = d
		}
	}
	return fc.depth[i]
}

// mayEndInComment says the last line of a template's text may end in a
// line comment of l (an opener anywhere on it, in a string too: a false
// yes only keeps the template's line break).
func mayEndInComment(l *Language, text string) bool {
	line := text[strings.LastIndexByte(text, '\n')+1:]
	opener := "//"
	if l != nil {
		switch l.ID {
		case "python", "ruby", "bash", "yaml", "toml":
			opener = "#"
		case "php":
			if strings.Contains(line, "#") {
				return true
			}
		case "lua", "haskell":
			opener = "--"
		}
	}
	return strings.Contains(line, opener)
}

// commaAfter is the length of the ',' that s starts with (after blanks),
// and the blanks after it; 0 when s does not start with one.
func commaAfter(s string) int {
	t := strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(t, ",") {
		return 0
	}
	return len(s) - len(strings.TrimLeft(t[1:], " \t\r\n"))
}

// commaBefore is where the ',' that s ends with (before blanks on its
// line) starts, or len(s) when s does not end with one. A ',' that ends
// an earlier line stays: Go needs it before a newline (T{⏎A: 1,⏎$$$R⏎}).
func commaBefore(s string) int {
	t := strings.TrimRight(s, " \t")
	if !strings.HasSuffix(t, ",") {
		return len(s)
	}
	return len(t) - 1
}

// templateNames are the capture names a template places.
func templateNames(tmpl string) map[string]bool {
	names := map[string]bool{}
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] != '$' {
			continue
		}
		j, k := scanMeta(tmpl, i)
		if k > j {
			names[tmpl[j:k]] = true
		}
		i = max(j, k) - 1
	}
	return names
}

// restOfLineBlank says s up to its first newline is blanks only.
func restOfLineBlank(s string) bool {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line) == ""
}

// fileComments knows a file's comments and the tokens between them. A
// search's tree may leave a capture's subtree unflattened, so the file is
// parsed again, once, the first time a match is rewritten.
type fileComments struct {
	lang   *Language
	src    []byte
	p      *parser // nil: parse makes one
	parsed bool
	failed bool // the parse did not finish: no comment is known
	// leaves are the file's tokens in order: each comment whole, and
	// every other leaf with some text.
	leaves []leaf
	depth  []int32         // bracketDepth's, by leaf
	ends   map[uint32]bool // where line comments end
	// headerLine holds where a statement of a kind the language's
	// headerLine lists starts.
	headerLine map[uint32]bool
	// tmplText are the template's lines (by number) that start inside a
	// string's text: the match's indentation is not written before them.
	tmplText map[int]bool
	// strs are the outermost string nodes with children that span lines
	// (a template literal with substitutions), in order.
	strs [][2]uint32
}

// leaf is one token of fileComments.
type leaf struct {
	start, end uint32
	comment    bool
	str        bool // a string's text (its kind's name says string)
}

func (fc *fileComments) parse() {
	if fc.parsed {
		return
	}
	fc.parsed = true
	if fc.lang == nil {
		return
	}
	pr := fc.p
	if pr == nil {
		pr = newParser()
		defer pr.close()
	}
	t, err := pr.parse(fc.lang, fc.src, false)
	if err != nil {
		fc.failed = true
		return
	}
	fc.ends, fc.headerLine = map[uint32]bool{}, map[uint32]bool{}
	for i := 0; i < len(t.nodes); {
		n := &t.nodes[i]
		k := t.Lang.kind(n.sym)
		if len(fc.lang.headerLine) > 0 && slices.Contains(fc.lang.headerLine, t.Lang.kindName(k)) {
			fc.headerLine[n.start] = true
		}
		if n.next > uint32(i)+1 && strings.Contains(t.Lang.kindName(k), "string") && bytes.IndexByte(fc.src[n.start:n.end], '\n') >= 0 &&
			(len(fc.strs) == 0 || fc.strs[len(fc.strs)-1][1] <= n.start) {
			fc.strs = append(fc.strs, [2]uint32{n.start, n.end})
		}
		switch {
		case n.end > n.start && k >= 0 && t.Lang.comment[k]:
			fc.leaves = append(fc.leaves, leaf{start: n.start, end: n.end, comment: true})
			if isLineComment(fc.src[n.start:n.end]) {
				fc.ends[n.end] = true
			}
			i = int(n.next)
			continue
		case n.end > n.start && n.next == uint32(i)+1:
			fc.leaves = append(fc.leaves, leaf{start: n.start, end: n.end, str: strings.Contains(t.Lang.kindName(k), "string")})
		}
		i++
	}
}

// widen is s's captures as a rewrite places them: a $$$ capture also
// takes the comments between it and the nearest other token on each side
// within the match (before limit), and an empty one the comments where it
// stands. A comment goes to one capture only, the first that reaches it.
func (fc *fileComments) widen(s Span, limit uint32) []placedCapture {
	caps := make([]placedCapture, len(s.Captures))
	var taken []leaf
	for i, c := range s.Captures {
		caps[i] = placedCapture{name: c.Name, start: c.Start, end: c.End, from: lineIndent(fc.src, c.Start)}
		if c.Start < c.End && fc.lang != nil && fc.lang.blockLayout {
			caps[i].own, caps[i].lead, caps[i].extra, caps[i].prev = fc.ownLine(c.Start, s.Start)
			caps[i].alone = caps[i].own && fc.headerLine[c.Start]
			if c.Multi {
				caps[i].lead = c.Start // a $$$ takes the comments beside it (around)
			}
		}
		if c.Multi {
			fc.parse()
			caps[i].start, caps[i].end = fc.around(c.Start, c.End, s.Start, limit, taken)
			// A comment that starts its line leads now: the text moves
			// from its line's indentation (the node after it may be a
			// C directive at column 0).
			// (Not where the lines go by indentation: a Python comment's
			// column says nothing of its block's, and one at column 0
			// moved the block and the elif after it in by a level.)
			if caps[i].start != c.Start && (fc.lang == nil || !fc.lang.blockLayout) && strings.TrimSpace(string(fc.src[lineStartOf(fc.src, caps[i].start):caps[i].start])) == "" {
				caps[i].from = lineIndent(fc.src, caps[i].start)
			}
			taken = append(taken, leaf{start: caps[i].start, end: caps[i].end})
		}
	}
	return caps
}

// around widens [start, end) over the comments next to it inside
// [lo, hi) that no range of taken holds.
func (fc *fileComments) around(start, end, lo, hi uint32, taken []leaf) (uint32, uint32) {
	free := func(l leaf) bool {
		for _, t := range taken {
			if l.start < t.end && t.start < l.end {
				return false
			}
		}
		return true
	}
	empty := start == end
	s, e := start, end
	first := sort.Search(len(fc.leaves), func(i int) bool { return fc.leaves[i].end > start })
	for i := first - 1; i >= 0 && fc.leaves[i].comment && fc.leaves[i].start >= lo && free(fc.leaves[i]); i-- {
		s = fc.leaves[i].start
		if empty && e == end {
			e = fc.leaves[i].end // the text ends with the last comment
		}
	}
	after := sort.Search(len(fc.leaves), func(i int) bool { return fc.leaves[i].start >= end })
	for i := after; i < len(fc.leaves) && fc.leaves[i].comment && fc.leaves[i].end <= hi && free(fc.leaves[i]); i++ {
		if empty && s == start {
			s = fc.leaves[i].start // and starts with the first
		}
		e = fc.leaves[i].end
	}
	return s, e
}

// dropped lists the comments in [start, end) that no capture the
// template places holds: the rewrite loses them.
func (fc *fileComments) dropped(start, end uint32, caps []placedCapture, placed map[string]bool) []Span {
	if fc.lang == nil || end <= start {
		return nil
	}
	fc.parse()
	var out []Span
	i := sort.Search(len(fc.leaves), func(i int) bool { return fc.leaves[i].start >= start })
	for ; i < len(fc.leaves) && fc.leaves[i].end <= end; i++ {
		l := fc.leaves[i]
		if !l.comment || slices.ContainsFunc(caps, func(c placedCapture) bool {
			return placed[c.name] && c.start <= l.start && l.end <= c.end
		}) {
			continue
		}
		out = append(out, Span{Start: l.start, End: l.end})
	}
	return out
}

// inText says off, where a line starts, is inside a string's text: the
// line is the string's, and its indentation is part of the value. (Other
// multi-line tokens move with their lines: a YAML block scalar's text
// must stay deeper than its key.) A line of a string that holds code
// (a JavaScript template's `${a}⏎${b}`) is the string's even where it
// starts with that code.
func (fc *fileComments) inText(off uint32) bool {
	if l, ok := fc.holding(off); ok && l.str {
		return true
	}
	i := sort.Search(len(fc.strs), func(i int) bool { return fc.strs[i][1] > off })
	return i < len(fc.strs) && fc.strs[i][0] < off
}

// inToken says off, where a line starts, is inside a token: a string's
// text or a comment (whose lines say nothing of the code's indentation).
func (fc *fileComments) inToken(off int) bool {
	_, ok := fc.holding(uint32(off))
	return ok
}

// holding is the token that the line starting at off belongs to, if
// any: one that starts before off and ends after it, or at it (a
// string's text that ends with the newline before a closing quote at
// the line's start; not a newline token).
func (fc *fileComments) holding(off uint32) (leaf, bool) {
	fc.parse()
	i := sort.Search(len(fc.leaves), func(i int) bool { return fc.leaves[i].end >= off })
	if i == len(fc.leaves) {
		return leaf{}, false
	}
	l := fc.leaves[i]
	if l.start >= off {
		return leaf{}, false
	}
	return l, off < l.end || strings.TrimSpace(string(fc.src[l.start:l.end])) != ""
}

// endsAt says the capture [start, end) ends in a line comment.
func (fc *fileComments) endsAt(start, end uint32) bool {
	if fc == nil || fc.lang == nil || end <= start {
		return false
	}
	lastLine := fc.src[start:end]
	if i := bytes.LastIndexByte(lastLine, '\n'); i >= 0 {
		lastLine = lastLine[i+1:]
	}
	if !bytes.Contains(lastLine, []byte("//")) && !bytes.Contains(lastLine, []byte("#")) && !bytes.Contains(lastLine, []byte("--")) {
		return false
	}
	fc.parse()
	return fc.ends[end]
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

// lineStartOf is the offset where the line holding off starts.
func lineStartOf(src []byte, off uint32) uint32 {
	for off > 0 && src[off-1] != '\n' {
		off--
	}
	return off
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

// columnIndent is blank space to off's column on its line: the line's
// own indentation, then a space for each other character before off.
func columnIndent(src []byte, off uint32) string {
	ind := lineIndent(src, off)
	start := int(off)
	for start > 0 && src[start-1] != '\n' {
		start--
	}
	if start+len(ind) > int(off) { // off inside the indentation
		return string(src[start:off])
	}
	rest := src[start+len(ind) : off]
	return ind + strings.Repeat(" ", utf8.RuneCount(rest))
}

// currentIndent is the leading whitespace of the last line of s.
func currentIndent(s string) string {
	line := s[strings.LastIndexByte(s, '\n')+1:]
	return line[:len(line)-len(strings.TrimLeft(line, " \t"))]
}

// reindent moves the lines after the first from indentation from to
// indentation to, keeping their indentation relative to from; a line
// less indented than from moves in by as much as the others, or stays
// put when they move out. A line that starts inside a string (verbatim
// says so, given the line's offset in text) is left as it is.
func reindent(text, from, to string, verbatim func(off int) bool) string {
	lines := strings.Split(text, "\n")
	off := len(lines[0]) + 1
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		at := off
		off += len(l) + 1
		if verbatim != nil && verbatim(at) {
			continue
		}
		body := strings.TrimLeft(l, " \t")
		ind := l[:len(l)-len(body)]
		switch {
		case from == to: // not moved: as it was, odd blanks and all
		case body == "":
			l = ""
		case strings.HasPrefix(ind, from):
			l = to + l[len(from):]
		case strings.HasPrefix(to, from): // deeper
			l = to[len(from):] + l
		case strings.HasPrefix(from, to) && strings.HasPrefix(from, ind):
			// Moved out, and less indented than from: it stays where
			// it was (a comment at the enclosing level, a directive at
			// column 0), but no deeper than the first line goes.
			l = from[:min(len(ind), len(to))] + body
		default:
			l = to + body
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// templateTextLines are the lines of a template (by number) that start
// inside a string's text, read with l's grammar (the template's
// metavariables expanded as a pattern's are); nil when it has none.
func templateTextLines(l *Language, p *parser, tmpl string) map[int]bool {
	if l == nil || !strings.Contains(tmpl, "\n") {
		return nil
	}
	text := l.expand(tmpl)
	fc := &fileComments{lang: l, src: []byte(text), p: p}
	var out map[int]bool
	line := 0
	for i := 0; i < len(text); i++ {
		if text[i] != '\n' {
			continue
		}
		if line++; fc.inText(uint32(i + 1)) {
			if out == nil {
				out = map[int]bool{}
			}
			out[line] = true
		}
	}
	return out
}

// indentAfterFirst indents the lines of text after the first, but for
// those numbered in skip (placed by a capture), by indent.
func indentAfterFirst(text, indent string, skip map[int]bool) string {
	if indent == "" || !strings.Contains(text, "\n") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" && !skip[i] {
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

// blockIndentUnit guesses a file's indent unit from its blocks: the step
// from a line to a deeper line right after it, counted where the first
// line neither continues a statement (an open '(' or '[', a trailing
// '\') nor is inside a block comment. The most common step is the unit
// when it is clearly dominant (more than twice as common as any other);
// otherwise "" (no guess). One odd line (a continuation's alignment, a
// macro's body) thus cannot set the unit of a whole file. With no clear
// step, a file whose indented lines mostly start with a tab has "\t".
// Lines that inToken says start inside a token (a multi-line string or
// comment, by the offset of the line's start) are passed over; inToken
// may be nil.
func blockIndentUnit(text string, inToken func(off int) bool) string {
	steps := map[string]int{}
	lead := map[byte]int{} // indented lines by their first blank
	depth := 0             // '(' and '[' open before the line
	prev, counted := "", false
	next := 0
	for _, l := range strings.Split(text, "\n") {
		at := next
		next += len(l) + 1
		if at > 0 && inToken != nil && inToken(at) {
			counted = false
			continue
		}
		l = strings.TrimRight(l, " \t\r")
		body := strings.TrimLeft(l, " \t")
		if body == "" {
			continue
		}
		ind := l[:len(l)-len(body)]
		if ind != "" {
			lead[ind[0]]++
		}
		if counted && depth == 0 && len(ind) > len(prev) && strings.HasPrefix(ind, prev) && !strings.HasPrefix(body, "*") {
			if step := ind[len(prev):]; strings.Trim(step, " ") == "" || strings.Trim(step, "\t") == "" {
				steps[step]++
			}
		}
		counted = depth == 0 && !strings.HasSuffix(l, "\\") && !strings.HasPrefix(body, "/*") && !strings.HasPrefix(body, "*")
		depth = max(0, depth+bracketDelta(body))
		counted = counted && depth == 0
		prev = ind
	}
	best, bestN, second := "", 0, 0
	for step, n := range steps {
		switch {
		case n > bestN || n == bestN && step < best:
			best, bestN, second = step, n, max(second, bestN)
		case n > second:
			second = n
		}
	}
	if bestN == 0 || bestN <= 2*second {
		// No clear step, but clearly tabs (Go's type ( … ) lists).
		if lead['\t'] > 2*lead[' '] {
			return "\t"
		}
		return ""
	}
	return best
}

// bracketDelta is how many '(' and '[' a line of code opens minus those
// it closes, outside quoted strings and a trailing // or # comment: a
// rough count (a grammar's tokens are not at hand), enough to tell a
// continuation line from a block's.
func bracketDelta(line string) int {
	d := 0
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case '(', '[':
			d++
		case ')', ']':
			d--
		case '"', '\'', '`':
			for i++; i < len(line) && line[i] != c; i++ {
				if line[i] == '\\' {
					i++
				}
			}
		case '/':
			if strings.HasPrefix(line[i:], "//") {
				return d
			}
		case '#':
			if (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') && (i+1 == len(line) || line[i+1] == ' ') {
				return d
			}
		}
	}
	return d
}

package patterns

// Rewrites of real files drawn at random (genDraw, seeded; the seed is
// logged on failure): a block pattern rewritten to itself plus one line
// before its body must leave the body's lines as they were, comments
// included, and agree with the ast-grep CLI's --rewrite.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// bodyRewrite is a block pattern of a language and the template that
// adds marker() before the block's body, its lines indented by unit.
type bodyRewrite struct {
	lang, ag, ext string
	pattern       string
	template      func(unit string) string
}

func braced(head string) func(string) string {
	return func(u string) string { return head + " {\n" + u + "marker()\n" + u + "$$$B\n}" }
}

var bodyRewrites = []bodyRewrite{
	{"python", "python", ".py", "def $F($$$A):\n    $$$B", func(u string) string { return "def $F($$$A):\n" + u + "marker()\n" + u + "$$$B" }},
	{"javascript", "javascript", ".js", "if ($C) { $$$B }", braced("if ($C)")},
	{"typescript", "typescript", ".ts", "if ($C) { $$$B }", braced("if ($C)")},
	{"go", "go", ".go", "if $C { $$$B }", braced("if $C")},
	{"c", "c", ".c", "if ($C) { $$$B }", braced("if ($C)")},
	{"cpp", "cpp", ".cpp", "if ($C) { $$$B }", braced("if ($C)")},
	{"java", "java", ".java", "if ($C) { $$$B }", braced("if ($C)")},
	{"rust", "rust", ".rs", "if $C { $$$B }", braced("if $C")},
	{"php", "php", ".php", "if ($C) { $$$B }", braced("if ($C)")},
}

// bodyTally counts one language's checks.
type bodyTally struct {
	files, guessed, bodies, exact, shifted, comments, compared, agree int
	differ                                                            map[string]int // by documented difference
}

func (tl *bodyTally) differences() string {
	var out []string
	for why, n := range tl.differ {
		out = append(out, fmt.Sprintf("%d %s", n, why))
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

func TestRewriteDrawnBodies(t *testing.T) {
	size, seed, _ := genSampleSize()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("seed %d (replay: AGENT_TOOLS_GEN_SEED=%d)", seed, seed)
		}
	})
	bin := astGrepPath()
	cands := genCandidates()
	for _, br := range bodyRewrites {
		t.Run(br.lang, func(t *testing.T) {
			l, err := LanguageByName(br.lang)
			if err != nil {
				t.Fatal(err)
			}
			testutil.NeedsFunc(t, br.lang+" grammar", func() string { _, why := l.Available(); return why })
			rng := rand.New(rand.NewPCG(seed^0xb0d1, uint64(len(br.lang))*7901+uint64(br.lang[0])))
			srcs, source := genDraw(t, rng, l, codeFiles(cands, br.lang), 3*size.files)
			tl := bodyTally{differ: map[string]int{}}
			for i, src := range srcs {
				checkBodies(t, bin, l, br, fmt.Sprintf("f%02d%s", i, br.ext), src, &tl)
			}
			t.Logf("%s (%s): %d files, %d with a block indent unit; %d bodies: %d kept byte for byte, %d moved whole to the template's step; %d comments kept; %d replacements compared with ast-grep, %d equal, documented differences: %s",
				br.lang, source, tl.files, tl.guessed, tl.bodies, tl.exact, tl.shifted, tl.comments, tl.compared, tl.agree, tl.differences())
		})
	}
}

// codeFiles are the candidate files of lang: for C, the .c files (code,
// not /usr/include's declarations).
func codeFiles(cands map[string][]string, lang string) []string {
	if lang != "c" {
		return cands[lang]
	}
	return slices.DeleteFunc(slices.Clone(cands[lang]), func(f string) bool { return !strings.HasSuffix(f, ".c") })
}

// checkBodies rewrites one file with br and checks every replacement.
func checkBodies(t *testing.T, bin string, l *Language, br bodyRewrite, name string, src []byte, tl *bodyTally) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
		t.Fatal(err)
	}
	tl.files++
	fc := &fileComments{lang: l, src: src}
	unit := blockIndentUnit(string(src), fc.inToken)
	if unit != "" {
		tl.guessed++
	} else {
		unit = "    " // the template's own
	}
	tmpl := br.template(unit)
	res, err := Search(context.Background(), dir, br.pattern, SearchOptions{Language: br.lang, KeepSource: true})
	if err != nil || len(res.Files) == 0 {
		return
	}
	fm := &res.Files[0]
	_, reps := Rewrite(fm, tmpl)
	byStart := map[uint32]Span{}
	for _, m := range fm.Matches {
		if _, ok := byStart[m.Start]; !ok {
			byStart[m.Start] = m.Span
		}
	}
	var peer map[string]string
	if bin != "" {
		peer, _ = genPeerRewrites(bin, dir, br.ag, br.pattern, tmpl)
	}
	for _, r := range reps {
		s := byStart[r.Start]
		where := fmt.Sprintf("%s:%d", name, newLineIndex(src).pos(r.Start).Line)
		tl.comments += checkComments(t, where, src, fc, r, func(lf leaf) bool { return inBody(src, fc, s, lf) })
		moved := checkBody(t, where, src, s, fc, r, unit, tl)
		// A body whose step is not the template's moves: ast-grep moves
		// its first line only. A header capture over several lines, or
		// a header indented with both tabs and spaces, ast-grep indents
		// in ways of its own, not the business here.
		head := lineIndent(src, s.Start)
		mixed := strings.Contains(head, " ") && strings.Contains(head, "\t") // ast-grep's indentation is its own there
		if want, ok := peer[fmt.Sprintf("%s:%d-%d", name, s.Start, s.End)]; ok && r.End == s.End && !moved && !mixed && !multiLineHeader(src, s) {
			tl.compared++
			if want == r.Text {
				tl.agree++
			} else if why, ok := peerCase(src, head, r.Text, want); ok {
				tl.differ[why]++
			} else if afterOpening(src, fc, s) && genUnindented(strings.Join(nonBlankLines(r.Text), "\n")) == genUnindented(strings.Join(nonBlankLines(want), "\n")) {
				// README: a comment after the block's opening brace
				// becomes the body's first line, and the body keeps its
				// own indentation; ast-grep re-indents the body from the
				// opening line's.
				why := "comment after the opening brace"
				tl.differ[why]++
			} else {
				t.Errorf("%s: ours\n%s\nast-grep\n%s", where, r.Text, want)
			}
		}
	}
}

// afterOpening says s's body, as a rewrite places it, starts with a
// comment on the header's line.
func afterOpening(src []byte, fc *fileComments, s Span) bool {
	for _, c := range fc.widen(s, s.End-s.keep) {
		if c.name == "B" && c.end > c.start {
			return strings.TrimSpace(string(src[lineStartOf(src, c.start):c.start])) != ""
		}
	}
	return false
}

// multiLineHeader says a capture other than the body spans lines.
func multiLineHeader(src []byte, s Span) bool {
	for _, c := range s.Captures {
		if c.Name != "B" && strings.Contains(string(src[c.Start:c.End]), "\n") {
			return true
		}
	}
	return false
}

// checkComments checks that every comment of r's replaced text is in
// its new text, in order (blanks aside: a moved block comment's lines
// are re-indented), or listed as dropped, and that none that kept says
// must stay is dropped; it returns how many comments were kept.
func checkComments(t *testing.T, where string, src []byte, fc *fileComments, r Replacement, kept func(leaf) bool) int {
	t.Helper()
	fc.parse()
	n, at := 0, 0
	text := squash(r.Text)
	for _, lf := range fc.leaves {
		if !lf.comment || lf.start < r.Start || lf.end > r.End {
			continue
		}
		if dropped(r, lf) {
			if kept(lf) {
				t.Errorf("%s: comment %q dropped", where, src[lf.start:lf.end])
			}
			continue
		}
		k := strings.Index(text[at:], squash(string(src[lf.start:lf.end])))
		if k < 0 {
			t.Errorf("%s: comment %q lost and not reported; new text:\n%s", where, src[lf.start:lf.end], r.Text)
			continue
		}
		at += k
		n++
	}
	return n
}

// squash is s without blanks and newlines.
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

// Rewriting every call to itself ($F($$$A) → $F($$$A)) keeps every
// comment of every call in real files: between the parentheses, $$$A
// carries them all.
func TestRewriteDrawnCalls(t *testing.T) {
	size, seed, _ := genSampleSize()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("seed %d (replay: AGENT_TOOLS_GEN_SEED=%d)", seed, seed)
		}
	})
	cands := genCandidates()
	for _, br := range bodyRewrites {
		t.Run(br.lang, func(t *testing.T) {
			l, err := LanguageByName(br.lang)
			if err != nil {
				t.Fatal(err)
			}
			testutil.NeedsFunc(t, br.lang+" grammar", func() string { _, why := l.Available(); return why })
			rng := rand.New(rand.NewPCG(seed^0xca11, uint64(len(br.lang))*7907+uint64(br.lang[0])))
			srcs, source := genDraw(t, rng, l, codeFiles(cands, br.lang), 3*size.files)
			calls, kept := 0, 0
			for i, src := range srcs {
				dir := t.TempDir()
				name := fmt.Sprintf("f%02d%s", i, br.ext)
				if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
					t.Fatal(err)
				}
				res, err := Search(context.Background(), dir, "$F($$$A)", SearchOptions{Language: br.lang, KeepSource: true})
				if err != nil || len(res.Files) == 0 {
					continue
				}
				_, reps := Rewrite(&res.Files[0], "$F($$$A)")
				fc := &fileComments{lang: l, src: src}
				for _, r := range reps {
					calls++
					where := fmt.Sprintf("%s:%d", name, newLineIndex(src).pos(r.Start).Line)
					kept += checkComments(t, where, src, fc, r, func(leaf) bool { return true })
				}
			}
			t.Logf("%s (%s): %d files, %d calls rewritten to themselves, %d comments in them kept", br.lang, source, len(srcs), calls, kept)
		})
	}
}

// dropped says r lists lf as dropped.
func dropped(r Replacement, lf leaf) bool {
	for _, d := range r.Dropped {
		if d.Start == lf.start && d.End == lf.end {
			return true
		}
	}
	return false
}

// inBody says lf lies in the block's body: after the first '{' or ':'
// that follows the header's captures.
func inBody(src []byte, fc *fileComments, s Span, lf leaf) bool {
	head := s.Start
	for _, c := range s.Captures {
		if c.Name != "B" {
			head = max(head, c.End)
		}
	}
	for _, x := range fc.leaves {
		if x.start >= head && !x.comment && (string(src[x.start:x.end]) == "{" || string(src[x.start:x.end]) == ":") {
			return lf.start >= x.end
		}
	}
	return false
}

// checkBody checks that the body's lines, whole lines in the source,
// come after marker() as they were: byte for byte when the block's step
// is the template's unit, else each moved by the same amount (moved).
func checkBody(t *testing.T, where string, src []byte, s Span, fc *fileComments, r Replacement, unit string, tl *bodyTally) (moved bool) {
	t.Helper()
	var b placedCapture
	for _, c := range fc.widen(s, s.End-s.keep) {
		if c.name == "B" {
			b = c
		}
	}
	if b.end <= b.start || strings.TrimSpace(string(src[lineStartOf(src, b.start):b.start])) != "" {
		return false // empty, or the body starts on the header's line
	}
	lineEnd := b.end
	for lineEnd < uint32(len(src)) && src[lineEnd] != '\n' {
		lineEnd++
	}
	if rest := strings.TrimSpace(string(src[b.end:lineEnd])); rest != "" && rest != "}" {
		return false // something else shares the body's last line
	}
	body := strings.Split(string(src[lineStartOf(src, b.start):b.end]), "\n")
	out := strings.Split(r.Text, "\n")
	k := 0
	for k < len(out) && strings.TrimSpace(out[k]) != "marker()" {
		k++
	}
	if k+len(body) >= len(out)+1 {
		t.Errorf("%s: no body after marker():\n%s", where, r.Text)
		return false
	}
	got := out[k+1 : k+1+len(body)]
	tl.bodies++
	head := lineIndent(src, s.Start)
	old := lineIndent(src, b.start)
	verbatim := func(j int) bool {
		off := lineStartOf(src, b.start) + uint32(len(strings.Join(body[:j], "\n"))) + 1
		return j > 0 && fc.inText(off)
	}
	if old == head+unit {
		tl.exact++
		for j := range body {
			if got[j] != strings.TrimRight(body[j], "\r") && got[j] != body[j] && !(strings.TrimSpace(body[j]) == "" && got[j] == "") {
				t.Errorf("%s: body line %d %q became %q (the block's step is the template's %q)", where, j+1, body[j], got[j], unit)
				return false
			}
		}
		return false
	}
	// Another step: every line moves with the first (a string's lines
	// stay as they are).
	tl.shifted++
	now := got[0][:len(got[0])-len(strings.TrimLeft(got[0], " \t"))]
	for j := range body {
		want := body[j]
		switch {
		case strings.TrimSpace(want) == "":
			want = ""
		case verbatim(j):
		case strings.HasPrefix(want, old):
			want = now + want[len(old):]
		default:
			continue // less indented than the first line: not checked
		}
		if got[j] != want {
			t.Errorf("%s: body line %d %q became %q, want %q", where, j+1, body[j], got[j], want)
			return true
		}
	}
	return true
}

// peerCase says why ast-grep's replacement want may differ from ours
// (got) for a match whose line is indented by head: a documented
// difference, or ok false. Indentation steps are compared exactly.
func peerCase(src []byte, head, got, want string) (string, bool) {
	g := nonBlankLines(got)
	for _, indent := range []bool{false, true} {
		w, why := nonBlankLines(want), "blank lines" // a Go body's newline token; a docstring's blank line
		if indent {
			if head == "" {
				break
			}
			// README: lines after the first follow the matched line's
			// indentation; ast-grep leaves a tab-indented match's at
			// its template's.
			why = "the match's indentation"
			for i := 1; i < len(w); i++ {
				w[i] = head + w[i]
			}
		}
		if sameLines(src, g, w) {
			return why, true
		}
	}
	if genCommentMoved(got, want) {
		return "text after a line comment", true
	}
	return "", false
}

// sameLines compares our lines g with ast-grep's w: equal, but that a
// line of a multi-line string (ast-grep moves it with the others, ours
// stays as in the source) may differ in its indentation.
func sameLines(src []byte, g, w []string) bool {
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		if g[i] != w[i] && !(strings.TrimSpace(g[i]) == strings.TrimSpace(w[i]) && strings.Contains(string(src), "\n"+g[i]+"\n")) {
			return false
		}
	}
	return true
}

// nonBlankLines are s's lines that hold more than blanks.
func nonBlankLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimRight(l, " \t\r"))
		}
	}
	return out
}

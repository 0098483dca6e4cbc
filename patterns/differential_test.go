package patterns

// This file is the differential suite: everyday patterns in every built-in
// language, each run by us and by the ast-grep CLI (0.51.1, installed by
// scripts/install-tools.sh) over a realistic source with near-misses in
// strings, comments and similar shapes, compared match for match (byte
// start and end) and rewrite for rewrite. Cases where we read a pattern
// differently on purpose say so in differ, with the reason, and pin our
// own answer in want. TOML has no ast-grep grammar: its cases carry our
// own expectations.
//
// The per-language agreement table is logged (go test -v -run
// TestDifferential); DIFF_REPORT=1 also logs every disagreement in detail.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// diffCase is one pattern over its language's source.
type diffCase struct {
	pattern           string
	rewrite           string // also compare the replacement text per match
	context, selector string // our compile options (and ast-grep's selector)
	// peer is the pattern ast-grep is given when it differs from ours: its
	// documented context+selector recipe for a reading its single parse
	// context gets wrong (peerSel is then its --selector).
	peer, peerSel string
	// differ names a deliberate difference from ast-grep; want then pins
	// our own answer (matched texts, in order; nil means no match, and
	// "error: …" a refusal whose message contains the rest).
	differ string
	want   []string
}

// diffLang is one language's source and cases.
type diffLang struct {
	lang  string // our id
	ag    string // ast-grep's -l; "" when it lacks the language (our expectations only)
	ext   string
	src   string
	cases []diffCase
}

func astGrepPath() string {
	if p, err := exec.LookPath("ast-grep"); err == nil {
		return p
	}
	p, _ := filepath.Abs(filepath.Join("..", "third_party", "npm", "ast-grep", "node_modules", "@ast-grep", "cli-linux-x64-gnu", "ast-grep"))
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

// agMatch is the part of ast-grep's --json output we compare.
type agMatch struct {
	Text  string `json:"text"`
	Range struct {
		ByteOffset struct {
			Start uint32 `json:"start"`
			End   uint32 `json:"end"`
		} `json:"byteOffset"`
	} `json:"range"`
	Replacement *string `json:"replacement"`
}

// answer is one side's result for a case.
type answer struct {
	err   string // refused: the message
	spans [][2]uint32
	texts []string
	reps  []string // per match, with a rewrite
}

func (a answer) String() string {
	if a.err != "" {
		return "error: " + a.err
	}
	var b strings.Builder
	for i, s := range a.spans {
		fmt.Fprintf(&b, "\n  [%d,%d) %q", s[0], s[1], a.texts[i])
		if a.reps != nil {
			fmt.Fprintf(&b, " → %q", a.reps[i])
		}
	}
	if b.Len() == 0 {
		return "no match"
	}
	return b.String()
}

func runAstGrep(bin, file string, dl diffLang, c diffCase) answer {
	pat, sel := c.pattern, c.selector
	if c.peer != "" {
		pat, sel = c.peer, c.peerSel
	}
	args := []string{"run", "--pattern=" + pat, "-l", dl.ag, "--json=compact"}
	if sel != "" {
		args = append(args, "--selector", sel)
	}
	if c.rewrite != "" {
		args = append(args, "-r", c.rewrite)
	}
	args = append(args, file)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ms []agMatch
	if jerr := json.Unmarshal(stdout.Bytes(), &ms); jerr != nil || (err != nil && len(ms) == 0 && stderr.Len() > 0 && !strings.Contains(stderr.String(), "matched nothing")) {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return answer{err: msg}
	}
	var a answer
	if c.rewrite != "" {
		a.reps = []string{}
	}
	for _, m := range ms {
		a.spans = append(a.spans, [2]uint32{m.Range.ByteOffset.Start, m.Range.ByteOffset.End})
		a.texts = append(a.texts, m.Text)
		if c.rewrite != "" && m.Replacement != nil {
			a.reps = append(a.reps, *m.Replacement)
		}
	}
	return a
}

func runOurs(l *Language, src string, c diffCase) answer {
	p, err := Compile(l, c.pattern, CompileOptions{Context: c.context, Selector: c.selector})
	if err != nil {
		return answer{err: err.Error()}
	}
	pr := newParser()
	defer pr.close()
	tree, err := pr.parse(l, []byte(src), true)
	if err != nil {
		return answer{err: err.Error()}
	}
	var a answer
	if c.rewrite != "" {
		a.reps = []string{}
	}
	found := p.Find(tree)
	// The search's pruned parse (only the subtrees that can hold a match,
	// cut at the pattern's depth) finds what the whole tree holds.
	if p.rootSyms != nil {
		near, err := pr.parseFor(p, []byte(src))
		if err != nil {
			return answer{err: err.Error()}
		}
		if got := p.Find(near); !sameSpans(got, found) {
			return answer{err: fmt.Sprintf("the pruned parse finds %v, the whole tree %v", got, found)}
		}
	}
	for _, s := range found {
		a.spans = append(a.spans, [2]uint32{s.Start, s.End})
		a.texts = append(a.texts, src[s.Start:s.End])
		if c.rewrite != "" {
			a.reps = append(a.reps, substituteSpan(l, c.rewrite, []byte(src), s))
		}
	}
	return a
}

// sameAnswer compares two answers: both refused, or the same spans (in
// any order: ast-grep reports nested matches inner first at times) and
// replacements.
func sameAnswer(a, b answer) bool {
	if a.err != "" || b.err != "" {
		return a.err != "" && b.err != ""
	}
	type m struct {
		s   [2]uint32
		rep string
	}
	list := func(x answer) []m {
		out := make([]m, len(x.spans))
		for i, s := range x.spans {
			out[i].s = s
			if x.reps != nil && i < len(x.reps) {
				out[i].rep = x.reps[i]
			}
		}
		sort.Slice(out, func(i, j int) bool {
			if out[i].s[0] != out[j].s[0] {
				return out[i].s[0] < out[j].s[0]
			}
			return out[i].s[1] < out[j].s[1]
		})
		return out
	}
	return slices.Equal(list(a), list(b))
}

// wantAnswer checks our answer against pinned expectations.
func wantAnswer(a answer, want []string) bool {
	if len(want) == 1 && strings.HasPrefix(want[0], "error: ") {
		return a.err != "" && strings.Contains(a.err, strings.TrimPrefix(want[0], "error: "))
	}
	if a.err != "" {
		return false
	}
	return slices.Equal(a.texts, want)
}

func TestDifferential(t *testing.T) { runDifferential(t, diffLangs) }

// TestDifferentialTokens runs the cases about tokens a pattern does not
// spell (diffcases_tokens_test.go) the same way, with their own table.
func TestDifferentialTokens(t *testing.T) { runDifferential(t, tokenLangs) }

func runDifferential(t *testing.T, langs []diffLang) {
	bin := astGrepPath()
	testutil.NeedsFunc(t, "the ast-grep CLI", func() string {
		if bin == "" {
			return "not on PATH nor in third_party/npm (scripts/install-tools.sh)"
		}
		return ""
	})
	dir := t.TempDir()
	report := os.Getenv("DIFF_REPORT") != ""
	type tally struct{ cases, agree, differ int }
	var mu sync.Mutex
	tallies := map[string]*tally{}
	for _, dl := range langs {
		t.Run(dl.lang, func(t *testing.T) {
			l, err := LanguageByName(dl.lang)
			if err != nil {
				t.Fatal(err)
			}
			testutil.NeedsFunc(t, dl.lang+" grammar", func() string { _, why := l.Available(); return why })
			file := filepath.Join(dir, "src"+dl.ext)
			if err := os.WriteFile(file, []byte(dl.src), 0o644); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			tl := tallies[dl.lang] // a language may have several sources
			if tl == nil {
				tl = &tally{}
				tallies[dl.lang] = tl
			}
			mu.Unlock()
			for i, c := range dl.cases {
				tl.cases++
				ours := runOurs(l, dl.src, c)
				if dl.ag == "" || c.differ != "" {
					if c.differ != "" {
						tl.differ++
					}
					if !wantAnswer(ours, c.want) {
						t.Errorf("case %d %q (%s): got %s\nwant %q", i, c.pattern, c.differ, ours, c.want)
					} else if c.differ == "" {
						tl.agree++
					}
					continue
				}
				peer := runAstGrep(bin, file, dl, c)
				if sameAnswer(ours, peer) {
					tl.agree++
					continue
				}
				if report {
					w := fmt.Sprintf("%#v", ours.texts)
					if ours.err != "" {
						w = `[]string{"error: unparseable"}`
					}
					t.Errorf("case %d %q:\n ours: %s\n ast-grep: %s\n WANT %s", i, c.pattern, ours, peer, w)
				} else {
					t.Errorf("case %d %q: ours %s; ast-grep %s", i, c.pattern, ours, peer)
				}
			}
		})
	}
	var b strings.Builder
	total := tally{}
	ids := make([]string, 0, len(tallies))
	for id := range tallies {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	fmt.Fprintf(&b, "%-12s %5s %7s %7s\n", "language", "cases", "agree", "differ")
	for _, id := range ids {
		x := tallies[id]
		fmt.Fprintf(&b, "%-12s %5d %7d %7d\n", id, x.cases, x.agree, x.differ)
		total.cases += x.cases
		total.agree += x.agree
		total.differ += x.differ
	}
	fmt.Fprintf(&b, "%-12s %5d %7d %7d\n", "total", total.cases, total.agree, total.differ)
	t.Log("agreement with ast-grep:\n" + b.String())
}

package patterns

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestIdentityRewriteKeepsTheSyntax rewrites real files with patterns
// nobody chose, each its own template: the generated suite's patterns
// (random subtrees of files drawn at random in every language, leaves
// made metavariables and runs of list elements $$$), with each $$$ named
// so that the template puts back what it took. Every match then becomes
// code of the same shape, so a file that parsed without an error must
// still parse without one. It found a template's closing line break
// written into an expression ($A.$B($C)⏎ over a.B(c) > 1) and before
// the value a #define $A⏎ leaves to its line, and code passed over inside
// a match dropped (type $A $B over type T[P any] struct{…} lost the
// struct; now kept, and code no template can place refuses the edit:
// TestRewriteKeepsOrRefusesUnspelledCode). (An empty $$$ written with its
// comma, g(, d), and JSON's {$$$, "a": 1} taking the ',' after its run,
// came from the generated differential: TestRewriteEmptyRunTakesItsComma.)
// Python and Scala, whose blocks go by indentation, found
// TestRewriteKeepsBlocksOnTheirLines once taken in. The template is the
// pattern's layout, not each match's: Haskell's patterns, cut at a
// column inside a layout block, and YAML's that match a key's first
// entries (the rest kept where they were) give templates whose lines
// land at other columns than the match's, so those two are left out
// (ast_edit refuses a rewrite that no longer parses).
// The draw follows the generated suite's seed (AGENT_TOOLS_GEN_SEED
// replays; CI draws a fixed one, AGENT_TOOLS_SOAK=1 a larger one from the
// clock).
func TestIdentityRewriteKeepsTheSyntax(t *testing.T) {
	size, seed, soak := genSampleSize()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("seed %d (replay: AGENT_TOOLS_GEN_SEED=%d, soak %v)", seed, seed, soak)
		}
	})
	cands := genCandidates()
	var summary []string
	for _, gl := range genLangs() {
		if gl.lang == "haskell" || gl.lang == "yaml" {
			continue
		}
		t.Run(gl.lang, func(t *testing.T) {
			l, err := LanguageByName(gl.lang)
			if err != nil {
				t.Fatal(err)
			}
			testutil.NeedsFunc(t, gl.lang+" grammar", func() string { _, why := l.Available(); return why })
			rng := rand.New(rand.NewPCG(seed^0x1de, uint64(len(gl.lang))*7919+uint64(gl.lang[0])))
			srcs, _ := genDraw(t, rng, l, cands[gl.lang], size.files)
			dir := t.TempDir()
			var trees []*Tree
			pr := newParser()
			defer pr.close()
			for i, src := range srcs {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d%s", i, gl.ext)), src, 0o644); err != nil {
					t.Fatal(err)
				}
				tree, err := pr.parse(l, src, true)
				if err != nil {
					t.Fatal(err)
				}
				trees = append(trees, tree)
			}
			cases, rewritten, emptyRuns, refused := 0, 0, 0, 0
			for tried := 0; cases < size.patterns && tried < size.patterns*40; tried++ {
				pat, _, ok := genPattern(rng, trees[rng.IntN(len(trees))])
				if !ok {
					continue
				}
				named := genNameRuns(pat)
				cp, err := Compile(l, named, CompileOptions{})
				if err != nil || CheckTemplate([]*Pattern{cp}, named) != nil {
					// ast_edit refuses a template naming what the pattern
					// does not bind (Bash's "\$GOROOT" text reads as $GOROOT,
					// which no node of the pattern is).
					continue
				}
				cases++
				res, err := Search(context.Background(), dir, named, SearchOptions{Language: gl.lang, KeepSource: true})
				if err != nil {
					t.Fatalf("search %q: %v", named, err)
				}
				for i := range res.Files {
					f := &res.Files[i]
					src, err := os.ReadFile(filepath.Join(dir, f.Path))
					if err != nil {
						t.Fatal(err)
					}
					before, err := pr.parse(l, src, true)
					if err != nil {
						t.Fatal(err)
					}
					if _, broken := before.firstError(); broken {
						continue
					}
					for _, m := range f.Matches {
						for _, c := range m.Captures {
							if c.Multi && c.Start == c.End {
								emptyRuns++
							}
						}
					}
					out, reps := Rewrite(f, named)
					rewritten += len(reps)
					refuses := false
					for _, r := range reps {
						if len(r.Unspelled) > 0 {
							refused++ // ast_edit would refuse it (TestRewriteKeepsOrRefusesUnspelledCode)
							refuses = true
						}
					}
					if refuses {
						continue // the edit is refused whole: nothing is written
					}
					after, err := pr.parse(l, out, true)
					if err != nil {
						t.Fatal(err)
					}
					if at, broken := after.firstError(); broken {
						n := after.nodes[at]
						from, to := max(0, int(n.start)-60), min(len(out), int(n.end)+60)
						var changed []string
						for _, r := range reps {
							if was := string(src[r.Start:r.End]); was != r.Text {
								changed = append(changed, fmt.Sprintf("%d:%q→%q", r.Start, was, r.Text))
							}
						}
						t.Errorf("%q as its own template breaks %s at %d: …%q… (replacements that changed the text: %s)", named, f.Path, n.start, out[from:to], strings.Join(changed, ", "))
					}
				}
			}
			summary = append(summary, fmt.Sprintf("%-11s cases %3d  replacements %5d  empty runs %4d  passing over code %3d", gl.lang, cases, rewritten, emptyRuns, refused))
		})
	}
	t.Logf("identity rewrites (seed %d):\n%s", seed, strings.Join(summary, "\n"))
}

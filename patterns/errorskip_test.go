package patterns

import (
	"bytes"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestMatchNeverPassesOverAnError: code that tree-sitter could not read
// and skipped (an extra ERROR node) is never passed over between the
// parts of a pattern. C's static BROTLI_INLINE void f() { … }, whose void
// is such an ERROR, was a match of static $T $F($$$A) { $$$B } (ast-grep:
// none), and a rewrite of it lost the void. In every language, random
// mutants of random real files (seeded; AGENT_TOOLS_GEN_SEED replays)
// are parsed, and for each extra ERROR with more code after it in its
// parent, the parent's text less the ERROR's is searched: a match there,
// over the parent, could only pass over the ERROR. (Children after the
// last one a pattern spells are left out of the comparison, ERROR or
// not, as ast-grep does: README, ast_grep.)
func TestMatchNeverPassesOverAnError(t *testing.T) {
	files, mutants := 4, 10
	if os.Getenv("AGENT_TOOLS_SOAK") == "1" {
		files, mutants = 12, 20
	}
	seed := clockSeed(t)
	cands := genCandidates()
	total := 0 // patterns searched, over all languages
	for _, l := range Languages() {
		t.Run(l.ID, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, uint64(len(l.ID))*104729+uint64(l.ID[0])))
			srcs, source := genDraw(t, rng, l, cands[l.ID], files)
			pr := newParser()
			defer pr.close()
			searched := 0
			for _, src := range srcs {
				for range mutants {
					v := mutate(rng, src)
					tree, err := pr.parse(l, v, true)
					if err != nil {
						continue
					}
					for _, c := range errorCuts(l, tree) {
						searched++
						for _, s := range c.pat.Find(tree) {
							if s.Start == c.parent[0] && s.End == c.parent[1] {
								dir := keepMutant(t, v)
								t.Fatalf("%s (%s): %q matched %q, passing over the ERROR %q (file kept in %s)",
									l.ID, source, c.pat.Source, v[s.Start:s.End], v[c.err[0]:c.err[1]], dir)
							}
						}
					}
				}
			}
			total += searched
			t.Logf("%s (%s): %d parents searched without their ERROR, none matched", l.ID, source, searched)
		})
	}
	if total == 0 && !t.Failed() {
		t.Errorf("no pattern was cut around an ERROR in any language: nothing was checked")
	}
}

// metaLike finds what a pattern would read as a metavariable ($GOARCH in
// a shell script): a cut holding one matches more than its own text.
var metaLike = regexp.MustCompile(`\$+[A-Z_]`)

// errorCut is a pattern cut from an ERROR's parent, the parent's range
// and the ERROR's.
type errorCut struct {
	pat         *Pattern
	parent, err [2]uint32
}

// errorCuts are, for the first few extra ERROR nodes of tree that have a
// sibling after them that is neither extra nor a comment, the text of
// their parent without the ERROR's, where that compiles as a pattern.
func errorCuts(l *Language, tree *Tree) []errorCut {
	var out []errorCut
	for e := range tree.nodes {
		n := &tree.nodes[e]
		if n.flags&(flagError|flagExtra) != flagError|flagExtra || n.end <= n.start || len(out) >= 6 {
			continue
		}
		parent := -1
		for i := e - 1; i >= 0; i-- {
			if int(tree.nodes[i].next) > e {
				parent = i
				break
			}
		}
		if parent <= 0 { // none, or the root
			continue
		}
		p := &tree.nodes[parent]
		after := false
		for c := n.next; c < p.next; c = tree.nodes[c].next {
			if !tree.skip(int(c)) && tree.nodes[c].flags&flagError == 0 && tree.nodes[c].end > tree.nodes[c].start {
				after = true
				break
			}
		}
		text := slices.Concat(tree.Src[p.start:n.start], tree.Src[n.end:p.end])
		if !after || metaLike.Match(text) || len(bytes.TrimSpace(text)) == 0 || len(text) > 300 || bytes.Count(text, []byte("\n")) > 6 {
			continue
		}
		if pat, err := Compile(l, string(text), CompileOptions{}); err == nil {
			out = append(out, errorCut{pat, [2]uint32{p.start, p.end}, [2]uint32{n.start, n.end}})
		}
	}
	return out
}

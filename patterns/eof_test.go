package patterns

import (
	"errors"
	"math/rand/v2"
	"os"
	"testing"
)

// TestParseEndsOnEveryCut parses real files of every language cut short
// at random places (seeded; AGENT_TOOLS_GEN_SEED replays): each parse
// must come back. tree-sitter-kotlin 1.1.0's external scanner, given a
// source that ends inside an annotation (val o = O()\n@Bar(1), looked
// for a space that never came and never returned, so a search of such a
// file hung with no parse budget able to stop it (the budget is checked
// between tokens, not inside a scanner); Language.endsLine gives it a
// line break to find. A parse stopped at its budget is an answer (the
// file is named as not parsed, and why). A regression shows as this test's timeout, with
// the parser's stack.
func TestParseEndsOnEveryCut(t *testing.T) {
	files, cuts := 2, 120
	if os.Getenv("AGENT_TOOLS_SOAK") == "1" {
		files, cuts = 6, 400
	}
	seed := clockSeed(t)
	cands := genCandidates()
	for _, l := range Languages() {
		t.Run(l.ID, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, uint64(len(l.ID))*6151+uint64(l.ID[0])))
			srcs, _ := genDraw(t, rng, l, cands[l.ID], files)
			if l.ID == "kotlin" {
				srcs = append(srcs, []byte("val o = O()\n@Bar(1"), []byte("class A {\n  val x: Int\n    @Foo get"))
			}
			pr := newParser()
			defer pr.close()
			parsed, stopped := 0, 0
			for _, src := range srcs {
				for k := range cuts {
					at := len(src)
					if k > 0 {
						at = rng.IntN(len(src) + 1)
					}
					tree, err := pr.parse(l, src[:at], false)
					if errors.Is(err, ErrParseTimeout) {
						stopped++ // the budget did its work: no hang (tree-sitter-dart can ask for 256 MB here)
						continue
					}
					if err != nil {
						t.Fatalf("%s: a parse of %d bytes: %v", l.ID, at, err)
					}
					for i := range tree.nodes {
						if tree.nodes[i].end > uint32(at) {
							t.Fatalf("%s: a node ends at %d, past the %d bytes parsed", l.ID, tree.nodes[i].end, at)
						}
					}
					parsed++
				}
			}
			t.Logf("%s: %d cut files parsed, %d stopped at their budget", l.ID, parsed, stopped)
		})
	}
}

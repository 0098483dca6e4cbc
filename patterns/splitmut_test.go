package patterns

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// TestSplitHoldsOnMutants: where a file parses without error, every
// statement start the lexical split finds is one the parser has, and a
// search that parses only the statements around its literal finds what
// the whole file holds, also on code no one writes but tree-sitter reads
// without complaint. The inputs
// are random real files (seeded; AGENT_TOOLS_GEN_SEED replays) whose
// token boundaries are edited at random: a newline joined or added, a
// zero-width blank, a backslash continuation, a ';' or '@' put in, a
// number glued before a word. FuzzSplitPython, which found x = 1 def f⏎():
// (a header after other code, read across the newline), starts from a
// handful of seeds; this starts from real code.
func TestSplitHoldsOnMutants(t *testing.T) {
	files, mutants := 6, 60
	if os.Getenv("AGENT_TOOLS_SOAK") == "1" {
		files, mutants = 20, 200
	}
	seed := clockSeed(t)
	cands := genCandidates()
	pats := map[string][]string{
		"python":     {"$A == $A", "print($$$)", "f($A)", "if $X: $$$", "def $F($$$ARGS): $$$BODY", "import $M", "@$D"},
		"go":         {"$A == $A", "fmt.Errorf($$$)", "for $I := range $X { $$$ }", "if err != nil { return $$$ }"},
		"c":          {"if ($C) { $$$ }", "return $X;", "struct $S { $$$ }", "$F($$$)", "sizeof($X)"},
		"typescript": jsPatterns, "tsx": jsPatterns, "javascript": jsPatterns,
	}
	for _, id := range []string{"python", "go", "c", "typescript", "tsx", "javascript"} {
		t.Run(id, func(t *testing.T) {
			l := mustLang(t, id)
			rng := rand.New(rand.NewPCG(seed, uint64(len(id))*31337+uint64(id[0])))
			srcs, source := genDraw(t, rng, l, cands[id], files)
			compiled := mustCompileAll(t, l, pats[id]...)
			pr := newParser()
			defer pr.close()
			clean, checked, found := 0, 0, 0
			for _, src := range srcs {
				for range mutants {
					v := editBoundaries(rng, src)
					tree, err := pr.parse(l, v, true)
					if err != nil {
						continue
					}
					if _, broken := tree.firstError(); broken {
						continue
					}
					clean++
					// What a search finds parsing only the statements
					// around its literal is what the whole file holds.
					for _, p := range compiled {
						got, want, err := partialAndWhole(pr, p, v, tree)
						if err != nil {
							t.Fatalf("%s: parseFor: %v after the whole file parsed", id, err)
						}
						if !sameSpans(got, want) {
							t.Fatalf("%s (%s): %q: parsing around the literal finds %v, the whole file %v (file kept in %s)",
								id, source, p.Source, got, want, keepMutant(t, v))
						}
						found += len(want)
					}
					// (C's parts also start inside a conditional
					// directive, which is no top-level statement.)
					starts, ok := splitters[id](v, nil)
					if !ok || id == "c" {
						continue
					}
					checked += len(starts) - 1
					if s, off := startOffTree(tree, starts); off {
						dir := keepMutant(t, v)
						from := max(0, int(s)-60)
						t.Fatalf("%s (%s): the split starts a statement at %d (…%q|%q…), the parser does not (file kept in %s)",
							id, source, s, v[from:s], v[s:min(len(v), int(s)+40)], dir)
					}
				}
			}
			if clean == 0 {
				t.Fatalf("no mutant of %d files parsed without error: nothing was checked", len(srcs))
			}
			starts := fmt.Sprintf("%d statement starts, each one the parser's", checked)
			if id == "c" {
				starts = "statement starts not compared"
			}
			t.Logf("%s (%s): %d mutants without syntax errors, %s; %d matches, each found by the partial parse", id, source, clean, starts, found)
		})
	}
}

// boundaryEdits are what editBoundaries puts in place of a run of blanks.
var boundaryEdits = []string{"", " ", "\n", "\n\n", " \n", "\ufeff", "\u2060", "\u200b\n", "\\\n", ";", " @", "\t", "\r\n", "\n "}

// editBoundaries edits one to six token boundaries of src (a run of
// blanks, or the point between a letter and a non-letter) and sometimes
// glues numbers before words.
func editBoundaries(rng *rand.Rand, src []byte) []byte {
	var at [][2]int // candidate spans: blank runs, or empty spans at word edges
	for i := 0; i < len(src); {
		if c := src[i]; c == ' ' || c == '\n' || c == '\t' {
			j := i
			for j < len(src) && (src[j] == ' ' || src[j] == '\n' || src[j] == '\t') {
				j++
			}
			at = append(at, [2]int{i, j})
			i = j
			continue
		}
		if i > 0 && isLetter(src[i-1]) != isLetter(src[i]) {
			at = append(at, [2]int{i, i})
		}
		i++
	}
	out := slices.Clone(src)
	if len(at) > 0 {
		n := 1 + rng.IntN(6)
		picks := make([]int, 0, n)
		for range n {
			picks = append(picks, rng.IntN(len(at)))
		}
		slices.Sort(picks)
		picks = slices.Compact(picks)
		for k := len(picks) - 1; k >= 0; k-- { // from the end, so offsets hold
			sp := at[picks[k]]
			out = slices.Concat(out[:sp[0]], []byte(boundaryEdits[rng.IntN(len(boundaryEdits))]), out[sp[1]:])
		}
	}
	if rng.IntN(3) == 0 {
		out = glueNumbers(rng, out)
	}
	return out
}

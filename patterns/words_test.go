package patterns

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestWordLiteralsFindEveryToken: the literal prefilter never hides a
// token the parser reads. A word literal (a keyword or identifier of the
// pattern) is looked for as a whole word, and a file or statement where
// it is not found is not parsed; tree-sitter-python read 0_def A(): as the
// integer 0_ and a definition, and def $F($$$): $$$ found nothing there
// (FuzzSplitPython). In every language whose words are checked as such,
// random real files and mutants of them, some with numbers glued before
// their words (0_, 1L, 0x1, 1j…), are parsed, and every token a pattern
// would take as a word literal must be found where it is (seeded;
// AGENT_TOOLS_GEN_SEED replays).
func TestWordLiteralsFindEveryToken(t *testing.T) {
	files, mutants := 4, 12
	if os.Getenv("AGENT_TOOLS_SOAK") == "1" {
		files, mutants = 12, 40
	}
	seed := clockSeed(t)
	cands := genCandidates()
	total := 0
	for _, l := range Languages() {
		if l.ID == "bash" || l.ID == "html" {
			continue // their words are never word literals (see literals)
		}
		t.Run(l.ID, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, uint64(len(l.ID))*7919+uint64(l.ID[0])))
			srcs, source := genDraw(t, rng, l, cands[l.ID], files)
			pr := newParser()
			defer pr.close()
			checked, inErr, missedInErr := 0, 0, 0
			for _, src := range srcs {
				for k := range mutants {
					v := src
					if k > 0 {
						v = glueNumbers(rng, mutate(rng, src))
					}
					tree, err := pr.parse(l, v, true)
					if err != nil {
						continue
					}
					_, broken := tree.firstError()
					inError := 0 // tree.nodes[i] lies in an ERROR node when i < inError
					for i := range tree.nodes {
						n := &tree.nodes[i]
						if n.flags&flagError != 0 {
							inError = max(inError, int(n.next))
						}
						if int(n.next) != i+1 || n.end <= n.start || n.skipped() {
							continue
						}
						text := string(v[n.start:n.end])
						kind := l.kindName(int32(n.sym))
						// The tokens a pattern's word literal can match: an
						// unnamed one of the kind its text spells, or an
						// identifier or keyword constant (see literals).
						if !isWord(text) || !n.named() && kind != text ||
							n.named() && !strings.Contains(kind, "identifier") && !strings.EqualFold(kind, text) {
							continue
						}
						lit := literal{text: []byte(text), word: true}
						found := lit.next(v, int(n.start)) == int(n.start)
						// Error recovery may skip part of a word and read
						// the rest as a token (c of co skipped, o an
						// identifier; Kotlin's const of constructor): in a
						// file with a syntax error such pieces are only
						// counted, unless a number stands before them.
						if i < inError || broken && !found && !numberBefore(v, int(n.start)) {
							inErr++
							if !found {
								missedInErr++
							}
							continue
						}
						checked++
						if !found {
							dir := keepMutant(t, v)
							from := max(0, int(n.start)-20)
							t.Fatalf("%s (%s): the parser reads %s %q at %d (…%q…), the word search does not find it there (file kept in %s)",
								l.ID, source, kind, text, n.start, v[from:min(len(v), int(n.end)+20)], dir)
						}
					}
				}
			}
			total += checked
			t.Logf("%s (%s): %d word tokens, each found by the word search; where error recovery read pieces of words, %d more, %d of them not found",
				l.ID, source, checked, inErr, missedInErr)
		})
	}
	if total == 0 && !t.Failed() {
		t.Errorf("no word token was checked in any language")
	}
}

// numberBefore reports a run of letters, digits and '_' that starts with
// a digit, or after a number's '.', and ends at i after a letter or '_'
// (0_def, 1Lif, 1.jimport).
func numberBefore(src []byte, i int) bool {
	if i == 0 || !isLetter(src[i-1]) {
		return false
	}
	j := i - 1
	for j > 0 && (isLetter(src[j-1]) || isDigit(src[j-1])) {
		j--
	}
	return isDigit(src[j]) || j >= 2 && src[j-1] == '.' && isDigit(src[j-2])
}

// TestWordAfterNumber holds the word search to the lexers' number ends on
// the shapes the mutants found: a word glued after a number, or after a
// float's '.' and the letters a float may end in, is found; one glued to
// a name is not.
func TestWordAfterNumber(t *testing.T) {
	cases := []struct {
		src, word string
		found     bool
	}{
		{"0_def A(): pass", "def", true},
		{"x = 1Lif", "if", true},
		{"1.jimport b", "import", true},
		{"A%.0class A", "class", true},
		{"x = 1.e5if y else 0", "if", true},
		{"xjimport b", "import", false},
		{"a.jimport b", "import", false},
		{"a_def", "def", false},
	}
	for _, c := range cases {
		lit := literal{text: []byte(c.word), word: true}
		if got := lit.next([]byte(c.src), 0) >= 0; got != c.found {
			t.Errorf("%q in %q: found %v, want %v", c.word, c.src, got, c.found)
		}
	}
}

// numberGlue are number spellings some grammar's lexer ends before a
// letter: a word glued after one may be a token of its own.
var numberGlue = []string{"0", "1", "0_", "1_", "1L", "1l", "1j", "1u", "1f", "0x1", "0b1", "1e5", "1.5", "9_9", ".0", "1.", "1.j"}

// glueNumbers glues a number before one to four words of src drawn at
// random.
func glueNumbers(rng *rand.Rand, src []byte) []byte {
	var at []int // word starts
	for i := range src {
		if isLetter(src[i]) && (i == 0 || !isLetter(src[i-1]) && !isDigit(src[i-1]) && src[i-1] < 0x80) {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return src
	}
	out := slices.Clone(src)
	for range 1 + rng.IntN(4) {
		// From the last insertion back, so earlier offsets hold.
		i := at[rng.IntN(len(at))]
		out = slices.Insert(out, i, []byte(numberGlue[rng.IntN(len(numberGlue))])...)
		at = slices.DeleteFunc(at, func(a int) bool { return a >= i })
		if len(at) == 0 {
			break
		}
	}
	return out
}

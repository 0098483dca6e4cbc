package patterns

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestDenseTableParsesAlike holds a grammar's dense parse table (pt_dense)
// to the grammar's own: in every language, real files drawn at random
// from this machine (seeded; the seed is logged, AGENT_TOOLS_GEN_SEED
// replays it) and random mutants of them, which send tree-sitter into
// error recovery (where a dense table matters most), are parsed with
// both, and the two trees must be the same node for node: kinds, fields,
// byte ranges, ERROR and MISSING nodes. The oracle is tree-sitter's own
// lookup in the grammar's generated tables. AGENT_TOOLS_SOAK=1 draws
// more.
func TestDenseTableParsesAlike(t *testing.T) {
	files, mutants := 3, 6
	if os.Getenv("AGENT_TOOLS_SOAK") == "1" {
		files, mutants = 12, 20
	}
	seed := clockSeed(t)
	cands := genCandidates()
	for _, l := range Languages() {
		t.Run(l.ID, func(t *testing.T) {
			l.load()
			testutil.NeedsFunc(t, "the "+l.ID+" grammar", func() string {
				if l.ptr == nil {
					return l.missing
				}
				return ""
			})
			if denseTableBytes(l.ptr) == 0 {
				t.Fatalf("%s: the grammar has no small parse states, nothing to compare", l.ID)
			}
			l.densify(math.MaxInt64)
			if l.dense.Load() == nil {
				t.Fatalf("%s: no dense table was made", l.ID)
			}
			rng := rand.New(rand.NewPCG(seed, uint64(len(l.ID))*7919+uint64(l.ID[0])))
			srcs, source := genDraw(t, rng, l, cands[l.ID], files)
			sparse, dense := newParser(), newParser()
			defer sparse.close()
			defer dense.close()
			sparse.sparse = true
			compared, withErrors := 0, 0
			for i, src := range srcs {
				variants := [][]byte{src}
				for range mutants {
					variants = append(variants, mutate(rng, src))
				}
				for k, v := range variants {
					want, werr := sparse.parse(l, v, true)
					got, gerr := dense.parse(l, v, true)
					if fmt.Sprint(werr) != fmt.Sprint(gerr) {
						t.Fatalf("file %d variant %d: the grammar's table: %v; the dense one: %v", i, k, werr, gerr)
					}
					if werr != nil {
						continue
					}
					if !slices.Equal(want.nodes, got.nodes) {
						t.Fatalf("file %d variant %d (%s): the trees differ: %s", i, k, source, firstDifference(l, v, want.nodes, got.nodes))
					}
					compared++
					if _, bad := want.firstError(); bad {
						withErrors++
					}
				}
			}
			t.Logf("%s (%s): %d trees the same, %d of them with syntax errors", l.ID, source, compared, withErrors)
			if withErrors == 0 {
				t.Errorf("%s: no variant had a syntax error: error recovery was not compared", l.ID)
			}
		})
	}
}

// mutate returns a copy of src with one random edit of the kind a person
// or a model makes mid-typing: a span deleted, a span repeated, a span
// moved elsewhere, or the file cut short.
func mutate(rng *rand.Rand, src []byte) []byte {
	n := len(src)
	if n < 2 {
		return slices.Clone(src)
	}
	at := rng.IntN(n)
	span := 1 + rng.IntN(min(40, n-at))
	switch rng.IntN(4) {
	case 0:
		return slices.Concat(src[:at], src[at+span:])
	case 1:
		return slices.Concat(src[:at+span], src[at:])
	case 2:
		to := rng.IntN(n)
		return slices.Concat(src[:to], src[at:at+span], src[to:])
	default:
		return slices.Clone(src[:at])
	}
}

// firstDifference describes where two flattened trees of src part.
func firstDifference(l *Language, src []byte, a, b []node) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	show := func(ns []node) string {
		if i >= len(ns) {
			return fmt.Sprintf("ends after %d nodes", len(ns))
		}
		n := ns[i]
		return fmt.Sprintf("%s %d-%d (flags %d, field %d, subtree to node %d) %q", l.kindNames[l.kinds[n.sym]], n.start, n.end, n.flags, n.field, n.next, clipBytes(src[n.start:n.end], 60))
	}
	return fmt.Sprintf("node %d: the grammar's table has %s, the dense one %s", i, show(a), show(b))
}

// keepMutant writes a failing input to a directory the test leaves
// behind (t.TempDir's would be removed) and returns the directory.
func keepMutant(t *testing.T, src []byte) string {
	dir, err := os.MkdirTemp("", "agent-tools-mutant-")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "mutant"), src, 0o644)
	}
	if err != nil {
		t.Logf("keeping the failing input: %v", err)
	}
	return dir
}

// clockSeed is a seed taken from the clock, or AGENT_TOOLS_GEN_SEED's to
// replay one; it is logged either way.
func clockSeed(t *testing.T) uint64 {
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("AGENT_TOOLS_GEN_SEED"); v != "" {
		if n, err := strconv.ParseUint(v, 10, 64); err == nil {
			seed = n
		}
	}
	t.Logf("seed %d (replay: AGENT_TOOLS_GEN_SEED=%d)", seed, seed)
	return seed
}

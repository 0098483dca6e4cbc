package patterns

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestScannerKeepsEveryToken holds the comment-and-string scans (and, in
// C and C++, the reading of #define bodies) to the parser on real files
// drawn at random (the generated differential's candidates and seed: a
// fixed seed in CI, a new one under AGENT_TOOLS_SOAK=1, printed on
// failure): in a file the grammar reads without errors, every token a
// literal can come from (a word, or a token with no quote or comment
// character) must lie where inCodeOnly says code. A token the scan puts
// in a comment, a string or a #define body would make the search skip a
// statement that holds a match. In C, no token may lie in the body of a
// #define as defineBody reads it either (keptRanges skips a part whose
// offsets all lie there).
func TestScannerKeepsEveryToken(t *testing.T) {
	_, seed, soak := genSampleSize()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("seed %d (replay: AGENT_TOOLS_GEN_SEED=%d)", seed, seed)
		}
	})
	per := 150
	if soak {
		per = 2000
	}
	cands := genCandidates()
	p := newParser()
	defer p.close()
	for _, id := range []string{"c", "cpp", "go", "python"} {
		l, lx := mustLang(t, id), lexers[id]
		files := cands[id]
		testutil.NeedsFunc(t, "real "+id+" files", func() string {
			if len(files) < per {
				return fmt.Sprintf("fewer than %d %s files on this machine", per, id)
			}
			return ""
		})
		rng := rand.New(rand.NewPCG(seed, uint64(len(id))*7919+uint64(id[0])))
		checked, withErrors, tokens, bodies := 0, 0, 0, 0
		for _, i := range rng.Perm(len(files)) {
			if checked == per {
				break
			}
			src, err := os.ReadFile(files[i])
			if err != nil || bytes.IndexByte(src, 0) >= 0 {
				continue
			}
			tree, err := p.parse(l, src, true)
			if err != nil {
				continue
			}
			if _, bad := tree.firstError(); bad {
				withErrors++
				continue
			}
			checked++
			var offs []uint32
			for k := range tree.nodes {
				n := &tree.nodes[k]
				if n.next != uint32(k)+1 || n.start == n.end || n.skipped() {
					continue
				}
				text := string(src[n.start:n.end])
				kind := l.kindName(l.kind(n.sym))
				if !n.named() && !strings.ContainsAny(text, "/'\"`#") || n.named() && isWord(text) && strings.Contains(kind, "identifier") {
					offs = append(offs, n.start)
				}
			}
			tokens += len(offs)
			if id == "c" {
				bodies += checkDefineBodies(t, files[i], src, offs)
			}
			kept := lx.inCodeOnly(src, offs, nil)
			for k, j := 0, 0; k < len(offs); k++ {
				if j < len(kept) && kept[j] == offs[k] {
					j++
					continue
				}
				line := bytes.Count(src[:offs[k]], []byte("\n")) + 1
				t.Errorf("%s:%d: the scan says the token at byte %d is in a comment, string or #define body; the parser has a token there: %q",
					files[i], line, offs[k], firstLine(src[offs[k]:]))
				break
			}
		}
		if checked < per {
			t.Errorf("%s: only %d of %d files parse without errors", id, checked, per)
		}
		t.Logf("%s: %d files, %d tokens, each in code to the scan (%d files with syntax errors left out)", id, checked, tokens, withErrors)
		if id == "c" {
			t.Logf("c: %d #define bodies, none holding a token", bodies)
		}
		if id == "c" && bodies < per {
			t.Errorf("c: only %d #define bodies in %d files: the check of defineBody proves little", bodies, per)
		}
	}
}

// checkDefineBodies checks that none of offs (sorted token offsets of a
// file without syntax errors) lies in a #define body as defineBody reads
// it, and returns how many bodies it checked.
func checkDefineBodies(t *testing.T, path string, src []byte, offs []uint32) int {
	t.Helper()
	n := 0
	for at := 0; at < len(src); {
		if src[at] == '#' || src[at] == ' ' || src[at] == '\t' {
			if i := at + bytes.IndexFunc(src[at:], func(r rune) bool { return r != ' ' && r != '\t' }); i >= at && src[i] == '#' {
				if from, end := defineBody(src, i); from < end {
					n++
					k, _ := slices.BinarySearch(offs, uint32(from))
					if k < len(offs) && int(offs[k]) < end {
						line := bytes.Count(src[:from], []byte("\n")) + 1
						t.Errorf("%s:%d: defineBody reads %q as a #define body; the parser has a token in it at byte %d", path, line, src[from:end], offs[k])
					}
				}
			}
		}
		nl := bytes.IndexByte(src[at:], '\n')
		if nl < 0 {
			break
		}
		at += nl + 1
	}
	return n
}

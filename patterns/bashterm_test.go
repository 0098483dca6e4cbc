package patterns

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestShellBodyBeforeKeyword: in a shell pattern, $$$B; fi (or ; done)
// ends a body written on lines of its own too, where a line break and no
// ';' ends the last command. The pattern's ';' may be left out, so the
// $$$ before it may end at the fi; it did not, and if [ $C ]; then $$$B;
// fi found only the one-line ifs (12 random scripts: 0 matches, ast-grep
// 38). On real shell scripts drawn at random (seeded;
// AGENT_TOOLS_GEN_SEED replays), match for match with the ast-grep CLI.
func TestShellBodyBeforeKeyword(t *testing.T) {
	bin := astGrepPath()
	testutil.NeedsFunc(t, "the ast-grep CLI (scripts/install-tools.sh)", func() string {
		if bin == "" {
			return "not found"
		}
		return ""
	})
	l, err := LanguageByName("bash")
	if err != nil {
		t.Fatal(err)
	}
	seed := clockSeed(t)
	rng := rand.New(rand.NewPCG(seed, 7))
	srcs, source := genDraw(t, rng, l, genCandidates()["bash"], 16)
	dir := t.TempDir()
	srcs = append(srcs, []byte("while true; do x; done\nif [ 1 ]; then y; fi\nif [ 1 ]; then\n  y\nfi\nwhile read -r a; do\n  echo \"$a\"\ndone\n"))
	for i, src := range srcs {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.sh", i)), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	multi := 0
	for _, p := range []string{"if [ $C ]; then $$$B; fi", "while $C; do $$$B; done"} {
		ours, theirs := ourSpans(t, dir, "bash", p), agSpans(t, bin, dir, "bash", p)
		onlyOurs, onlyTheirs := diffSpans(ours, theirs)
		t.Logf("%q (%s): %d matches, ast-grep %d", p, source, len(ours), len(theirs))
		if len(onlyOurs)+len(onlyTheirs) > 0 {
			t.Errorf("%q: %d matches, ast-grep %d; only ours: %v; only ast-grep's: %v (files in %s)", p, len(ours), len(theirs), onlyOurs[:min(len(onlyOurs), 5)], onlyTheirs[:min(len(onlyTheirs), 5)], dir)
		}
		multi += len(ours)
	}
	if multi < 3 {
		t.Errorf("only %d matches in all: the bodies on lines of their own were not found", multi)
	}
}

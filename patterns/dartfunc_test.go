package patterns

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestDartFunctionPattern: a Dart function written out as a pattern
// (void $F($$$A) { $$$B }) is read as a top-level declaration, a
// signature and a body side by side, not as a local function (a
// lambda_expression), which missed main and every top-level function
// with no word of it (the seed's own kind of Dart code: 1 match where
// ast-grep had 2). On real Dart files drawn at random (seeded;
// AGENT_TOOLS_GEN_SEED replays) and a minimal one, every match of the
// ast-grep CLI is ours too; ours may add local functions, which hold the
// same two nodes.
func TestDartFunctionPattern(t *testing.T) {
	bin := astGrepPath()
	testutil.NeedsFunc(t, "the ast-grep CLI (scripts/install-tools.sh)", func() string {
		if bin == "" {
			return "not found"
		}
		return ""
	})
	l, err := LanguageByName("dart")
	if err != nil {
		t.Fatal(err)
	}
	testutil.NeedsFunc(t, "the dart grammar", func() string { _, why := l.Available(); return why })
	seed := clockSeed(t)
	srcs, source := genDraw(t, rand.New(rand.NewPCG(seed, 11)), l, genCandidates()["dart"], 12)
	srcs = append(srcs, []byte("void main() {\n  print(1);\n}\nclass A {\n  void run(int x) {\n    print(x);\n  }\n}\nvoid outer() {\n  void inner() {\n    print(2);\n  }\n}\n"))
	dir := t.TempDir()
	for i, src := range srcs {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.dart", i)), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Compile(l, "void $F($$$A) { $$$B }", CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Context != "declaration" {
		t.Errorf("void $F($$$A) { $$$B } read as %s, want a declaration", p.ReadAs())
	}
	total := 0
	for _, pat := range []string{"void $F($$$A) { $$$B }", "void main() { $$$ }", "$T $F($$$A) { $$$B }"} {
		ours, theirs := ourSpans(t, dir, "dart", pat), agSpans(t, bin, dir, "dart", pat)
		_, onlyTheirs := diffSpans(ours, theirs)
		t.Logf("%q (%s): %d matches, ast-grep %d", pat, source, len(ours), len(theirs))
		if len(onlyTheirs) > 0 {
			t.Errorf("%q: %d matches, ast-grep %d; ast-grep's that ours misses: %v (files in %s)", pat, len(ours), len(theirs), onlyTheirs[:min(len(onlyTheirs), 5)], dir)
		}
		total += len(theirs)
	}
	if total == 0 {
		t.Errorf("ast-grep found no function at all: nothing was compared")
	}
}

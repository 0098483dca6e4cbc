package patterns

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestTypePatternJava: a type alone is a Java (and C#) pattern, read as
// a field's type. List<$T> was refused as "unparseable … fix the
// syntax", though Java has no other context for it, where the ast-grep
// CLI finds every List<…>; match for match with it.
func TestTypePatternJava(t *testing.T) {
	bin := astGrepPath()
	testutil.NeedsFunc(t, "the ast-grep CLI (scripts/install-tools.sh)", func() string {
		if bin == "" {
			return "not found"
		}
		return ""
	})
	dir := t.TempDir()
	src := "import java.util.*;\n\nclass A {\n  List<String> xs;\n  Map<String, List<Integer>> m = new HashMap<>();\n  public List<T> f(List<? extends T> in) { return null; }\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "A.java"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"List<$T>", "Map<$K, $V>"} {
		ours, theirs := ourSpans(t, dir, "java", p), agSpans(t, bin, dir, "java", p)
		onlyOurs, onlyTheirs := diffSpans(ours, theirs)
		if len(ours) == 0 || len(onlyOurs)+len(onlyTheirs) > 0 {
			t.Errorf("%q: %d matches, ast-grep %d; only ours: %v; only ast-grep's: %v", p, len(ours), len(theirs), onlyOurs, onlyTheirs)
		}
	}
}

package lspbridge

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestProjectDiagnosticsGo pins problem 7 of issue 12 on zerolog: two
// broken test files in one directory, one in the internal and one in the
// external test package. go vet shows the first only; diagnostics "*"
// shows both and says what ran.
func TestProjectDiagnosticsGo(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := zerologTree(t)
	writeFile(t, filepath.Join(root, "broken1_test.go"), "package zerolog\n\nvar _ int = \"a\"\n")
	writeFile(t, filepath.Join(root, "broken2_test.go"), "package zerolog_test\n\nfunc f() { undefinedThing() }\n")
	if out := goVet(t, root); strings.Contains(out, "broken2_test.go") {
		t.Logf("go vet now reports both files; the test still checks diagnostics \"*\":\n%s", out)
	}
	s := newSup(t, nil)
	r, err := s.Diagnostics(testCtx(t), Request{Root: root, File: "*"})
	check(t, r, err, "broken1_test.go:3:13  error", "broken2_test.go:3:12  error  undefined: undefinedThing",
		"ran go vet ./... in ., then gopls on every file of the packages with errors (.)")
}

// TestProjectDiagnosticsC pins the C half of problem 7: headers are not
// opened alone (clangd's "unknown type name 'int8_t'" in a header gcc
// compiles cleanly through every .c); only translation units are.
func TestProjectDiagnosticsC(t *testing.T) {
	testutil.Needs(t, "clangd", "gcc")
	root := treeSitterTree(t)
	s := newSup(t, nil)
	r, err := s.Diagnostics(testCtx(t), Request{Root: root, File: "*"})
	check(t, r, err, "translation units (headers through the files that include them)")
	for _, d := range r.Diagnostics {
		if d.Severity == "error" {
			t.Errorf("gcc compiles every .c cleanly, yet: %s", d)
		}
	}
}

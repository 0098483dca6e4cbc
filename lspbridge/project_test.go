package lspbridge

import (
	"os"
	"path/filepath"
	"slices"
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

// TestMarkerDirsOf: the one-walk search finds, for every default server,
// the directories markerDirs finds one stat at a time: nested projects,
// one directory with two markers listed once, skipped and hidden
// directories left out, a hidden marker file (.clangd) counted.
func TestMarkerDirsOf(t *testing.T) {
	root := canonical(t.TempDir())
	for _, f := range []string{"go.mod", "svc/a/go.mod", "svc/a/pyproject.toml", "web/package.json", "web/tsconfig.json",
		"node_modules/p/package.json", ".hidden/go.mod", "native/.clangd", "native/sub/compile_flags.txt", "vendor/x/go.mod"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755)
		writeFile(t, filepath.Join(root, f), "x\n")
	}
	o := (&Options{}).withDefaults()
	var cfgs []*ServerConfig
	for i := range o.Servers {
		cfgs = append(cfgs, &o.Servers[i])
	}
	got := markerDirsOf(cfgs, root)
	for _, c := range cfgs {
		if want := markerDirs(c, root); !slices.Equal(got[c], want) {
			t.Errorf("%s: one walk found %v, markerDirs %v", c.Name, got[c], want)
		}
	}
	if n := len(got[&o.Servers[0]]); o.Servers[0].Name == "gopls" && n != 2 {
		t.Errorf("gopls: want the root and svc/a, got %v", got[&o.Servers[0]])
	}
}

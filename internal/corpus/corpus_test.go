package corpus

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// tree writes the files of a txtar archive below a fresh directory.
func tree(t *testing.T, archive string) string {
	t.Helper()
	dir := t.TempDir()
	fsys, err := txtar.FS(txtar.Parse([]byte(archive)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, fsys); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFiles(t *testing.T) {
	dir := tree(t, "-- b.go --\n-- a/c.go --\n-- a/d.py --\n")
	if err := os.Symlink(filepath.Join(dir, "b.go"), filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	if got, want := Files(dir, Ext(".go")), []string{"a/c.go", "b.go"}; !slices.Equal(got, want) {
		t.Errorf("Files(.go) = %q, want %q (sorted, slash-separated, no symlink)", got, want)
	}
}

func TestGoModules(t *testing.T) {
	cache := tree(t, `-- cache/download/x@v1/go.mod --
-- example.com/a@v1.0.0/go.mod --
module example.com/a
-- example.com/a@v1.0.0/a.go --
-- example.com/a@v1.0.0/sub/b.go --
-- example.com/b@v1.0.0/go.mod --
-- example.com/b@v1.0.0/b.go --
-- example.com/nover/go.mod --
-- example.com/nover/n.go --
-- x/y/z/w@v1/deep/go.mod --
`)
	counts := map[string]int{}
	got := GoModules(cache, func(dir string, n int) bool { counts[strings.TrimPrefix(dir, cache+"/")] = n; return n >= 2 })
	if want := []string{filepath.Join(cache, "example.com/a@v1.0.0")}; !slices.Equal(got, want) {
		t.Errorf("GoModules = %q, want %q", got, want)
	}
	// cache/, a path with no version and one too deep are not offered.
	if want := map[string]int{"example.com/a@v1.0.0": 2, "example.com/b@v1.0.0": 1}; len(counts) != len(want) || counts["example.com/a@v1.0.0"] != 2 || counts["example.com/b@v1.0.0"] != 1 {
		t.Errorf("keep saw %v, want %v", counts, want)
	}
}

func TestPythonPackages(t *testing.T) {
	dist := tree(t, `-- pure/__init__.py --
-- pure/a.py --
-- pure/sub/b.py --
-- native/__init__.py --
-- native/a.py --
-- native/_speed.so --
-- noinit/a.py --
-- noinit/b.py --
-- big/__init__.py --
-- big/a.py --
-- big/b.py --
-- big/c.py --
-- single.py --
`)
	got, err := PythonPackages(dist, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dist, "pure")}; !slices.Equal(got, want) {
		t.Errorf("PythonPackages = %q, want %q", got, want)
	}
	if _, err := PythonPackages(filepath.Join(dist, "missing"), 1, 9); err == nil {
		t.Error("no error for a missing dist")
	}
}

func TestNPMSources(t *testing.T) {
	top := tree(t, `-- p/package.json --
{"name":"p","version":"1.0.0"}
-- p/src/a.ts --
-- p/src/b.ts --
-- p/src/c.d.ts --
-- p/src/a.test.ts --
-- p/node_modules/p/package.json --
{"name":"p","version":"1.0.0"}
-- p/node_modules/p/src/a.ts --
-- p/node_modules/p/src/b.ts --
-- q/package.json --
{"name":"q","version":"1.0.0"}
-- q/src/a.ts --
-- r/src/a.ts --
-- r/src/b.ts --
`)
	got := NPMSources([]string{top}, 2, 5)
	// p@1.0.0 once (the copy the walk meets first), q too small, r without
	// a package.json.
	if want := []string{filepath.Join(top, "p/node_modules/p/src")}; !slices.Equal(got, want) {
		t.Errorf("NPMSources = %q, want %q", got, want)
	}
}

func TestCDirsAndCFlags(t *testing.T) {
	cache := tree(t, `-- m@v1/c/a.c --
-- m@v1/c/b.c --
-- m@v1/c/include/tree_sitter/api.h --
-- m@v1/one/a.c --
-- m@v1/testdata/a.c --
-- m@v1/testdata/b.c --
-- cache/x/a.c --
-- cache/x/b.c --
-- m@v1/big/a.c --
-- m@v1/big/b.c --
`)
	if err := os.WriteFile(filepath.Join(cache, "m@v1/big/huge.c"), make([]byte, maxCSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := CDirs(cache, 2, 3), []string{filepath.Join(cache, "m@v1/c")}; !slices.Equal(got, want) {
		t.Errorf("CDirs = %q, want %q", got, want)
	}
	small := SmallC(filepath.Join(cache, "m@v1/big"))
	if !small("a.c") || small("huge.c") || small("missing.c") {
		t.Error("SmallC: want a.c only")
	}
	want := []string{"-std=gnu11", "-D_DEFAULT_SOURCE", "-Iinclude", "-Iinclude/tree_sitter"}
	if got := CFlags(filepath.Join(cache, "m@v1/c")); !slices.Equal(got, want) {
		t.Errorf("CFlags = %q, want %q", got, want)
	}
}

func TestTSSource(t *testing.T) {
	for rel, want := range map[string]bool{"a.ts": true, "x/b.ts": true, "a.d.ts": false, "a.test.ts": false, "tests/a.ts": false, "a.js": false} {
		if TSSource(rel) != want {
			t.Errorf("TSSource(%q) = %v", rel, !want)
		}
	}
}

// TestDebianCSources finds the Debian sources install-tools.sh unpacks
// and, in them, directories of C sources the mutation tests can draw.
func TestDebianCSources(t *testing.T) {
	dir, err := DebianCSources()
	testutil.NeedsFunc(t, "the Debian C sources", func() string {
		if err != nil {
			return err.Error()
		}
		return ""
	})
	dirs := CDirs(dir, 3, 30)
	for _, want := range []string{"zstd-1.5.4/lib/common", "lz4-1.9.4/lib", "brotli-1.0.9/c/dec"} {
		if !slices.Contains(dirs, filepath.Join(dir, want)) {
			t.Errorf("CDirs(%s) = %q: no %s", dir, dirs, want)
		}
	}
}

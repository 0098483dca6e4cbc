package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture makes a root and a directory outside it:
//
//	root/a.go, root/sub/b.go, root/sub/deeper/
//	root/in.go -> sub/b.go           root/indir -> sub
//	root/out.go -> outside/secret.go root/outdir -> outside/dir
//	root/dangling-in -> sub/new.go   root/dangling-out -> outside/new.go
//	root/rel-out -> ../outside-name/secret.go (relative, leaves the root)
//	root/loop1 -> loop2, root/loop2 -> loop1
//	root/sub/up -> ..                root/sub/upup -> ../..
//	root/chain -> indir/../outdir    (a link through a link out of the root)
//
// and alias, a symlink to root, to spell the root another way.
func fixture(t *testing.T) (root, outside, alias string) {
	t.Helper()
	base := t.TempDir()
	if r, err := filepath.EvalSymlinks(base); err == nil {
		base = r
	}
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "sub", "deeper"), filepath.Join(outside, "dir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(root, "a.go"), filepath.Join(root, "sub", "b.go"), filepath.Join(outside, "secret.go"), filepath.Join(outside, "dir", "x.go")} {
		if err := os.WriteFile(f, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"in.go":        "sub/b.go",
		"indir":        "sub",
		"out.go":       filepath.Join(outside, "secret.go"),
		"outdir":       filepath.Join(outside, "dir"),
		"dangling-in":  "sub/new.go",
		"dangling-out": filepath.Join(outside, "new.go"),
		"rel-out":      "../outside/secret.go",
		"loop1":        "loop2",
		"loop2":        "loop1",
		"sub/up":       "..",
		"sub/upup":     "../..",
		"chain":        "indir/../outdir",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	alias = filepath.Join(base, "alias")
	if err := os.Symlink(root, alias); err != nil {
		t.Fatal(err)
	}
	return root, outside, alias
}

func TestResolve(t *testing.T) {
	root, outside, alias := fixture(t)
	relOut, _ := filepath.Rel(root, outside)
	inside := []struct {
		path, rel string
	}{
		{".", "."},
		{"a.go", "a.go"},
		{"./a.go", "a.go"},
		{"sub/b.go", "sub/b.go"},
		{"sub/../a.go", "a.go"},
		{"sub/deeper/../../a.go", "a.go"},
		{"sub//b.go", "sub/b.go"},
		{"sub/", "sub"},
		{filepath.Join(root, "a.go"), "a.go"},
		{filepath.Join(alias, "a.go"), "a.go"}, // the root spelled through a symlink
		{root, "."},
		{"in.go", "sub/b.go"},
		{"indir/b.go", "sub/b.go"},
		{"indir/../a.go", "a.go"}, // ".." after a link to a sibling dir: still inside
		{"sub/up/a.go", "a.go"},
		{"new.go", "new.go"}, // does not exist yet
		{"sub/new/dir/file.go", "sub/new/dir/file.go"},
		{"missing/../a.go", "a.go"},
		{"dangling-in", "sub/new.go"},
		{"sub/deeper/../../sub/b.go", "sub/b.go"},
		{"a b.go", "a b.go"},
	}
	for _, tt := range inside {
		abs, rel, err := Resolve(root, tt.path)
		if err != nil {
			t.Errorf("Resolve(%q): %v, want %s", tt.path, err, tt.rel)
			continue
		}
		if rel != tt.rel || abs != filepath.Join(root, filepath.FromSlash(tt.rel)) {
			t.Errorf("Resolve(%q) = %s, %s; want %s", tt.path, abs, rel, tt.rel)
		}
	}
	// The same calls with the root given through the alias.
	for _, tt := range inside[:8] {
		if _, rel, err := Resolve(alias, tt.path); err != nil || rel != tt.rel {
			t.Errorf("Resolve(alias, %q) = %s, %v; want %s", tt.path, rel, err, tt.rel)
		}
	}

	outsideCases := []struct {
		path    string
		viaLink bool
	}{
		{"..", false},
		{"../..", false},
		{filepath.Join(relOut, "secret.go"), false},
		{"sub/" + filepath.Join("..", relOut, "secret.go"), false},
		{filepath.Join(outside, "secret.go"), false},
		{"/etc/passwd", false},
		{"/", false},
		{outside, false},
		{"missing/../../outside/secret.go", false},
		{"out.go", true},
		{filepath.Join(root, "out.go"), true},
		{filepath.Join(alias, "out.go"), true},
		{"outdir", true},
		{"outdir/x.go", true},
		{"outdir/new.go", true}, // a file to be created below a link out
		{"dangling-out", true},
		{"rel-out", true},
		{"sub/upup/outside/secret.go", true},
		{"sub/upup", true},
		{"chain/x.go", true},
		{"indir/../outdir/x.go", true},
	}
	for _, tt := range outsideCases {
		abs, _, err := Resolve(root, tt.path)
		if err == nil {
			t.Errorf("Resolve(%q) = %s, want a refusal", tt.path, abs)
			continue
		}
		if !errors.Is(err, ErrOutside) || !strings.Contains(err.Error(), tt.path) {
			t.Errorf("Resolve(%q) error %q: want ErrOutside naming the path", tt.path, err)
		}
		if got := strings.Contains(err.Error(), "through a symlink"); got != tt.viaLink {
			t.Errorf("Resolve(%q) error %q: 'through a symlink' = %v, want %v", tt.path, err, got, tt.viaLink)
		}
	}

	for _, bad := range []string{"", "a\x00b", "loop1", "loop1/x"} {
		if _, _, err := Resolve(root, bad); err == nil || errors.Is(err, ErrOutside) {
			t.Errorf("Resolve(%q) error = %v, want a plain error", bad, err)
		}
	}
	if _, _, err := Resolve(filepath.Join(root, "no-such-root"), "a.go"); err == nil {
		t.Errorf("Resolve with a missing root succeeded")
	}
}

func TestWithin(t *testing.T) {
	for _, tt := range []struct {
		root, path string
		want       bool
	}{
		{"/r", "/r", true},
		{"/r", "/r/a", true},
		{"/r", "/ra", false},
		{"/r", "/", false},
		{"/r", "/r/../x", false},
	} {
		if got := Within(tt.root, tt.path); got != tt.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tt.root, tt.path, got, tt.want)
		}
	}
}

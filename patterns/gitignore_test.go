package patterns

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIgnores(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("# comment\n/build\n*.log\n!keep.log\ndocs/**/*.md\nout/\n\\#hash\n"), 0o644)
	ig := ignores(nil).withFile(dir, "")
	tests := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"build", true, true},
		{"sub/build", true, false}, // anchored to the .gitignore's directory
		{"a.log", false, true},
		{"sub/b.log", false, true},
		{"keep.log", false, false}, // negated
		{"docs/x.md", false, true},
		{"docs/a/b/x.md", false, true},
		{"x.md", false, false},
		{"out", true, true},
		{"out", false, false}, // dir-only rule
		{"#hash", false, true},
		{"main.go", false, false},
	}
	for _, tt := range tests {
		if got := ig.ignored(tt.path, tt.isDir); got != tt.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", tt.path, tt.isDir, got, tt.want)
		}
	}
}

package patterns

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// The corpus tests hold lexical shortcuts to the parser on real code: the
// Python standard library and Go's own sources.

// pythonStdlib returns the Python 3.11 standard library's directory.
func pythonStdlib(t *testing.T) string {
	dir := "/usr/lib/python3.11"
	testutil.NeedsFunc(t, "the Python 3.11 standard library (apt python3)", func() string {
		if _, err := os.Stat(filepath.Join(dir, "os.py")); err != nil {
			return err.Error()
		}
		return ""
	})
	return dir
}

// gorootSrc returns GOROOT/src.
func gorootSrc(t *testing.T) string {
	testutil.Needs(t, "go")
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

// eachCorpusFile calls fn on every every-th file under dir whose name ends
// in ext, skipping installed packages, testdata and files too large to
// search, and returns how many it read.
func eachCorpusFile(t *testing.T, dir, ext string, every int, fn func(path string, src []byte)) int {
	t.Helper()
	files, seen := 0, 0
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && slices.Contains([]string{"site-packages", "dist-packages", "testdata"}, d.Name()) {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, ext) {
			return nil
		}
		if seen++; seen%every != 0 {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || len(src) > DefaultMaxFileBytes {
			return nil
		}
		files++
		fn(path, src)
		return nil
	})
	return files
}

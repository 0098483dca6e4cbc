package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func files(t *testing.T, n int) (string, []Change) {
	t.Helper()
	dir := t.TempDir()
	var cs []Change
	for i := range n {
		p := filepath.Join(dir, string(rune('a'+i))+".txt")
		old := []byte("old " + p)
		if err := os.WriteFile(p, old, 0o640); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, Change{Path: p, Old: old, New: []byte("new " + p)})
	}
	return dir, cs
}

// check asserts every file holds its old (or new) content, keeps mode
// 0640, and that no temp file is left in dir.
func check(t *testing.T, dir string, cs []Change, wantNew bool) {
	t.Helper()
	for _, c := range cs {
		got, err := os.ReadFile(c.Path)
		want := c.Old
		if wantNew {
			want = c.New
		}
		if err != nil || string(got) != string(want) {
			t.Errorf("%s = %q, %v; want %q", c.Path, got, err, want)
		}
		if info, err := os.Stat(c.Path); err != nil || info.Mode().Perm() != 0o640 {
			t.Errorf("%s mode = %v, want 0640 kept", c.Path, info.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(cs) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("dir holds %v: a temp file was left behind", names)
	}
}

func TestWriteAll(t *testing.T) {
	dir, cs := files(t, 3)
	if err := WriteAll(cs); err != nil {
		t.Fatal(err)
	}
	check(t, dir, cs, true)
}

// TestWriteAllFailsAtEachFile makes the k-th replacement fail, for every k:
// every file must be back to its old content.
func TestWriteAllFailsAtEachFile(t *testing.T) {
	for k := range 4 {
		dir, cs := files(t, 4)
		BeforeReplace = func(path string) error {
			if path == cs[k].Path {
				return errors.New("disk full")
			}
			return nil
		}
		err := WriteAll(cs)
		BeforeReplace = nil
		if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("k=%d: error %v, want the failure and 'nothing was changed'", k, err)
		}
		check(t, dir, cs, false)
	}
}

// TestWriteAllCannotStage: a file whose directory refuses new files
// fails before anything is replaced.
func TestWriteAllCannotStage(t *testing.T) {
	if os.Geteuid() == 0 {
		// root ignores directory permissions: use a directory that vanished.
		dir, cs := files(t, 2)
		cs = append(cs, Change{Path: filepath.Join(dir, "gone", "c.txt"), New: []byte("x")})
		err := WriteAll(cs)
		if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
			t.Fatalf("error %v", err)
		}
		check(t, dir, cs[:2], false)
		return
	}
	dir, cs := files(t, 2)
	os.Chmod(dir, 0o500)
	defer os.Chmod(dir, 0o755)
	if err := WriteAll(cs); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("error %v", err)
	}
}

// TestWriteAllSaysWhatWasRestored: a failure after one replacement says
// the replaced file was restored.
func TestWriteAllSaysWhatWasRestored(t *testing.T) {
	dir, cs := files(t, 2)
	BeforeReplace = func(path string) error {
		if path == cs[1].Path {
			return errors.New("disk full")
		}
		return nil
	}
	defer func() { BeforeReplace = nil }()
	err := WriteAll(cs)
	if err == nil || !strings.Contains(err.Error(), "the 1 file(s) already replaced were restored") {
		t.Fatalf("error %v", err)
	}
	check(t, dir, cs, false)
}

func TestWriteNewFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "new.txt")
	if err := Write(p, []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(p); err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, %v", info.Mode().Perm(), err)
	}
}

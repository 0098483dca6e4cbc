package main

// This file is the disk-fault suite of issue 8 for the two tools that
// write several files at once, resolve (patterns) and lsp_rename (gopls):
// a read-only file among the targets, and a disk that fills up in the
// middle of the change. Either way every file must be left exactly as it
// was (the tree is hashed before and after, temp files included) and the
// error must name the file that failed.
//
// How the faults are made, since these tests run as root, which ignores
// permission bits (a 0444 file or a 0555 directory does not stop root):
//   - read-only: the file is made immutable with `chattr +i`
//     (FS_IMMUTABLE_FL, honoured for root too: renaming over it fails
//     with EPERM). Skipped with a message where chattr is refused (not
//     root, or a filesystem without the flag).
//   - full disk: the workspace is a 64 KiB tmpfs (`mount -t tmpfs -o
//     size=64k`), filled with a filler file until exactly two pages are
//     free, so the first file's new content fits and the second's does
//     not (ENOSPC). Skipped with a message where mount is not permitted
//     (not root, or no CAP_SYS_ADMIN in a container).

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// diskImmutable makes path immutable until the test ends, or skips (fails
// under AGENT_TOOLS_REQUIRE_ALL=1).
func diskImmutable(t *testing.T, path string) {
	t.Helper()
	testutil.NeedsFunc(t, "`chattr +i` (root, and a filesystem with the immutable flag)", func() string {
		if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
			return fmt.Sprintf("it failed here: %v %s", err, out)
		}
		return ""
	})
	t.Cleanup(func() { exec.Command("chattr", "-i", path).Run() })
}

// diskTmpfs mounts a 64 KiB tmpfs on a fresh directory until the test
// ends, or skips (fails under AGENT_TOOLS_REQUIRE_ALL=1).
func diskTmpfs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testutil.NeedsFunc(t, "`mount -t tmpfs -o size=64k` for a full disk (root with CAP_SYS_ADMIN)", func() string {
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
			return fmt.Sprintf("it is not permitted here: %v %s", err, out)
		}
		return ""
	})
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// diskFill fills the filesystem of dir until exactly pages pages are
// free.
func diskFill(t *testing.T, dir string, pages uint64) {
	t.Helper()
	path := filepath.Join(dir, ".filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	size := int64(0)
	for {
		n, err := f.Write(chunk)
		size += int64(n)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	free := func() uint64 {
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			t.Fatal(err)
		}
		return st.Bfree
	}
	for free() < pages && size > 0 {
		size -= 4096
		if err := f.Truncate(max(size, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if got := free(); got != pages {
		t.Fatalf("could not leave exactly %d free pages on the tmpfs: %d free", pages, got)
	}
}

// diskBig is a Go file of about 12 KiB that calls old() (or Shout).
func diskBig(pkg, call string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\nfunc B() { %s }\n", pkg, call)
	for i := range 300 {
		fmt.Fprintf(&b, "// padding line %03d to make this file span three pages\n", i)
	}
	return b.String()
}

// diskResolve stages an edit of a.go and b.go under root, applies fault,
// and checks that resolve accept fails naming b.go and leaves the tree
// as it was.
func diskResolve(t *testing.T, root string, fault func()) {
	t.Helper()
	writeFile(t, root, "a.go", "package p\n\nfunc A() { old() }\n")
	writeFile(t, root, "b.go", diskBig("p", "old()"))
	s := startServer(t, "--root", root)
	s.initialize()
	r := s.call(2, "ast_edit", map[string]any{"pattern": "old()", "rewrite": "renewed()", "language": "go"})
	if r.Result.IsError || !strings.Contains(r.Result.Content[0].Text, "2 replacements in 2 files") {
		t.Fatalf("ast_edit: %+v", r.Result)
	}
	fault()
	before := confineTree(t, root)
	r = s.call(3, "resolve", map[string]any{"edit_id": "edit_1", "action": "accept"})
	text := r.Result.Content[0].Text
	// A fault while the new contents are written beside their targets
	// leaves every target untouched ("nothing was changed"); one while
	// replacing them restores those already replaced ("restored").
	if !r.Result.IsError || !strings.Contains(text, "b.go") || !strings.Contains(text, "restored") && !strings.Contains(text, "nothing was changed") {
		t.Errorf("resolve: want an error naming b.go and saying nothing changed or a.go was restored, got (isError %v):\n%s", r.Result.IsError, text)
	}
	if diff := cmp.Diff(before, confineTree(t, root)); diff != "" {
		t.Errorf("the failed resolve changed the workspace (-before +after):\n%s", diff)
	}
	t.Logf("resolve answered: %s", text)
}

func TestDiskFaultResolveReadOnly(t *testing.T) {
	root := t.TempDir()
	diskResolve(t, root, func() { diskImmutable(t, filepath.Join(root, "b.go")) })
}

func TestDiskFaultResolveFullDisk(t *testing.T) {
	root := diskTmpfs(t)
	// a.go's new content takes one page, b.go's three: two free pages
	// let a.go be written and make b.go fail.
	diskResolve(t, root, func() { diskFill(t, root, 2) })
}

// diskRename renames Shout (defined in a.go, called in the 12 KiB b.go)
// with lsp_rename on gopls after applying fault, checks it fails naming
// b.go with the workspace as it was, then lifts the fault and checks the
// same rename now succeeds (the server's view was left consistent).
func diskRename(t *testing.T, root string, fault func(), lift func()) {
	t.Helper()
	testutil.Needs(t, "gopls")
	writeFile(t, root, "go.mod", "module disk\n\ngo 1.22\n")
	writeFile(t, root, "a.go", "package main\n\nfunc Shout() {}\n\nfunc main() { Shout() }\n")
	writeFile(t, root, "b.go", diskBig("main", "Shout()"))
	s := startServer(t, "--root", root)
	s.initialize()
	if r := s.call(2, "lsp", map[string]any{"action": "references", "file": "a.go", "line": 3, "symbol": "Shout"}); r.Result.IsError {
		t.Fatalf("references: %+v", r.Result)
	}
	fault()
	before := confineTree(t, root)
	args := map[string]any{"file": "a.go", "line": 3, "symbol": "Shout", "new_name": "Yell"}
	r := s.call(3, "lsp_rename", args)
	text := r.Result.Content[0].Text
	if !r.Result.IsError || !strings.Contains(text, "b.go") {
		t.Errorf("lsp_rename: want an error naming b.go, got (isError %v):\n%s", r.Result.IsError, text)
	}
	if diff := cmp.Diff(before, confineTree(t, root)); diff != "" {
		t.Errorf("the failed lsp_rename changed the workspace (-before +after):\n%s", diff)
	}
	t.Logf("lsp_rename answered: %s", text)
	lift()
	r = s.call(4, "lsp_rename", args)
	if r.Result.IsError {
		t.Fatalf("lsp_rename after the fault was lifted: %s", r.Result.Content[0].Text)
	}
	for _, f := range []string{"a.go", "b.go"} {
		if data, _ := os.ReadFile(filepath.Join(root, f)); !strings.Contains(string(data), "Yell()") || strings.Contains(string(data), "Shout") {
			t.Errorf("%s after the retried rename:\n%.200s", f, data)
		}
	}
}

func TestDiskFaultRenameReadOnly(t *testing.T) {
	root := t.TempDir()
	b := filepath.Join(root, "b.go")
	diskRename(t, root, func() { diskImmutable(t, b) }, func() {
		if out, err := exec.Command("chattr", "-i", b).CombinedOutput(); err != nil {
			t.Fatalf("chattr -i: %v %s", err, out)
		}
	})
}

func TestDiskFaultRenameFullDisk(t *testing.T) {
	root := diskTmpfs(t)
	diskRename(t, root, func() { diskFill(t, root, 2) }, func() {
		if err := os.Remove(filepath.Join(root, ".filler")); err != nil {
			t.Fatal(err)
		}
	})
}

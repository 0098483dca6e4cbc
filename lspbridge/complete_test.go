package lspbridge

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// cFiles lists root's src/*.c.
func cFiles(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "src", "*.c"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .c files under %s: %v", root, err)
	}
	return files
}

// gccFailures compiles each .c with the tree's flags (gcc -fsyntax-only,
// the oracle) and returns those that fail.
func gccFailures(t *testing.T, root string) []string {
	t.Helper()
	var bad []string
	for _, f := range cFiles(t, root) {
		cmd := exec.Command("gcc", "-fsyntax-only", "-std=c11", "-Iinclude", "-Isrc", "-D_POSIX_C_SOURCE=200112L", "-D_DEFAULT_SOURCE", f)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			bad = append(bad, filepath.Base(f)+": "+firstLine(string(out)))
		}
	}
	return bad
}

// grepWord counts whole-word occurrences of word and the files holding
// them under root's src/ and include/.
func grepWord(t *testing.T, root, word string) (n int, files int) {
	re := regexp.MustCompile(`\b` + word + `\b`)
	for _, dir := range []string{"src", "include"} {
		filepath.Walk(filepath.Join(root, dir), func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return nil
			}
			data, _ := os.ReadFile(p)
			if m := len(re.FindAllIndex(data, -1)); m > 0 {
				n += m
				files++
			}
			return nil
		})
	}
	return n, files
}

// TestCompletenessClangd pins problem 5 of issue 12 on the tree-sitter C
// runtime with only a compile_flags.txt: references wait for clangd's
// background index (over the generated compilation database) and find the
// uses in every file grep finds; a rename of length_add, used across most
// .c files, changes all of them, and every .c still compiles (gcc).
func TestCompletenessClangd(t *testing.T) {
	testutil.Needs(t, "clangd", "gcc")
	root := treeSitterTree(t)
	if bad := gccFailures(t, root); len(bad) > 0 {
		t.Fatalf("the untouched tree does not compile: %v", bad)
	}
	s := newSup(t, &Options{IndexTimeout: indexBudget()})
	ctx := indexCtx(t)
	subtree := filepath.Join(root, "src", "subtree.h")
	r, err := s.Locations(ctx, "references", Request{Root: root, File: "src/subtree.h", Line: lineOf(t, subtree, "void ts_subtree_retain("), Symbol: "ts_subtree_retain"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Incomplete != "" {
		t.Fatalf("references still incomplete after the index wait: %s", r.Incomplete)
	}
	files := map[string]bool{}
	for _, l := range r.Locations {
		files[l.Path] = true
	}
	_, grepFiles := grepWord(t, root, "ts_subtree_retain")
	if len(files) != grepFiles {
		t.Errorf("references in %d files, grep finds the name in %d:\n%s", len(files), grepFiles, r.Text())
	}
	st := s.Status(root)
	var line string
	for _, x := range st {
		if x.Server == "clangd" {
			line = x.line()
		}
	}
	mustContain(t, line, "compilation database generated from compile_flags.txt")
	if exists(filepath.Join(root, "compile_commands.json")) || exists(filepath.Join(root, ".cache")) {
		t.Error("the compilation database or the index was written into the user's tree")
	}

	length := filepath.Join(root, "src", "length.h")
	rr, err := s.Rename(ctx, Request{Root: root, File: "src/length.h", Line: lineOf(t, length, "length_add(Length len1"), Symbol: "length_add"}, "length_plus")
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Files) < 5 {
		t.Errorf("rename of length_add changed only %d files:\n%s", len(rr.Files), rr.Text())
	}
	if bad := gccFailures(t, root); len(bad) > 0 {
		t.Errorf("after the rename these do not compile: %s\n%s", strings.Join(bad, "; "), rr.Text())
	}
	if n, _ := grepWord(t, root, "length_add"); n != 0 {
		t.Errorf("%d uses of length_add left after the rename", n)
	}
}

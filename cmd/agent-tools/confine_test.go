package main

// This file is the path-escape suite of issue 8: every tool argument that
// names a path (lsp's file for each action that takes one, lsp_rename's
// file, ast_grep's and ast_edit's path, debug's breakpoints file and launch
// program, and agent-tools/didWrite's paths) is tried with ".." escapes,
// absolute paths outside the root, a symlink to a file outside and a
// symlink to a directory outside. eval takes no path and the vibe_* tools
// none either. DESIGN.md's Paths rule: write tools refuse all of them;
// read tools refuse them too (the exception for files a language server
// itself pointed to does not arise here: these paths come from the agent).
// Every refusal must be an isError result naming the path, and no file
// outside the root may change (the outside tree is hashed before and
// after). A symlink swapped in between ast_edit and resolve accept, for a
// file and for a directory above it, must make resolve refuse the whole
// change and write nothing.

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// confineTree records every entry under dir without following symlinks:
// a file's mode and content hash, a symlink's target, or "dir".
func confineTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			tree[rel] = "link " + target
		case info.IsDir():
			tree[rel] = "dir"
		default:
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			tree[rel] = fmt.Sprintf("file %v %x", info.Mode(), sha256.Sum256(data))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("hashing %s: %v", dir, err)
	}
	return tree
}

// confineFixture makes a root and a directory outside it. The root has a
// Go module, a symlink link.go to outside/secret.go and a symlink linkdir
// to outside/dir.
func confineFixture(t *testing.T) (root, outside string) {
	t.Helper()
	root, outside = t.TempDir(), t.TempDir()
	for _, d := range []*string{&root, &outside} {
		if r, err := filepath.EvalSymlinks(*d); err == nil {
			*d = r
		}
	}
	os.Mkdir(filepath.Join(outside, "dir"), 0o755)
	writeFile(t, outside, "secret.go", "package secret\n\nfunc Secret() { old() }\n\nfunc old() {}\n")
	writeFile(t, outside, "dir/x.go", "package dir\n\nfunc X() { old() }\n\nfunc old() {}\n")
	os.Mkdir(filepath.Join(root, "sub"), 0o755)
	writeFile(t, root, "go.mod", "module confine\n\ngo 1.22\n")
	writeFile(t, root, "main.go", "package main\n\nfunc main() { old() }\n\nfunc old() {}\n")
	writeFile(t, root, "sub/keep.go", "package sub\n")
	if err := os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "dir"), filepath.Join(root, "linkdir")); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

// confineCase is one escape attempt: a tool call or a didWrite.
type confineCase struct {
	name string
	path string // the path as given, which the error must name
	tool string // "" for agent-tools/didWrite
	args map[string]any
}

func confineCases(root, outside string) []confineCase {
	relOut, _ := filepath.Rel(root, outside)
	relSecret := filepath.Join(relOut, "secret.go")
	files := map[string]string{
		"dotdot":           relSecret,
		"dotdot via sub":   "sub/" + filepath.Join("..", relSecret),
		"absolute outside": filepath.Join(outside, "secret.go"),
		"absolute system":  "/etc/passwd",
		"symlink to file":  "link.go",
		"symlink to dir":   "linkdir/x.go",
		"absolute symlink": filepath.Join(root, "link.go"),
	}
	dirs := map[string]string{
		"dotdot dir":        relOut,
		"parent":            "..",
		"absolute dir":      outside,
		"symlink dir":       "linkdir",
		"absolute root dir": "/",
	}
	for k, v := range files {
		dirs[k] = v
	}
	var cases []confineCase
	add := func(label, tool string, paths map[string]string, args func(p string) map[string]any) {
		for variant, p := range paths {
			cases = append(cases, confineCase{name: label + " / " + variant, path: p, tool: tool, args: args(p)})
		}
	}
	for _, action := range []string{"definition", "type_definition", "implementation", "references", "hover", "code_actions"} {
		add("lsp "+action, "lsp", files, func(p string) map[string]any {
			return map[string]any{"action": action, "file": p, "line": 3, "symbol": "old"}
		})
	}
	for _, action := range []string{"symbols", "diagnostics", "reload"} {
		add("lsp "+action, "lsp", files, func(p string) map[string]any { return map[string]any{"action": action, "file": p} })
	}
	add("lsp_rename", "lsp_rename", files, func(p string) map[string]any {
		return map[string]any{"file": p, "line": 3, "symbol": "old", "new_name": "stolen"}
	})
	add("ast_grep", "ast_grep", dirs, func(p string) map[string]any {
		return map[string]any{"pattern": "old()", "path": p, "language": "go"}
	})
	add("ast_edit", "ast_edit", dirs, func(p string) map[string]any {
		return map[string]any{"pattern": "old()", "rewrite": "stolen()", "path": p, "language": "go"}
	})
	add("debug breakpoints", "debug", files, func(p string) map[string]any {
		return map[string]any{"op": "breakpoints", "file": p, "lines": []int{3}}
	})
	add("debug launch", "debug", dirs, func(p string) map[string]any { return map[string]any{"op": "launch", "program": p} })
	add("didWrite", "", files, func(p string) map[string]any { return map[string]any{"paths": []string{p}} })
	return cases
}

// TestConfinePathEscapes tries every escape on every path argument and
// checks each is refused, naming the path, with the outside tree intact.
func TestConfinePathEscapes(t *testing.T) {
	root, outside := confineFixture(t)
	before, rootBefore := confineTree(t, outside), confineTree(t, root)
	s := startServer(t, "--root", root)
	s.initialize()
	tried, refused := 0, 0
	id := 10
	for _, c := range confineCases(root, outside) {
		id++
		tried++
		if c.tool == "" {
			if confineDidWriteSkips(t, s, id, c) {
				refused++
			}
			continue
		}
		r := s.call(id, c.tool, c.args)
		text := r.Result.Content[0].Text
		switch {
		case !r.Result.IsError:
			t.Errorf("%s: %q was not refused:\n%s", c.name, c.path, text)
		case !strings.Contains(text, c.path) || !strings.Contains(text, "outside"):
			t.Errorf("%s: the error does not say %q is outside the root:\n%s", c.name, c.path, text)
		default:
			refused++
		}
	}
	// A control: the same tools work inside the root.
	if r := s.call(id+1, "ast_grep", map[string]any{"pattern": "old()", "path": "main.go"}); r.Result.IsError || !strings.Contains(r.Result.Content[0].Text, "main.go:3") {
		t.Errorf("ast_grep inside the root: %+v", r.Result)
	}
	if r := s.call(id+2, "debug", map[string]any{"op": "breakpoints", "file": "main.go", "lines": []int{3}}); r.Result.IsError {
		t.Errorf("debug breakpoints inside the root: %+v", r.Result)
	}
	if diff := cmp.Diff(before, confineTree(t, outside)); diff != "" {
		t.Errorf("files outside the root changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(rootBefore, confineTree(t, root)); diff != "" {
		t.Errorf("files in the root changed (-before +after):\n%s", diff)
	}
	t.Logf("path-escape cases: %d tried, %d refused", tried, refused)
}

// confineDidWriteSkips sends agent-tools/didWrite for one escaping path:
// it is a notification-like method with no isError, so the path must come
// back in skipped, with the reason naming it as outside the root.
func confineDidWriteSkips(t *testing.T, s *server, id int, c confineCase) bool {
	t.Helper()
	params, _ := json.Marshal(c.args)
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"agent-tools/didWrite","params":%s}`, id, params))
	m := s.until(id)
	data, _ := json.Marshal(m)
	var res struct {
		Result struct {
			Diagnostics []any
			Skipped     []string
		}
	}
	json.Unmarshal(data, &res)
	if len(res.Result.Skipped) != 1 || !strings.HasPrefix(res.Result.Skipped[0], c.path+": ") || !strings.Contains(res.Result.Skipped[0], "outside") || len(res.Result.Diagnostics) != 0 {
		t.Errorf("%s: want %q skipped as outside the root, got %s", c.name, c.path, data)
		return false
	}
	return true
}

// TestConfineResolveSymlinkSwap stages two edits with ast_edit, then
// swaps a symlink pointing outside in for a staged file (same content, so
// the hash check alone would pass) and for the directory of a staged
// file. resolve accept must refuse both whole edits, naming the file, and
// write nothing anywhere.
func TestConfineResolveSymlinkSwap(t *testing.T) {
	root, outside := confineFixture(t)
	const a = "package p\n\nfunc A() { old() }\n"
	const b = "package q\n\nfunc B() { old() }\n"
	os.Mkdir(filepath.Join(root, "pkg"), 0o755)
	writeFile(t, root, "a.go", a)
	writeFile(t, root, "pkg/b.go", b)
	s := startServer(t, "--root", root)
	s.initialize()
	// edit_1 spans the whole root (main.go, a.go, pkg/b.go): refusing
	// it must leave main.go unwritten too. edit_2 is pkg/b.go alone.
	for i, p := range []string{".", "pkg"} {
		r := s.call(2+i, "ast_edit", map[string]any{"pattern": "old()", "rewrite": "stolen()", "path": p, "language": "go"})
		if r.Result.IsError || !strings.Contains(r.Result.Content[0].Text, fmt.Sprintf("edit_%d", i+1)) {
			t.Fatalf("ast_edit %s: %+v", p, r.Result)
		}
	}
	// The file: a.go becomes a symlink to an outside copy.
	writeFile(t, outside, "a.go", a)
	if err := os.Remove(filepath.Join(root, "a.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "a.go"), filepath.Join(root, "a.go")); err != nil {
		t.Fatal(err)
	}
	// The directory: pkg moves outside and a symlink takes its place.
	if err := os.Rename(filepath.Join(root, "pkg"), filepath.Join(outside, "pkg")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "pkg"), filepath.Join(root, "pkg")); err != nil {
		t.Fatal(err)
	}
	before, rootBefore := confineTree(t, outside), confineTree(t, root)
	tried, refused := 0, 0
	for i, file := range []string{"a.go", "pkg/b.go"} {
		tried++
		r := s.call(10+i, "resolve", map[string]any{"edit_id": fmt.Sprintf("edit_%d", i+1), "action": "accept"})
		text := r.Result.Content[0].Text
		if !r.Result.IsError || !strings.Contains(text, file) || !strings.Contains(text, "nothing was written") {
			t.Errorf("resolve edit_%d after %s became a symlink out: want a refusal naming it, got (isError %v):\n%s", i+1, file, r.Result.IsError, text)
			continue
		}
		refused++
	}
	if diff := cmp.Diff(before, confineTree(t, outside)); diff != "" {
		t.Errorf("resolve changed files outside the root (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(rootBefore, confineTree(t, root)); diff != "" {
		t.Errorf("resolve changed the root (-before +after):\n%s", diff)
	}
	t.Logf("symlink-swap cases: %d tried, %d refused", tried, refused)
}

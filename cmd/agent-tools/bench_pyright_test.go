package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The pyright didWrite row: ours pulls pyright's diagnostics
// (textDocument/diagnostic, answered once pyright has checked the
// content); the peer is pyright-langserver as an editor gets it, its
// first push for the version sent. Before the pull, ours waited out a
// 1.5 s quiet window after that push.
func init() {
	needsPyright := func() string {
		if _, err := exec.LookPath("pyright-langserver"); err != nil {
			return "pyright-langserver not on PATH"
		}
		return ""
	}
	benchRows = append(benchRows, benchRow{name: "didWrite → new diagnostics (pyright)", peerName: "pyright first publish", needs: needsPyright,
		ours: benchDidWritePyrightOurs, peer: benchDidWritePyrightDirect})
}

// pyBenchFixture is a Python project of one file, dw.py.
func pyBenchFixture(b *testing.B) string {
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte("[project]\nname = \"fx\"\nversion = \"0\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "dw.py"), []byte(pyContent(0)), 0o644)
	return dir
}

// pyContent alternates between a type error and clean code, never the
// same text twice.
func pyContent(i int) string {
	if i%2 == 1 {
		return fmt.Sprintf("def dw() -> int:\n    a: int = \"x\"\n    return a + %d\n", i)
	}
	return fmt.Sprintf("def dw() -> int:\n    return %d\n", i)
}

func benchDidWritePyrightOurs(b *testing.B) {
	benchDidWriteOn(b, pyBenchFixture(b), "dw.py", pyContent)
}

func benchDidWritePyrightDirect(b *testing.B) {
	dir := pyBenchFixture(b)
	d := startDirectCmd(b, dir, "pyright-langserver", "--stdio")
	defer d.close()
	path := filepath.Join(dir, "dw.py")
	uri := fileURL(path)
	d.conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "python", "version": 1, "text": pyContent(0)}})
	d.waitPublish(b, uri, 1)
	v := 1
	for b.Loop() {
		v++
		d.conn.Notify(context.Background(), "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": v},
			"contentChanges": []any{map[string]string{"text": pyContent(v)}}})
		d.conn.Notify(context.Background(), "textDocument/didSave", map[string]any{"textDocument": map[string]string{"uri": uri}})
		d.waitPublish(b, uri, v)
	}
}

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-tools/agent-tools/internal/corpus"
)

// The TypeScript didWrite row: ours asks tsserver for the file's
// diagnostics through typescript-language-server's
// typescript.tsserverRequest command; the peer is
// typescript-language-server as an editor gets it, its pushes after the
// change up to the first that shows the new content (the type error, or
// none). Before the asking, ours waited for pushes and then out a 1.5 s
// quiet window, as it sends no versions and nothing for a clean file.
func init() {
	needsTSServer := func() string {
		if _, err := exec.LookPath("typescript-language-server"); err != nil {
			return "typescript-language-server not on PATH"
		}
		return ""
	}
	benchRows = append(benchRows, benchRow{name: "didWrite → new diagnostics (typescript-language-server)", peerName: "its first push showing the change", needs: needsTSServer,
		ours: benchDidWriteTSOurs, peer: benchDidWriteTSDirect})
}

// tsBenchFixture is a TypeScript project of one file, dw.ts.
func tsBenchFixture(b *testing.B) string {
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(corpus.TSConfig), 0o644)
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "dw.ts"), []byte(tsContent(0)), 0o644)
	return dir
}

// tsContent alternates between a type error and clean code, never the
// same text twice.
func tsContent(i int) string {
	if i%2 == 1 {
		return fmt.Sprintf("export function dw(): number {\n    const a: number = \"x\";\n    return a + %d;\n}\n", i)
	}
	return fmt.Sprintf("export function dw(): number {\n    return %d;\n}\n", i)
}

func benchDidWriteTSOurs(b *testing.B) {
	benchDidWriteOn(b, tsBenchFixture(b), "src/dw.ts", tsContent)
}

func benchDidWriteTSDirect(b *testing.B) {
	dir := tsBenchFixture(b)
	d := startDirectCmd(b, dir, "typescript-language-server", "--stdio")
	defer d.close()
	path := filepath.Join(dir, "src", "dw.ts")
	uri := fileURL(path)
	// The clean first content publishes nothing: the first change to
	// an error is waited for before the loop.
	d.conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "typescript", "version": 1, "text": tsContent(0)}})
	v := 1
	change := func() {
		v++
		d.conn.Notify(context.Background(), "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": v},
			"contentChanges": []any{map[string]string{"text": tsContent(v)}}})
		for p := range d.diags {
			if p.URI == uri && len(p.Diagnostics) > 0 == (v%2 == 1) {
				return
			}
		}
		b.Fatal("typescript-language-server stopped publishing")
	}
	change()
	for b.Loop() {
		change()
	}
}

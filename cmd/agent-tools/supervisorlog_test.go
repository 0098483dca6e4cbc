package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestSupervisorsLog checks that a capability's supervisor writes its
// events to the run's log on stderr, tagged with the capability, through
// `agent-tools call`: a worker's start and end; a kernel's start and its
// crash during a cell; a language server's start and stop (gopls), and a
// server that exits at initialize (a stub standing in for the rustup
// rust-analyzer shim) with its status and stderr.
func TestSupervisorsLog(t *testing.T) {
	tests := []struct {
		name  string
		needs func(*testing.T)
		args  func(t *testing.T, root string) []string
		fails bool // the call's result is an error (exit status 1)
		want  []string
	}{
		{
			name: "workers",
			args: func(*testing.T, string) []string {
				return []string{"--vibe", "--worker", `fast=sh -c "echo hi; exit 3"`, "vibe_spawn", `{"brief":"do x","label":"l"}`}
			},
			want: []string{"worker started", "worker ended", "capability=workers", "worker=w1"},
		},
		{
			name:  "eval",
			needs: needsEvalTools,
			args: func(t *testing.T, root string) []string {
				cfg := writeFile(t, root, "config.json", `{"eval":{"python":"`+evalPython+`"}}`)
				return []string{"--config", cfg, "eval", `{"code":"import os\nos._exit(3)","description":"end the kernel"}`}
			},
			fails: true,
			want: []string{
				"INF kernel started capability=eval chosen=configured interpreter=" + evalPython + " lang=python pid=",
				"WRN the kernel exited while running a cell capability=eval cell=1 lang=python pid=",
				`status="exit status 3"`,
			},
		},
		{
			name:  "lsp",
			needs: func(t *testing.T) { testutil.Needs(t, "gopls", "go") },
			args: func(t *testing.T, root string) []string {
				writeFile(t, root, "go.mod", "module x\n\ngo 1.22\n")
				writeFile(t, root, "main.go", "package main\n\nfunc main() {}\n")
				return []string{"lsp", `{"action":"symbols","file":"main.go"}`}
			},
			want: []string{"INF language server started capability=lsp pid=", "server=gopls", "INF language server stopped capability=lsp pid="},
		},
		{
			name: "lsp failed start",
			args: func(t *testing.T, root string) []string {
				stub := writeFile(t, t.TempDir(), "stub-ls", "#!/bin/sh\necho 'stub: no toolchain installed' >&2\nexit 3\n")
				os.Chmod(stub, 0o755)
				writeFile(t, root, "Cargo.toml", "[package]\nname = \"x\"\n")
				writeFile(t, root, "main.rs", "fn main() {}\n")
				cfg := writeFile(t, t.TempDir(), "config.json", `{"lsp": {"servers": [{"name": "rust-analyzer", "command": ["`+stub+`"]}]}}`)
				return []string{"--config", cfg, "lsp", `{"action":"hover","file":"main.rs","line":1,"symbol":"main"}`}
			},
			fails: true,
			want:  []string{"WRN language server did not initialize", "capability=lsp", "server=rust-analyzer", `status="rust-analyzer (pid `, `exit status 3"`, `stderr="stub: no toolchain installed"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needs != nil {
				tt.needs(t)
			}
			root := t.TempDir()
			args := append([]string{"call", "--root", root, "--log-level", "info"}, tt.args(t, root)...)
			cmd := testBinaryCmd(t.Context(), args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if ee, ok := errors.AsType[*exec.ExitError](err); tt.fails && ok && ee.ExitCode() == 1 {
				err = nil
			}
			if err != nil {
				t.Fatalf("call: %v\n%s\n%s", err, out, stderr.String())
			}
			for _, want := range tt.want {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
		})
	}
}

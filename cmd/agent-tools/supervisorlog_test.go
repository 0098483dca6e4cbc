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
// crash during a cell; a debug adapter's start and its session's end; a
// language server's start and stop (gopls), and a server that exits at
// initialize (a stub standing in for the rustup rust-analyzer shim) with
// its status and stderr.
func TestSupervisorsLog(t *testing.T) {
	tests := []struct {
		name     string
		needs    func(*testing.T)
		tree     string
		args     func(t *testing.T, root string) []string
		fails    bool     // the call's result is an error (exit status 1)
		want     []string // each somewhere on stderr
		sameLine []string // all on one line
	}{
		{
			name: "workers",
			args: func(*testing.T, string) []string {
				return []string{"--vibe", "--worker", `fast=sh -c "echo hi; exit 3"`, "vibe_spawn", `{"brief":"do x","label":"l"}`}
			},
			want:     []string{"worker started", "worker ended", "worker=w1"},
			sameLine: []string{"worker started", "capability=workers"},
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
			name:  "debug",
			needs: func(t *testing.T) { testutil.Needs(t, "python3") },
			tree:  "-- requirements.txt --\n-- app.py --\nprint(1)\n",
			args: func(*testing.T, string) []string {
				return []string{"debug", `{"op":"launch","program":"app.py"}`}
			},
			want:     []string{"debug adapter started", "debug session ended", "adapter=debugpy"},
			sameLine: []string{"debug adapter started", "capability=debug"},
		},
		{
			name:  "lsp",
			needs: func(t *testing.T) { testutil.Needs(t, "gopls", "go") },
			tree:  "-- go.mod --\nmodule x\n\ngo 1.22\n-- main.go --\npackage main\n\nfunc main() {}\n",
			args: func(*testing.T, string) []string {
				return []string{"lsp", `{"action":"symbols","file":"main.go"}`}
			},
			want:     []string{"INF language server started capability=lsp pid=", "server=gopls", "INF language server stopped capability=lsp pid="},
			sameLine: []string{"language server started", "server=gopls", "root=", "pid="},
		},
		{
			name: "lsp failed start",
			tree: "-- Cargo.toml --\n[package]\nname = \"x\"\n-- main.rs --\nfn main() {}\n",
			args: func(t *testing.T, root string) []string {
				stub := writeFile(t, t.TempDir(), "stub-ls", "#!/bin/sh\necho 'stub: no toolchain installed' >&2\nexit 3\n")
				os.Chmod(stub, 0o755)
				cfg := writeFile(t, t.TempDir(), "config.json", `{"lsp": {"servers": [{"name": "rust-analyzer", "command": ["`+stub+`"]}]}}`)
				return []string{"--config", cfg, "lsp", `{"action":"hover","file":"main.rs","line":1,"symbol":"main"}`}
			},
			fails:    true,
			want:     []string{`status="rust-analyzer (pid `, `exit status 3"`},
			sameLine: []string{"WRN language server did not initialize", "capability=lsp", "server=rust-analyzer", `exit status 3"`, `stderr="stub: no toolchain installed"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needs != nil {
				tt.needs(t)
			}
			root := t.TempDir()
			testutil.WriteTree(t, root, tt.tree)
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
			if tt.sameLine != nil && !lineWith(stderr.String(), tt.sameLine...) {
				t.Errorf("no line holds all of %q:\n%s", tt.sameLine, stderr.String())
			}
		})
	}
}

func lineWith(s string, parts ...string) bool {
	for _, line := range strings.Split(s, "\n") {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(line, p)
		}
		if ok {
			return true
		}
	}
	return false
}

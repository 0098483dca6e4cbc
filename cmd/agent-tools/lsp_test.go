package main

// This file tests the lsp capability through the real binary: its config
// section, status for a server that fails to start, and that language
// servers die with agent-tools.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestLSPConfigStubServer: a server configured in the lsp section of
// --config whose binary exits at once (a stand-in for the rustup
// rust-analyzer shim) is reported with its stderr, and status says so.
func TestLSPConfigStubServer(t *testing.T) {
	dir := t.TempDir()
	stub := writeFile(t, dir, "stub-ls", "#!/bin/sh\necho 'stub: cannot start' >&2\nexit 3\n")
	os.Chmod(stub, 0o755)
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	writeFile(t, ws, "Cargo.toml", "[package]\nname = \"x\"\n")
	writeFile(t, ws, "main.rs", "fn main() {}\n")
	cfg := writeFile(t, dir, "config.json", fmt.Sprintf(`{"lsp": {"servers": [{"name": "rust-analyzer", "command": [%q]}]}}`, stub))

	s := startServer(t, "--root", ws, "--config", cfg)
	s.initialize()
	r := s.call(2, "lsp", map[string]any{"action": "definition", "file": "main.rs", "line": 1, "symbol": "main"})
	if !r.Result.IsError || !strings.Contains(r.Result.Content[0].Text, "stub: cannot start") {
		t.Errorf("want an isError naming the stderr, got %+v", r.Result)
	}
	r = s.call(3, "lsp", map[string]any{"action": "status"})
	if !strings.Contains(r.Result.Content[0].Text, "rust-analyzer  rust  root .  failed: rust-analyzer initialize failed") {
		t.Errorf("status:\n%s", r.Result.Content[0].Text)
	}
}

// TestLSPServerDiesWithUs: closing agent-tools' stdin stops gopls.
func TestLSPServerDiesWithUs(t *testing.T) {
	testutil.Needs(t, "gopls")
	ws := t.TempDir()
	writeFile(t, ws, "go.mod", "module x\n\ngo 1.22\n")
	writeFile(t, ws, "main.go", "package main\n\nfunc main() {}\n")
	s := startServer(t, "--root", ws, "--structured") // the pid is in the structured status
	s.initialize()
	if r := s.call(2, "lsp", map[string]any{"action": "symbols", "file": "main.go"}); r.Result.IsError {
		t.Fatalf("symbols: %+v", r.Result)
	}
	r := s.call(3, "lsp", map[string]any{"action": "status"})
	var st struct {
		Servers []struct{ Pid int }
	}
	json.Unmarshal(r.Result.StructuredContent, &st)
	if len(st.Servers) == 0 || st.Servers[0].Pid == 0 {
		t.Fatalf("no gopls pid in status: %s", r.Result.StructuredContent)
	}
	pid := st.Servers[0].Pid
	s.stdin.Close()
	select {
	case <-s.ended:
	case <-time.After(testutil.IntegrationTimeout()):
		t.Fatal("agent-tools did not exit after stdin closed")
	}
	testutil.WaitGone(t, 5*time.Second, pid)
	if err := syscall.Kill(pid, 0); err == nil && testutil.Alive(pid) {
		t.Errorf("gopls (pid %d) outlived agent-tools", pid)
	}
}

// TestLSPDoctor: doctor probes each server by starting it. gopls and
// clangd (real) initialize and name their versions; a rust-analyzer on
// PATH that exits at once is "broken: found but does not start" with its
// first stderr line. That rust-analyzer is a fake — a shell script
// printing what the rustup proxy prints when the rust-analyzer component
// is not installed — since a broken rustup proxy cannot be installed here
// on purpose.
func TestLSPDoctor(t *testing.T) {
	testutil.Needs(t, "gopls", "clangd")
	dir := t.TempDir()
	bin := t.TempDir()
	fake := filepath.Join(bin, "rust-analyzer")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho >&2\necho \"error: Unknown binary 'rust-analyzer' in official toolchain 'stable-x86_64-unknown-linux-gnu'.\" >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := writeFile(t, dir, "c.json", `{"lsp":{"servers":[{"name":"pyright","disabled":true},{"name":"typescript-language-server","disabled":true},{"name":"dart","disabled":true}]}}`)
	cmd := testBinaryCmd(t.Context(), "doctor", "--root", dir, "--config", cfg)
	cmd.Env = append(cmd.Env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("doctor: %v\n%s", err, out)
	}
	for _, re := range []string{
		`(?m)^  go \(gopls\) +found +/\S+/gopls; initializes in \S+ \(gopls v\d+\.\d+\.\d+\); starts on first use in a root with go.work, go.mod$`,
		// clangd's version in the short form, not its serverInfo sentence.
		`(?m)^  c/c\+\+ \(clangd\) +found +/\S+/clangd; initializes in \S+ \(clangd \d+\.\d+\.\d+\); starts on first use in a root with `,
		`(?m)^  rust \(rust-analyzer\) +broken +` + regexp.QuoteMeta(fake) + ` found but does not start: error: Unknown binary 'rust-analyzer' in official toolchain 'stable-x86_64-unknown-linux-gnu'\.$`,
	} {
		if !regexp.MustCompile(re).Match(out) {
			t.Errorf("doctor output does not match %s:\n%s", re, out)
		}
	}
	if strings.Contains(string(out), "pyright") {
		t.Errorf("a disabled server was probed:\n%s", out)
	}
}

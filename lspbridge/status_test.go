package lspbridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStatusReasons covers the halves of "marker and binary": a marker
// whose binary is missing, a binary with no marker, and a binary that
// exists but fails to initialize (a stub standing in for the rustup
// rust-analyzer shim, which prints an error and exits).
func TestStatusReasons(t *testing.T) {
	root := t.TempDir()
	stub := filepath.Join(t.TempDir(), "failing-ls")
	writeFile(t, stub, "#!/bin/sh\necho \"error: Unknown binary 'rust-analyzer' in official toolchain\" >&2\nexit 1\n")
	os.Chmod(stub, 0o755)
	writeFile(t, filepath.Join(root, "pubspec.yaml"), "name: fx\n")
	writeFile(t, filepath.Join(root, "Cargo.toml"), "[package]\nname = \"fx\"\n")
	writeFile(t, filepath.Join(root, "src.rs"), "fn main() {}\n")
	writeFile(t, filepath.Join(root, "main.zz"), "x\n")
	section, _ := json.Marshal(Config{Servers: []ServerConfig{
		{Name: "dart", Command: []string{"agent-tools-no-such-dart"}},
		{Name: "rust-analyzer", Command: []string{stub}},
		{Name: "zz", Language: "zz", Command: []string{"sh"}, Extensions: map[string]string{".zz": "zz"}, Markers: []string{"zz.marker"}},
	}})
	opts, err := ParseConfig(section, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := newSup(t, opts)
	ctx := testCtx(t)

	_, err = s.Locations(ctx, "definition", Request{Root: root, File: "src.rs", Line: 1, Symbol: "main"})
	if err == nil || !strings.Contains(err.Error(), "rust-analyzer initialize failed") || !strings.Contains(err.Error(), "Unknown binary 'rust-analyzer'") {
		t.Fatalf("a failing binary: want the initialize failure with its stderr, got %v", err)
	}
	start := time.Now()
	_, err = s.Locations(ctx, "definition", Request{Root: root, File: "src.rs", Line: 1, Symbol: "main"})
	if err == nil || !strings.Contains(err.Error(), "next start attempt in") {
		t.Fatalf("a second call must not retry at once, got %v", err)
	}
	_ = start
	_, err = s.Locations(ctx, "definition", Request{Root: root, File: "main.zz", Line: 1, Symbol: "x"})
	if err == nil || !strings.Contains(err.Error(), "no marker (zz.marker)") {
		t.Fatalf("binary without marker: got %v", err)
	}

	got := map[string]ServerStatus{}
	for _, st := range s.Status(root) {
		got[st.Server] = st
	}
	for name, want := range map[string]string{
		"dart":          "not started: binary missing (tried agent-tools-no-such-dart on PATH)",
		"rust-analyzer": "failed: rust-analyzer initialize failed",
		"zz":            "not started: no marker (zz.marker) under the root",
	} {
		if line := got[name].line(); !strings.Contains(line, want) {
			t.Errorf("status of %s: want %q in %q", name, want, line)
		}
	}
	if !strings.Contains(got["rust-analyzer"].Reason, "Unknown binary") {
		t.Errorf("the failure reason lacks the stderr tail: %q", got["rust-analyzer"].Reason)
	}
	// reload forgets the failure and tries again at once.
	if _, err := s.Reload(ctx, root, filepath.Join(root, "src.rs")); err == nil || !strings.Contains(err.Error(), "initialize failed") {
		t.Errorf("reload of a failing server: got %v", err)
	}
}

// TestStatusKeepsCause: a server that states its failure and then prints
// a long backtrace before exiting at initialize keeps both in status: the
// cause from the start of stderr, "…", the end of the backtrace. The
// server is a shell script standing in for one that panics at start.
func TestStatusKeepsCause(t *testing.T) {
	root := t.TempDir()
	stub := filepath.Join(t.TempDir(), "panicking-ls")
	writeFile(t, stub, "#!/bin/sh\necho 'fatal: cannot load the workspace: permission denied' >&2\ni=0\nwhile [ $i -lt 3000 ]; do echo \"    at frame $i (server.js:$i:1)\" >&2; i=$((i+1)); done\nexit 2\n")
	os.Chmod(stub, 0o755)
	writeFile(t, filepath.Join(root, "Cargo.toml"), "[package]\nname = \"fx\"\n")
	writeFile(t, filepath.Join(root, "src.rs"), "fn main() {}\n")
	section, _ := json.Marshal(Config{Servers: []ServerConfig{{Name: "rust-analyzer", Command: []string{stub}}}})
	opts, err := ParseConfig(section, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := newSup(t, opts)
	_, err = s.Locations(testCtx(t), "definition", Request{Root: root, File: "src.rs", Line: 1, Symbol: "main"})
	if err == nil {
		t.Fatal("a server that exits at initialize: want an error")
	}
	for _, st := range s.Status(root) {
		if st.Server != "rust-analyzer" {
			continue
		}
		mustContain(t, st.Reason, "fatal: cannot load the workspace: permission denied", "at frame 0 (server.js:0:1)", "…", "at frame 2999 (server.js:2999:1)")
		if strings.Contains(st.Reason, "at frame 1500 ") {
			t.Errorf("the middle of the backtrace is kept: %s", st.Reason)
		}
	}
}

// TestSilentServer: a binary that starts but never answers initialize
// (here sleep, which reads nothing) is reported in words, in a call and
// in doctor's probe, not as "context deadline exceeded".
func TestSilentServer(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "Cargo.toml"), "[package]\nname = \"fx\"\n")
	writeFile(t, filepath.Join(root, "src.rs"), "fn main() {}\n")
	opts, err := ParseConfig(json.RawMessage(`{"servers": [{"name": "rust-analyzer", "command": ["sleep", "600"]}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	opts.InitTimeout = 300 * time.Millisecond
	s := newSup(t, opts)
	_, err = s.Locations(testCtx(t), "definition", Request{Root: root, File: "src.rs", Line: 1, Symbol: "main"})
	if err == nil || !strings.Contains(err.Error(), "rust-analyzer initialize failed: no answer within 300ms (no stderr output)") {
		t.Errorf("a silent server: got %v", err)
	}
	only := *opts
	only.Servers = slices.DeleteFunc(slices.Clone(opts.Servers), func(c ServerConfig) bool { return c.Name != "rust-analyzer" })
	for _, p := range ProbeServers(testCtx(t), &only) {
		if p.Name != "rust-analyzer" {
			continue
		}
		if p.Starts || !strings.HasSuffix(p.Detail, "found but does not start: initialize got no answer within 300ms (no stderr output)") {
			t.Errorf("probe of a silent server: starts %v, %q", p.Starts, p.Detail)
		}
	}
}

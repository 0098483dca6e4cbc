package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/conformance"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestRecordThenReplay records a live session with serve --record and
// replays the recording: a recording is already a passing transcript.
func TestRecordThenReplay(t *testing.T) {
	file := filepath.Join(t.TempDir(), "session.txtar")
	s := startServer(t, "--record", file, "--surface", "plan")
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	s.until(2)
	s.send(`not json at all`)
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_echo","arguments":{"text":"recorded"}}}`)
	s.until(3)
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"test_write","arguments":{"text":"x"}}}`)
	s.until(4)
	s.stdin.Close()
	select {
	case <-s.ended:
	case <-time.After(testutil.IntegrationTimeout()):
		t.Fatal("agent-tools did not exit")
	}

	a, err := conformance.ParseFile(file)
	if err != nil {
		t.Fatalf("the recording does not parse: %v", err)
	}
	if strings.Join(a.Flags, " ") != "--log-level debug --surface plan" {
		t.Errorf("recorded flags = %q", a.Flags)
	}
	if len(a.Client) != 6 || string(a.Client[3]) != "not json at all" {
		t.Errorf("recorded client side: %q", a.Client)
	}
	if len(a.Server) != 5 {
		t.Errorf("recorded %d server messages, want 5", len(a.Server))
	}
	exe, _ := os.Executable()
	conformance.Replay(t, file, startBinary(exe, []string{"AGENT_TOOLS_TEST_MAIN=1"}), nil)
}

// TestReplayCommand runs `agent-tools replay` on a golden transcript and on
// a copy whose expected answers were tampered with.
func TestReplayCommand(t *testing.T) {
	golden := filepath.Join("..", "..", "conformance", "testdata", "errors", "garbage.txtar")
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(t.TempDir(), "tampered.txtar")
	os.WriteFile(tampered, []byte(strings.Replace(string(data), `"code": -32700`, `"code": -32000`, 1)), 0o644)

	tests := []struct {
		name     string
		file     string
		code     int
		contains string
	}{
		{"golden", golden, 0, "1 passed, 0 failed, 0 skipped"},
		{"tampered", tampered, 1, "message 2: error.code: want -32000, got -32700"},
		{"needs the test tools", filepath.Join("..", "..", "conformance", "testdata", "surfaces", "full.txtar"), 0,
			"needs the test tools: run go test ./cmd/agent-tools -run TestTranscripts\n0 passed, 0 failed, 1 skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := testBinaryCmd(t.Context(), "replay", tt.file)
			cmd.Stderr = t.Output()
			out, _ := cmd.Output()
			if code := cmd.ProcessState.ExitCode(); code != tt.code {
				t.Errorf("exit code %d, want %d\n%s", code, tt.code, out)
			}
			if !strings.Contains(string(out), tt.contains) {
				t.Errorf("output lacks %q:\n%s", tt.contains, out)
			}
		})
	}
}

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/scriptedmodel"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// claudeBin is the pinned Claude Code (2.1.328) that
// scripts/install-tools.sh installs with the other agent CLIs.
func claudeBin() string { return filepath.Join(cliDir(), "claude") }

// TestMCP2026ClaudeCode registers agent-tools in Claude Code 2.1.328 and
// runs one headless session against the scripted model: Claude Code must
// take 2026-07-28 after server/discover (no initialize in the recording)
// and every tool it is given must still work, ask_user included (claude -p
// cancels every question; under the new revision that answer comes back
// through the multi round-trip retry).
func TestMCP2026ClaudeCode(t *testing.T) {
	testutil.NeedsFunc(t, "Claude Code 2.1.328", func() string {
		if _, err := os.Stat(claudeBin()); err != nil {
			return claudeBin() + " is missing; run scripts/install-tools.sh"
		}
		return ""
	})
	proj := t.TempDir()
	writeFile(t, proj, "go.mod", "module example.com/m\n\ngo 1.22\n")
	writeFile(t, proj, "main.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n")
	writeFile(t, proj, "a.py", "print(1)\n")
	call := func(tool, args string) scriptedmodel.Call {
		return scriptedmodel.Call{Tool: tool, Args: json.RawMessage(args)}
	}
	model, err := scriptedmodel.Start(scriptedmodel.Anthropic, []scriptedmodel.Turn{
		{Calls: []scriptedmodel.Call{
			call("test_echo", `{"text":"through claude"}`),
			call("ast_grep", `{"pattern":"fmt.Println($X)","path":"main.go"}`),
			call("lsp", `{"action":"status"}`),
			call("debug", `{"op":"adapters"}`),
			call("eval", `{"code":"6*7","description":"multiply two numbers in python"}`),
			call("ask_user", `{"question":"Which?","options":[{"label":"A"},{"label":"B"}]}`),
			call("ast_edit", `{"pattern":"fmt.Println($X)","rewrite":"fmt.Print($X)","path":"main.go"}`),
		}},
		{Calls: []scriptedmodel.Call{call("resolve", `{"edit_id":"edit_1","action":"discard"}`)}},
		{Text: "done"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()

	home := t.TempDir()
	rec := filepath.Join(t.TempDir(), "rec.txtar")
	env := append(os.Environ(), "HOME="+home, "ANTHROPIC_BASE_URL="+model.URL(), "ANTHROPIC_API_KEY=scripted",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "ENABLE_TOOL_SEARCH=false",
		"MCP_CONNECTION_NONBLOCKING=false", "MCP_CONNECT_TIMEOUT_MS=60000")
	ctx, cancel := context.WithTimeout(t.Context(), 2*testutil.IntegrationTimeout())
	defer cancel()
	run := func(args ...string) []byte {
		cmd := exec.CommandContext(ctx, claudeBin(), args...)
		cmd.Dir, cmd.Env = proj, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("claude %v: %v\n%s", args[:2], err, out)
		}
		return out
	}
	run("mcp", "add", "agent-tools", "-e", "AGENT_TOOLS_TEST_MAIN=1", "--", os.Args[0], "serve", "--log-level", "warn", "--root", proj, "--record", rec)
	out := run("-p", "go", "--output-format", "stream-json", "--verbose", "--allowedTools", "mcp__agent-tools")

	results, err := model.Results()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{} // by call id, "ERROR: " before an error's text
	for _, r := range results {
		got[r.ID] = r.AllText()
		if r.IsError {
			got[r.ID] = "ERROR: " + got[r.ID]
		}
	}
	want := map[string]string{
		scriptedmodel.CallID(0, 0): "through claude",
		scriptedmodel.CallID(0, 1): "main.go:5:",
		scriptedmodel.CallID(0, 2): "servers known for this root",
		scriptedmodel.CallID(0, 3): "delve",
		scriptedmodel.CallID(0, 4): "42",
		scriptedmodel.CallID(0, 5): "skipped: the person did not answer (cancel). " + skipInstruction,
		scriptedmodel.CallID(0, 6): `edit_id "edit_1"`,
		scriptedmodel.CallID(1, 0): "discard",
	}
	if _, err := exec.LookPath("python3"); err != nil && !testutil.RequireAll() {
		delete(want, scriptedmodel.CallID(0, 4))
	}
	for id, w := range want {
		if g, ok := got[id]; !ok || !strings.Contains(g, w) || strings.HasPrefix(g, "ERROR") {
			t.Errorf("%s: Claude Code gave its model %q, want it to contain %q", id, g, w)
		}
	}
	if t.Failed() {
		t.Logf("claude output:\n%s", out)
	}

	// What Claude Code sent: server/discover first, never initialize, and
	// the new revision on every call.
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	client, _, _ := strings.Cut(strings.SplitN(string(data), "-- client --\n", 2)[1], "-- server --")
	lines := strings.Split(strings.TrimSpace(client), "\n")
	var first struct{ Method string }
	json.Unmarshal([]byte(lines[0]), &first)
	if first.Method != "server/discover" {
		t.Errorf("Claude Code's first message: %s", lines[0])
	}
	calls := 0
	for _, l := range lines {
		var m struct {
			Method string
			Params struct {
				Meta map[string]any `json:"_meta"`
			}
		}
		json.Unmarshal([]byte(l), &m)
		switch m.Method {
		case "initialize":
			t.Errorf("Claude Code fell back to initialize: %s", l)
		case "tools/call":
			calls++
			if v := m.Params.Meta["io.modelcontextprotocol/protocolVersion"]; v != "2026-07-28" {
				t.Errorf("a tools/call without the revision in _meta: %.300s", l)
			}
		}
	}
	if calls < len(want)+1 { // ask_user is called twice: the question, then the retry
		t.Errorf("%d tools/call in the recording, want at least %d", calls, len(want)+1)
	}
}

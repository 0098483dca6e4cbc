package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// claudeBin is the pinned Claude Code (2.1.328) that
// scripts/install-tools.sh installs with the other agent CLIs.
func claudeBin() string { return filepath.Join(cliDir(), "claude") }

// messagesModel is a stand-in for the Anthropic Messages API, the one
// thing that cannot exist here (no model runs on this machine). It speaks
// the real wire API Claude Code uses — POST /v1/messages streamed as SSE
// (message_start, content blocks with tool_use and input_json_delta or
// text_delta, message_delta, message_stop), and a plain JSON message for
// the helper requests that are not streamed — and answers from a script:
// turn i of the agent loop makes the calls of turns[i], and once they are
// used up it ends with a text. It keeps every agent-loop request body.
type messagesModel struct {
	turns [][]scriptCall

	mu     sync.Mutex
	served int
	bodies [][]byte
}

type scriptCall struct {
	tool string
	args string
}

func (m *messagesModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Stream bool            `json:"stream"`
		Tools  json.RawMessage `json:"tools"`
	}
	json.Unmarshal(body, &req)
	if strings.Contains(r.URL.Path, "count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":100}`)
		return
	}
	agentLoop := req.Stream && bytes.Contains(req.Tools, []byte("mcp__agent-tools__"))
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(assistantMessage("msg_helper", []any{map[string]any{"type": "text", "text": "ok"}}, "end_turn"))
		return
	}
	var calls []scriptCall
	turn := -1
	if agentLoop {
		m.mu.Lock()
		m.bodies = append(m.bodies, body)
		turn = m.served
		if turn < len(m.turns) {
			calls = m.turns[turn]
		}
		m.served++
		m.mu.Unlock()
	}
	m.stream(w, turn, calls)
}

func assistantMessage(id string, content []any, stop any) map[string]any {
	return map[string]any{"id": id, "type": "message", "role": "assistant", "model": "scripted",
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}
}

func (m *messagesModel) stream(w http.ResponseWriter, turn int, calls []scriptCall) {
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		w.(http.Flusher).Flush()
	}
	event("message_start", map[string]any{"message": assistantMessage(fmt.Sprintf("msg_%d", turn), []any{}, nil)})
	stop := "tool_use"
	if len(calls) == 0 {
		stop = "end_turn"
		event("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		event("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": "done"}})
		event("content_block_stop", map[string]any{"index": 0})
	}
	for i, c := range calls {
		event("content_block_start", map[string]any{"index": i, "content_block": map[string]any{
			"type": "tool_use", "id": toolUseID(turn, i), "name": "mcp__agent-tools__" + c.tool, "input": map[string]any{}}})
		event("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": c.args}})
		event("content_block_stop", map[string]any{"index": i})
	}
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 1}})
	event("message_stop", map[string]any{})
}

func toolUseID(turn, i int) string { return fmt.Sprintf("toolu_%d_%d", turn, i) }

// results reads the tool_result blocks of every agent-loop request: the
// text Claude Code gave its model for each call, by tool_use id.
func (m *messagesModel) results() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]string{}
	for _, body := range m.bodies {
		var req struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(body, &req)
		for _, msg := range req.Messages {
			var blocks []struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				IsError   bool            `json:"is_error"`
				Content   json.RawMessage `json:"content"`
			}
			if json.Unmarshal(msg.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type != "tool_result" {
					continue
				}
				var text string
				if json.Unmarshal(b.Content, &text) != nil {
					var parts []struct{ Type, Text string }
					json.Unmarshal(b.Content, &parts)
					for _, p := range parts {
						text += p.Text
					}
				}
				if b.IsError {
					text = "ERROR: " + text
				}
				out[b.ToolUseID] = text
			}
		}
	}
	return out
}

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
	model := &messagesModel{turns: [][]scriptCall{
		{
			{"test_echo", `{"text":"through claude"}`},
			{"ast_grep", `{"pattern":"fmt.Println($X)","path":"main.go"}`},
			{"lsp", `{"action":"status"}`},
			{"debug", `{"op":"adapters"}`},
			{"eval", `{"code":"6*7","description":"multiply two numbers in python"}`},
			{"ask_user", `{"question":"Which?","options":[{"label":"A"},{"label":"B"}]}`},
			{"ast_edit", `{"pattern":"fmt.Println($X)","rewrite":"fmt.Print($X)","path":"main.go"}`},
		},
		{{"resolve", `{"edit_id":"edit_1","action":"discard"}`}},
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: model}
	go srv.Serve(ln)
	defer srv.Close()

	home := t.TempDir()
	rec := filepath.Join(t.TempDir(), "rec.txtar")
	env := append(os.Environ(), "HOME="+home, "ANTHROPIC_BASE_URL=http://"+ln.Addr().String(), "ANTHROPIC_API_KEY=scripted",
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

	got := model.results()
	want := map[string]string{
		toolUseID(0, 0): "through claude",
		toolUseID(0, 1): "main.go:5:",
		toolUseID(0, 2): "servers known for this root",
		toolUseID(0, 3): "delve",
		toolUseID(0, 4): "42",
		toolUseID(0, 5): "skipped: the person did not answer (cancel). " + skipInstruction,
		toolUseID(0, 6): `edit_id "edit_1"`,
		toolUseID(1, 0): "discard",
	}
	if _, err := exec.LookPath("python3"); err != nil && !testutil.RequireAll() {
		delete(want, toolUseID(0, 4))
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

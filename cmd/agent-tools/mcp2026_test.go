package main

// End-to-end tests of the stateless MCP revision, 2026-07-28, with the
// official Go SDK client (v1.8.0 speaks it: server/discover first, then
// _meta on every request, multi round-trip results fulfilled by its
// elicitation handler, subscriptions/listen for list changes) and with
// raw frames where the SDK cannot say what we need to check.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

func TestMCP2026SDKTakesTheRevision(t *testing.T) {
	s := connectSDK(t, "sdk-2026", nil, nil, "--root", t.TempDir())
	res := s.InitializeResult()
	if res.ProtocolVersion != "2026-07-28" {
		t.Fatalf("the SDK negotiated %q, want 2026-07-28 (server/discover answered)", res.ProtocolVersion)
	}
	if res.ServerInfo == nil || res.ServerInfo.Name != "agent-tools" {
		t.Errorf("serverInfo from server/discover: %+v", res.ServerInfo)
	}
	if res.Capabilities == nil || res.Capabilities.Tools == nil || !res.Capabilities.Tools.ListChanged {
		t.Errorf("capabilities from server/discover: %+v", res.Capabilities)
	}
	// No elicitation declared: ask_user is not listed, as after initialize.
	names := toolNamesOf(t, s)
	if slices.Contains(names, "ask_user") {
		t.Errorf("a client without elicitation is shown ask_user: %v", names)
	}
	var want []string
	for _, n := range expectedTools(t) {
		if n != "ask_user" {
			want = append(want, n)
		}
	}
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	text, isErr, _ := call(t, s, "test_echo", map[string]any{"text": "stateless"})
	if isErr || text != "stateless" {
		t.Errorf("test_echo = %q (isError %v)", text, isErr)
	}
	text, isErr, _ = call(t, s, "ask_user", map[string]any{"question": "Q?", "allow_free_text": true})
	if !isErr || !strings.Contains(text, "did not declare the elicitation capability") {
		t.Errorf("ask_user without elicitation = %q (isError %v)", text, isErr)
	}
}

// TestMCP2026SDKEveryTool calls each capability's tools over the
// stateless revision in a small Go workspace; the answers must be those
// the older revisions give (checked on their key lines).
func TestMCP2026SDKEveryTool(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module example.com/m\n\ngo 1.22\n")
	writeFile(t, root, "main.go", "package main\n\nimport \"fmt\"\n\nfunc greet(name string) string { return fmt.Sprintf(\"hi %s\", name) }\n\nfunc main() { fmt.Println(greet(\"x\")) }\n")
	s := connectSDK(t, "sdk-2026", nil, nil, "--root", root, "--vibe", "--worker", "fast=sh")
	names := toolNamesOf(t, s)
	type check struct {
		tool    string
		args    map[string]any
		want    string
		isError bool
	}
	checks := []check{
		{"ast_grep", map[string]any{"pattern": "fmt.Sprintf($$$A)", "path": "main.go"}, "main.go:5:", false},
		{"ast_edit", map[string]any{"pattern": "fmt.Println($X)", "rewrite": "fmt.Print($X)", "path": "main.go"}, `edit_id "edit_1"`, false},
		{"resolve", map[string]any{"edit_id": "edit_1", "action": "discard"}, "discard", false},
		{"lsp", map[string]any{"action": "status"}, "", false},
		{"debug", map[string]any{"op": "adapters"}, "delve", false},
		{"vibe_list", map[string]any{}, "no workers", false},
		{"vibe_wait", map[string]any{"worker_id": "w9", "timeout_seconds": 0}, "w9", true}, // no such worker
	}
	if _, err := exec.LookPath("gopls"); err == nil {
		checks = append(checks,
			check{"lsp", map[string]any{"action": "hover", "file": "main.go", "line": 7, "symbol": "greet"}, "func greet(name string) string", false},
			check{"lsp_rename", map[string]any{"file": "main.go", "line": 5, "symbol": "greet", "new_name": "hello"}, "main.go", false})
	} else if testutil.RequireAll() {
		t.Error("gopls is missing")
	}
	if slices.Contains(names, "eval") {
		checks = append(checks, check{"eval", map[string]any{"code": "x = 6 * 7\nx", "description": "multiply in the kernel"}, "42", false})
	} else if testutil.RequireAll() {
		t.Errorf("eval is not listed: %v", names)
	}
	for _, c := range checks {
		name := c.tool
		for _, k := range []string{"action", "op"} {
			if v, ok := c.args[k].(string); ok {
				name += "/" + v
			}
		}
		t.Run(name, func(t *testing.T) {
			if !slices.Contains(names, c.tool) {
				t.Fatalf("%s is not listed: %v", c.tool, names)
			}
			text, isErr, _ := call(t, s, c.tool, c.args)
			if isErr != c.isError || !strings.Contains(text, c.want) {
				t.Errorf("%s %v = (isError %v)\n%s\nwant it to contain %q", c.tool, c.args, isErr, text, c.want)
			}
		})
	}
}

// TestMCP2026AskUserMRTR asks through multi round-trip results: the SDK
// gets input_required, runs its elicitation handler and retries with the
// answer and our requestState.
func TestMCP2026AskUserMRTR(t *testing.T) {
	var asked atomic.Int64
	handler := func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		first, _, _ := strings.Cut(req.Params.Message, "\n")
		if r, ok := personAnswers[first]; ok {
			return &r, nil
		}
		switch first {
		case "Cancel?":
			return &mcp.ElicitResult{Action: "cancel"}, nil
		case "Late?":
			// A person who answers after ask_timeout: the retry comes
			// after the requestState's deadline.
			time.Sleep(700 * time.Millisecond)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"text": "too late"}}, nil
		}
		return nil, errors.New("unexpected question " + first)
	}
	cfg := writeFile(t, t.TempDir(), "config.json", `{"workers":{"ask_timeout":"300ms"}}`)
	s := connectSDK(t, "sdk-2026", &mcp.ClientOptions{ElicitationHandler: handler}, nil, "--root", t.TempDir(), "--config", cfg)
	if !slices.Contains(toolNamesOf(t, s), "ask_user") {
		t.Fatal("a 2026-07-28 client that declares elicitation is not shown ask_user")
	}
	opts := []any{map[string]any{"label": "a"}, map[string]any{"label": "b"}, map[string]any{"label": "c"}}
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"single", map[string]any{"question": "Single?", "options": []any{map[string]any{"label": "Postgres"}, map[string]any{"label": "SQLite"}}}, "answer: SQLite", false},
		{"multi", map[string]any{"question": "Multi?", "options": opts, "multi_select": true}, "answers: a, c", false},
		{"free text", map[string]any{"question": "Free?", "allow_free_text": true}, "text: call it Zed", false},
		{"decline", map[string]any{"question": "Decline?", "allow_free_text": true}, "skipped: the person did not answer (decline). " + skipInstruction, false},
		{"cancel", map[string]any{"question": "Cancel?", "allow_free_text": true}, "skipped: the person did not answer (cancel). " + skipInstruction, false},
		{"timeout", map[string]any{"question": "Late?", "allow_free_text": true}, "the person did not answer within 300ms; the question was withdrawn. " + skipInstruction, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := asked.Load()
			text, isErr, _ := call(t, s, "ask_user", tt.args)
			if text != tt.want || isErr != tt.isError {
				t.Errorf("ask_user = %q (isError %v), want %q (isError %v)", text, isErr, tt.want, tt.isError)
			}
			if n := asked.Load() - before; n != 1 {
				t.Errorf("the person was asked %d times, want 1", n)
			}
		})
	}
}

// lineWriter writes whole lines only, under a lock, so that a test can
// put its own frames on the server's stdin between the SDK's.
type lineWriter struct {
	mu  sync.Mutex
	w   io.WriteCloser
	buf []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
		if _, err := l.w.Write(l.buf[:i+1]); err != nil {
			return 0, err
		}
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
	}
	return len(p), nil
}

func (l *lineWriter) Close() error { return l.w.Close() }

// TestMCP2026SDKListChanged: the SDK opens a subscriptions/listen stream
// (it does when it has a ToolListChangedHandler), and a setMode that
// turns vibe mode on reaches it there: its handler runs and its next
// listing has the vibe_* tools. The SDK has no call for our extension
// method, so the test writes that one frame itself between the SDK's;
// the SDK ignores the answer to an id it did not send.
func TestMCP2026SDKListChanged(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testutil.IntegrationTimeout())
	defer cancel()
	cmd := testBinaryCmd(ctx, "serve", "--log-level", "warn", "--root", t.TempDir(), "--worker", "fast=sh")
	cmd.Stderr = t.Output()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	w := &lineWriter{w: stdin}
	changed := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk-2026", Version: "v0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	s, err := client.Connect(ctx, &mcp.IOTransport{Reader: stdout, Writer: w}, nil)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	defer s.Close()
	before := toolNamesOf(t, s)
	if slices.Contains(before, "vibe_spawn") {
		t.Fatalf("vibe tools listed before vibe mode: %v", before)
	}
	// The listen stream is acknowledged before setMode is sent: a ping
	// sent after it is answered after the server has registered it.
	if err := s.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"inject-1","method":"agent-tools/setMode","params":{"vibe":true,%s}}`+"\n", meta2026)
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no tools/list_changed on the SDK's subscriptions/listen stream")
	}
	if after := toolNamesOf(t, s); !slices.Contains(after, "vibe_spawn") {
		t.Errorf("tools after the change: %v", after)
	}
}

// --- raw frames ---

const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`

// TestMCP2026ListenAndSetMode: with no initialize at all, a listen stream
// is acknowledged, setMode's vibe switch sends list_changed on it (with
// the subscription's id), a client that cancels it gets no answer, and
// nothing is sent to a client that did not subscribe.
func TestMCP2026ListenAndSetMode(t *testing.T) {
	s := startServer(t, "--worker", "fast=sh")
	s.send(`{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + meta2026 + `}}`)
	ack := s.next(func(m map[string]any) bool { return m["method"] != nil })
	if ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first frame on the stream: %v", ack)
	}
	p := ack["params"].(map[string]any)
	if p["notifications"].(map[string]any)["toolsListChanged"] != true || p["_meta"].(map[string]any)["io.modelcontextprotocol/subscriptionId"] != "l1" {
		t.Errorf("acknowledged: %v", p)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"agent-tools/setMode","params":{"vibe":true,` + meta2026 + `}}`)
	var note map[string]any
	res := s.next(func(m map[string]any) bool {
		if m["method"] == "notifications/tools/list_changed" {
			note = m
		}
		return responseTo(2)(m)
	})
	if res["result"].(map[string]any)["resultType"] != "complete" {
		t.Errorf("setMode answer: %v", res)
	}
	if note == nil {
		t.Fatal("no tools/list_changed after setMode turned vibe on")
	}
	if id := note["params"].(map[string]any)["_meta"].(map[string]any)["io.modelcontextprotocol/subscriptionId"]; id != "l1" {
		t.Errorf("list_changed names subscription %v, want l1", id)
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + meta2026 + `}}`)
	list := s.until(3)["result"].(map[string]any)
	var names []string
	for _, tool := range list["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if !slices.Contains(names, "vibe_spawn") || !slices.Contains(names, "ask_user") {
		t.Errorf("tools after vibe on, with elicitation: %v", names)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"l1"}}`)
	s.send(`{"jsonrpc":"2.0","id":4,"method":"ping","params":{` + meta2026 + `}}`)
	s.next(func(m map[string]any) bool {
		if m["id"] == "l1" {
			t.Errorf("a cancelled listen request was answered: %v", m)
		}
		return responseTo(4)(m)
	})
}

// TestMCP2026RequestStateIsVerified: the answers of a retry are used only
// with the requestState we issued for that very call, once.
func TestMCP2026RequestStateIsVerified(t *testing.T) {
	s := startServer(t)
	args := `{"question":"Which?","options":[{"label":"A"},{"label":"B"}]}`
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_user","arguments":` + args + `,` + meta2026 + `}}`)
	first := s.until(1)["result"].(map[string]any)
	if first["resultType"] != "input_required" {
		t.Fatalf("first answer: %v", first)
	}
	reqs := first["inputRequests"].(map[string]any)
	ask, ok := reqs["ask_1"].(map[string]any)
	if !ok || ask["method"] != "elicitation/create" || len(reqs) != 1 {
		t.Fatalf("inputRequests: %v", reqs)
	}
	if p := ask["params"].(map[string]any); p["mode"] != "form" || !strings.HasPrefix(p["message"].(string), "Which?") {
		t.Errorf("elicitation params: %v", p)
	}
	if _, has := first["content"]; has {
		t.Errorf("an input_required answer carries content: %v", first)
	}
	state := first["requestState"].(string)
	body, sig, _ := strings.Cut(state, ".")
	answer := `"inputResponses":{"ask_1":{"action":"accept","content":{"choice":"B"}}}`
	retry := func(id int, arguments, st string) map[string]any {
		stJSON, _ := json.Marshal(st)
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask_user","arguments":%s,%s,"requestState":%s,%s}}`, id, arguments, answer, stJSON, meta2026))
		return s.until(id)
	}
	flip := []byte(body)
	flip[len(flip)/2] ^= 1
	tests := []struct {
		name, args, state, want string
	}{
		{"forged", args, "eyJ0b29sIjoiYXNrX3VzZXIifQ." + sig, "requestState does not verify"},
		{"altered", args, string(flip) + "." + sig, "requestState does not verify"},
		{"other arguments", `{"question":"Which?","options":[{"label":"A"},{"label":"C"}]}`, state, "requestState belongs to another call"},
		{"no state", args, "", "inputResponses came without the requestState"},
	}
	for i, tt := range tests {
		m := retry(10+i, tt.args, tt.state)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(-32602) || !strings.Contains(e["message"].(string), tt.want) {
			t.Errorf("%s: %v, want -32602 saying %q", tt.name, m, tt.want)
		}
	}
	// The same arguments encoded otherwise (other key order, spaces) are
	// the same call.
	reordered := `{"options":[{"label":"A"},{"label":"B"}], "question":"Which?"}`
	ok1 := retry(20, reordered, state)["result"].(map[string]any)
	if ok1["resultType"] != "complete" || toolTextOf(ok1) != "answer: B" {
		t.Errorf("the genuine retry: %v", ok1)
	}
	m := retry(21, args, state)
	if e, _ := m["error"].(map[string]any); e == nil || !strings.Contains(e["message"].(string), "already answered once") {
		t.Errorf("a second use of the state: %v", m)
	}
}

func toolTextOf(res map[string]any) string {
	var b strings.Builder
	for _, c := range res["content"].([]any) {
		if m := c.(map[string]any); m["type"] == "text" {
			b.WriteString(m["text"].(string))
		}
	}
	return b.String()
}

// TestMCP2026Versions: an unknown revision in _meta is -32022 with the
// revisions we take; a request with neither initialize nor _meta is
// refused as before; a session that initialized keeps its revision
// (server/discover is -32601 there, as the transcripts pin).
func TestMCP2026Versions(t *testing.T) {
	s := startServer(t)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}`)
	e := s.until(1)["error"].(map[string]any)
	data, _ := json.Marshal(e["data"])
	if e["code"] != float64(-32022) || string(data) != `{"requested":"2099-01-01","supported":["2026-07-28"]}` {
		t.Errorf("unknown revision: %v", e)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if e := s.until(2)["error"].(map[string]any); e["code"] != float64(-32600) {
		t.Errorf("no initialize, no _meta: %v", e)
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	d := s.until(3)["result"].(map[string]any)
	if d["resultType"] != "complete" || !slices.Contains(d["supportedVersions"].([]any), any("2026-07-28")) {
		t.Errorf("server/discover: %v", d)
	}
}

func init() {
	// test_block (blocks until cancelled) stands for a long call in the
	// Tasks transcripts and tests.
	longTools = append(longTools, "test_block")
}

const metaTasks = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// TestMCP2026TaskEqualsSyncAnswer runs the same slow eval cell as a task
// (a client with the Tasks extension; --task-after shorter than the cell)
// and as an ordinary call (no extension): the task's final result is the
// synchronous answer, byte for byte.
func TestMCP2026TaskEqualsSyncAnswer(t *testing.T) {
	testutil.Needs(t, "python3")
	s := startServer(t, "--task-after", "100ms")
	cell := `{"code":"import time\ntime.sleep(1)\nsum(range(10))","description":"a slow sum in the kernel"}`
	// The kernel's first answer names the interpreter: start it first.
	s.send(`{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"eval","arguments":{"code":"1","description":"start the kernel"},` + meta2026 + `}}`)
	s.until(100)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"eval","arguments":` + cell + `,` + meta2026 + `}}`)
	sync := s.until(1)["result"]
	syncJSON, _ := json.Marshal(sync)
	if !strings.Contains(string(syncJSON), "45") {
		t.Fatalf("the synchronous answer: %s", syncJSON)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"eval","arguments":` + cell + `,` + metaTasks + `}}`)
	created := s.until(2)["result"].(map[string]any)
	if created["resultType"] != "task" || created["status"] != "working" {
		t.Fatalf("want a task for a 1 s cell with --task-after 100ms, got %v", created)
	}
	id := created["taskId"].(string)
	deadline := time.Now().Add(testutil.IntegrationTimeout())
	for n := 3; ; n++ {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tasks/get","params":{"taskId":%q,%s}}`, n, id, metaTasks))
		got := s.until(n)["result"].(map[string]any)
		if got["status"] == "completed" {
			res, _ := json.Marshal(got["result"])
			if string(res) != string(syncJSON) {
				t.Errorf("the task's result differs from the synchronous answer:\ntask %s\nsync %s", res, syncJSON)
			}
			break
		}
		if got["status"] != "working" || time.Now().After(deadline) {
			t.Fatalf("task: %v", got)
		}
		time.Sleep(50 * time.Millisecond) // the client's polling interval
	}
}

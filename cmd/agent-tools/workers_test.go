package main

// This file tests ask_user and the vibe_* tools end to end: the official
// MCP Go SDK client (with its ElicitationHandler) and raw pipes against the
// re-executed binary. Workers run workers/testdata/fakeagent.sh, a test
// fixture that behaves like an agent CLI (no agent CLI exists here).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/tools/txtar"

	"github.com/agent-tools/agent-tools/internal/testutil"
	"github.com/agent-tools/agent-tools/workers"
)

// connectSDKWorkers connects the Go SDK client with opts at 2025-11-25
// to agent-tools serving --structured and args: these tests read the
// structured results, as a program would (and the SDK checks them against
// outputSchema).
func connectSDKWorkers(t *testing.T, opts *mcp.ClientOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	return connectSDK(t, "sdk-workers", opts, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}, append([]string{"--structured"}, args...)...)
}

// personAnswers is what the scripted person of the ask_user tests
// answers, by the first line of the question.
var personAnswers = map[string]mcp.ElicitResult{
	"Single?":  {Action: "accept", Content: map[string]any{"choice": "SQLite"}},
	"Multi?":   {Action: "accept", Content: map[string]any{"choices": []any{"a", "c"}}},
	"Free?":    {Action: "accept", Content: map[string]any{"text": "call it Zed"}},
	"Decline?": {Action: "decline"},
}

func toolNamesOf(t *testing.T, s *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range s.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatalf("listing tools: %v", err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// call calls a tool and returns its text and whether it is an error result.
func call(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) (text string, isError bool, res *mcp.CallToolResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testutil.IntegrationTimeout())
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError, res
}

func structured[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	var v T
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("structured content %s: %v", data, err)
	}
	return v
}

const skipInstruction = "Continue on a stated assumption (say which one you make) and do not ask this question again."

func TestAskUserSDK(t *testing.T) {
	var mu sync.Mutex
	schemas := map[string]any{}
	handler := func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		first, _, _ := strings.Cut(req.Params.Message, "\n")
		mu.Lock()
		schemas[first] = req.Params.RequestedSchema
		mu.Unlock()
		if r, ok := personAnswers[first]; ok {
			return &r, nil
		}
		return nil, errors.New("no person is attached to this harness")
	}
	s := connectSDKWorkers(t, &mcp.ClientOptions{ElicitationHandler: handler}, "--root", t.TempDir())
	if !slices.Contains(toolNamesOf(t, s), "ask_user") {
		t.Fatal("a client with elicitation does not see ask_user")
	}
	opts := []any{map[string]any{"label": "a"}, map[string]any{"label": "b", "description": "second"}, map[string]any{"label": "c"}}
	tests := []struct {
		name    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"single choice", map[string]any{"question": "Single?", "context": "It matters.", "options": []any{map[string]any{"label": "Postgres"}, map[string]any{"label": "SQLite"}}}, "answer: SQLite", false},
		{"multiple choices", map[string]any{"question": "Multi?", "options": opts, "multi_select": true}, "answers: a, c", false},
		{"free text", map[string]any{"question": "Free?", "allow_free_text": true}, "text: call it Zed", false},
		{"decline", map[string]any{"question": "Decline?", "options": opts}, "skipped: the person did not answer (decline). " + skipInstruction, false},
		{"client error", map[string]any{"question": "Broken?", "allow_free_text": true}, "no person is attached to this harness. Nobody can answer now: " + skipInstruction, true},
		{"no way to answer", map[string]any{"question": "Nothing?"}, "needs options, allow_free_text: true, or both", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, isErr, _ := call(t, s, "ask_user", tt.args)
			if isErr != tt.isError || !strings.Contains(text, tt.want) {
				t.Errorf("ask_user = %q (isError %v), want %q (isError %v)", text, isErr, tt.want, tt.isError)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	got, _ := json.Marshal(schemas["Single?"])
	if want := `{"properties":{"choice":{"oneOf":[{"const":"Postgres","title":"Postgres"},{"const":"SQLite","title":"SQLite"}],"title":"Choose one","type":"string"}},"required":["choice"],"type":"object"}`; string(got) != want {
		t.Errorf("single-choice requestedSchema:\n got %s\nwant %s", got, want)
	}
}

func TestAskUserTimeoutSDK(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "config.json", `{"workers":{"ask_timeout_seconds":0.3}}`)
	withdrawn := make(chan struct{})
	handler := func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		select { // a person who never answers
		case <-ctx.Done(): // notifications/cancelled withdrew the question
			close(withdrawn)
			return nil, ctx.Err()
		case <-time.After(testutil.IntegrationTimeout()):
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
	}
	s := connectSDKWorkers(t, &mcp.ClientOptions{ElicitationHandler: handler}, "--root", dir, "--config", cfg)
	text, isErr, _ := call(t, s, "ask_user", map[string]any{"question": "Slow?", "allow_free_text": true})
	if !isErr || !strings.Contains(text, "the person did not answer within 300ms; the question was withdrawn. "+skipInstruction) {
		t.Errorf("ask_user past the timeout = %q (isError %v)", text, isErr)
	}
	select {
	case <-withdrawn:
	case <-time.After(testutil.IntegrationTimeout()):
		t.Error("the client's pending elicitation was not cancelled")
	}
}

func TestAskUserHiddenWithoutElicitation(t *testing.T) {
	s := connectSDKWorkers(t, nil, "--root", t.TempDir())
	if names := toolNamesOf(t, s); slices.Contains(names, "ask_user") {
		t.Errorf("a client without elicitation sees ask_user: %v", names)
	}
	text, isErr, _ := call(t, s, "ask_user", map[string]any{"question": "?", "allow_free_text": true})
	if !isErr || !strings.HasPrefix(text, "ask_user is not available: this client cannot show a question to a person") {
		t.Errorf("calling the hidden ask_user = %q (isError %v), want why it is not available", text, isErr)
	}
}

// fakeAgent is the worker command running the fake agent CLI fixture.
func fakeAgent(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../workers/testdata/fakeagent.sh")
	if err != nil {
		t.Fatal(err)
	}
	return "sh " + p
}

// fakePids waits for the fake agent of worker id to write its pid and its
// child's into root.
func fakePids(t *testing.T, root, id string) []int {
	t.Helper()
	path := filepath.Join(root, "fakeagent-"+id+".pids")
	var pids []int
	testutil.Eventually(t, func() bool {
		data, _ := os.ReadFile(path)
		pids = nil
		for _, f := range strings.Fields(string(data)) {
			n, _ := strconv.Atoi(f)
			pids = append(pids, n)
		}
		return len(pids) == 2
	}, "worker %s never wrote %s", id, path)
	return pids
}

func TestWorkersSDK(t *testing.T) {
	root := t.TempDir()
	s := connectSDKWorkers(t, nil, "--root", root, "--vibe", "--worker", "fast="+fakeAgent(t), "--worker", "good="+fakeAgent(t))
	names := toolNamesOf(t, s)
	for _, want := range []string{"vibe_kill", "vibe_list", "vibe_send", "vibe_spawn", "vibe_wait"} {
		if !slices.Contains(names, want) {
			t.Fatalf("vibe mode lacks %s: %v", want, names)
		}
	}

	// spawn returns at once: the worker is still running (it sleeps).
	_, isErr, res := call(t, s, "vibe_spawn", map[string]any{"brief": "fix it\nsleep", "label": "steered"})
	if st := structured[workers.Status](t, res); isErr || st.ID != "w1" || st.State != workers.Running {
		t.Fatalf("vibe_spawn = %+v (isError %v)", st, isErr)
	}
	first := fakePids(t, root, "w1")

	_, _, res = call(t, s, "vibe_list", map[string]any{})
	if l := structured[workers.ListResult](t, res); len(l.Workers) != 1 || l.Workers[0].State != workers.Running || l.Workers[0].Attempts != 1 || l.Workers[0].ElapsedMs <= 0 {
		t.Errorf("vibe_list while running = %+v", l)
	}

	// send stops the running attempt and re-runs with the appended brief.
	_, _, res = call(t, s, "vibe_send", map[string]any{"worker_id": "w1", "message": "now finish"})
	if st := structured[workers.Status](t, res); st.Attempts != 2 || st.State != workers.Running {
		t.Errorf("vibe_send = %+v", st)
	}
	testutil.WaitGone(t, testutil.IntegrationTimeout(), first...)
	text, _, res := call(t, s, "vibe_wait", map[string]any{"worker_id": "w1", "timeout_seconds": 60})
	if w := structured[workers.WaitResult](t, res); w.State != workers.Done || w.Result != "done: fix it (attempt 2, 6 lines)" || len(w.History) != 1 {
		t.Errorf("vibe_wait = %+v\n%s", w, text)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "fakeagent-w1.txt")); string(data) != "fix it\nsleep\n\n---\n\nnow finish\n" {
		t.Errorf("the worker's edit after vibe_send: %q", data)
	}

	// kill stops a worker and its children.
	call(t, s, "vibe_spawn", map[string]any{"brief": "sleep", "label": "doomed", "tier": "good"})
	second := fakePids(t, root, "w2")
	text, _, res = call(t, s, "vibe_kill", map[string]any{"worker_id": "w2"})
	if st := structured[workers.Status](t, res); st.State != workers.Killed {
		t.Errorf("vibe_kill = %+v\n%s", st, text)
	}
	testutil.WaitGone(t, testutil.IntegrationTimeout(), second...)

	text, _, res = call(t, s, "vibe_list", map[string]any{})
	l := structured[workers.ListResult](t, res)
	if len(l.Workers) != 2 || l.Running != 0 || l.Workers[0].State != workers.Done || l.Workers[0].Attempts != 2 || l.Workers[1].State != workers.Killed || l.Workers[1].Tier != "good" {
		t.Errorf("vibe_list = %+v", l)
	}
	for _, want := range []string{"w1  fast  done  attempts 2  steered  result: done: fix it (attempt 2, 6 lines)", "w2  good  killed  attempts 1  doomed"} {
		if !strings.Contains(text, want) {
			t.Errorf("vibe_list text lacks %q:\n%s", want, text)
		}
	}

	text, isErr, _ = call(t, s, "vibe_spawn", map[string]any{"brief": "x", "label": "y", "tier": "slow"})
	if !isErr || !strings.Contains(text, "tier") {
		t.Errorf("unknown tier: %q (isError %v)", text, isErr)
	}
}

func TestVibeOffHidesWorkerTools(t *testing.T) {
	root := t.TempDir()
	s := startServer(t, "--root", root, "--vibe", "--worker", "fast="+fakeAgent(t))
	s.initialize()
	s.callTool(2, "vibe_spawn", `{"brief":"sleep","label":"survivor"}`)
	pids := fakePids(t, root, "w1")

	// Cancelling vibe_wait stops the wait, not the worker.
	s.send(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"vibe_wait","arguments":{"worker_id":"w1","timeout_seconds":600}}}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":20}}`)
	if data, _ := json.Marshal(s.callTool(21, "vibe_list", `{}`)); !strings.Contains(string(data), "w1  fast  running") {
		t.Errorf("vibe_list after a cancelled vibe_wait: %s", data)
	}

	s.send(`{"jsonrpc":"2.0","id":3,"method":"agent-tools/setMode","params":{"vibe":false}}`)
	if _, notes := s.collectUntil(3); !slices.Contains(notes, "notifications/tools/list_changed") {
		t.Errorf("vibe off sent no list_changed (saw %v)", notes)
	}
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	data, _ := json.Marshal(s.until(4))
	if strings.Contains(string(data), `"vibe_`) {
		t.Errorf("vibe off still lists vibe tools: %s", data)
	}
	if m := s.callTool(5, "vibe_list", `{}`); !strings.Contains(fmt.Sprint(m), "isError:true") || !strings.Contains(fmt.Sprint(m), "vibe_list is not available: vibe mode is off") {
		t.Errorf("vibe_list while vibe is off: %v, want an error result saying vibe mode is off", m)
	}
	if !testutil.Alive(pids[0]) || !testutil.Alive(pids[1]) {
		t.Error("turning vibe off stopped a running worker")
	}

	s.send(`{"jsonrpc":"2.0","id":6,"method":"agent-tools/setMode","params":{"vibe":true}}`)
	if _, notes := s.collectUntil(6); !slices.Contains(notes, "notifications/tools/list_changed") {
		t.Errorf("vibe on sent no list_changed (saw %v)", notes)
	}
	data, _ = json.Marshal(s.callTool(7, "vibe_list", `{}`))
	if !strings.Contains(string(data), "w1  fast  running") {
		t.Errorf("vibe_list after vibe on: %s", data)
	}
	s.stdin.Close()
	<-s.ended
	testutil.WaitGone(t, testutil.IntegrationTimeout(), pids...)
}

func TestSIGKILLLeavesNoWorker(t *testing.T) {
	root := t.TempDir()
	s := startServer(t, "--root", root, "--vibe", "--worker", "fast="+fakeAgent(t))
	s.initialize()
	s.callTool(2, "vibe_spawn", `{"brief":"sleep","label":"orphan?"}`)
	s.callTool(3, "vibe_spawn", `{"brief":"sleep","label":"orphan too?"}`)
	pids := append(fakePids(t, root, "w1"), fakePids(t, root, "w2")...)
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.ended
	testutil.WaitGone(t, testutil.IntegrationTimeout(), pids...)
}

// TestTranscriptFakeAgentIsTheFixture keeps the copy of the fake agent CLI
// in the workers transcript identical to workers/testdata/fakeagent.sh.
func TestTranscriptFakeAgentIsTheFixture(t *testing.T) {
	want, err := os.ReadFile("../../workers/testdata/fakeagent.sh")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../conformance/testdata/workers/vibe-spawn-wait-list.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range txtar.Parse(data).Files {
		if f.Name == "ws/fakeagent.sh" {
			if string(f.Data) != string(want) {
				t.Error("ws/fakeagent.sh in conformance/testdata/workers/vibe-spawn-wait-list.txtar differs from workers/testdata/fakeagent.sh: copy it over")
			}
			return
		}
	}
	t.Error("the transcript has no ws/fakeagent.sh")
}

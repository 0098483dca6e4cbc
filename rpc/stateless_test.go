package rpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/rpc"
)

// meta returns a stateless request's _meta with the given capabilities.
func meta(caps map[string]any) map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    rpc.Stateless,
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
}

var (
	elicit = map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
	tasks  = map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}
)

func names(res map[string]any) []string {
	var out []string
	for _, tool := range res["tools"].([]any) {
		out = append(out, tool.(map[string]any)["name"].(string))
	}
	return out
}

func TestStatelessPerRequestCapabilities(t *testing.T) {
	reg := rpc.NewRegistry()
	reg.Add(askTool(), echoTool("echo", rpc.TierRead), echoTool("write", rpc.TierWrite))
	c := connect(t, reg, nil)
	// No initialize: each request says what its client can do.
	if got := names(c.result("tools/list", map[string]any{"_meta": meta(map[string]any{})})); !slices.Equal(got, []string{"echo", "write"}) {
		t.Errorf("without elicitation: %v", got)
	}
	if got := names(c.result("tools/list", map[string]any{"_meta": meta(elicit)})); !slices.Equal(got, []string{"ask", "echo", "write"}) {
		t.Errorf("with elicitation: %v", got)
	}
	plan := map[string]any{"experimental": map[string]any{"agent-tools": map[string]any{"surface": "plan"}}}
	if got := names(c.result("tools/list", map[string]any{"_meta": meta(plan)})); !slices.Equal(got, []string{"echo"}) {
		t.Errorf("a plan surface for one request: %v", got)
	}
	// ... for that request only.
	if got := names(c.result("tools/list", map[string]any{"_meta": meta(map[string]any{})})); !slices.Equal(got, []string{"echo", "write"}) {
		t.Errorf("the next request: %v", got)
	}
	res := c.result("ping", map[string]any{"_meta": meta(nil)})
	if res["resultType"] != "complete" || len(res) != 1 {
		t.Errorf("ping: %v", res)
	}
}

// TestStatelessElicitAfterDeadline: a retry that comes after the
// question's deadline (the tool's ctx deadline) gets ErrInputExpired,
// which is context.DeadlineExceeded to the tool.
func TestStatelessElicitAfterDeadline(t *testing.T) {
	reg := rpc.NewRegistry()
	reg.Add(rpc.NewTool(rpc.Spec{Name: "ask", Tier: rpc.TierRead, Requires: rpc.RequiresElicitation, Description: "asks briefly"},
		func(ctx context.Context, a echoArgs) (echoOut, error) {
			ctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
			defer cancel()
			res, err := rpc.SessionFrom(ctx).Elicit(ctx, rpc.ElicitRequest{Message: a.Text, RequestedSchema: json.RawMessage(`{"type":"object"}`)})
			switch {
			case errors.Is(err, rpc.ErrInputExpired) && errors.Is(err, context.DeadlineExceeded):
				return echoOut{Echo: "too late"}, nil
			case err != nil:
				return echoOut{}, err
			}
			return echoOut{Echo: res.Action}, nil
		}))
	c := connect(t, reg, nil)
	args := map[string]any{"text": "now?"}
	first := c.result("tools/call", map[string]any{"name": "ask", "arguments": args, "_meta": meta(elicit)})
	if first["resultType"] != "input_required" {
		t.Fatalf("first: %v", first)
	}
	retry := func() map[string]any {
		return c.result("tools/call", map[string]any{"name": "ask", "arguments": args, "_meta": meta(elicit),
			"requestState": first["requestState"], "inputResponses": map[string]any{"ask_1": map[string]any{"action": "accept"}}})
	}
	time.Sleep(40 * time.Millisecond) // a person slower than the deadline
	if got := toolText(t, retry()); got != "echo: too late" {
		t.Errorf("a late answer: %q", got)
	}
}

// TestTasksQuickCallAnswersAtOnce: with the extension, a long tool that is
// done within TaskAfter is answered as always, and a tool that is not long
// never becomes a task.
func TestTasksQuickCallAnswersAtOnce(t *testing.T) {
	reg := rpc.NewRegistry()
	quick := echoTool("quick", rpc.TierRead).MarkLong()
	reg.Add(quick)
	c := connect(t, reg, &rpc.Options{TaskAfter: time.Minute})
	res := c.result("tools/call", map[string]any{"name": "quick", "arguments": map[string]any{"text": "x"}, "_meta": meta(tasks)})
	if res["resultType"] != "complete" || toolText(t, res) != "echo: x" {
		t.Errorf("a quick long call: %v", res)
	}
	m := c.call("tasks/get", map[string]any{"taskId": "task-1", "_meta": meta(tasks)})
	if code := errCode(t, m); code != -32602 {
		t.Errorf("a call answered at once left a task behind: %v", m)
	}
}

// TestTaskCancelledByShutdown: closing stdin ends a running task's call.
func TestTaskCancelledByShutdown(t *testing.T) {
	started, seen := make(chan string, 1), make(chan string, 1)
	reg := rpc.NewRegistry()
	reg.Add(blockTool(started, seen).MarkLong())
	c := connect(t, reg, &rpc.Options{TaskAfter: time.Millisecond})
	res := c.result("tools/call", map[string]any{"name": "block", "arguments": map[string]any{"text": "t"}, "_meta": meta(tasks)})
	if res["resultType"] != "task" || !strings.HasPrefix(res["taskId"].(string), "task-") {
		t.Fatalf("want a task: %v", res)
	}
	<-started
	c.rest()
	select {
	case <-seen:
	case <-time.After(step):
		t.Fatal("the task's call was not cancelled at shutdown")
	}
}

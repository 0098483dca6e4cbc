package rpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/internal/testutil"
	"github.com/agent-tools/agent-tools/rpc"
)

func debugLogger(buf *testutil.LogBuffer) *zerolog.Logger {
	l := buf.Logger().Level(zerolog.DebugLevel)
	return &l
}

type pictureOut struct {
	Caption string `json:"caption"`
}

func (p pictureOut) Text() string { return "a plot of " + p.Caption }
func (p pictureOut) Content() []rpc.Content {
	return []rpc.Content{rpc.ImageContent("iVBORw0KGgo=", "image/png")}
}

func pictureTool() *rpc.Tool {
	return rpc.NewTool(rpc.Spec{Name: "picture", Tier: rpc.TierRead, Description: "draws"},
		func(ctx context.Context, a noArgs) (pictureOut, error) { return pictureOut{Caption: "x"}, nil })
}

// passTool returns a result it built itself, structuredContent included
// (as eval does).
func passTool() *rpc.Tool {
	return rpc.NewTool(rpc.Spec{Name: "pass", Tier: rpc.TierRead, Description: "passes a result through"},
		func(ctx context.Context, a noArgs) (*rpc.CallToolResult, error) {
			return &rpc.CallToolResult{Content: []rpc.Content{rpc.TextContent("built")}, StructuredContent: json.RawMessage(`{"built":true}`)}, nil
		})
}

// TestTextOnlyByDefault: by default tools/list has no outputSchema and a
// result is its content blocks only, text then image (what every agent
// CLI shows its model); a client that opts in, through initialize or the
// server's options, gets structuredContent and outputSchema as well.
func TestTextOnlyByDefault(t *testing.T) {
	wantContent := []any{
		map[string]any{"type": "text", "text": "a plot of x"},
		map[string]any{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
	}
	tests := []struct {
		name       string
		opts       rpc.Mode
		caps       map[string]any
		structured bool
	}{
		{name: "default"},
		{name: "initialize opts in", caps: map[string]any{"experimental": map[string]any{"agent-tools": map[string]any{"structured": true}}}, structured: true},
		{name: "server option", opts: rpc.Mode{Structured: true}, structured: true},
		{name: "initialize opts out", opts: rpc.Mode{Structured: true}, caps: map[string]any{"experimental": map[string]any{"agent-tools": map[string]any{"structured": false}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := rpc.NewRegistry()
			reg.Add(pictureTool(), passTool())
			c := connect(t, reg, &rpc.Options{Mode: tt.opts})
			c.initialize(tt.caps)
			for _, tool := range c.result("tools/list", nil)["tools"].([]any) {
				m := tool.(map[string]any)
				if _, has := m["outputSchema"]; has != (tt.structured && m["name"] == "picture") {
					t.Errorf("%s: outputSchema present = %v", m["name"], has)
				}
			}
			res := c.result("tools/call", map[string]any{"name": "picture", "arguments": map[string]any{}})
			if diff := cmp.Diff(wantContent, res["content"]); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			var want any
			if tt.structured {
				want = map[string]any{"caption": "x"}
			}
			if diff := cmp.Diff(want, res["structuredContent"]); diff != "" {
				t.Errorf("structuredContent (-want +got):\n%s", diff)
			}
			res = c.result("tools/call", map[string]any{"name": "pass", "arguments": map[string]any{}})
			if _, has := res["structuredContent"]; has != tt.structured {
				t.Errorf("pass-through structuredContent present = %v: %v", has, res)
			}
		})
	}
}

// TestInjectedArgumentKeys: Gemini CLI's wait_for_previous is ignored (and
// logged at debug level) on every tool; any other unknown key is still an
// error that names the known fields.
func TestInjectedArgumentKeys(t *testing.T) {
	var logs testutil.LogBuffer
	reg := rpc.NewRegistry()
	reg.Add(echoTool("echo", rpc.TierRead), pictureTool())
	c := connect(t, reg, &rpc.Options{Logger: debugLogger(&logs)})
	c.initialize(nil)
	res := c.result("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi", "wait_for_previous": true}})
	if res["isError"] != nil || toolText(t, res) != "echo: hi" {
		t.Errorf("echo with wait_for_previous: %v", res)
	}
	res = c.result("tools/call", map[string]any{"name": "picture", "arguments": map[string]any{"wait_for_previous": false}})
	if res["isError"] != nil {
		t.Errorf("a tool without arguments, with wait_for_previous: %v", res)
	}
	res = c.result("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi", "wait_for_previous": true, "colour": "red"}})
	if want := "invalid arguments: argument 'colour': unknown field; known fields: text, times"; res["isError"] != true || toolText(t, res) != want {
		t.Errorf("another unknown key: %v, want %q", res, want)
	}
	ignored := 0
	for _, l := range logs.Entries(t) {
		if keys, _ := l["keys"].([]any); l["level"] == "debug" && len(keys) == 1 && keys[0] == "wait_for_previous" {
			ignored++
		}
	}
	if ignored != 3 {
		t.Errorf("%d debug lines name the ignored key, want 3:\n%s", ignored, logs.String())
	}
}

// TestHiddenToolsSayWhy: a tool that vibe mode or the missing elicitation
// capability hides answers an error result with the reason and what is
// available; once shown it runs.
func TestHiddenToolsSayWhy(t *testing.T) {
	reg := rpc.NewRegistry()
	reg.Add(echoTool("lsp", rpc.TierRead),
		rpc.NewTool(rpc.Spec{Name: "vibe_list", Tier: rpc.TierRead, Requires: rpc.RequiresVibe, Description: "lists workers"},
			func(ctx context.Context, a noArgs) (echoOut, error) { return echoOut{Echo: "no workers"}, nil }),
		rpc.NewTool(rpc.Spec{Name: "ask_user", Tier: rpc.TierRead, Requires: rpc.RequiresElicitation, Description: "asks"},
			func(ctx context.Context, a noArgs) (echoOut, error) { return echoOut{Echo: "asked"}, nil }))
	c := connect(t, reg, nil)
	c.initialize(nil)
	for name, why := range map[string]string{
		"vibe_list": "vibe_list is not available: vibe mode is off in this session",
		"ask_user":  "ask_user is not available: this client cannot show a question to a person",
	} {
		res := c.result("tools/call", map[string]any{"name": name, "arguments": map[string]any{}})
		if text := toolText(t, res); res["isError"] != true || !strings.HasPrefix(text, why) || !strings.HasSuffix(text, "\nAvailable tools: lsp.") {
			t.Errorf("%s: %v", name, res)
		}
	}
	c.request("agent-tools/setMode", map[string]any{"vibe": true})
	if m := c.next(); m["method"] != "notifications/tools/list_changed" {
		t.Fatalf("want list_changed, got %v", m)
	}
	if m := c.next(); m["result"] == nil {
		t.Fatalf("want the setMode answer, got %v", m)
	}
	if res := c.result("tools/call", map[string]any{"name": "vibe_list", "arguments": map[string]any{}}); res["isError"] != nil {
		t.Errorf("vibe_list in vibe mode: %v", res)
	}
}

// TestOneLogLinePerCall: each tools/call logs tool, duration and isError
// at debug level.
func TestOneLogLinePerCall(t *testing.T) {
	var logs testutil.LogBuffer
	reg := rpc.NewRegistry()
	reg.Add(echoTool("echo", rpc.TierRead), failTool())
	c := connect(t, reg, &rpc.Options{Logger: debugLogger(&logs)})
	c.initialize(nil)
	c.result("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "a"}})
	c.result("tools/call", map[string]any{"name": "fail", "arguments": map[string]any{}})
	c.result("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": 1}})
	var got []string
	for _, l := range logs.Entries(t) {
		if l["message"] != "tools/call" {
			continue
		}
		if _, ok := l["duration"].(float64); !ok || l["level"] != "debug" {
			t.Errorf("log line without a duration, or not at debug level: %v", l)
		}
		got = append(got, fmt.Sprintf("%v %v", l["tool"], l["isError"]))
	}
	if diff := cmp.Diff([]string{"echo false", "fail true", "echo true"}, got); diff != "" {
		t.Errorf("log lines (-want +got):\n%s", diff)
	}
}

// progressTool reports progress 0 (as lsp does while it waits for an
// index), then blocks until release is closed or its context is done; it
// hands its context to the test on ctxs.
func progressTool(release <-chan struct{}, ctxs chan<- context.Context) *rpc.Tool {
	return rpc.NewTool(rpc.Spec{Name: "wait", Tier: rpc.TierRead, Description: "waits"},
		func(ctx context.Context, a noArgs) (echoOut, error) {
			rpc.ReportProgress(ctx, 0, 0, "waiting for the index")
			ctxs <- ctx
			select {
			case <-release:
			case <-ctx.Done():
			}
			return echoOut{Echo: "done"}, nil
		})
}

// TestProgressHeartbeat: a call with a progressToken gets "still running"
// heartbeats while it runs, on one strictly increasing counter with the
// tool's own reports; nothing is sent for it after its reply, or after it
// was cancelled; a call without a token gets none.
func TestProgressHeartbeat(t *testing.T) {
	release := make(chan struct{})
	ctxs := make(chan context.Context, 3)
	reg := rpc.NewRegistry()
	reg.Add(progressTool(release, ctxs))
	c := connect(t, reg, &rpc.Options{ProgressInterval: 5 * time.Millisecond})
	c.initialize(nil)
	id := c.request("tools/call", map[string]any{"name": "wait", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": 7}})
	ctx := <-ctxs

	var values []float64
	var messages []string
	for len(messages) < 4 {
		m := c.next()
		if m["method"] != "notifications/progress" {
			t.Fatalf("want progress, got %v", m)
		}
		p := m["params"].(map[string]any)
		if p["progressToken"] != 7.0 {
			t.Errorf("token: %v", p)
		}
		values = append(values, p["progress"].(float64))
		messages = append(messages, p["message"].(string))
		if len(messages) == 2 {
			rpc.ReportProgress(ctx, 1, 0, "still indexing") // not above the heartbeat's value
		}
	}
	for i := 1; i < len(values); i++ {
		if values[i] <= values[i-1] {
			t.Errorf("progress does not increase strictly: %v", values)
		}
	}
	if messages[0] != "waiting for the index" || !strings.HasPrefix(messages[1], "still running (") || !strings.HasSuffix(messages[1], " s): waiting for the index") {
		t.Errorf("messages: %q", messages)
	}
	close(release)
	for {
		m := c.next()
		if m["method"] == "notifications/progress" {
			continue // sent before the reply
		}
		if m["id"] != id || m["result"] == nil {
			t.Fatalf("want the reply, got %v", m)
		}
		break
	}
	// After the reply nothing more is sent for the call: a report on its
	// context is dropped, so the next message is the ping's answer.
	rpc.ReportProgress(ctx, 100, 0, "late")
	if m := c.call("ping", nil); m["result"] == nil {
		t.Fatalf("ping: %v", m)
	}

	// Cancelled: nothing more either, and no reply.
	reg = rpc.NewRegistry()
	reg.Add(progressTool(make(chan struct{}), ctxs))
	c = connect(t, reg, &rpc.Options{ProgressInterval: 5 * time.Millisecond})
	c.initialize(nil)
	id = c.request("tools/call", map[string]any{"name": "wait", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": "b"}})
	ctx = <-ctxs
	if m := c.next(); m["method"] != "notifications/progress" {
		t.Fatalf("want progress, got %v", m)
	}
	c.notify("notifications/cancelled", map[string]any{"requestId": id})
	<-ctx.Done()
	rpc.ReportProgress(ctx, 100, 0, "late")
	// A heartbeat may have been on its way when the cancel arrived; after
	// the ping's answer nothing more may come.
	pid := c.request("ping", nil)
	for {
		m := c.next()
		if m["id"] == pid {
			break
		}
		if m["method"] != "notifications/progress" || strings.Contains(fmt.Sprint(m), "late") {
			t.Fatalf("after the cancel: %v", m)
		}
	}
	if m := c.call("ping", nil); m["result"] == nil {
		t.Fatalf("ping: %v", m)
	}

	// No token: no notifications at all while it runs.
	release2 := make(chan struct{})
	reg2 := rpc.NewRegistry()
	reg2.Add(progressTool(release2, ctxs))
	c2 := connect(t, reg2, &rpc.Options{ProgressInterval: time.Millisecond})
	c2.initialize(nil)
	id = c2.request("tools/call", map[string]any{"name": "wait", "arguments": map[string]any{}})
	<-ctxs
	for range 3 {
		if m := c2.call("ping", nil); m["result"] == nil {
			t.Fatalf("ping: %v", m)
		}
	}
	close(release2)
	if m := c2.response(id); m["result"] == nil {
		t.Errorf("reply: %v", m)
	}
}

// linesTool returns n numbered lines of text, and reports the budget it
// was given in its structured result.
type linesArgs struct {
	N    int    `json:"n"`
	Line string `json:"line,omitempty"`
}

type linesOut struct {
	Budget int    `json:"budget"`
	Body   string `json:"body"`
}

func (l linesOut) Text() string { return l.Body }

func linesTool() *rpc.Tool {
	return rpc.NewTool(rpc.Spec{Name: "lines", Tier: rpc.TierRead, Description: "prints lines"},
		func(ctx context.Context, a linesArgs) (linesOut, error) {
			var b strings.Builder
			b.WriteString("summary: " + fmt.Sprint(a.N) + " lines\n")
			for i := 1; i < a.N; i++ {
				fmt.Fprintf(&b, "line %d %s\n", i, a.Line)
			}
			return linesOut{Budget: rpc.OutputBudget(ctx), Body: b.String()}, nil
		})
}

// TestOutputBudget: the session's budget reaches the tool, the server cuts
// a longer text keeping its head and saying what was left out, and leaves
// structured content whole; maxOutputBytes 0 means no budget.
func TestOutputBudget(t *testing.T) {
	experimental := func(o map[string]any) map[string]any {
		return map[string]any{"experimental": map[string]any{"agent-tools": o}}
	}
	tests := []struct {
		name       string
		opts       rpc.Mode
		caps       map[string]any
		wantBudget int
	}{
		{name: "default", wantBudget: rpc.DefaultOutputBudget},
		{name: "flag", opts: rpc.Mode{MaxOutputBytes: 2000}, wantBudget: 2000},
		{name: "initialize", opts: rpc.Mode{MaxOutputBytes: 2000}, caps: experimental(map[string]any{"maxOutputBytes": 1500, "structured": true}), wantBudget: 1500},
		{name: "none", caps: experimental(map[string]any{"maxOutputBytes": 0}), wantBudget: rpc.NoBudget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := rpc.NewRegistry()
			reg.Add(linesTool())
			c := connect(t, reg, &rpc.Options{Mode: tt.opts})
			c.initialize(tt.caps)
			res := c.result("tools/call", map[string]any{"name": "lines", "arguments": map[string]any{"n": 3000}})
			text := toolText(t, res)
			full := linesOut{Body: "summary: 3000 lines\n"}.Body
			if tt.wantBudget == rpc.NoBudget {
				if strings.Contains(text, "[cut:") || strings.Count(text, "\n") != 3000 {
					t.Errorf("cut without a budget: %d bytes", len(text))
				}
				return
			}
			if len(text) > tt.wantBudget || !strings.HasPrefix(text, full) {
				t.Errorf("%d bytes for a budget of %d, head %q", len(text), tt.wantBudget, text[:min(len(text), 40)])
			}
			lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
			note := lines[len(lines)-1]
			kept := len(lines) - 1
			want := fmt.Sprintf("[cut: %d of 3000 lines (", 3000-kept)
			if !strings.HasPrefix(note, want) || !strings.Contains(note, "--max-output-bytes") || !strings.Contains(note, "maxOutputBytes") {
				t.Errorf("note %q, want it to start %q and name both options", note, want)
			}
			if last := lines[kept-1]; last != fmt.Sprintf("line %d ", kept-1) {
				t.Errorf("the head does not end at a whole line: %q", last)
			}
			if sc, ok := res["structuredContent"].(map[string]any); ok {
				if sc["budget"] != float64(tt.wantBudget) || strings.Count(sc["body"].(string), "\n") != 3000 {
					t.Errorf("structured content was cut, or has the wrong budget: %v bytes, budget %v", len(sc["body"].(string)), sc["budget"])
				}
			}
		})
	}
}

// TestCutKeepsUTF8: one long line of multi-byte characters is cut on a
// character boundary, and the answer stays valid UTF-8 within the budget.
func TestCutKeepsUTF8(t *testing.T) {
	reg := rpc.NewRegistry()
	reg.Add(linesTool())
	c := connect(t, reg, &rpc.Options{Mode: rpc.Mode{MaxOutputBytes: 701}})
	c.initialize(nil)
	res := c.result("tools/call", map[string]any{"name": "lines", "arguments": map[string]any{"n": 1}})
	if strings.Contains(toolText(t, res), "[cut:") {
		t.Fatalf("a short answer was cut: %q", toolText(t, res))
	}
	// The summary line is short; make a tool answer whose first line alone
	// is over the budget.
	reg.Add(rpc.NewTool(rpc.Spec{Name: "wide", Tier: rpc.TierRead, Description: "one wide line"},
		func(ctx context.Context, a noArgs) (*rpc.CallToolResult, error) {
			return &rpc.CallToolResult{Content: []rpc.Content{rpc.TextContent(strings.Repeat("é€", 400) + "\nsecond\n")}}, nil
		}))
	if m := c.next(); m["method"] != "notifications/tools/list_changed" {
		t.Fatalf("want list_changed, got %v", m)
	}
	text := toolText(t, c.result("tools/call", map[string]any{"name": "wide", "arguments": map[string]any{}}))
	head, note, ok := strings.Cut(text, "\n")
	if !ok || !utf8.ValidString(text) || len(text) > 701 || !strings.HasPrefix(head, "é€") {
		t.Fatalf("cut answer (%d bytes, valid UTF-8 %v): %q", len(text), utf8.ValidString(text), text)
	}
	if want := "[cut: the rest of line 1 and 1 more of 2 lines ("; !strings.HasPrefix(note, want) || !strings.Contains(note, "over the 701-byte output budget") {
		t.Errorf("note %q, want it to start %q", note, want)
	}
}

// TestExtensionMethodHeartbeat: an extension method called with a
// progressToken (a didWrite waiting for a language server) gets the same
// heartbeat as a tools/call, and its own reports on the same counter.
func TestExtensionMethodHeartbeat(t *testing.T) {
	release := make(chan struct{})
	reg := rpc.NewRegistry()
	reg.HandleMethod("agent-tools/didWrite", func(ctx context.Context, params json.RawMessage) (any, error) {
		rpc.ReportProgress(ctx, 0, 0, "waiting for gopls")
		<-release
		return map[string]any{"text": ""}, nil
	})
	c := connect(t, reg, &rpc.Options{ProgressInterval: 5 * time.Millisecond})
	c.initialize(nil)
	id := c.request("agent-tools/didWrite", map[string]any{"paths": []string{"a.go"}, "_meta": map[string]any{"progressToken": "w"}})
	var messages []string
	for len(messages) < 2 {
		m := c.next()
		p, _ := m["params"].(map[string]any)
		if m["method"] != "notifications/progress" || p["progressToken"] != "w" {
			t.Fatalf("want progress, got %v", m)
		}
		messages = append(messages, p["message"].(string))
	}
	if messages[0] != "waiting for gopls" || !strings.HasPrefix(messages[1], "still running (") {
		t.Errorf("messages: %q", messages)
	}
	close(release)
	for {
		m := c.next()
		if m["id"] == id {
			break
		}
		if m["method"] != "notifications/progress" {
			t.Fatalf("want the reply, got %v", m)
		}
	}
	if m := c.call("ping", nil); m["result"] == nil {
		t.Fatalf("ping: %v", m)
	}
}

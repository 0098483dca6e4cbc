package rpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-tools/agent-tools/rpc"
)

// client is an in-process test client: it writes lines to the server and
// collects every line the server writes, decoded.
type client struct {
	t      *testing.T
	in     *io.PipeWriter
	msgs   chan map[string]any
	raw    chan string
	done   chan struct{} // Serve returned and output was drained
	nextID int
}

// step is how long a test waits for a message before calling it lost.
// A passing test never waits it out, so it is long: a loaded machine (CI
// at load 20) once took more than 5 s to deliver a list_changed.
const step = 60 * time.Second

func connect(t *testing.T, reg *rpc.Registry, opts *rpc.Options) *client {
	t.Helper()
	if reg == nil {
		reg = rpc.NewRegistry()
	}
	if opts == nil {
		opts = &rpc.Options{}
	}
	if opts.Mode.Root == "" {
		opts.Mode.Root = t.TempDir()
	}
	opts.Version = "test"
	srv := rpc.NewServer(reg, opts)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, msgs: make(chan map[string]any, 1000), raw: make(chan string, 1000), done: make(chan struct{})}
	served := make(chan struct{})
	go func() {
		srv.Serve(t.Context(), inR, outW)
		outW.Close()
		close(served)
	}()
	go func() {
		defer close(c.done)
		dec := bufioLines(outR)
		for line := range dec {
			c.raw <- line
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Errorf("server wrote a line that is not JSON: %q", line)
				continue
			}
			c.msgs <- m
		}
		close(c.msgs)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after stdin closed")
		}
	})
	return c
}

func bufioLines(r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		buf := make([]byte, 0, 1<<16)
		tmp := make([]byte, 1<<16)
		for {
			n, err := r.Read(tmp)
			buf = append(buf, tmp[:n]...)
			for {
				i := bytes.IndexByte(buf, '\n')
				if i < 0 {
					break
				}
				ch <- string(buf[:i])
				buf = buf[i+1:]
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

func (c *client) sendLine(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("writing to the server: %v", err)
	}
}

func (c *client) send(msg map[string]any) {
	c.t.Helper()
	msg["jsonrpc"] = "2.0"
	data, _ := json.Marshal(msg)
	c.sendLine(string(data))
}

// request sends a request and returns its id.
func (c *client) request(method string, params any) float64 {
	c.t.Helper()
	c.nextID++
	m := map[string]any{"id": c.nextID, "method": method}
	if params != nil {
		m["params"] = params
	}
	c.send(m)
	return float64(c.nextID)
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	m := map[string]any{"method": method}
	if params != nil {
		m["params"] = params
	}
	c.send(m)
}

// next returns the next message from the server.
func (c *client) next() map[string]any {
	c.t.Helper()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			c.t.Fatal("the server closed its output")
		}
		return m
	case <-time.After(step):
		c.t.Fatal("no message from the server")
	}
	return nil
}

// response reads messages until the response with id, failing on any
// other message unless it is a notification listed in allow.
func (c *client) response(id float64) map[string]any {
	c.t.Helper()
	for {
		m := c.next()
		if _, isReq := m["method"]; isReq {
			c.t.Fatalf("waiting for response %v, got %v", id, m)
		}
		if m["id"] == id {
			return m
		}
		c.t.Fatalf("waiting for response %v, got %v", id, m)
	}
}

func (c *client) call(method string, params any) map[string]any {
	c.t.Helper()
	return c.response(c.request(method, params))
}

func (c *client) result(method string, params any) map[string]any {
	c.t.Helper()
	m := c.call(method, params)
	res, ok := m["result"].(map[string]any)
	if !ok {
		c.t.Fatalf("%s: want a result, got %v", method, m)
	}
	return res
}

func (c *client) initialize(caps map[string]any) map[string]any {
	c.t.Helper()
	if caps == nil {
		caps = map[string]any{}
	}
	res := c.result("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    caps,
		"clientInfo":      map[string]any{"name": "test", "version": "1"},
	})
	c.notify("notifications/initialized", nil)
	return res
}

// rest closes the input and returns every message the server still sends.
func (c *client) rest() []map[string]any {
	c.t.Helper()
	c.in.Close()
	var out []map[string]any
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				return out
			}
			out = append(out, m)
		case <-timeout:
			c.t.Fatal("the server did not finish after stdin closed")
		}
	}
}

func errCode(t *testing.T, m map[string]any) float64 {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("want an error response, got %v", m)
	}
	return e["code"].(float64)
}

func toolText(t *testing.T, res map[string]any) string {
	t.Helper()
	content, _ := res["content"].([]any)
	var b strings.Builder
	for _, c := range content {
		if m, ok := c.(map[string]any); ok && m["type"] == "text" {
			b.WriteString(m["text"].(string))
		}
	}
	return b.String()
}

// --- test tools ---

type echoArgs struct {
	Text  string `json:"text" jsonschema_description:"what to echo"`
	Times int    `json:"times,omitempty" jsonschema_description:"how many times" jsonschema:"minimum=1"`
}

type echoOut struct {
	Echo string `json:"echo"`
}

func (e echoOut) Text() string { return "echo: " + e.Echo }

func echoTool(name string, tier rpc.Tier) *rpc.Tool {
	return rpc.NewTool(rpc.Spec{Name: name, Tier: tier, Description: "echoes text"},
		func(ctx context.Context, a echoArgs) (echoOut, error) {
			n := max(a.Times, 1)
			return echoOut{Echo: strings.Repeat(a.Text, n)}, nil
		})
}

type noArgs struct{}

func failTool() *rpc.Tool {
	return rpc.NewTool(rpc.Spec{Name: "fail", Tier: rpc.TierRead, Description: "always fails"},
		func(ctx context.Context, a noArgs) (*rpc.CallToolResult, error) {
			return nil, errors.New("file lib/x.go not found")
		})
}

func panicTool() *rpc.Tool {
	return rpc.NewTool(rpc.Spec{Name: "boom", Tier: rpc.TierRead, Description: "panics"},
		func(ctx context.Context, a noArgs) (*rpc.CallToolResult, error) {
			panic("kaboom")
		})
}

// blockTool blocks until its context is done and reports that on seen.
func blockTool(started, seen chan<- string) *rpc.Tool {
	return rpc.NewTool(rpc.Spec{Name: "block", Tier: rpc.TierRead, Description: "blocks until cancelled"},
		func(ctx context.Context, a echoArgs) (echoOut, error) {
			started <- a.Text
			<-ctx.Done()
			seen <- a.Text
			return echoOut{Echo: "finished anyway"}, nil
		})
}

func TestInitializeNegotiatesVersion(t *testing.T) {
	tests := []struct{ name, asked, want string }{
		{"newest", "2025-11-25", "2025-11-25"},
		{"previous", "2025-06-18", "2025-06-18"},
		{"oldest supported", "2025-03-26", "2025-03-26"},
		{"too old gets newest", "2024-11-05", "2025-11-25"},
		{"future gets newest", "2099-01-01", "2025-11-25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := connect(t, nil, nil)
			res := c.result("initialize", map[string]any{"protocolVersion": tt.asked, "capabilities": map[string]any{}})
			if got := res["protocolVersion"]; got != tt.want {
				t.Errorf("protocolVersion = %v, want %v", got, tt.want)
			}
			info := res["serverInfo"].(map[string]any)
			if info["name"] != "agent-tools" || info["version"] != "test" {
				t.Errorf("serverInfo = %v", info)
			}
			caps := res["capabilities"].(map[string]any)
			if caps["tools"].(map[string]any)["listChanged"] != true {
				t.Errorf("capabilities.tools.listChanged not true: %v", caps)
			}
		})
	}
}

func TestLifecycleGates(t *testing.T) {
	c := connect(t, nil, nil)
	if code := errCode(t, c.call("tools/list", nil)); code != -32600 {
		t.Errorf("tools/list before initialize: code %v, want -32600", code)
	}
	if m := c.call("ping", nil); m["result"] == nil {
		t.Errorf("ping before initialize: %v", m)
	}
	if code := errCode(t, c.call("initialize", map[string]any{})); code != -32602 {
		t.Errorf("initialize without protocolVersion: code %v, want -32602", code)
	}
	c.initialize(nil)
	if code := errCode(t, c.call("initialize", map[string]any{"protocolVersion": "2025-11-25"})); code != -32600 {
		t.Errorf("second initialize: code %v, want -32600", code)
	}
	for _, method := range []string{"server/discover", "resources/list", "no/such"} {
		if code := errCode(t, c.call(method, nil)); code != -32601 {
			t.Errorf("%s: code %v, want -32601", method, code)
		}
	}
}

func TestBadLinesKeepTheSessionAlive(t *testing.T) {
	tests := []struct {
		name   string
		line   string
		code   float64
		wantID any // the id the error must carry
	}{
		{"garbage", `this is not json`, -32700, nil},
		{"truncated", `{"jsonrpc":"2.0","id":7,"method":"ping"`, -32700, nil},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, nil},
		{"empty batch", `[]`, -32600, nil},
		{"number", `42`, -32600, nil},
		{"string", `"ping"`, -32600, nil},
		{"no jsonrpc", `{"id":5,"method":"ping"}`, -32600, 5.0},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, -32600, 5.0},
		{"method not a string", `{"jsonrpc":"2.0","id":5,"method":7}`, -32600, 5.0},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, nil},
		{"negative id", `{"jsonrpc":"2.0","id":-1,"method":"ping"}`, -32600, nil},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, nil},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, nil},
		{"params a string", `{"jsonrpc":"2.0","id":"s","method":"ping","params":"x"}`, -32602, "s"},
		{"neither request nor response", `{"jsonrpc":"2.0","id":9}`, -32600, 9.0},
		{"both method and result", `{"jsonrpc":"2.0","id":9,"method":"ping","result":{}}`, -32600, 9.0},
	}
	c := connect(t, nil, nil)
	c.initialize(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			c.sendLine(tt.line)
			m := c.next()
			if got := errCode(t, m); got != tt.code {
				t.Errorf("code = %v, want %v (%v)", got, tt.code, m)
			}
			if m["id"] != tt.wantID {
				t.Errorf("id = %v, want %v", m["id"], tt.wantID)
			}
			if p := c.call("ping", nil); p["result"] == nil {
				t.Errorf("ping after a bad line: %v", p)
			}
		})
	}
}

func TestResponsesToNothingAreIgnored(t *testing.T) {
	c := connect(t, nil, nil)
	c.initialize(nil)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":12345,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
		`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/unknown"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":"bad"}`,
	} {
		c.sendLine(line)
	}
	if p := c.call("ping", nil); p["result"] == nil {
		t.Fatalf("ping: %v", p)
	}
}

func TestOverlongLine(t *testing.T) {
	c := connect(t, nil, &rpc.Options{MaxMessageBytes: 1024})
	c.initialize(nil)
	c.sendLine(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 200000) + `"}}`)
	m := c.next()
	if errCode(t, m) != -32600 || !strings.Contains(m["error"].(map[string]any)["message"].(string), "1024-byte limit") {
		t.Errorf("over-long line: %v", m)
	}
	if p := c.call("ping", nil); p["result"] == nil {
		t.Fatalf("ping after an over-long line: %v", p)
	}
}

func registryWithTiers() *rpc.Registry {
	reg := rpc.NewRegistry()
	reg.Add(echoTool("zeta_read", rpc.TierRead), echoTool("alpha_write", rpc.TierWrite), echoTool("mid_exec", rpc.TierExec))
	return reg
}

func listNames(t *testing.T, c *client) []string {
	t.Helper()
	res := c.result("tools/list", nil)
	var names []string
	for _, tool := range res["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	return names
}

func TestToolsListPerSurface(t *testing.T) {
	tests := []struct {
		surface rpc.Surface
		want    []string
	}{
		{rpc.SurfaceFull, []string{"alpha_write", "mid_exec", "zeta_read"}},
		{rpc.SurfacePlan, []string{"zeta_read"}},
		{rpc.SurfaceReadonly, []string{"zeta_read"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.surface), func(t *testing.T) {
			c := connect(t, registryWithTiers(), &rpc.Options{Mode: rpc.Mode{Surface: tt.surface}})
			c.initialize(nil)
			if diff := cmp.Diff(tt.want, listNames(t, c)); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			// A hidden tool is an error result saying why and what is
			// available (Codex never re-lists, so its model calls it).
			hidden := map[string]string{
				"alpha_write": `alpha_write is not available on the "` + string(tt.surface) + `" surface: it changes files (write tier)`,
				"mid_exec":    `mid_exec is not available on the "` + string(tt.surface) + `" surface: it runs code or controls processes (exec tier)`,
			}
			for name, why := range hidden {
				if tt.surface == rpc.SurfaceFull {
					continue
				}
				res := c.result("tools/call", map[string]any{"name": name, "arguments": map[string]any{"text": "x"}})
				text := toolText(t, res)
				if res["isError"] != true || !strings.HasPrefix(text, why) || !strings.HasSuffix(text, "\nAvailable tools: zeta_read.") {
					t.Errorf("calling hidden %s: %v", name, res)
				}
			}
			// A name no tool has stays a protocol error, listing the tools.
			m := c.call("tools/call", map[string]any{"name": "nope", "arguments": map[string]any{"text": "x"}})
			if errCode(t, m) != -32602 {
				t.Errorf("calling nope: %v", m)
			}
			want := fmt.Sprintf("invalid params: unknown tool \"nope\" (available tools: %s)", strings.Join(tt.want, ", "))
			if msg := m["error"].(map[string]any)["message"]; msg != want {
				t.Errorf("calling nope: message %q, want %q", msg, want)
			}
		})
	}
}

func TestToolInfo(t *testing.T) {
	c := connect(t, registryWithTiers(), &rpc.Options{Mode: rpc.Mode{Structured: true}})
	c.initialize(nil)
	res := c.result("tools/list", nil)
	byName := map[string]map[string]any{}
	for _, tool := range res["tools"].([]any) {
		m := tool.(map[string]any)
		byName[m["name"].(string)] = m
	}
	read, write := byName["zeta_read"], byName["alpha_write"]
	in := read["inputSchema"].(map[string]any)
	if in["type"] != "object" || in["$ref"] != nil || in["$defs"] != nil {
		t.Errorf("inputSchema root is not a flat object: %v", in)
	}
	if out, ok := read["outputSchema"].(map[string]any); !ok || out["type"] != "object" {
		t.Errorf("outputSchema: %v", read["outputSchema"])
	}
	if a := read["annotations"].(map[string]any); a["readOnlyHint"] != true || a["destructiveHint"] != nil {
		t.Errorf("read annotations: %v", a)
	}
	if a := write["annotations"].(map[string]any); a["readOnlyHint"] != false || a["destructiveHint"] != true {
		t.Errorf("write annotations: %v", a)
	}
	if meta := write["_meta"].(map[string]any); meta["agent-tools/tier"] != "write" {
		t.Errorf("_meta: %v", meta)
	}
}

func TestToolsCall(t *testing.T) {
	reg := rpc.NewRegistry()
	reg.Add(echoTool("echo", rpc.TierRead), failTool(), panicTool())
	c := connect(t, reg, &rpc.Options{Mode: rpc.Mode{Structured: true}})
	c.initialize(nil)

	res := c.result("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi", "times": 2}})
	if res["isError"] != nil || toolText(t, res) != "echo: hihi" {
		t.Errorf("echo: %v", res)
	}
	if diff := cmp.Diff(map[string]any{"echo": "hihi"}, res["structuredContent"]); diff != "" {
		t.Errorf("structuredContent (-want +got):\n%s", diff)
	}

	tests := []struct {
		name string
		args any
		tool string
		want string // substring of the error text
	}{
		{"missing field", map[string]any{}, "echo", "'text'"},
		{"wrong type", map[string]any{"text": 5}, "echo", "'text'"},
		{"unknown field", map[string]any{"text": "a", "colour": "red"}, "echo", "'colour'"},
		{"below minimum", map[string]any{"text": "a", "times": 0}, "echo", "'times'"},
		{"not an object", []any{1}, "echo", "object"},
		{"handler error", map[string]any{}, "fail", "file lib/x.go not found"},
		{"panic", map[string]any{}, "boom", "kaboom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			res := c.result("tools/call", map[string]any{"name": tt.tool, "arguments": tt.args})
			if res["isError"] != true || !strings.Contains(toolText(t, res), tt.want) {
				t.Errorf("want isError naming %s, got %v", tt.want, res)
			}
		})
	}
	if code := errCode(t, c.call("tools/call", map[string]any{"arguments": map[string]any{}})); code != -32602 {
		t.Errorf("tools/call without name: %v", code)
	}
	if p := c.call("ping", nil); p["result"] == nil {
		t.Errorf("ping after a panic: %v", p)
	}
}

func TestCancelledCallGetsNoResponse(t *testing.T) {
	started, seen := make(chan string, 1), make(chan string, 1)
	reg := rpc.NewRegistry()
	reg.Add(blockTool(started, seen), echoTool("echo", rpc.TierRead))
	c := connect(t, reg, nil)
	c.initialize(nil)

	id := c.request("tools/call", map[string]any{"name": "block", "arguments": map[string]any{"text": "one"}})
	<-started
	c.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": "user pressed stop"})
	select {
	case <-seen:
	case <-time.After(step):
		t.Fatal("the cancelled call's context was not done")
	}
	res := c.result("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "after"}})
	if toolText(t, res) != "echo: after" {
		t.Errorf("call after cancel: %v", res)
	}
	for _, m := range c.rest() {
		if m["id"] == id {
			t.Errorf("the cancelled call was answered: %v", m)
		}
	}
}

func TestCallsRunConcurrently(t *testing.T) {
	started, seen := make(chan string, 2), make(chan string, 2)
	reg := rpc.NewRegistry()
	reg.Add(blockTool(started, seen), echoTool("echo", rpc.TierRead))
	c := connect(t, reg, nil)
	c.initialize(nil)
	c.request("tools/call", map[string]any{"name": "block", "arguments": map[string]any{"text": "a"}})
	<-started
	// A blocked call must not stall the read loop or other calls.
	if res := c.result("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "b"}}); toolText(t, res) != "echo: b" {
		t.Errorf("echo while another call blocks: %v", res)
	}
	// Shutdown cancels the blocked call, which then answers.
	rest := c.rest()
	<-seen
	if len(rest) != 1 || rest[0]["id"] != 2.0 {
		t.Errorf("after shutdown want the blocked call's answer, got %v", rest)
	}
}

func TestDuplicateInflightID(t *testing.T) {
	started, seen := make(chan string, 2), make(chan string, 2)
	reg := rpc.NewRegistry()
	reg.Add(blockTool(started, seen))
	c := connect(t, reg, nil)
	c.initialize(nil)
	c.send(map[string]any{"id": 50, "method": "tools/call", "params": map[string]any{"name": "block", "arguments": map[string]any{"text": "a"}}})
	<-started
	c.send(map[string]any{"id": 50, "method": "tools/call", "params": map[string]any{"name": "block", "arguments": map[string]any{"text": "b"}}})
	if m := c.next(); m["id"] != 50.0 || errCode(t, m) != -32600 {
		t.Errorf("duplicate id: %v", m)
	}
}

func TestProgress(t *testing.T) {
	reg := rpc.NewRegistry()
	reg.Add(rpc.NewTool(rpc.Spec{Name: "slow", Tier: rpc.TierRead, Description: "reports progress"},
		func(ctx context.Context, a noArgs) (echoOut, error) {
			rpc.ReportProgress(ctx, 1, 2, "half")
			rpc.ReportProgress(ctx, 2, 2, "")
			return echoOut{Echo: "done"}, nil
		}))
	c := connect(t, reg, nil)
	c.initialize(nil)
	id := c.request("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": "tok"}})
	want := []map[string]any{
		{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": "tok", "progress": 1.0, "total": 2.0, "message": "half"}},
		{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": "tok", "progress": 2.0, "total": 2.0}},
	}
	got := []map[string]any{c.next(), c.next()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if m := c.response(id); m["result"] == nil {
		t.Errorf("result: %v", m)
	}
	// Without a token: no notifications.
	id = c.request("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}})
	c.response(id)
}

func TestSetModeSendsListChanged(t *testing.T) {
	reg := registryWithTiers()
	vibe := rpc.NewTool(rpc.Spec{Name: "vibe_list", Tier: rpc.TierRead, Requires: rpc.RequiresVibe, Description: "lists workers"},
		func(ctx context.Context, a noArgs) (echoOut, error) { return echoOut{}, nil })
	reg.Add(vibe)
	c := connect(t, reg, nil)
	c.initialize(nil)
	if diff := cmp.Diff([]string{"alpha_write", "mid_exec", "zeta_read"}, listNames(t, c)); diff != "" {
		t.Errorf("full (-want +got):\n%s", diff)
	}

	steps := []struct {
		params      map[string]any
		listChanged bool
		want        []string
	}{
		{map[string]any{"surface": "plan"}, true, []string{"zeta_read"}},
		{map[string]any{"surface": "readonly"}, false, []string{"zeta_read"}},
		{map[string]any{"vibe": true}, true, []string{"vibe_list", "zeta_read"}},
		{map[string]any{"surface": "full", "vibe": false}, true, []string{"alpha_write", "mid_exec", "zeta_read"}},
		{map[string]any{}, false, []string{"alpha_write", "mid_exec", "zeta_read"}},
	}
	for i, s := range steps {
		id := c.request("agent-tools/setMode", s.params)
		m := c.next()
		if s.listChanged {
			if m["method"] != "notifications/tools/list_changed" {
				t.Fatalf("step %d: want list_changed before the answer, got %v", i, m)
			}
			m = c.next()
		}
		if m["id"] != id || m["result"] == nil {
			t.Fatalf("step %d: want the setMode answer, got %v", i, m)
		}
		if diff := cmp.Diff(s.want, listNames(t, c)); diff != "" {
			t.Errorf("step %d (-want +got):\n%s", i, diff)
		}
	}
	for _, bad := range []map[string]any{{"surface": "root"}, {"vibe": "yes"}, {"colour": 1}} {
		if code := errCode(t, c.call("agent-tools/setMode", bad)); code != -32602 {
			t.Errorf("setMode %v: code %v", bad, code)
		}
	}
}

func TestInitializeOptions(t *testing.T) {
	dir := t.TempDir()
	c := connect(t, registryWithTiers(), nil)
	c.initialize(map[string]any{"experimental": map[string]any{"agent-tools": map[string]any{"surface": "plan", "root": dir}}})
	if diff := cmp.Diff([]string{"zeta_read"}, listNames(t, c)); diff != "" {
		t.Errorf("surface from initialize (-want +got):\n%s", diff)
	}

	bad := connect(t, nil, nil)
	m := bad.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{
		"experimental": map[string]any{"agent-tools": map[string]any{"root": dir + "/missing"}}}})
	if errCode(t, m) != -32602 {
		t.Errorf("missing root: %v", m)
	}
}

func TestLateRegistrationSendsListChanged(t *testing.T) {
	reg := rpc.NewRegistry()
	c := connect(t, reg, nil)
	c.initialize(nil)
	if n := listNames(t, c); len(n) != 0 {
		t.Fatalf("tools: %v", n)
	}
	reg.Add(echoTool("late", rpc.TierRead))
	if m := c.next(); m["method"] != "notifications/tools/list_changed" {
		t.Fatalf("want list_changed, got %v", m)
	}
	if diff := cmp.Diff([]string{"late"}, listNames(t, c)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestOldRevisionHasNoStructuredContent(t *testing.T) {
	reg := rpc.NewRegistry()
	reg.Add(echoTool("echo", rpc.TierRead))
	c := connect(t, reg, &rpc.Options{Mode: rpc.Mode{Structured: true}}) // even when asked for
	c.result("initialize", map[string]any{"protocolVersion": "2025-03-26", "capabilities": map[string]any{}})
	tool := c.result("tools/list", nil)["tools"].([]any)[0].(map[string]any)
	if tool["outputSchema"] != nil {
		t.Errorf("outputSchema sent to a 2025-03-26 client")
	}
	res := c.result("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}})
	if res["structuredContent"] != nil || toolText(t, res) != "echo: x" {
		t.Errorf("result for 2025-03-26: %v", res)
	}
}

// askTool asks the client a question and returns the answer's action.
func askTool() *rpc.Tool {
	return rpc.NewTool(rpc.Spec{Name: "ask", Tier: rpc.TierRead, Requires: rpc.RequiresElicitation, Description: "asks"},
		func(ctx context.Context, a echoArgs) (echoOut, error) {
			res, err := rpc.SessionFrom(ctx).Elicit(ctx, rpc.ElicitRequest{
				Message:         a.Text,
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`),
			})
			if err != nil {
				return echoOut{}, err
			}
			return echoOut{Echo: res.Action}, nil
		})
}

func TestElicitation(t *testing.T) {
	reg := rpc.NewRegistry()
	reg.Add(askTool(), echoTool("echo", rpc.TierRead))

	t.Run("hidden without the capability", func(t *testing.T) {
		c := connect(t, reg, nil)
		c.initialize(nil)
		if diff := cmp.Diff([]string{"echo"}, listNames(t, c)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("answered", func(t *testing.T) {
		c := connect(t, reg, nil)
		c.initialize(map[string]any{"elicitation": map[string]any{}})
		id := c.request("tools/call", map[string]any{"name": "ask", "arguments": map[string]any{"text": "proceed?"}})
		req := c.next()
		if req["method"] != "elicitation/create" || req["params"].(map[string]any)["message"] != "proceed?" {
			t.Fatalf("want elicitation/create, got %v", req)
		}
		// While the tool waits on the client, other calls still work.
		if res := c.result("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}); toolText(t, res) != "echo: x" {
			t.Errorf("echo while waiting: %v", res)
		}
		c.send(map[string]any{"id": req["id"], "result": map[string]any{"action": "accept", "content": map[string]any{"ok": true}}})
		if res := c.response(id)["result"].(map[string]any); toolText(t, res) != "echo: accept" {
			t.Errorf("answer: %v", res)
		}
	})
	t.Run("client error fails the call", func(t *testing.T) {
		c := connect(t, reg, nil)
		c.initialize(map[string]any{"elicitation": map[string]any{}})
		id := c.request("tools/call", map[string]any{"name": "ask", "arguments": map[string]any{"text": "?"}})
		req := c.next()
		c.send(map[string]any{"id": req["id"], "error": map[string]any{"code": -32603, "message": "no person attached"}})
		res := c.response(id)["result"].(map[string]any)
		if res["isError"] != true || !strings.Contains(toolText(t, res), "no person attached") {
			t.Errorf("want an error result, got %v", res)
		}
	})
	t.Run("cancel reaches the client", func(t *testing.T) {
		c := connect(t, reg, nil)
		c.initialize(map[string]any{"elicitation": map[string]any{}})
		id := c.request("tools/call", map[string]any{"name": "ask", "arguments": map[string]any{"text": "?"}})
		req := c.next()
		c.notify("notifications/cancelled", map[string]any{"requestId": id})
		m := c.next()
		if m["method"] != "notifications/cancelled" || m["params"].(map[string]any)["requestId"] != req["id"] {
			t.Errorf("want our elicitation cancelled on the client, got %v", m)
		}
	})
}

func TestRegistryRules(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	mustPanic("no tier", func() {
		rpc.NewTool(rpc.Spec{Name: "x", Description: "d"}, func(context.Context, noArgs) (echoOut, error) { return echoOut{}, nil })
	})
	mustPanic("bad name", func() {
		rpc.NewTool(rpc.Spec{Name: "Bad Name", Tier: rpc.TierRead, Description: "d"}, func(context.Context, noArgs) (echoOut, error) { return echoOut{}, nil })
	})
	mustPanic("duplicate", func() {
		reg := rpc.NewRegistry()
		reg.Add(echoTool("a", rpc.TierRead), echoTool("a", rpc.TierRead))
	})
	mustPanic("map args", func() {
		rpc.NewTool(rpc.Spec{Name: "m", Tier: rpc.TierRead, Description: "d"}, func(context.Context, map[string]any) (echoOut, error) { return echoOut{}, nil })
	})
}

func TestConcurrentSessionsShareARegistry(t *testing.T) {
	reg := registryWithTiers()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			defer wg.Done()
			c := connect(t, reg, nil)
			c.initialize(nil)
			if n := listNames(t, c); len(n) != 3 {
				t.Errorf("tools: %v", n)
			}
		})
	}
	wg.Wait()
}

func TestCallClientTool(t *testing.T) {
	reg := rpc.NewRegistry()
	reg.Add(rpc.NewTool(rpc.Spec{Name: "bridge", Tier: rpc.TierRead, Description: "calls a harness tool"},
		func(ctx context.Context, a echoArgs) (*rpc.CallToolResult, error) {
			return rpc.SessionFrom(ctx).CallClientTool(ctx, "read", json.RawMessage(`{"path":"`+a.Text+`"}`))
		}))

	t.Run("not offered", func(t *testing.T) {
		c := connect(t, reg, nil)
		c.initialize(nil)
		res := c.result("tools/call", map[string]any{"name": "bridge", "arguments": map[string]any{"text": "a.go"}})
		if res["isError"] != true || !strings.Contains(toolText(t, res), "callTool") {
			t.Errorf("want an error naming callTool, got %v", res)
		}
	})
	t.Run("round trip", func(t *testing.T) {
		c := connect(t, reg, nil)
		c.initialize(map[string]any{"experimental": map[string]any{"agent-tools": map[string]any{"callTool": true}}})
		id := c.request("tools/call", map[string]any{"name": "bridge", "arguments": map[string]any{"text": "lib/a.go"}})
		req := c.next()
		want := map[string]any{"name": "read", "arguments": map[string]any{"path": "lib/a.go"}}
		if req["method"] != "agent-tools/callTool" {
			t.Fatalf("want agent-tools/callTool, got %v", req)
		}
		if diff := cmp.Diff(want, req["params"]); diff != "" {
			t.Errorf("params (-want +got):\n%s", diff)
		}
		c.send(map[string]any{"id": req["id"], "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "package a"}}}})
		if res := c.response(id)["result"].(map[string]any); toolText(t, res) != "package a" {
			t.Errorf("bridged result: %v", res)
		}
	})
}

func TestExtensionMethod(t *testing.T) {
	reg := rpc.NewRegistry()
	reg.HandleMethod("agent-tools/didWrite", func(ctx context.Context, params json.RawMessage) (any, error) {
		var p struct {
			Paths []string `json:"paths"`
		}
		if err := json.Unmarshal(params, &p); err != nil || len(p.Paths) == 0 {
			return nil, fmt.Errorf("%w: didWrite needs paths", rpc.ErrInvalidParams)
		}
		return map[string]any{"text": "wrote " + strings.Join(p.Paths, ",")}, nil
	})
	c := connect(t, reg, nil)
	if code := errCode(t, c.call("agent-tools/didWrite", map[string]any{"paths": []string{"a"}})); code != -32600 {
		t.Errorf("before initialize: code %v", code)
	}
	c.initialize(nil)
	if res := c.result("agent-tools/didWrite", map[string]any{"paths": []string{"a.go", "b.go"}}); res["text"] != "wrote a.go,b.go" {
		t.Errorf("didWrite: %v", res)
	}
	if code := errCode(t, c.call("agent-tools/didWrite", map[string]any{})); code != -32602 {
		t.Errorf("bad params: code %v", code)
	}
	for _, bad := range []string{"didWrite", "agent-tools/", "tools/call", "agent-tools/setMode"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("HandleMethod(%q) did not panic", bad)
				}
			}()
			reg.HandleMethod(bad, nil)
		}()
	}
}

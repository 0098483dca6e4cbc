package main

// This file is the hostile-client suite of issue 8: garbage, truncated and
// over-long lines, wrong argument types for every listed tool, deep
// nesting, unknown fields, out-of-range numbers, non-UTF-8 paths and
// contents, requests before initialize, duplicate ids and responses to
// nothing, all through the real binary. Every case must get the right
// answer (or none, where none is due) and the next valid call must work.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
	"github.com/agent-tools/agent-tools/rpc"
)

// hostileCase is one line sent by a hostile client and what must come
// back for it.
type hostileCase struct {
	name string
	line string
	// reply: "none" (nothing may answer), "wire" (a JSON-RPC error with
	// code, for id; a nil id means null), "tool" (a tools/call result for
	// id, isError as given) or "ok" (a plain result for id).
	reply   string
	id      any
	code    int
	isError bool
	want    string // in the error message or the result's text
}

// hostileProbeID numbers the valid calls sent after each case.
var hostileProbeID = 100000

// hostileRun sends c.line followed by a valid test_echo call, reads until
// both answers are in (or only the probe's, when c expects none) and
// checks them.
func hostileRun(t *testing.T, s *server, c hostileCase) {
	t.Helper()
	hostileProbeID++
	probe := hostileProbeID
	s.send(c.line)
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"test_echo","arguments":{"text":"alive %d"}}}`, probe, probe))
	var replies []map[string]any
	probed := false
	s.await(func() string {
		return fmt.Sprintf("%s: answer (the server died? probe answered: %v; replies: %v)", c.name, probed, replies)
	}, func(m map[string]any) bool {
		if m["method"] != nil {
			return false // a notification
		}
		if id, ok := m["id"].(float64); ok && int(id) == probe {
			hostileCheckEcho(t, c.name, m, probe)
			probed = true
		} else {
			replies = append(replies, m)
		}
		return probed && (c.reply == "none" || len(replies) > 0)
	})
	if c.reply == "none" {
		if len(replies) != 0 {
			t.Errorf("%s: want no answer, got %v", c.name, replies)
		}
		return
	}
	if len(replies) != 1 {
		t.Fatalf("%s: want one answer, got %v", c.name, replies)
	}
	hostileCheckReply(t, c, replies[0])
}

func hostileCheckEcho(t *testing.T, name string, m map[string]any, probe int) {
	t.Helper()
	res, _ := m["result"].(map[string]any)
	if res == nil || res["isError"] == true || hostileText(res) != fmt.Sprintf("alive %d", probe) {
		t.Fatalf("%s: the next valid call failed: %v", name, m)
	}
}

func hostileCheckReply(t *testing.T, c hostileCase, m map[string]any) {
	t.Helper()
	wantID := c.id
	if n, ok := c.id.(int); ok {
		wantID = float64(n)
	}
	if m["id"] != wantID {
		t.Errorf("%s: answer has id %v, want %v: %v", c.name, m["id"], wantID, m)
	}
	switch c.reply {
	case "wire":
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(c.code) || !strings.Contains(fmt.Sprint(e["message"]), c.want) {
			t.Errorf("%s: want error %d containing %q, got %v", c.name, c.code, c.want, m)
		}
	case "tool":
		res, _ := m["result"].(map[string]any)
		text := hostileText(res)
		if res == nil || (res["isError"] == true) != c.isError || !strings.Contains(text, c.want) {
			t.Errorf("%s: want a result with isError %v containing %q, got %v", c.name, c.isError, c.want, m)
		}
	case "ok":
		if m["result"] == nil || m["error"] != nil {
			t.Errorf("%s: want a result, got %v", c.name, m)
		}
	}
}

func hostileText(res map[string]any) string {
	var b strings.Builder
	content, _ := res["content"].([]any)
	for _, c := range content {
		if m, ok := c.(map[string]any); ok {
			b.WriteString(fmt.Sprint(m["text"]))
		}
	}
	return b.String()
}

// hostileWorkspace is a root with a Go file, a Go file whose contents are
// not UTF-8 and a Go file whose name is not UTF-8.
func hostileWorkspace(t *testing.T) string {
	root := t.TempDir()
	writeFile(t, root, "a.go", "package p\n\nfunc f() { g(1) }\n")
	writeFile(t, root, "bad.go", "package p\n\nfunc h() { g(\"\xff\xfe\") }\n")
	writeFile(t, root, "n\xffme.go", "package p\n\nfunc k() { g(2) }\n")
	return root
}

func TestHostileClient(t *testing.T) {
	s := startServer(t, "--root", hostileWorkspace(t))
	s.initialize()
	nested := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	nested5k := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	cases := []hostileCase{
		// Garbage and truncated JSON: -32700 with a null id.
		{name: "garbage text", line: "hello, server", reply: "wire", code: -32700, want: "not valid JSON"},
		{name: "garbage bytes", line: "\x00\x01\xff\xfe\x1b[2J", reply: "wire", code: -32700, want: "not valid JSON"},
		{name: "truncated object", line: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_echo"`, reply: "wire", code: -32700, want: "not valid JSON"},
		{name: "truncated string", line: `{"jsonrpc":"2.0","id":3,"method":"pi`, reply: "wire", code: -32700, want: "not valid JSON"},
		{name: "lone brace", line: `}`, reply: "wire", code: -32700, want: "not valid JSON"},
		{name: "two objects on a line", line: `{"jsonrpc":"2.0","id":4,"method":"ping"}{"jsonrpc":"2.0","id":5,"method":"ping"}`, reply: "wire", code: -32700, want: "not valid JSON"},
		// Well-formed JSON that is not a usable request: -32600.
		{name: "batch", line: `[{"jsonrpc":"2.0","id":6,"method":"ping"}]`, reply: "wire", code: -32600, want: "batch"},
		{name: "number", line: `42`, reply: "wire", code: -32600, want: "JSON object"},
		{name: "no jsonrpc", line: `{"id":7,"method":"ping"}`, reply: "wire", id: 7, code: -32600, want: `"jsonrpc" must be "2.0"`},
		{name: "method not a string", line: `{"jsonrpc":"2.0","id":8,"method":5}`, reply: "wire", id: 8, code: -32600, want: `"method" must be a string`},
		{name: "null id", line: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, reply: "wire", code: -32600, want: `"id" must be`},
		{name: "negative id", line: `{"jsonrpc":"2.0","id":-1,"method":"ping"}`, reply: "wire", code: -32600, want: `"id" must be`},
		{name: "fractional id", line: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, reply: "wire", code: -32600, want: `"id" must be`},
		{name: "object id", line: `{"jsonrpc":"2.0","id":{},"method":"ping"}`, reply: "wire", code: -32600, want: `"id" must be`},
		{name: "params a string", line: `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":"x"}`, reply: "wire", id: 9, code: -32602, want: "params"},
		{name: "unknown method", line: `{"jsonrpc":"2.0","id":10,"method":"tools/explode"}`, reply: "wire", id: 10, code: -32601, want: "tools/explode"},
		{name: "unknown tool", line: toolCallLine(11, "no_such_tool", `{}`), reply: "wire", id: 11, code: -32602, want: "no_such_tool"},
		{name: "tool name a number", line: `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":7,"arguments":{}}}`, reply: "wire", id: 12, code: -32602, want: "name"},
		{name: "arguments an array", line: `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"test_echo","arguments":[1]}}`, reply: "tool", id: 13, isError: true, want: "arguments: want object, got array"},
		{name: "string id echoed", line: `{"jsonrpc":"2.0","id":"abc","method":"tools/explode"}`, reply: "wire", id: "abc", code: -32601, want: "tools/explode"},
		// Deep nesting: past encoding/json's depth limit the line is not
		// JSON to us (-32700, saying so); within it, the schema names the
		// field.
		{name: "100000 nested arrays in arguments", line: toolCallLine(14, "ast_grep", `{"pattern":`+nested+`}`), reply: "wire", code: -32700, want: "deeper than 10000 levels"},
		{name: "5000 nested arrays in arguments", line: toolCallLine(15, "ast_grep", `{"pattern":`+nested5k+`}`), reply: "tool", id: 15, isError: true, want: "argument 'pattern': want string, got array"},
		{name: "100000 nested objects in params", line: `{"jsonrpc":"2.0","id":16,"method":"ping","params":` + strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000) + `}`, reply: "wire", code: -32700, want: "deeper than 10000 levels"},
		// Unknown fields: refused in tool arguments, tolerated in the
		// envelope and in params (MCP extends both).
		{name: "unknown argument", line: toolCallLine(17, "ast_grep", `{"pattern":"g($X)","bogus":1}`), reply: "tool", id: 17, isError: true, want: "argument 'bogus': unknown field"},
		{name: "unknown argument of test_echo", line: toolCallLine(18, "test_echo", `{"text":"x","Text":"y"}`), reply: "tool", id: 18, isError: true, want: "argument 'Text'"},
		{name: "unknown envelope field", line: `{"jsonrpc":"2.0","id":19,"method":"ping","extra":true}`, reply: "ok", id: 19},
		{name: "unknown params field", line: `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"test_echo","arguments":{"text":"x"},"extra":1}}`, reply: "tool", id: 20, want: "x"},
		// Out-of-range numbers (lines past the end: TestHostileLSPLines).
		{name: "lsp line 0", line: toolCallLine(21, "lsp", `{"action":"definition","file":"a.go","line":0,"symbol":"g"}`), reply: "tool", id: 21, isError: true, want: "argument 'line'"},
		{name: "lsp line -1", line: toolCallLine(22, "lsp", `{"action":"hover","file":"a.go","line":-1,"symbol":"g"}`), reply: "tool", id: 22, isError: true, want: "argument 'line'"},
		{name: "lsp line 2^64", line: toolCallLine(24, "lsp", `{"action":"references","file":"a.go","line":18446744073709551616,"symbol":"g"}`), reply: "tool", id: 24, isError: true, want: "argument 'line'"},
		{name: "lsp line 1.5", line: toolCallLine(25, "lsp", `{"action":"hover","file":"a.go","line":1.5,"symbol":"g"}`), reply: "tool", id: 25, isError: true, want: "argument 'line'"},
		{name: "lsp_rename line 0", line: toolCallLine(26, "lsp_rename", `{"file":"a.go","line":0,"symbol":"g","new_name":"x"}`), reply: "tool", id: 26, isError: true, want: "argument 'line'"},
		{name: "ast_grep max_results 0", line: toolCallLine(27, "ast_grep", `{"pattern":"g($X)","max_results":0}`), reply: "tool", id: 27, isError: true, want: "argument 'max_results'"},
		{name: "ast_grep max_results -5", line: toolCallLine(28, "ast_grep", `{"pattern":"g($X)","max_results":-5}`), reply: "tool", id: 28, isError: true, want: "argument 'max_results'"},
		{name: "ast_grep max_results 1e9", line: toolCallLine(29, "ast_grep", `{"pattern":"g($X)","max_results":1e9}`), reply: "tool", id: 29, want: "2 matches in 2 files"},
		{name: "ast_grep max_results 1e300", line: toolCallLine(30, "ast_grep", `{"pattern":"g($X)","max_results":1e300}`), reply: "tool", id: 30, isError: true, want: "argument 'max_results'"},
		// Non-UTF-8: a file with invalid bytes is skipped (README), a file
		// with an invalid name is found and shown escaped, an invalid
		// path argument is refused by name.
		{name: "non-UTF-8 contents and name", line: toolCallLine(31, "ast_grep", `{"pattern":"g($X)"}`), reply: "tool", id: 31, want: "n\ufffdme.go:3:12  g(2)"},
		{name: "non-UTF-8 file alone", line: toolCallLine(32, "ast_grep", `{"pattern":"g($X)","path":"bad.go"}`), reply: "tool", id: 32, want: "0 matches"},
		{name: "non-UTF-8 path argument", line: toolCallLine(33, "ast_grep", "{\"pattern\":\"g($X)\",\"path\":\"\xff.go\"}"), reply: "tool", id: 33, isError: true, want: "does not exist"},
		{name: "escaped non-UTF-8 path argument", line: toolCallLine(34, "ast_grep", `{"pattern":"g($X)","path":"\udcff.go"}`), reply: "tool", id: 34, isError: true, want: "does not exist"},
		{name: "non-UTF-8 lsp file", line: toolCallLine(35, "lsp", "{\"action\":\"hover\",\"file\":\"\xfe\xff.go\",\"line\":1,\"symbol\":\"p\"}"), reply: "tool", id: 35, isError: true, want: ".go"},
		// Responses to nothing and stray notifications: dropped silently.
		{name: "result to nothing", line: `{"jsonrpc":"2.0","id":777,"result":{}}`, reply: "none"},
		{name: "error to nothing", line: `{"jsonrpc":"2.0","id":778,"error":{"code":1,"message":"no"}}`, reply: "none"},
		{name: "string-id result to nothing", line: `{"jsonrpc":"2.0","id":"zz","result":null}`, reply: "none"},
		{name: "malformed error to nothing", line: `{"jsonrpc":"2.0","id":779,"error":"no"}`, reply: "none"},
		{name: "result with a null id", line: `{"jsonrpc":"2.0","id":null,"result":1}`, reply: "none"},
		{name: "unknown notification", line: `{"jsonrpc":"2.0","method":"notifications/whatever","params":{"x":1}}`, reply: "none"},
		{name: "cancel of nothing", line: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":424242}}`, reply: "none"},
		{name: "blank line", line: "   \t", reply: "none"},
		// Initialize twice.
		{name: "second initialize", line: strings.Replace(initLine, `"id":1`, `"id":36`, 1), reply: "wire", id: 36, code: -32600, want: "already"},
	}
	wrongTypes := hostileWrongTypes(t, s)
	t.Logf("%d wrong-type cases over the listed tools", len(wrongTypes))
	cases = append(cases, wrongTypes...)
	for _, c := range cases {
		hostileRun(t, s, c)
	}
	t.Logf("%d hostile cases, each followed by a valid call that succeeded", len(cases))
}

// hostileWrongTypes builds, for every property of every listed tool, a
// call with only that property, of the wrong type: the answer must be an
// isError result naming it.
func hostileWrongTypes(t *testing.T, s *server) []hostileCase {
	s.send(`{"jsonrpc":"2.0","id":99,"method":"tools/list"}`)
	data, _ := json.Marshal(s.until(99))
	var list struct {
		Result struct {
			Tools []struct {
				Name        string
				InputSchema struct {
					Properties map[string]struct {
						Type any `json:"type"`
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &list); err != nil || len(list.Result.Tools) == 0 {
		t.Fatalf("tools/list: %v %s", err, data)
	}
	wrong := map[string]string{"string": `42`, "integer": `"7"`, "number": `"7"`, "boolean": `"yes"`, "array": `{"a":1}`, "object": `[1]`}
	var cases []hostileCase
	id := 1000
	tools := 0
	for _, tool := range list.Result.Tools {
		names := make([]string, 0, len(tool.InputSchema.Properties))
		for name := range tool.InputSchema.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		if len(names) > 0 {
			tools++
		}
		for _, name := range names {
			typ := fmt.Sprint(tool.InputSchema.Properties[name].Type)
			v, ok := wrong[typ]
			if !ok {
				t.Fatalf("%s.%s: no wrong value for type %v", tool.Name, name, typ)
			}
			id++
			cases = append(cases, hostileCase{
				name: fmt.Sprintf("%s.%s as %s", tool.Name, name, v), line: toolCallLine(id, tool.Name, fmt.Sprintf(`{%q:%s}`, name, v)),
				reply: "tool", id: id, isError: true, want: "argument '" + name + "'",
			})
		}
	}
	if tools < 7 {
		t.Fatalf("only %d tools with arguments listed", tools)
	}
	return cases
}

// TestHostileHugeLine sends a 64 MiB line, four times the limit: it gets a
// clear -32600, the server's peak RSS stays bounded, and the session goes
// on.
func TestHostileHugeLine(t *testing.T) {
	s := startServer(t)
	s.initialize()
	pid := s.cmd.Process.Pid
	before := hostileRSS(t, pid, "VmHWM")
	huge := `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"pad":"` + strings.Repeat("a", 64<<20) + `"}}`
	hostileRun(t, s, hostileCase{name: "64 MiB line", line: huge, reply: "wire", code: -32600,
		want: fmt.Sprintf("longer than the %d-byte limit", rpc.DefaultMaxMessageBytes)})
	hostileRun(t, s, hostileCase{name: "64 MiB of garbage without JSON", line: strings.Repeat("\xff", 64<<20), reply: "wire", code: -32600, want: "limit"})
	peak := hostileRSS(t, pid, "VmHWM")
	t.Logf("server peak RSS: %d kB before, %d kB after two 64 MiB lines", before, peak)
	if peak > hostileRSSLimitKB {
		t.Errorf("server peak RSS %d kB after two 64 MiB lines, want < %d kB", peak, hostileRSSLimitKB)
	}
}

// hostileRSS reads a kB field (VmRSS, VmHWM) of /proc/<pid>/status.
func hostileRSS(t *testing.T, pid int, field string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestHostileBeforeInitialize: everything but initialize and ping is
// refused before initialize, and initialize still works afterwards.
func TestHostileBeforeInitialize(t *testing.T) {
	s := startServer(t)
	for i, line := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		toolCallLine(3, "test_echo", `{"text":"early"}`),
		`{"jsonrpc":"2.0","id":4,"method":"agent-tools/setMode","params":{"surface":"plan"}}`,
	} {
		s.send(line)
		m := s.until(i + 2)
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(-32600) || !strings.Contains(fmt.Sprint(e["message"]), "not initialized") {
			t.Errorf("%s before initialize: %v", line, m)
		}
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if m := s.until(5); m["result"] == nil {
		t.Errorf("ping before initialize: %v", m)
	}
	s.initialize()
	hostileRun(t, s, hostileCase{name: "tools/list after initialize", line: `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`, reply: "ok", id: 6})
}

// TestHostileDuplicateIDs: a second request with the id of one still in
// flight is refused with -32600; the first still runs and can be
// cancelled.
func TestHostileDuplicateIDs(t *testing.T) {
	s := startServer(t)
	s.initialize()
	s.send(toolCallLine(50, "test_block", `{}`))
	// test_status answering proves the block call was read (one reader, in order).
	s.send(toolCallLine(51, "test_status", `{}`))
	s.until(51)
	hostileRun(t, s, hostileCase{name: "duplicate in-flight id", line: toolCallLine(50, "test_echo", `{"text":"dup"}`),
		reply: "wire", id: 50, code: -32600, want: "already in use"})
	hostileRun(t, s, hostileCase{name: "duplicate of a finished id", line: toolCallLine(51, "test_echo", `{"text":"again"}`),
		reply: "tool", id: 51, want: "again"})
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":50}}`)
	s.send(toolCallLine(52, "test_status", `{"wait_cancelled":1}`))
	var res callResult
	data, _ := json.Marshal(s.until(52))
	json.Unmarshal(data, &res)
	if len(res.Result.Content) == 0 || !strings.Contains(res.Result.Content[0].Text, `"cancelled":1`) {
		t.Errorf("the first call with id 50 was not cancelled: %s", data)
	}
}

// TestHostileLSPLines: lines past the end of a file, up to 1e12, are
// refused naming the argument once gopls has the file.
func TestHostileLSPLines(t *testing.T) {
	testutil.Needs(t, "gopls")
	root := hostileWorkspace(t)
	writeFile(t, root, "go.mod", "module p\n\ngo 1.22\n")
	s := startServer(t, "--root", root)
	s.initialize()
	for i, c := range []struct{ tool, args string }{
		{"lsp", `{"action":"definition","file":"a.go","line":1e12,"symbol":"g"}`},
		{"lsp", `{"action":"hover","file":"a.go","line":9007199254740993,"symbol":"g"}`},
		{"lsp", `{"action":"references","file":"a.go","line":5,"symbol":"g"}`},
		{"lsp_rename", `{"file":"a.go","line":1000000000000,"symbol":"g","new_name":"x"}`},
	} {
		hostileRun(t, s, hostileCase{name: c.tool + " " + c.args, line: toolCallLine(10+i, c.tool, c.args),
			reply: "tool", id: 10 + i, isError: true, want: "argument 'line'"})
	}
}

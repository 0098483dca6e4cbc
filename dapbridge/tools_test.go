package dapbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
	"github.com/agent-tools/agent-tools/rpc"
)

// debugTool is the debug tool as tools/list shows it, rooted at root.
func debugTool(t *testing.T, root string) *rpc.Tool {
	t.Helper()
	a := Attach(root, nil, nil)
	t.Cleanup(func() { a.Close(context.Background()) })
	if len(a.Tools) != 1 {
		t.Fatalf("Attach: %d tools (%s)", len(a.Tools), a.Reason)
	}
	return a.Tools[0]
}

// walkSchema calls f on every subschema of s, with its JSON path.
func walkSchema(path string, s any, f func(path string, s any)) {
	f(path, s)
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for k, p := range props {
			walkSchema(path+"."+k, p, f)
		}
	}
	if it, ok := m["items"]; ok {
		walkSchema(path+"[]", it, f)
	}
	if alts, ok := m["anyOf"].([]any); ok {
		for _, a := range alts {
			walkSchema(path+"|", a, f)
		}
	}
}

// TestDebugSchemaLines: lines' items are integers or objects in a form
// every agent CLI keeps (anyOf; never an empty schema, which Codex turns
// into a string), and no other property of debug is an empty schema.
func TestDebugSchemaLines(t *testing.T) {
	var s map[string]any
	if err := json.Unmarshal(debugTool(t, t.TempDir()).InputSchema(), &s); err != nil {
		t.Fatal(err)
	}
	walkSchema("debug", s, func(path string, sub any) {
		m, ok := sub.(map[string]any)
		if !ok || len(m) == 0 || m["type"] == nil && m["anyOf"] == nil {
			t.Errorf("%s: schema %v accepts anything: a CLI may rewrite it (Codex: a string)", path, sub)
		}
	})
	items, _ := s["properties"].(map[string]any)["lines"].(map[string]any)["items"].(map[string]any)
	alts, _ := items["anyOf"].([]any)
	if len(alts) != 2 || alts[0].(map[string]any)["type"] != "integer" || alts[1].(map[string]any)["type"] != "object" {
		t.Fatalf("lines items = %v, want anyOf integer, object", items)
	}
	obj := alts[1].(map[string]any)
	if props, _ := obj["properties"].(map[string]any); len(props) != 4 || obj["additionalProperties"] != false {
		t.Errorf("lines object item = %v", obj)
	}
}

// TestDebugLinesDecode calls the tool with each form of lines: numbers
// and objects pass, a string is refused naming both forms, an object's
// unknown key is named.
func TestDebugLinesDecode(t *testing.T) {
	root := t.TempDir()
	testutil.WriteTree(t, root, "-- main.go --\npackage main\n\nfunc main() {\n\tprintln(1)\n}\n")
	tool := debugTool(t, root)
	call := func(args string) (string, bool) {
		t.Helper()
		res, err := tool.Call(t.Context(), json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		var b strings.Builder
		for _, c := range res.Content {
			b.WriteString(c.Text)
		}
		return b.String(), res.IsError
	}
	text, isErr := call(`{"op":"breakpoints","file":"main.go","lines":[4,{"line":5,"condition":"true"},4.0]}`)
	if isErr || !strings.Contains(text, "main.go:4  pending (sent at launch)") || !strings.Contains(text, "main.go:5  if true  pending (sent at launch)") {
		t.Errorf("numbers and objects: isError %v\n%s", isErr, text)
	}
	for _, c := range []struct{ args, want string }{
		{`{"op":"breakpoints","file":"main.go","lines":["8"]}`, `argument 'lines[0]': want integer or object, got string "8"`},
		{`{"op":"breakpoints","file":"main.go","lines":[{"line":5,"when":"x"}]}`, `argument 'lines[0].when': unknown field; known fields: line, condition`},
		{`{"op":"breakpoints","file":"main.go","lines":[2.5]}`, `argument 'lines[0]': want integer, got number 2.5`},
	} {
		if text, isErr := call(c.args); !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%s: isError %v, want %q in\n%s", c.args, isErr, c.want, text)
		}
	}
}

// TestDebugDescriptionSize bounds what every request of every harness
// pays for the debug tool: its description and every property's, summed.
func TestDebugDescriptionSize(t *testing.T) {
	tool := debugTool(t, t.TempDir())
	total := len([]rune(tool.Spec().Description))
	var s any
	if err := json.Unmarshal(tool.InputSchema(), &s); err != nil {
		t.Fatal(err)
	}
	walkSchema("debug", s, func(_ string, sub any) {
		if m, ok := sub.(map[string]any); ok {
			if d, ok := m["description"].(string); ok {
				total += len([]rune(d))
			}
		}
	})
	t.Logf("debug: %d characters of descriptions (tool %d)", total, len([]rune(tool.Spec().Description)))
	if total > 1100 {
		t.Errorf("debug's descriptions total %d characters, want ≤ 1100", total)
	}
	for _, want := range []string{`{"op":"launch","program":"main.go"}`, "still running", "frame_id", "reference"} {
		if !strings.Contains(tool.Spec().Description, want) {
			t.Errorf("description lost %q", want)
		}
	}
}

// TestTextCarriesEveryField: the server sends a tool's text alone by
// default (Claude Code and Codex show either the text or the JSON, never
// both), so every string and count of a debug result is in its text. Each
// result below sets every field its op fills.
func TestTextCarriesEveryField(t *testing.T) {
	exit := 3
	results := []*Result{
		{Op: "continue", Session: "delve launch main.go", State: stateStopped, Notice: "still running after 15s: call status later, or pause",
			Stop: &Stop{Reason: "exception", Detail: "panic raised", ThreadID: 7, File: "main.go", Line: 12, Function: "main.f", FrameID: 1001, Source: "\tpanic(x)", Depth: 4,
				Exception: &ExceptionInfo{Type: "panic", Message: "boom"}, Parked: []Parked{{ThreadID: 9, File: "w.py", Line: 44, Function: "work"}}, ParkedUnchecked: 6}},
		{Op: "launch", Session: "delve launch svc/main.go", State: stateRunning, Marker: "svc/go.mod",
			Breakpoints: []Breakpoint{{File: "a.go", Line: 3, Condition: "i > 2", HitCondition: ">= 2", LogMessage: "i={i}", Pending: true},
				{File: "a.go", Line: 4, Verified: true, MovedTo: 5}, {File: "a.go", Line: 9, Message: "no code here"}}},
		{Op: "status", Session: "debugpy launch a.py", State: stateEnded, Ended: "the program exited with code 3", ExitCode: &exit},
		{Op: "exceptions", State: "none", Exceptions: []ExceptionFilter{{ID: "raised", Label: "Raised Exceptions", Enabled: true, Default: true}}},
		{Op: "threads", Session: "s", State: stateStopped, Threads: []Thread{{ID: 1, Name: "MainThread"}}, Shown: 1, Total: 60},
		{Op: "stack", Session: "s", State: stateStopped, Frames: []Frame{{ID: 1000, Function: "main.main", File: "main.go", Line: 5, Column: 2}}, Shown: 1, Total: 31, TotalAtLeast: true},
		{Op: "scopes", Session: "s", State: stateStopped, Scopes: []Scope{{Name: "Registers", Reference: 2001, Expensive: true}}},
		{Op: "variables", Session: "s", State: stateStopped, Variables: []Variable{{Name: "xs", Value: "[]int len: 3", Type: "[]int", Reference: 2002, Truncated: true}}},
		{Op: "output", Session: "s", State: stateRunning, Output: []OutputChunk{{Category: "stderr", Text: "warn\n"}}, Dropped: 12},
		{Op: "adapters", State: "none", Adapters: []AdapterStatus{{ID: "delve", Command: "dlv dap", Usable: true, Marker: "go.mod", Markers: []string{"go.mod", "b/go.mod"}, More: 2},
			{ID: "dart", Command: "dart debug_adapter", Reason: "no pubspec.yaml under the root"}}},
	}
	// The op is the call's own; the state and session label are implied by
	// a stop or a listing; an unusable adapter's command is not its news.
	exempt := map[string]bool{".op": true, ".state": true, ".session": true, ".adapters[1].command": true}
	for _, r := range results {
		text := r.Text()
		var v any
		b, _ := json.Marshal(r)
		json.Unmarshal(b, &v)
		var leaves func(path string, v any)
		leaves = func(path string, v any) {
			switch v := v.(type) {
			case map[string]any:
				for k, x := range v {
					leaves(path+"."+k, x)
				}
			case []any:
				for i, x := range v {
					leaves(fmt.Sprintf("%s[%d]", path, i), x)
				}
			case string:
				if !strings.Contains(text, v) && !strings.Contains(text, strings.TrimSpace(v)) && !exempt[path] && !strings.HasSuffix(path, ".category") {
					t.Errorf("%s: %s = %q is not in the text:\n%s", r.Op, path, v, text)
				}
			case float64:
				if n := fmt.Sprint(v); !strings.Contains(text, n) {
					t.Errorf("%s: %s = %s is not in the text:\n%s", r.Op, path, n, text)
				}
			}
		}
		leaves("", v)
	}
	for op, want := range map[string]string{
		"continue": "current frame: the first in your code, 4 frames below the top",
		"launch":   "a.go:3  if i > 2  hit >= 2  log \"i={i}\"  pending (sent at launch)",
		"stack":    "1 of at least 31 shown",
		"scopes":   "expensive",
	} {
		for _, r := range results {
			if r.Op == op && !strings.Contains(r.Text(), want) {
				t.Errorf("%s: want %q in\n%s", op, want, r.Text())
			}
		}
	}
}

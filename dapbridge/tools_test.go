package dapbridge

import (
	"context"
	"encoding/json"
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

package rpc_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-tools/agent-tools/rpc"
)

// TestBeforeCallReport pins the before-call hooks: what a hook says before
// a call reaches the model in that call's answer, as a text block of its
// own after the tool's content, whatever the tool; a hook with nothing to
// say adds nothing; the hook sees the tool's name and arguments.
func TestBeforeCallReport(t *testing.T) {
	reg := rpc.NewRegistry()
	reg.Add(pictureTool())
	var seen []string
	say := "changed on disk: a.go\nnew errors: b.go:3:1 undefined: Foo"
	reg.BeforeCall(func(ctx context.Context, root, tool string, args json.RawMessage) string {
		seen = append(seen, tool+" "+string(args))
		if len(seen) == 1 {
			return say
		}
		return ""
	})
	c := connect(t, reg, nil)
	c.initialize(nil)
	res := c.result("tools/call", map[string]any{"name": "picture", "arguments": map[string]any{}})
	want := []any{
		map[string]any{"type": "text", "text": "a plot of x"},
		map[string]any{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
		map[string]any{"type": "text", "text": say},
	}
	if diff := cmp.Diff(want, res["content"]); diff != "" {
		t.Errorf("first call's content (-want +got):\n%s", diff)
	}
	res = c.result("tools/call", map[string]any{"name": "picture", "arguments": map[string]any{}})
	if diff := cmp.Diff(want[:2], res["content"]); diff != "" {
		t.Errorf("a hook with nothing to say changed the answer (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"picture {}", "picture {}"}, seen); diff != "" {
		t.Errorf("what the hook saw (-want +got):\n%s", diff)
	}
}

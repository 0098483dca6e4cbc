package rpc_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/rpc"
)

type writtenOut struct {
	Reports []rpc.WriteReport `json:"reports"`
}

// TestFilesWritten: a tool that reports a write reaches every hook, on its
// own context, and gets their answers; a hook with nothing to say is left
// out; outside a session nothing is called.
func TestFilesWritten(t *testing.T) {
	reg := rpc.NewRegistry()
	var seen []string
	reg.AfterWrite("lsp", func(ctx context.Context, root string, paths []string) (string, any) {
		seen = append(seen, root+":"+strings.Join(paths, ","))
		return "1 new error in b.go", map[string]int{"new": 1}
	})
	reg.AfterWrite("quiet", func(context.Context, string, []string) (string, any) { return "", nil })
	reg.Add(rpc.NewTool(rpc.Spec{Name: "writer", Tier: rpc.TierWrite, Description: "writes a.go"},
		func(ctx context.Context, _ struct{}) (writtenOut, error) {
			return writtenOut{Reports: rpc.FilesWritten(ctx, "/r", []string{"a.go"})}, nil
		}))
	c := connect(t, reg, &rpc.Options{Mode: rpc.Mode{Structured: true}})
	c.initialize(nil)
	res := c.result("tools/call", map[string]any{"name": "writer", "arguments": map[string]any{}})
	data, _ := json.Marshal(res["structuredContent"])
	var out writtenOut
	json.Unmarshal(data, &out)
	if len(out.Reports) != 1 || out.Reports[0].Capability != "lsp" || out.Reports[0].Text != "1 new error in b.go" {
		t.Errorf("reports = %s", data)
	}
	if strings.Join(seen, ";") != "/r:a.go" {
		t.Errorf("hook saw %q", seen)
	}
	if got := rpc.FilesWritten(context.Background(), "/r", []string{"/r/a.go"}); got != nil {
		t.Errorf("outside a session: %v", got)
	}
}

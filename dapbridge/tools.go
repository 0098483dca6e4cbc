// This file adapts the debug-adapter bridge to package rpc.

package dapbridge

import (
	"github.com/agent-tools/agent-tools/internal/probe"
	"github.com/agent-tools/agent-tools/rpc"
)

var adapters = []struct {
	id    string
	names []string
}{
	{"delve", []string{"dlv"}},
	{"debugpy", []string{"python3"}},
	{"lldb", []string{"lldb-dap", "lldb-dap-19", "lldb-vscode"}},
	{"dart", []string{"dart"}},
}

// Attach reports the debug capability for a run rooted at root.
func Attach(root string) rpc.Attachment {
	a := rpc.Attachment{
		Capability: "debug",
		Reason:     "the debug tool is not built yet (issue 5)",
	}
	for _, ad := range adapters {
		b := probe.Look(ad.names...)
		c := rpc.Check{Name: ad.id, OK: b.Found(), Detail: b.Path}
		if !b.Found() {
			c.Detail = b.Name + " not on PATH"
		}
		a.Checks = append(a.Checks, c)
	}
	return a
}

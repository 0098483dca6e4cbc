// This file adapts the kernels to package rpc.

package kernel

import (
	"github.com/agent-tools/agent-tools/internal/probe"
	"github.com/agent-tools/agent-tools/rpc"
)

// Attach reports the eval capability for a run rooted at root.
func Attach(root string) rpc.Attachment {
	a := rpc.Attachment{
		Capability: "eval",
		Reason:     "the eval tool is not built yet (issue 6)",
	}
	for _, name := range []string{"python3", "node"} {
		b := probe.Look(name)
		c := rpc.Check{Name: name, OK: b.Found(), Detail: b.Path}
		if !b.Found() {
			c.Detail = "not on PATH"
		}
		a.Checks = append(a.Checks, c)
	}
	return a
}

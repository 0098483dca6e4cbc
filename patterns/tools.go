// This file adapts the pattern engine to package rpc.

package patterns

import "github.com/agent-tools/agent-tools/rpc"

// Attach reports the structural-search capability for a run rooted at root.
func Attach(root string) rpc.Attachment {
	return rpc.Attachment{
		Capability: "patterns",
		Reason:     "the ast_grep, ast_edit and resolve tools are not built yet (issue 3)",
	}
}

// This file wires the debug capability (dapbridge).

package main

import (
	"github.com/agent-tools/agent-tools/dapbridge"
	"github.com/agent-tools/agent-tools/patterns"
	"github.com/agent-tools/agent-tools/rpc"
)

func attachDebug(cfg *config) rpc.Attachment {
	// The adapters op looks for root markers under the root with the
	// workspace walk's .gitignore rules: patterns owns them, and domain
	// packages do not import each other.
	return dapbridge.Attach(cfg.root, cfg.section("debug"), patterns.WalkTree)
}

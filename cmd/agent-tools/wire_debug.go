// This file wires the debug capability (dapbridge).

package main

import (
	"github.com/agent-tools/agent-tools/dapbridge"
	"github.com/agent-tools/agent-tools/rpc"
)

func attachDebug(cfg *config) rpc.Attachment {
	return dapbridge.Attach(cfg.root, cfg.section("debug"), cfg.logger("debug"))
}

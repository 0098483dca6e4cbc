// This file wires the eval capability (kernel).

package main

import (
	"github.com/agent-tools/agent-tools/kernel"
	"github.com/agent-tools/agent-tools/rpc"
)

func attachEval(cfg *config) rpc.Attachment {
	return kernel.Attach(cfg.root, cfg.section("eval"), cfg.logger("eval"))
}

// This file wires the workers capability (ask_user and vibe_*).

package main

import (
	"github.com/agent-tools/agent-tools/rpc"
	"github.com/agent-tools/agent-tools/workers"
)

func attachWorkers(cfg *config) rpc.Attachment {
	return workers.Attach(cfg.root, cfg.workers, cfg.section("workers"), cfg.logger("workers"))
}

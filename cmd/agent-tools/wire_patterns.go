// This file wires the patterns capability (patterns).

package main

import (
	"github.com/agent-tools/agent-tools/patterns"
	"github.com/agent-tools/agent-tools/rpc"
)

func attachPatterns(cfg *config) rpc.Attachment {
	return patterns.Attach(cfg.root, cfg.section("patterns"), cfg.logger("patterns"))
}

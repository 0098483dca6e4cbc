// This file wires the lsp capability (lspbridge).

package main

import (
	"github.com/agent-tools/agent-tools/lspbridge"
	"github.com/agent-tools/agent-tools/rpc"
)

func attachLSP(cfg *config) rpc.Attachment {
	return lspbridge.Attach(cfg.root, cfg.section("lsp"), cfg.logger("lsp"))
}

// This file wires the lsp capability (lspbridge).

package main

import (
	"context"

	"github.com/agent-tools/agent-tools/lspbridge"
	"github.com/agent-tools/agent-tools/patterns"
	"github.com/agent-tools/agent-tools/rpc"
)

func attachLSP(cfg *config) rpc.Attachment {
	return lspbridge.Attach(cfg.root, cfg.section("lsp"), cfg.logger("lsp"), identifierUses)
}

// identifierUses gives lsp_rename's word search the tree-sitter grammars.
func identifierUses(ctx context.Context, path, name string) ([]lspbridge.LineCol, bool, error) {
	ps, ok, err := patterns.IdentifierUses(ctx, path, name)
	out := make([]lspbridge.LineCol, len(ps))
	for i, p := range ps {
		out[i] = lspbridge.LineCol{Line: p.Line, Col: p.Column}
	}
	return out, ok, err
}

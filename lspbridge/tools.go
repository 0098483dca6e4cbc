// This file adapts the language-server bridge to package rpc.

package lspbridge

import (
	"github.com/agent-tools/agent-tools/internal/probe"
	"github.com/agent-tools/agent-tools/rpc"
)

// servers lists the language servers agent-tools knows, for doctor.
var servers = []struct {
	language string
	names    []string
}{
	{"go", []string{"gopls"}},
	{"python", []string{"pyright-langserver"}},
	{"typescript/javascript", []string{"typescript-language-server"}},
	{"c/c++", []string{"clangd"}},
	{"rust", []string{"rust-analyzer"}},
	{"dart", []string{"dart"}},
}

// Attach reports the lsp capability for a run rooted at root.
func Attach(root string) rpc.Attachment {
	a := rpc.Attachment{
		Capability: "lsp",
		Reason:     "the lsp and lsp_rename tools are not built yet (issue 4)",
	}
	for _, s := range servers {
		a.Checks = append(a.Checks, binaryCheck(s.language, s.names...))
	}
	return a
}

func binaryCheck(what string, names ...string) rpc.Check {
	b := probe.Look(names...)
	if !b.Found() {
		return rpc.Check{Name: what, Detail: b.Name + " not on PATH"}
	}
	return rpc.Check{Name: what, OK: true, Detail: b.Path}
}

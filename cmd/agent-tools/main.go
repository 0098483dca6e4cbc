// Command agent-tools is the per-run tool server a coding-agent harness
// spawns: MCP-style JSON-RPC over stdio, with tools bound to live resources
// (language servers, tree-sitter, a debugger, kernels, workers).
package main

import (
	"context"
	"os"

	"github.com/agent-tools/agent-tools/internal/proc"
)

func main() {
	proc.RunReaperIfAsked()
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

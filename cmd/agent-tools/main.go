// Command agent-tools is the per-run tool server a coding-agent harness
// spawns: MCP-style JSON-RPC over stdio, with tools bound to live resources
// (language servers, tree-sitter, a debugger, kernels, workers).
package main

import (
	"context"
	"os"
	"runtime"

	"github.com/agent-tools/agent-tools/internal/proc"
)

func main() {
	proc.RunReaperIfAsked()
	// One P more than the cores: a tree-sitter parse is a cgo call of
	// milliseconds, and when every P is in one, the runtime's monitor
	// takes each P back and wakes a thread to look for work, which spins
	// on the cores the other parses need. With a P to spare it does not
	// (ast_grep over C sources: about 7% faster with two parsers on two
	// cores). The parsers stay one a core (patterns reads the count
	// before this line runs).
	runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

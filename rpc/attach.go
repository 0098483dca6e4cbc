// This file defines how capability packages report whether they attached.

package rpc

import (
	"context"
	"encoding/json"
)

// Attachment is what a capability package reports at start-up: the tools
// it contributes when its resource attached, or why it did not, and the
// checks behind that answer (shown by `agent-tools doctor`).
type Attachment struct {
	Capability string  // e.g. "lsp", "patterns", "debug", "eval", "workers"
	Tools      []*Tool // empty when not attached
	Reason     string  // why not attached; empty when attached
	Checks     []Check

	// Probe computes further checks that cost real time (loading every
	// grammar, looking for adapters). Only `agent-tools doctor` calls it,
	// so serving starts without paying for them. Optional.
	Probe func() []Check

	// Methods are extension methods the capability serves besides its
	// tools (e.g. agent-tools/didWrite). Names must start with
	// "agent-tools/". They are registered with [Registry.HandleMethod].
	Methods map[string]MethodHandler

	// AfterWrite, when set, is told of files that another capability's
	// tool wrote (see [FilesWritten]) and says what it has to say about
	// them. Optional.
	AfterWrite AfterWriteFunc

	// BeforeCall, when set, runs before every tool call and says what
	// changed since the last one (see [BeforeCallFunc]). Optional.
	BeforeCall BeforeCallFunc

	// Close releases the capability's resources (stops its supervised
	// processes gracefully) when the run ends. Optional.
	Close func(ctx context.Context) error
}

// MethodHandler serves one extension method. It runs on its own goroutine
// with a context that notifications/cancelled cancels, like tools/call; an
// error is a JSON-RPC error (wrap ErrInvalidParams for bad params).
type MethodHandler func(ctx context.Context, params json.RawMessage) (any, error)

// Attached reports whether the capability contributes tools.
func (a Attachment) Attached() bool { return len(a.Tools) > 0 }

// Check is one probed resource: a binary, an interpreter, a grammar.
type Check struct {
	Name   string // what was probed, e.g. "gopls"
	OK     bool
	Detail string // the path and version found, or what is missing and how to get it
	State  string // doctor's word for it when neither "found" (OK) nor "missing" fits, e.g. "broken": found but does not start
}

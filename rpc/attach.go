// This file defines how capability packages report whether they attached.

package rpc

// Attachment is what a capability package reports at start-up: the tools
// it contributes when its resource attached, or why it did not, and the
// checks behind that answer (shown by `agent-tools doctor`).
type Attachment struct {
	Capability string  // e.g. "lsp", "patterns", "debug", "eval", "workers"
	Tools      []*Tool // empty when not attached
	Reason     string  // why not attached; empty when attached
	Checks     []Check
}

// Attached reports whether the capability contributes tools.
func (a Attachment) Attached() bool { return len(a.Tools) > 0 }

// Check is one probed resource: a binary, an interpreter, a grammar.
type Check struct {
	Name   string // what was probed, e.g. "gopls"
	OK     bool
	Detail string // the path and version found, or what is missing and how to get it
}

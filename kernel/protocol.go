// This file defines the kernel protocol: the messages exchanged with the
// driver scripts over fd 3 (requests) and fd 4 (messages), one JSON object
// per line, and the drivers themselves.

package kernel

import (
	_ "embed"
	"encoding/json"
)

//go:embed driver/python_kernel.py
var pythonDriver string

//go:embed driver/node_kernel.js
var nodeDriver string

// message is one line from the driver (fd 4). T says which fields are set.
type message struct {
	T       string          `json:"t"` // ready, out, display, value, error, call, done
	ID      int             `json:"id"`
	Version string          `json:"version"` // ready
	Pid     int             `json:"pid"`     // ready
	Name    string          `json:"name"`    // out: stdout|stderr; call: the tool
	Text    string          `json:"text"`    // out, display, value
	Kind    string          `json:"kind"`    // display, value: text|markdown|image
	MIME    string          `json:"mime"`    // display, value
	Data    []byte          `json:"data"`    // display, value: image bytes (base64 on the wire)
	Ename   string          `json:"ename"`   // error
	Evalue  string          `json:"evalue"`  // error
	Trace   string          `json:"traceback"`
	Module  string          `json:"module"` // error: the module a ModuleNotFoundError names
	Shell   bool            `json:"shell"`  // error: a shell command failed (evalue says how); no traceback
	Call    int             `json:"call"`   // call: the call's id within the kernel
	Args    json.RawMessage `json:"args"`   // call
	Status  string          `json:"status"` // done: ok|error|interrupted
}

// request is one line to the driver (fd 3).
type request struct {
	T     string `json:"t"` // exec, reply, interrupt
	ID    int    `json:"id,omitempty"`
	Code  string `json:"code,omitempty"`
	Sync  string `json:"sync,omitempty"`  // exec: written to fd 1 when the cell ends
	Call  int    `json:"call,omitempty"`  // reply
	OK    bool   `json:"ok,omitempty"`    // reply: the tool succeeded
	Text  string `json:"text,omitempty"`  // reply: the tool's text
	Error string `json:"error,omitempty"` // reply: the call could not be made
}

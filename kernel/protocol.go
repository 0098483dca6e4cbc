// This file defines the kernel protocol: the messages exchanged with the
// driver scripts over fd 3 (requests) and fd 4 (messages), one JSON object
// per line, and the drivers themselves.
//
// The table protocol is the one description of those messages. The
// drivers' headers point here instead of repeating it; protocol_test.go
// runs each driver under its real interpreters and checks every line
// either side writes against the table (kinds, fields, their JSON types),
// that each driver accepts exactly the request kinds listed, and that
// every entry is exercised by both drivers; it also holds the Go types
// below (the request types, message) to exactly the table's fields.

package kernel

import (
	_ "embed"
	"encoding/json"
)

//go:embed driver/python_kernel.py
var pythonDriver string

//go:embed driver/node_kernel.js
var nodeDriver string

// side is who writes a message kind.
type side int

const (
	fromGo     side = iota // agent-tools → driver, on fd 3 (request)
	fromDriver             // driver → agent-tools, on fd 4 (message)
)

func (s side) String() string {
	if s == fromGo {
		return "agent-tools"
	}
	return "the driver"
}

// jsonType is the JSON type of a field's value.
type jsonType string

const (
	jsonString jsonType = "string"
	jsonInt    jsonType = "integer"
	jsonBool   jsonType = "boolean"
	jsonObject jsonType = "object"
	jsonBase64 jsonType = "base64 string"
)

// msgKind is one kind of message: the value of its "t" field, who sends
// it, and its other fields.
type msgKind struct {
	T      string
	From   side
	Doc    string
	Fields []msgField
}

// msgField is one field of a message kind.
type msgField struct {
	Name   string
	Type   jsonType
	Always bool     // every message of the kind carries it
	Only   Language // "": both drivers; else the one driver that sends it
	// Values are the values a string field may take, when they are a
	// fixed set, each with the one driver that sends it ("" for both).
	Values map[string]Language
	Doc    string
}

// protocol lists every message kind, requests first.
var protocol = []msgKind{
	{T: "exec", From: fromGo, Doc: "run a cell; the driver runs cells one at a time, in order", Fields: []msgField{
		{Name: "id", Type: jsonInt, Always: true, Doc: "the cell's number, from 1, increasing; every message about the cell carries it"},
		{Name: "code", Type: jsonString, Always: true, Doc: "the cell's source"},
		{Name: "sync", Type: jsonString, Always: true, Doc: "a marker the driver writes to fd 1 when the cell's own output ends (then it sends sync)"},
	}},
	{T: "reply", From: fromGo, Doc: "the answer to a call", Fields: []msgField{
		{Name: "call", Type: jsonInt, Always: true, Doc: "the call's number"},
		{Name: "ok", Type: jsonBool, Doc: "the tool succeeded (absent: it failed, and tool() raises ToolError with text)"},
		{Name: "text", Type: jsonString, Doc: "the tool's text"},
		{Name: "error", Type: jsonString, Doc: "the call could not be made at all (no bridge, client gone); tool() raises it"},
	}},
	{T: "interrupt", From: fromGo, Doc: "stop the running cell, keeping the interpreter; sent with SIGINT to the process group, " +
		"which is what stops Python (KeyboardInterrupt) and child processes: the Python driver accepts and ignores it, " +
		"the node driver needs it to end an await or terminate a busy script"},

	{T: "ready", From: fromDriver, Doc: "the driver is up (its first message)", Fields: []msgField{
		{Name: "version", Type: jsonString, Always: true, Doc: "the interpreter's version, 3.11.2 or 20.11.1"},
		{Name: "pid", Type: jsonInt, Always: true, Doc: "the interpreter's process id"},
	}},
	{T: "out", From: fromDriver, Doc: "the cell's own output (print, console.log, the driver's notes)", Fields: []msgField{
		{Name: "id", Type: jsonInt, Always: true, Doc: "the running cell, 0 between cells (a background thread's output goes to the next cell)"},
		{Name: "name", Type: jsonString, Always: true, Values: map[string]Language{"stdout": "", "stderr": ""}},
		{Name: "text", Type: jsonString, Always: true},
	}},
	{T: "display", From: fromDriver, Doc: "display() of an object", Fields: displayFields},
	{T: "value", From: fromDriver, Doc: "the value of the cell's last expression, shown as display() shows it", Fields: displayFields},
	{T: "error", From: fromDriver, Doc: "the cell raised, or (shell) a shell command in it failed; sent before done", Fields: []msgField{
		{Name: "id", Type: jsonInt, Always: true},
		{Name: "ename", Type: jsonString, Always: true, Doc: "the exception's class, ZeroDivisionError; empty in node and for shell"},
		{Name: "evalue", Type: jsonString, Always: true, Doc: "its message; for shell, which command failed and how"},
		{Name: "traceback", Type: jsonString, Always: true, Doc: "without the driver's frames; empty for shell"},
		{Name: "module", Type: jsonString, Only: Python, Doc: "the module a ModuleNotFoundError names"},
		{Name: "shell", Type: jsonBool, Only: Python, Doc: "a shell command (!cmd, %%bash) failed; the cell itself ran"},
	}},
	{T: "call", From: fromDriver, Doc: "tool(name, args) in the cell; the cell waits for the reply", Fields: []msgField{
		{Name: "id", Type: jsonInt, Always: true},
		{Name: "call", Type: jsonInt, Always: true, Doc: "the call's number within the kernel"},
		{Name: "name", Type: jsonString, Always: true, Doc: "the tool"},
		{Name: "args", Type: jsonObject, Always: true},
	}},
	{T: "sync", From: fromDriver, Doc: "the cell's own output is over and the marker is on fd 1", Fields: []msgField{
		{Name: "id", Type: jsonInt, Always: true},
	}},
	{T: "done", From: fromDriver, Doc: "the cell is over (its last message)", Fields: []msgField{
		{Name: "id", Type: jsonInt, Always: true},
		{Name: "status", Type: jsonString, Always: true, Values: map[string]Language{"ok": "", "error": "", "interrupted": ""}},
	}},
}

// displayFields are the fields of display and value: text for kinds text
// and markdown, data for image.
var displayFields = []msgField{
	{Name: "id", Type: jsonInt, Always: true},
	{Name: "kind", Type: jsonString, Always: true, Values: map[string]Language{"text": "", "markdown": Python, "image": Python}},
	{Name: "mime", Type: jsonString, Always: true, Doc: "text/plain, text/markdown, image/png, ..."},
	{Name: "text", Type: jsonString, Doc: "kinds text and markdown"},
	{Name: "data", Type: jsonBase64, Only: Python, Doc: "kind image: the image's bytes"},
}

// lookupKind returns the table's entry for kind t sent by from.
func lookupKind(t string, from side) (msgKind, bool) {
	for _, k := range protocol {
		if k.T == t && k.From == from {
			return k, true
		}
	}
	return msgKind{}, false
}

// message is one line from the driver (fd 4): the fields of every
// fromDriver kind in protocol; T says which are set.
type message struct {
	T       string          `json:"t"`
	ID      int             `json:"id"`
	Version string          `json:"version"`
	Pid     int             `json:"pid"`
	Name    string          `json:"name"`
	Text    string          `json:"text"`
	Kind    string          `json:"kind"`
	MIME    string          `json:"mime"`
	Data    []byte          `json:"data"` // base64 on the wire
	Ename   string          `json:"ename"`
	Evalue  string          `json:"evalue"`
	Trace   string          `json:"traceback"`
	Module  string          `json:"module"`
	Shell   bool            `json:"shell"`
	Call    int             `json:"call"`
	Args    json.RawMessage `json:"args"`
	Status  string          `json:"status"`
}

// The requests (fd 3), one type per fromGo kind in protocol, each with
// exactly that kind's fields.
type (
	execRequest struct {
		T    string `json:"t"` // "exec"
		ID   int    `json:"id"`
		Code string `json:"code"`
		Sync string `json:"sync"`
	}
	replyRequest struct {
		T     string `json:"t"` // "reply"
		Call  int    `json:"call"`
		OK    bool   `json:"ok,omitempty"`
		Text  string `json:"text,omitempty"`
		Error string `json:"error,omitempty"`
	}
	interruptRequest struct {
		T string `json:"t"` // "interrupt"
	}
)

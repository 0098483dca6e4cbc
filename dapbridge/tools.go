// This file adapts the debug-adapter bridge to package rpc: the debug tool
// and the capability's attachment.

package dapbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/invopop/jsonschema"
	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/rpc"
)

// implicitConversation is the conversation id used when the harness gave
// none (no --conversation flag, no conversationId in initialize): the run
// then has one debug session, shared by all its calls.
const implicitConversation = ""

const debugDescription = `Debug a program (delve: Go, debugpy: Python, lldb-dap: C/C++/Rust); one session per conversation.
Ops: adapters | status | breakpoints {file, lines} | exceptions {filters?, adapter?} | launch {program, args?} | attach {port} or {pid} | continue | pause | step_over | step_in | step_out | threads | stack | scopes {frame_id} | variables {reference} | evaluate {expression} | output | terminate.
Waits end after 15 s with "still running". Example: {"op":"breakpoints","file":"main.go","lines":[12,{"line":20,"condition":"n > 100"}]}, then {"op":"launch","program":"main.go"}, then {"op":"stack"}.`

// debugArgs are the debug tool's arguments. Their descriptions are short
// (every request of every harness carries them; TestDebugDescriptionSize
// bounds them); the README's debug section has the detail.
type debugArgs struct {
	Op         string      `json:"op" jsonschema:"enum=adapters,enum=status,enum=breakpoints,enum=exceptions,enum=launch,enum=attach,enum=continue,enum=pause,enum=step_over,enum=step_in,enum=step_out,enum=threads,enum=stack,enum=scopes,enum=variables,enum=evaluate,enum=output,enum=terminate"`
	File       string      `json:"file,omitempty" jsonschema_description:"breakpoints: source file"`
	Lines      *[]lineItem `json:"lines,omitempty" jsonschema_description:"breakpoints: the file's full list; [] clears it"`
	Filters    *[]string   `json:"filters,omitempty" jsonschema_description:"exceptions: filter ids to enable, exactly; omit to list them"`
	Program    string      `json:"program,omitempty" jsonschema_description:"launch: a .go file or package dir, a .py file, or a -g executable"`
	Args       []string    `json:"args,omitempty" jsonschema_description:"launch: program arguments"`
	Adapter    string      `json:"adapter,omitempty" jsonschema:"enum=delve,enum=debugpy,enum=lldb,enum=dart" jsonschema_description:"when the program does not decide it"`
	Port       int         `json:"port,omitempty" jsonschema_description:"attach: port listening for a debugger"`
	Pid        int         `json:"pid,omitempty" jsonschema_description:"attach (lldb): process id"`
	ThreadID   int         `json:"thread_id,omitempty" jsonschema_description:"default: the stopped thread"`
	FrameID    int         `json:"frame_id,omitempty" jsonschema_description:"from stack or the stop"`
	Reference  int         `json:"reference,omitempty" jsonschema_description:"from scopes, variables or evaluate"`
	Expression string      `json:"expression,omitempty"`
}

// lineItem is one item of lines: a line number or an object. Its schema is
// an anyOf of the two, the item schema every agent CLI measured passes to
// its model unchanged (an empty schema, `true`, became a string in Codex,
// and its model then sent "8").
type lineItem json.RawMessage

// JSONSchema is the item schema of lines.
func (lineItem) JSONSchema() *jsonschema.Schema {
	str := func(desc string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: desc} }
	props := jsonschema.NewProperties()
	props.Set("line", &jsonschema.Schema{Type: "integer", Minimum: "1"})
	props.Set("condition", str("stop only when true"))
	props.Set("hit_condition", str(`"== 3", ">= 3" or "% 10"`))
	props.Set("log_message", str("logpoint: print this, {expr} filled in; no stop"))
	obj := &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"line"}, AdditionalProperties: jsonschema.FalseSchema}
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "integer", Minimum: "1"}, obj}}
}

// UnmarshalJSON keeps the item as it came; decodeLine reads it.
func (l *lineItem) UnmarshalJSON(b []byte) error {
	*l = append((*l)[:0], b...)
	return nil
}

// Attach reports the debug capability for a run rooted at root, with the
// debug section of the configuration file (nil for the defaults) and the
// log its supervisor writes to (nil, or the zero Logger, discards). The
// tool is listed whenever the configuration is valid: whether an adapter
// can start is decided per call (debug op adapters says why not).
func Attach(root string, config json.RawMessage, log *zerolog.Logger) rpc.Attachment {
	a := rpc.Attachment{Capability: "debug"}
	// Looking for adapters runs processes (can python import debugpy?):
	// only doctor asks; calls decide per launch.
	a.Probe = func() []rpc.Check {
		var checks []rpc.Check
		for _, c := range Checks() {
			checks = append(checks, rpc.Check{Name: c.Name, OK: c.OK, Detail: c.Detail})
		}
		return checks
	}
	opts, err := ParseConfig(config, log)
	if err != nil {
		a.Reason = err.Error()
		return a
	}
	sup := startSupervisor(root, &opts, log)
	t := &toolSet{sup: sup, root: root}
	a.Tools = []*rpc.Tool{rpc.NewTool(rpc.Spec{Name: "debug", Tier: rpc.TierExec, Description: debugDescription}, t.debug)}
	a.Close = sup.Close
	return a
}

// startSupervisor makes the run's supervisor. In a Python project it also
// finds out now, in the background, which python can import debugpy
// (200–400 ms through a pyenv shim) rather than at the first launch.
func startSupervisor(root string, opts *Options, log *zerolog.Logger) *Supervisor {
	sup := NewSupervisor(opts, log)
	sup.warm(root, Request{})
	return sup
}

type toolSet struct {
	sup  *Supervisor
	root string // the --root flag; initialize may override it per session
}

func (t *toolSet) debug(ctx context.Context, a debugArgs) (*Result, error) {
	conv, root := implicitConversation, rpc.Root(ctx, t.root)
	if s := rpc.SessionFrom(ctx); s != nil {
		conv = s.Mode().Conversation
	}
	r := Request{
		Op: a.Op, File: a.File, Program: a.Program, Args: a.Args, Adapter: a.Adapter,
		Port: a.Port, Pid: a.Pid, ThreadID: a.ThreadID, FrameID: a.FrameID,
		Reference: a.Reference, Expression: a.Expression, Filters: a.Filters,
	}
	var step float64
	r.Progress = func(message string) {
		step++
		rpc.ReportProgress(ctx, step, 0, message)
	}
	if a.Op == "breakpoints" {
		if a.Lines == nil {
			return nil, errors.New("op breakpoints: argument 'lines' is required: the file's full list of lines, or [] to clear it")
		}
		for i, raw := range *a.Lines {
			l, err := decodeLine(json.RawMessage(raw))
			if err != nil {
				return nil, fmt.Errorf("op breakpoints: argument 'lines[%d]': %w", i, err)
			}
			r.Specs = append(r.Specs, l)
		}
	}
	return t.sup.Do(ctx, conv, root, r)
}

// decodeLine reads one item of lines: a line number, or an object with
// a line and any of condition, hit_condition, log_message.
func decodeLine(raw json.RawMessage) (LineSpec, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		var l LineSpec
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return l, fmt.Errorf("want {line, condition?, hit_condition?, log_message?}: %s", strings.TrimPrefix(err.Error(), "json: "))
		}
		if l.Line < 1 {
			return l, errors.New("want a 'line' ≥ 1")
		}
		return l, nil
	}
	var n json.Number
	if len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
		return LineSpec{}, fmt.Errorf("want a line number or {line, condition?, hit_condition?, log_message?}, got %s", clip(string(raw)))
	}
	line, err := n.Int64()
	if err != nil || line < 1 || line > 1<<31 {
		return LineSpec{}, fmt.Errorf("want a line number ≥ 1, got %s", n)
	}
	return LineSpec{Line: int(line)}, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

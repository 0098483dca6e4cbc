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

	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/rpc"
)

// implicitConversation is the conversation id used when the harness gave
// none (no --conversation flag, no conversationId in initialize): the run
// then has one debug session, shared by all its calls.
const implicitConversation = ""

const debugDescription = `Drive a debugger (delve for Go, debugpy for Python, lldb-dap for C/C++/Rust) in this conversation's one debug session. Calls are serialized; a second launch is rejected until terminate.
Ops: adapters | status | breakpoints {file, lines} (before or during a session; [] clears the file; a line is a number or {"line":12,"condition":"i == 2"}, with hit_condition "== 3" / ">= 3" / "% 10" or log_message "i={i}" (a logpoint: printed to output, no stop)) | exceptions {filters?, adapter?} (no filters: list the session adapter's exception filters; filters: set exactly those, [] for none; before a launch also name the adapter; debugpy stops on uncaught exceptions by default) | launch {program, args?, adapter?} | attach {port, adapter?} or {pid} (lldb) | continue | pause | step_over | step_in | step_out (each {thread_id?}; they wait up to 15 s, then answer "still running") | threads | stack {thread_id?} | scopes {frame_id} | variables {reference} | evaluate {expression, frame_id?} | output | terminate.
Example: {"op":"breakpoints","file":"main.go","lines":[12,{"line":20,"condition":"n > 100"}]} then {"op":"launch","program":"main.go"} then {"op":"stack"}.`

// debugArgs are the debug tool's arguments.
type debugArgs struct {
	Op         string             `json:"op" jsonschema:"enum=adapters,enum=status,enum=breakpoints,enum=exceptions,enum=launch,enum=attach,enum=continue,enum=pause,enum=step_over,enum=step_in,enum=step_out,enum=threads,enum=stack,enum=scopes,enum=variables,enum=evaluate,enum=output,enum=terminate" jsonschema_description:"the operation"`
	File       string             `json:"file,omitempty" jsonschema_description:"breakpoints: source file, relative to the root"`
	Lines      *[]json.RawMessage `json:"lines,omitempty" jsonschema_description:"breakpoints: the file's full list (replaces the previous one); [] clears the file. Each item is a 1-based line number, or an object {line, condition?, hit_condition?, log_message?}: condition is an expression in the program's language (stop only when true); hit_condition is N or == N (only the Nth hit), >= N, > N or % N (every Nth); log_message makes a logpoint that prints (with {expression} parts filled in) to the output op and does not stop"`
	Filters    *[]string          `json:"filters,omitempty" jsonschema_description:"exceptions: the exception filter ids to enable, exactly (the adapter's own: debugpy raised, uncaught, userUnhandled; delve unrecovered-panic, runtime-fatal-throw; lldb cpp_throw, cpp_catch, …); [] turns them all off; omit to list them"`
	Program    string             `json:"program,omitempty" jsonschema_description:"launch: what to debug, relative to the root: a .go file or package directory, a .py file, or a native executable built with -g"`
	Args       []string           `json:"args,omitempty" jsonschema_description:"launch: the program's command-line arguments"`
	Adapter    string             `json:"adapter,omitempty" jsonschema:"enum=delve,enum=debugpy,enum=lldb,enum=dart" jsonschema_description:"launch, attach: the adapter, when the program's kind or the root's markers do not decide it"`
	Port       int                `json:"port,omitempty" jsonschema_description:"attach: 127.0.0.1 port of a process listening for a debugger (python -m debugpy --listen PORT, dlv --headless --listen, lldb-server gdbserver)"`
	Pid        int                `json:"pid,omitempty" jsonschema_description:"attach (lldb only): the process id to attach to"`
	ThreadID   int                `json:"thread_id,omitempty" jsonschema_description:"continue, pause, step_*, stack: the thread; default the last stopped thread"`
	FrameID    int                `json:"frame_id,omitempty" jsonschema_description:"scopes (required), evaluate: a frame id from stack or the stop; evaluate defaults to the top frame"`
	Reference  int                `json:"reference,omitempty" jsonschema_description:"variables: a reference from scopes, variables or evaluate"`
	Expression string             `json:"expression,omitempty" jsonschema_description:"evaluate: the expression, in the program's language"`
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
	opts, err := ParseConfig(config)
	if err != nil {
		a.Reason = err.Error()
		return a
	}
	opts.Log = log
	sup := startSupervisor(root, &opts)
	t := &toolSet{sup: sup, root: root}
	a.Tools = []*rpc.Tool{rpc.NewTool(rpc.Spec{Name: "debug", Tier: rpc.TierExec, Description: debugDescription}, t.debug)}
	a.Close = sup.Close
	return a
}

// startSupervisor makes the run's supervisor. In a Python project it also
// finds out now, in the background, which python can import debugpy
// (200–400 ms through a pyenv shim) rather than at the first launch.
func startSupervisor(root string, opts *Options) *Supervisor {
	sup := NewSupervisor(opts)
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
	if a.Op == "breakpoints" {
		if a.Lines == nil {
			return nil, errors.New("op breakpoints: argument 'lines' is required: the file's full list of lines, or [] to clear it")
		}
		for i, raw := range *a.Lines {
			l, err := decodeLine(raw)
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

// This file defines the debug tool's result and its text form: short,
// stable, greppable lines.

package dapbridge

import (
	"fmt"
	"strings"
)

// Caps enforced on every answer, whatever the adapter sends.
const (
	maxFrames    = 30
	maxChildren  = 50
	maxValueLen  = 400
	maxThreads   = 50
	maxSourceLen = 200
)

// Result is the answer to one debug call.
type Result struct {
	Op          string            `json:"op" jsonschema_description:"the operation that ran"`
	Session     string            `json:"session,omitempty" jsonschema_description:"the conversation's session: adapter, launch or attach, program"`
	State       string            `json:"state" jsonschema_description:"none (no session), starting, running, stopped or ended"`
	Marker      string            `json:"marker,omitempty" jsonschema_description:"launch, attach: the root marker the adapter went by, relative to the root (the one nearest the program: delve runs in its folder)"`
	Notice      string            `json:"notice,omitempty" jsonschema_description:"something to know first: a session that expired, a wait that timed out"`
	Stop        *Stop             `json:"stop,omitempty" jsonschema_description:"where and why the program stopped"`
	Ended       string            `json:"ended,omitempty" jsonschema_description:"why the session ended"`
	ExitCode    *int              `json:"exitCode,omitempty" jsonschema_description:"the program's exit code, once it exited"`
	Adapters    []AdapterStatus   `json:"adapters,omitempty" jsonschema_description:"adapters op: each adapter and why it is not usable"`
	Breakpoints []Breakpoint      `json:"breakpoints,omitempty" jsonschema_description:"breakpoints and how the adapter placed them"`
	Exceptions  []ExceptionFilter `json:"exceptions,omitempty" jsonschema_description:"exceptions op: the adapter's exception filters"`
	Threads     []Thread          `json:"threads,omitempty" jsonschema_description:"threads op"`
	Frames      []Frame           `json:"frames,omitempty" jsonschema_description:"stack op, innermost first"`
	Scopes      []Scope           `json:"scopes,omitempty" jsonschema_description:"scopes op"`
	Variables   []Variable        `json:"variables,omitempty" jsonschema_description:"variables op"`
	Value       *Variable         `json:"value,omitempty" jsonschema_description:"evaluate op"`
	Output      []OutputChunk     `json:"output,omitempty" jsonschema_description:"output op: debuggee output not read before, in order"`
	Dropped     int               `json:"droppedBytes,omitempty" jsonschema_description:"output bytes dropped because the buffer was full"`
	Shown       int               `json:"shown,omitempty" jsonschema_description:"how many items are listed"`
	Total       int               `json:"total,omitempty" jsonschema_description:"how many items exist, when more than shown (0 when unknown or all shown)"`
	// TotalAtLeast marks Total as a lower bound: the adapter did not say
	// how many frames there are, only that there are more than shown.
	TotalAtLeast bool `json:"totalAtLeast,omitempty" jsonschema_description:"total is a lower bound"`
}

// Stop is where the program stopped.
type Stop struct {
	Reason   string `json:"reason" jsonschema_description:"breakpoint, step, pause, exception, entry, …"`
	Detail   string `json:"detail,omitempty" jsonschema_description:"the adapter's description of the stop"`
	ThreadID int    `json:"threadId,omitempty" jsonschema_description:"the stopped thread (the default for thread_id)"`
	File     string `json:"file,omitempty" jsonschema_description:"source file of the top frame"`
	Line     int    `json:"line,omitempty" jsonschema_description:"1-based line of the top frame"`
	Function string `json:"function,omitempty" jsonschema_description:"function of the top frame"`
	FrameID  int    `json:"frameId,omitempty" jsonschema_description:"id of the top frame (the default for frame_id)"`
	Source   string `json:"source,omitempty" jsonschema_description:"the text of that line"`
	Depth    int    `json:"depth,omitempty" jsonschema_description:"frames above the current one (an exception raised in the runtime or a library: the current frame is the first in your code)"`
	// Exception is the exception stopped at (DAP exceptionInfo).
	Exception *ExceptionInfo `json:"exception,omitempty" jsonschema_description:"the exception stopped at: its type and message"`
	// Parked are other threads stopped at a breakpoint too (debugpy
	// reports one stop for hits that come together).
	Parked          []Parked `json:"alsoAtBreakpoint,omitempty" jsonschema_description:"other threads stopped at a breakpoint too"`
	ParkedUnchecked int      `json:"threadsNotChecked,omitempty" jsonschema_description:"threads not looked at for alsoAtBreakpoint"`
}

// ExceptionInfo is the exception a stop is for.
type ExceptionInfo struct {
	Type    string `json:"type" jsonschema_description:"the exception's type or id (IndexError, panic, …)"`
	Message string `json:"message,omitempty" jsonschema_description:"its message (a Go panic: its value)"`
}

// Breakpoint is one requested breakpoint.
type Breakpoint struct {
	File string `json:"file" jsonschema_description:"source file"`
	Line int    `json:"line" jsonschema_description:"the line requested"`
	// The line's condition, hit condition and log message, as asked.
	Condition    string `json:"condition,omitempty" jsonschema_description:"stops only when this is true"`
	HitCondition string `json:"hitCondition,omitempty" jsonschema_description:"stops only on these hits"`
	LogMessage   string `json:"logMessage,omitempty" jsonschema_description:"a logpoint: prints this to output, does not stop"`
	Verified     bool   `json:"verified" jsonschema_description:"whether the adapter placed it"`
	Pending      bool   `json:"pending,omitempty" jsonschema_description:"no session yet: it is sent at launch"`
	MovedTo      int    `json:"movedTo,omitempty" jsonschema_description:"the line the adapter moved it to"`
	Message      string `json:"message,omitempty" jsonschema_description:"the adapter's reason when not verified"`
}

// Thread is one thread (a goroutine under delve).
type Thread struct {
	ID   int    `json:"id" jsonschema_description:"thread id for thread_id"`
	Name string `json:"name" jsonschema_description:"thread name"`
}

// Frame is one stack frame.
type Frame struct {
	ID       int    `json:"id" jsonschema_description:"frame id for frame_id"`
	Function string `json:"function" jsonschema_description:"function name"`
	File     string `json:"file,omitempty" jsonschema_description:"source file"`
	Line     int    `json:"line,omitempty" jsonschema_description:"1-based line"`
	Column   int    `json:"column,omitempty" jsonschema_description:"1-based column"`
}

// Scope is one scope of a frame.
type Scope struct {
	Name      string `json:"name" jsonschema_description:"Locals, Globals, Registers, …"`
	Reference int    `json:"reference" jsonschema_description:"reference for the variables op"`
	Expensive bool   `json:"expensive,omitempty" jsonschema_description:"the adapter says listing it is costly"`
}

// Variable is one variable, child or evaluation result.
type Variable struct {
	Name      string `json:"name" jsonschema_description:"name"`
	Value     string `json:"value" jsonschema_description:"value, cut at 400 characters"`
	Type      string `json:"type,omitempty" jsonschema_description:"type"`
	Reference int    `json:"reference,omitempty" jsonschema_description:"non-zero when it has children: pass it to the variables op"`
	Truncated bool   `json:"truncated,omitempty" jsonschema_description:"the value was cut"`
}

// capValue cuts a value at maxValueLen characters.
func capValue(v string) (string, bool) {
	r := []rune(v)
	if len(r) <= maxValueLen {
		return v, false
	}
	return string(r[:maxValueLen]) + "…", true
}

// Text is the result for a model.
func (r *Result) Text() string {
	var b strings.Builder
	if r.Notice != "" {
		fmt.Fprintf(&b, "note: %s\n", r.Notice)
	}
	switch r.Op {
	case "adapters":
		for _, a := range r.Adapters {
			if a.Usable {
				fmt.Fprintf(&b, "%s  usable  %s (%s", a.ID, a.Command, strings.Join(a.Markers, ", "))
				if a.More > 0 {
					fmt.Fprintf(&b, ", %d more", a.More)
				}
				b.WriteString(")\n")
			} else {
				fmt.Fprintf(&b, "%s  unavailable  %s\n", a.ID, a.Reason)
			}
		}
		return b.String()
	case "output":
		if len(r.Output) == 0 && r.Dropped == 0 {
			b.WriteString("no new output\n")
		}
		b.WriteString(renderOutput(r.Output, r.Dropped))
		r.writeState(&b)
		return b.String()
	}
	r.writeState(&b)
	r.writeLists(&b)
	return b.String()
}

func (r *Result) writeState(b *strings.Builder) {
	switch {
	case r.State == "none":
		b.WriteString("no session\n")
	case r.State == stateEnded:
		fmt.Fprintf(b, "session %s ended: %s\n", r.Session, r.Ended)
	case r.Stop != nil:
		fmt.Fprintf(b, "stopped: %s", r.Stop.Reason)
		if d := r.Stop.Detail; d != "" && d != r.Stop.Reason && (r.Stop.Exception == nil || d != r.Stop.Exception.Message && d != r.Stop.Exception.Type) {
			fmt.Fprintf(b, " (%s)", r.Stop.Detail)
		}
		if r.Stop.ThreadID != 0 {
			fmt.Fprintf(b, "  thread %d", r.Stop.ThreadID)
		}
		b.WriteString("\n")
		if e := r.Stop.Exception; e != nil {
			fmt.Fprintf(b, "exception %s", e.Type)
			if e.Message != "" {
				fmt.Fprintf(b, ": %s", strings.ReplaceAll(e.Message, "\n", `\n`))
			}
			b.WriteString("\n")
		}
		if r.Stop.Depth > 0 {
			fmt.Fprintf(b, "current frame: the first in your code, %s below the top (stack shows them all)\n", plural(r.Stop.Depth, "frame"))
		}
		if r.Stop.File != "" {
			fmt.Fprintf(b, "%s:%d  %s", r.Stop.File, r.Stop.Line, r.Stop.Function)
			if r.Stop.FrameID != 0 {
				fmt.Fprintf(b, "  frame %d", r.Stop.FrameID)
			}
			b.WriteString("\n")
			if r.Stop.Source != "" {
				fmt.Fprintf(b, "%6d | %s\n", r.Stop.Line, r.Stop.Source)
			}
		} else if r.Stop.Function != "" {
			fmt.Fprintf(b, "in %s (no source)\n", r.Stop.Function)
		}
		for _, p := range r.Stop.Parked {
			fmt.Fprintf(b, "also at a breakpoint: thread %d  %s:%d  %s (stack with thread_id %d shows it; continue resumes every thread, this one too)\n", p.ThreadID, p.File, p.Line, p.Function, p.ThreadID)
		}
		if n := r.Stop.ParkedUnchecked; n > 0 {
			fmt.Fprintf(b, "%s not checked for a breakpoint stop (threads lists them; stack with thread_id shows one)\n", plural(n, "other thread"))
		}
	case r.State == stateStopped && inspection[r.Op]:
		// These answers are about the stop the model already saw.
	case r.State == stateRunning || r.State == stateStarting || r.State == stateStopped:
		fmt.Fprintf(b, "session %s is %s\n", r.Session, r.State)
	}
	if r.Marker != "" && strings.Contains(r.Marker, "/") {
		fmt.Fprintf(b, "went by %s (the adapter runs in its folder)\n", r.Marker)
	}
}

// inspection are the ops that read the current stop without showing it.
var inspection = map[string]bool{"stack": true, "scopes": true, "variables": true, "evaluate": true}

func (r *Result) writeLists(b *strings.Builder) {
	for _, bp := range r.Breakpoints {
		writeBreakpoint(b, bp)
	}
	for _, e := range r.Exceptions {
		state := "off"
		if e.Enabled {
			state = "on"
		}
		fmt.Fprintf(b, "exceptions %s  %s  (%s)", e.ID, state, e.Label)
		if e.Default {
			b.WriteString("  default on")
		}
		b.WriteString("\n")
	}
	for _, t := range r.Threads {
		fmt.Fprintf(b, "thread %d  %s\n", t.ID, t.Name)
	}
	for _, f := range r.Frames {
		writeFrame(b, f)
	}
	for _, s := range r.Scopes {
		fmt.Fprintf(b, "scope %s  reference %d", s.Name, s.Reference)
		if s.Expensive {
			b.WriteString("  (expensive to list)")
		}
		b.WriteString("\n")
	}
	for _, v := range r.Variables {
		writeVar(b, v)
	}
	if r.Value != nil {
		writeVar(b, *r.Value)
	}
	switch {
	case r.Total > r.Shown && r.TotalAtLeast:
		fmt.Fprintf(b, "%d of at least %d shown (the adapter does not say how many)\n", r.Shown, r.Total)
	case r.Total > r.Shown:
		fmt.Fprintf(b, "%d of %d shown\n", r.Shown, r.Total)
	}
}

// writeBreakpoint writes one line: where, the options it was set with,
// and whether the adapter placed it.
func writeBreakpoint(b *strings.Builder, bp Breakpoint) {
	fmt.Fprintf(b, "%s:%d  ", bp.File, bp.Line)
	if bp.Condition != "" {
		fmt.Fprintf(b, "if %s  ", bp.Condition)
	}
	if bp.HitCondition != "" {
		fmt.Fprintf(b, "hit %s  ", bp.HitCondition)
	}
	if bp.LogMessage != "" {
		fmt.Fprintf(b, "log %q  ", bp.LogMessage)
	}
	switch {
	case bp.Pending:
		b.WriteString("pending (sent at launch)")
	case bp.Verified && bp.MovedTo != 0:
		fmt.Fprintf(b, "verified, moved to line %d", bp.MovedTo)
	case bp.Verified:
		b.WriteString("verified")
	default:
		b.WriteString("not verified")
		if bp.Message != "" {
			b.WriteString(": " + bp.Message)
		}
	}
	b.WriteString("\n")
}

// writeFrame writes one stack frame: its id, where it is, its function.
func writeFrame(b *strings.Builder, f Frame) {
	loc := "(no source)"
	switch {
	case f.File != "" && f.Column > 0:
		loc = fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
	case f.File != "":
		loc = fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	fmt.Fprintf(b, "frame %d  %s  %s\n", f.ID, loc, f.Function)
}

func writeVar(b *strings.Builder, v Variable) {
	b.WriteString(v.Name)
	if v.Type != "" {
		fmt.Fprintf(b, " (%s)", v.Type)
	}
	fmt.Fprintf(b, " = %s", strings.ReplaceAll(v.Value, "\n", `\n`))
	if v.Truncated {
		b.WriteString(" [truncated]")
	}
	if v.Reference != 0 {
		fmt.Fprintf(b, "  [reference %d]", v.Reference)
	}
	b.WriteString("\n")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

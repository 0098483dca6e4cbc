// This file defines the session's operations once it runs: execution
// control (continue, steps, pause) and inspection (threads, stack, scopes,
// variables, evaluate), with the caps enforced client-side.

package dapbridge

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-dap"
)

// defaultThread is the last stopped thread; when the stop named none
// (delve after pause), the thread delve marks current ("* "), else the
// first one, remembered until the program moves.
func (s *session) defaultThread(ctx context.Context) (int, error) {
	sn := s.snap()
	if sn.thread != 0 {
		return sn.thread, nil
	}
	var body dap.ThreadsResponseBody
	if err := s.conn.call(ctx, "threads", nil, requestTimeout, &body); err != nil {
		return 0, err
	}
	if len(body.Threads) == 0 {
		return 0, fmt.Errorf("the adapter lists no threads")
	}
	tid := body.Threads[0].Id
	for _, t := range body.Threads {
		if strings.HasPrefix(t.Name, "* ") {
			tid = t.Id
			break
		}
	}
	s.mu.Lock()
	if s.gen == sn.gen && s.state == stateStopped {
		s.lastThread = tid
	}
	s.mu.Unlock()
	return tid, nil
}

func (s *session) threads(ctx context.Context) ([]Thread, int, error) {
	var body dap.ThreadsResponseBody
	if err := s.conn.call(ctx, "threads", nil, requestTimeout, &body); err != nil {
		return nil, 0, err
	}
	out := make([]Thread, 0, min(len(body.Threads), maxThreads))
	for i, t := range body.Threads {
		if i == maxThreads {
			break
		}
		out = append(out, Thread{ID: t.Id, Name: t.Name})
	}
	return out, len(body.Threads), nil
}

// stack returns up to levels frames of thread tid, with our frame ids,
// and how many there are: more than levels when the listing is cut, but
// only a lower bound when the adapter did not say (then total is levels+1
// and atLeast is set).
func (s *session) stack(ctx context.Context, tid, levels int) ([]Frame, int, bool, error) {
	if err := s.needStopped(); err != nil {
		return nil, 0, false, err
	}
	if tid == 0 {
		var err error
		if tid, err = s.defaultThread(ctx); err != nil {
			return nil, 0, false, err
		}
	}
	// One frame more than shown: an adapter that gives no totalFrames
	// (debugpy) then still tells whether the listing is complete.
	c, err := s.framesOf(ctx, tid, levels+1)
	if err != nil {
		return nil, 0, false, err
	}
	frames := c.frames[:min(len(c.frames), levels)]
	out := make([]Frame, len(frames))
	s.mu.Lock()
	for i, f := range frames {
		out[i] = Frame{ID: s.ids.frameID(frameKey{tid, i}), Function: f.Name, Line: f.Line, Column: f.Column}
		if f.Source != nil && f.Source.Path != "" {
			out[i].File = s.rel(f.Source.Path)
		}
	}
	s.mu.Unlock()
	return out, c.total, !c.complete && c.total <= levels+1, nil
}

func (s *session) needStopped() error {
	switch sn := s.snap(); sn.state {
	case stateStopped:
		return nil
	case stateEnded:
		return fmt.Errorf("the session has ended: %s", sn.endReason)
	}
	return errNotStopped
}

// isException reports whether a stop is an exception, a panic or a
// signal: one whose top frames may be the runtime's, not the user's.
func isException(b dap.StoppedEventBody) bool {
	return b.Reason == "exception" || b.Reason == "panic"
}

// stopInfo describes the current stop: reason, thread, current frame and
// its source line, and for an exception its type and message. The
// current frame is the top one, except at an exception raised in the
// runtime or a library (a Go panic stops in runtime.gopanic), where it is
// the first frame whose source is under the root. It is nil unless the
// program is stopped.
func (s *session) stopInfo(ctx context.Context) *Stop {
	sn := s.snap()
	if sn.state != stateStopped {
		return nil
	}
	st := &Stop{Reason: sn.stop.Reason, Detail: sn.stop.Description}
	if sn.stop.Text != "" && st.Detail == "" {
		st.Detail = sn.stop.Text
	}
	tid, err := s.defaultThread(ctx)
	if err != nil {
		return st
	}
	st.ThreadID = tid
	levels := 1
	exc := isException(sn.stop)
	if exc {
		levels = maxFrames
		st.Exception = s.exceptionInfo(ctx, tid, sn)
	}
	c, err := s.framesOf(ctx, tid, levels)
	if err != nil || len(c.frames) == 0 {
		return st
	}
	depth := 0
	if exc {
		depth = s.userFrame(c.frames)
	}
	f := c.frames[depth]
	s.mu.Lock()
	st.FrameID = s.ids.frameID(frameKey{tid, depth})
	if s.gen == sn.gen {
		s.current = depth
	}
	s.mu.Unlock()
	st.Function, st.Line, st.Depth = f.Name, f.Line, depth
	st.Parked, st.ParkedUnchecked = s.parkedThreads(ctx, sn, tid)
	if f.Source != nil && f.Source.Path != "" {
		st.File = s.rel(f.Source.Path)
		st.Source = sourceLine(f.Source.Path, f.Line)
	}
	return st
}

// userFrame is the depth of the first frame whose source is under the
// root (the user's code), or 0 when there is none.
func (s *session) userFrame(frames []dap.StackFrame) int {
	for i, f := range frames {
		if f.Source != nil && f.Source.Path != "" && relTo(s.root, f.Source.Path) != f.Source.Path {
			return i
		}
	}
	return 0
}

// sourceLine returns line n of a file, trimmed and capped, or "".
func sourceLine(path string, n int) string {
	f, err := os.Open(path)
	if err != nil || n < 1 {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			line := strings.TrimRight(sc.Text(), " \t\r")
			if r := []rune(line); len(r) > maxSourceLen {
				line = string(r[:maxSourceLen]) + "…"
			}
			return line
		}
	}
	return ""
}

func (s *session) scopes(ctx context.Context, frameID int) ([]Scope, error) {
	if err := s.needStopped(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	adapterID, known := s.ids.adapterFrame(frameID)
	s.mu.Unlock()
	if !known {
		return nil, staleFrame(frameID)
	}
	var body dap.ScopesResponseBody
	if err := s.conn.call(ctx, "scopes", map[string]any{"frameId": adapterID}, requestTimeout, &body); err != nil {
		return nil, err
	}
	out := make([]Scope, len(body.Scopes))
	s.mu.Lock()
	for i, sc := range body.Scopes {
		ref := s.ids.ref(sc.VariablesReference, countOrUnknown(sc.NamedVariables, sc.IndexedVariables))
		out[i] = Scope{Name: sc.Name, Reference: ref, Expensive: sc.Expensive}
	}
	s.mu.Unlock()
	return out, nil
}

func staleFrame(id int) error {
	return fmt.Errorf("frame %d is not a frame of the current stop: call stack for the frame ids of this stop", id)
}

func countOrUnknown(named, indexed int) int {
	if named+indexed == 0 {
		return -1
	}
	return named + indexed
}

// variables lists up to maxChildren children of a reference. count is
// requested (delve and lldb-dap honour it; debugpy does not) and the cap
// is enforced here either way.
func (s *session) variables(ctx context.Context, ref int) ([]Variable, int, error) {
	if err := s.needStopped(); err != nil {
		return nil, 0, err
	}
	s.mu.Lock()
	ar, ok := s.ids.refs[ref]
	s.mu.Unlock()
	if !ok {
		return nil, 0, fmt.Errorf("reference %d is not from the current stop: get fresh references from scopes, variables or evaluate", ref)
	}
	return s.children(ctx, ar, maxChildren)
}

// children fetches up to limit children of an adapter reference.
func (s *session) children(ctx context.Context, ar adapterRef, limit int) ([]Variable, int, error) {
	var body dap.VariablesResponseBody
	args := map[string]any{"variablesReference": ar.ref, "start": 0, "count": limit + 1}
	if err := s.conn.call(ctx, "variables", args, requestTimeout, &body); err != nil {
		return nil, 0, err
	}
	vars := body.Variables
	total := max(len(vars), ar.count)
	if len(vars) > limit {
		vars = vars[:limit]
	}
	out := make([]Variable, len(vars))
	s.mu.Lock()
	for i, v := range vars {
		out[i] = s.variableLocked(v.Name, v.Value, v.Type, v.VariablesReference, v.NamedVariables, v.IndexedVariables)
	}
	s.mu.Unlock()
	return out, total, nil
}

func (s *session) variableLocked(name, value, typ string, ref, named, indexed int) Variable {
	v := Variable{Name: name, Type: typ, Reference: s.ids.ref(ref, countOrUnknown(named, indexed))}
	v.Value, v.Truncated = capValue(value)
	return v
}

// currentFrame is our id of the current frame of the default thread: the
// stop's (the top, or an exception's first user frame).
func (s *session) currentFrame(ctx context.Context) (int, error) {
	tid, err := s.defaultThread(ctx)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	depth := s.current
	s.mu.Unlock()
	c, err := s.framesOf(ctx, tid, depth+1)
	if err != nil {
		return 0, err
	}
	if len(c.frames) <= depth {
		return 0, fmt.Errorf("no frame to evaluate in")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids.frameID(frameKey{tid, depth}), nil
}

// evaluate evaluates expr in a frame (default: the current frame of the
// default thread) in the watch context: without a frame debugpy looks in
// globals and lldb-dap fails, and lldb's repl context runs commands.
func (s *session) evaluate(ctx context.Context, expr string, frameID int) (*Variable, error) {
	if err := s.needStopped(); err != nil {
		return nil, err
	}
	if frameID == 0 {
		var err error
		if frameID, err = s.currentFrame(ctx); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	adapterID, known := s.ids.adapterFrame(frameID)
	s.mu.Unlock()
	if !known {
		return nil, staleFrame(frameID)
	}
	var body dap.EvaluateResponseBody
	args := map[string]any{"expression": expr, "frameId": adapterID, "context": "watch"}
	if err := s.conn.call(ctx, "evaluate", args, requestTimeout, &body); err != nil {
		return nil, err
	}
	s.mu.Lock()
	v := s.variableLocked(expr, body.Result, body.Type, body.VariablesReference, body.NamedVariables, body.IndexedVariables)
	s.mu.Unlock()
	if s.adapter.id == "lldb" && body.VariablesReference != 0 && (body.IndexedVariables > 0 || strings.Contains(body.Result, "] @ 0x")) {
		// lldb-dap shows an array as "int[5] @ 0x7ffe…": its elements,
		// one level, capped as the variables op caps them.
		ar := adapterRef{body.VariablesReference, countOrUnknown(body.NamedVariables, body.IndexedVariables)}
		if m := arrayLen.FindStringSubmatch(body.Type); m != nil && ar.count < 0 {
			ar.count, _ = strconv.Atoi(m[1]) // lldb-dap 19 gives no indexedVariables here
		}
		if kids, total, err := s.children(ctx, ar, maxChildren); err == nil {
			v.Value, v.Truncated = capValue(elementList(kids, total))
		}
	}
	return &v, nil
}

// arrayLen reads a C array type's length: int[200].
var arrayLen = regexp.MustCompile(`\[([0-9]+)\]$`)

// elementList shows an array's elements on one line: "[0, 1, 2]", with
// how many are left out.
func elementList(kids []Variable, total int) string {
	vals := make([]string, len(kids))
	for i, k := range kids {
		vals[i] = k.Value
	}
	s := "[" + strings.Join(vals, ", ")
	if total > len(kids) {
		s += fmt.Sprintf(", … %d more", total-len(kids))
	}
	return s + "]"
}

// resume sends continue, next, stepIn or stepOut and waits up to wait for
// the next stop or the end. It reports whether one came, and otherwise
// how long the program had used no CPU (waitStop).
func (s *session) resume(ctx context.Context, command string, tid int, wait time.Duration) (bool, time.Duration, error) {
	if err := s.needStopped(); err != nil {
		return false, 0, err
	}
	if tid == 0 {
		var err error
		if tid, err = s.defaultThread(ctx); err != nil {
			return false, 0, err
		}
	}
	s.mu.Lock()
	gen := s.gen
	s.state = stateRunning
	s.resumed = command
	s.mu.Unlock()
	err := s.conn.call(ctx, command, map[string]any{"threadId": tid}, requestTimeout, nil)
	s.mu.Lock()
	switch {
	case s.gen != gen:
		// It stopped again already; that stop reset the ids.
	case err != nil && s.state == stateRunning:
		s.state = stateStopped // the adapter refused: nothing moved, the ids hold
		s.resumed = ""
	case err == nil:
		s.resetStopLocked()
	}
	s.mu.Unlock()
	if err != nil {
		return false, 0, err
	}
	return s.waitStop(ctx, gen, wait)
}

// pause asks the adapter to stop the program and waits up to wait (less
// when the program is idle: waitStop).
func (s *session) pause(ctx context.Context, tid int, wait time.Duration) (bool, time.Duration, error) {
	sn := s.snap()
	switch sn.state {
	case stateStopped:
		return true, 0, nil
	case stateEnded:
		return false, 0, fmt.Errorf("the session has ended: %s", sn.endReason)
	}
	if tid == 0 {
		tid = sn.thread
	}
	if tid == 0 {
		if ts, _, err := s.threads(ctx); err == nil && len(ts) > 0 {
			tid = ts[0].ID
		}
	}
	s.mu.Lock()
	s.pausing = true
	s.mu.Unlock()
	if err := s.conn.call(ctx, "pause", map[string]any{"threadId": tid}, requestTimeout, nil); err != nil {
		return false, 0, err
	}
	return s.waitStop(ctx, sn.gen, wait)
}

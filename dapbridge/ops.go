// This file defines the session's operations once it runs: execution
// control (continue, steps, pause) and inspection (threads, stack, scopes,
// variables, evaluate), with the caps enforced client-side.

package dapbridge

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/google/go-dap"
)

// defaultThread is the last stopped thread; when the stop named none
// (delve after pause), the thread delve marks current ("* "), else the
// first one.
func (s *session) defaultThread(ctx context.Context) (int, error) {
	if t := s.snap().thread; t != 0 {
		return t, nil
	}
	var body dap.ThreadsResponseBody
	if err := s.conn.call(ctx, "threads", nil, requestTimeout, &body); err != nil {
		return 0, err
	}
	for _, t := range body.Threads {
		if strings.HasPrefix(t.Name, "* ") {
			return t.Id, nil
		}
	}
	if len(body.Threads) == 0 {
		return 0, fmt.Errorf("the adapter lists no threads")
	}
	return body.Threads[0].Id, nil
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

// stack returns up to levels frames of thread tid.
func (s *session) stack(ctx context.Context, tid, levels int) ([]Frame, int, error) {
	if err := s.needStopped(); err != nil {
		return nil, 0, err
	}
	if tid == 0 {
		var err error
		if tid, err = s.defaultThread(ctx); err != nil {
			return nil, 0, err
		}
	}
	var body dap.StackTraceResponseBody
	args := map[string]any{"threadId": tid, "startFrame": 0, "levels": levels}
	if err := s.conn.call(ctx, "stackTrace", args, requestTimeout, &body); err != nil {
		return nil, 0, err
	}
	frames := body.StackFrames
	if len(frames) > levels {
		frames = frames[:levels]
	}
	out := make([]Frame, len(frames))
	s.mu.Lock()
	for i, f := range frames {
		s.frames[f.Id] = true
		out[i] = Frame{ID: f.Id, Function: f.Name, Line: f.Line, Column: f.Column}
		if f.Source != nil && f.Source.Path != "" {
			out[i].File = s.rel(f.Source.Path)
		}
	}
	s.mu.Unlock()
	total := max(body.TotalFrames, len(body.StackFrames))
	return out, total, nil
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

// stopInfo describes the current stop: reason, thread, top frame and its
// source line. It is nil unless the program is stopped.
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
	var body dap.StackTraceResponseBody
	args := map[string]any{"threadId": tid, "startFrame": 0, "levels": 1}
	if s.conn.call(ctx, "stackTrace", args, requestTimeout, &body) != nil || len(body.StackFrames) == 0 {
		return st
	}
	f := body.StackFrames[0]
	s.mu.Lock()
	s.frames[f.Id] = true
	s.mu.Unlock()
	st.FrameID, st.Function, st.Line = f.Id, f.Name, f.Line
	if f.Source != nil && f.Source.Path != "" {
		st.File = s.rel(f.Source.Path)
		st.Source = sourceLine(f.Source.Path, f.Line)
	}
	return st
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
	known := s.frames[frameID]
	s.mu.Unlock()
	if !known {
		return nil, fmt.Errorf("frame %d is not a frame of the current stop: call stack for fresh frame ids", frameID)
	}
	var body dap.ScopesResponseBody
	if err := s.conn.call(ctx, "scopes", map[string]any{"frameId": frameID}, requestTimeout, &body); err != nil {
		return nil, err
	}
	out := make([]Scope, len(body.Scopes))
	s.mu.Lock()
	for i, sc := range body.Scopes {
		out[i] = Scope{Name: sc.Name, Reference: sc.VariablesReference, Expensive: sc.Expensive}
		s.refs[sc.VariablesReference] = countOrUnknown(sc.NamedVariables, sc.IndexedVariables)
	}
	s.mu.Unlock()
	return out, nil
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
	known, ok := s.refs[ref]
	s.mu.Unlock()
	if !ok {
		return nil, 0, fmt.Errorf("reference %d is not from the current stop: get fresh references from scopes, variables or evaluate", ref)
	}
	var body dap.VariablesResponseBody
	args := map[string]any{"variablesReference": ref, "start": 0, "count": maxChildren + 1}
	if err := s.conn.call(ctx, "variables", args, requestTimeout, &body); err != nil {
		return nil, 0, err
	}
	vars := body.Variables
	total := len(vars)
	if known > total {
		total = known
	}
	if len(vars) > maxChildren {
		vars = vars[:maxChildren]
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
	v := Variable{Name: name, Type: typ, Reference: ref}
	v.Value, v.Truncated = capValue(value)
	if ref != 0 {
		s.refs[ref] = countOrUnknown(named, indexed)
	}
	return v
}

// evaluate evaluates expr in a frame (default: the top frame of the
// default thread) in the watch context: without a frame debugpy looks in
// globals and lldb-dap fails, and lldb's repl context runs commands.
func (s *session) evaluate(ctx context.Context, expr string, frameID int) (*Variable, error) {
	if err := s.needStopped(); err != nil {
		return nil, err
	}
	if frameID == 0 {
		frames, _, err := s.stack(ctx, 0, 1)
		if err != nil {
			return nil, err
		}
		if len(frames) == 0 {
			return nil, fmt.Errorf("no frame to evaluate in")
		}
		frameID = frames[0].ID
	}
	s.mu.Lock()
	known := s.frames[frameID]
	s.mu.Unlock()
	if !known {
		return nil, fmt.Errorf("frame %d is not a frame of the current stop: call stack for fresh frame ids", frameID)
	}
	var body dap.EvaluateResponseBody
	args := map[string]any{"expression": expr, "frameId": frameID, "context": "watch"}
	if err := s.conn.call(ctx, "evaluate", args, requestTimeout, &body); err != nil {
		return nil, err
	}
	s.mu.Lock()
	v := s.variableLocked(expr, body.Result, body.Type, body.VariablesReference, body.NamedVariables, body.IndexedVariables)
	s.mu.Unlock()
	return &v, nil
}

// resume sends continue, next, stepIn or stepOut and waits up to wait for
// the next stop or the end. It reports whether one came.
func (s *session) resume(ctx context.Context, command string, tid int, wait time.Duration) (bool, error) {
	if err := s.needStopped(); err != nil {
		return false, err
	}
	if tid == 0 {
		var err error
		if tid, err = s.defaultThread(ctx); err != nil {
			return false, err
		}
	}
	s.mu.Lock()
	gen := s.gen
	s.state = stateRunning
	s.frames, s.refs = map[int]bool{}, map[int]int{}
	s.mu.Unlock()
	if err := s.conn.call(ctx, command, map[string]any{"threadId": tid}, requestTimeout, nil); err != nil {
		s.mu.Lock()
		if s.gen == gen && s.state == stateRunning {
			s.state = stateStopped // the adapter refused: nothing moved
		}
		s.mu.Unlock()
		return false, err
	}
	return s.waitChange(ctx, gen, wait)
}

// pause asks the adapter to stop the program and waits up to wait.
func (s *session) pause(ctx context.Context, tid int, wait time.Duration) (bool, error) {
	sn := s.snap()
	switch sn.state {
	case stateStopped:
		return true, nil
	case stateEnded:
		return false, fmt.Errorf("the session has ended: %s", sn.endReason)
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
		return false, err
	}
	return s.waitChange(ctx, sn.gen, wait)
}

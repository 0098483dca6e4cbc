// This file defines the supervisor: one debug session per conversation,
// calls serialized per conversation, the breakpoint table kept across
// sessions, and the TTL after which a session is terminated.

package dapbridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/internal/workspace"
)

// Options configures a [Supervisor]. Zero fields take the defaults in
// [DefaultOptions].
type Options struct {
	// TTL is how long a session may live; it is then terminated and the
	// next call says so. Default 30 minutes.
	TTL time.Duration
	// StopWait is how long launch, attach, continue, the steps and pause
	// wait for the program to stop before answering "still running".
	// Default 15 s.
	StopWait time.Duration
	// LaunchTimeout bounds the whole start of a session: the adapter's
	// start, delve's build (17 s on a cold cache here) and the handshake.
	// With StopWait after it, a launch answers within 135 s by default,
	// under the call timeouts of the agent CLIs (Codex: 300 s; opencode
	// 60 s without progress, which the server's heartbeat resets).
	// Default 120 s.
	LaunchTimeout time.Duration
}

// DefaultOptions are the defaults of [Options].
var DefaultOptions = Options{TTL: 30 * time.Minute, StopWait: 15 * time.Second, LaunchTimeout: 120 * time.Second}

func (o *Options) withDefaults() Options {
	d := DefaultOptions
	if o == nil {
		return d
	}
	if o.TTL > 0 {
		d.TTL = o.TTL
	}
	if o.StopWait > 0 {
		d.StopWait = o.StopWait
	}
	if o.LaunchTimeout > 0 {
		d.LaunchTimeout = o.LaunchTimeout
	}
	return d
}

// Request is one debug call. Which fields matter depends on Op.
type Request struct {
	Op         string     // adapters, status, breakpoints, launch, attach, continue, pause, step_over, step_in, step_out, threads, stack, scopes, variables, evaluate, output, terminate
	File       string     // breakpoints
	Lines      []int      // breakpoints: plain lines; with Specs empty, clears the file
	Specs      []LineSpec // breakpoints: lines with a condition, hit condition or log message
	Filters    *[]string  // exceptions: the filters to enable; nil lists them
	Program    string     // launch; lldb attach (optional)
	Args       []string   // launch
	Adapter    string     // launch, attach: override the choice
	Port       int        // attach
	Pid        int        // attach (lldb)
	ThreadID   int        // continue, pause, steps, stack
	FrameID    int        // scopes, evaluate
	Reference  int        // variables
	Expression string     // evaluate
	// Progress, when set, is told what a long call is waiting for
	// ("delve is building ."); the tool turns it into MCP progress.
	Progress func(message string)
}

func (r Request) progress(message string) {
	if r.Progress != nil {
		r.Progress(message)
	}
}

// Supervisor owns the debug sessions of a run.
type Supervisor struct {
	opts  Options
	log   zerolog.Logger // the zero Logger discards
	res   *resolver
	trace func(command string) // when set, sees every DAP request sent (tests)

	mu     sync.Mutex // guards convs, live and closed
	convs  map[string]*conversation
	live   []*session // every session started, for Close (finish is idempotent)
	closed bool
}

func (s *Supervisor) track(sess *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live = append(s.live, sess)
}

// conversation is one conversation's debug state. Its call token (lock)
// guards every field: calls, TTL expiry and Close take it.
type conversation struct {
	lock chan struct{}
	bps  map[string][]LineSpec // absolute file → lines: our breakpoint table
	// exceptions are the exception filters asked for, per adapter id;
	// an adapter without an entry gets its defaults.
	exceptions map[string][]string
	sess       *session    // the live session, or the last one that ended
	notice     string      // told once by the next call (a TTL expiry)
	timer      *time.Timer // the live session's TTL
}

// NewSupervisor returns a supervisor; nil opts means the defaults. log
// receives the supervisor's events: adapters started and exited (with the
// end of their stderr), sessions ended, TTL expiries, kills and timeouts;
// nil discards them.
func NewSupervisor(opts *Options, log *zerolog.Logger) *Supervisor {
	s := &Supervisor{opts: opts.withDefaults(), res: newResolver(), convs: map[string]*conversation{}}
	if log != nil {
		s.log = *log
	}
	return s
}

func (s *Supervisor) conversation(id string) (*conversation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("the debug supervisor is shutting down")
	}
	c := s.convs[id]
	if c == nil {
		c = &conversation{lock: make(chan struct{}, 1), bps: map[string][]LineSpec{}, exceptions: map[string][]string{}}
		s.convs[id] = c
	}
	return c, nil
}

// Do runs one call for conversation conv in the run rooted at root. Calls
// of one conversation run one at a time, in arrival order.
func (s *Supervisor) Do(ctx context.Context, conv, root string, r Request) (*Result, error) {
	c, err := s.conversation(conv)
	if err != nil {
		return nil, err
	}
	s.warm(root, r)
	select {
	case c.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.lock }()
	res, err := s.do(ctx, c, root, r)
	if c.sess != nil && c.sess.ended() {
		s.cleanup(c)
	}
	if c.notice != "" {
		if err != nil {
			err = fmt.Errorf("%w (note: %s)", err, c.notice)
		} else if res.Notice == "" {
			res.Notice = c.notice
		} else {
			res.Notice = c.notice + "; " + res.Notice
		}
		c.notice = ""
	}
	return res, err
}

// warm starts, in the background, the checks that launching debugpy here
// would wait for (can python import debugpy: 200–400 ms the first time
// through a pyenv shim), when this call suggests Python: a Python marker
// in the root, a .py file or program, or the debugpy adapter named. Attach
// calls it once for the root, so in a Python project the first launch
// finds them done; elsewhere an earlier debug call (typically breakpoints)
// does the same.
func (s *Supervisor) warm(root string, r Request) {
	a := adapterByID("debugpy")
	if r.Adapter == a.id || filepath.Ext(r.File) == ".py" || filepath.Ext(r.Program) == ".py" || markerIn(a, root) != "" {
		s.res.warm(a, root)
	}
}

// cleanup stops what is left of an ended session (its adapter).
func (s *Supervisor) cleanup(c *conversation) {
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c.sess.finish(ctx, c.sess.snap().endReason)
}

func (s *Supervisor) do(ctx context.Context, c *conversation, root string, r Request) (*Result, error) {
	switch r.Op {
	case "adapters":
		res := &Result{Op: r.Op, State: "none"}
		sc := scanMarkers(root)
		for _, a := range adapterDefs {
			res.Adapters = append(res.Adapters, s.res.status(ctx, a, root, sc.found[a.id]))
		}
		if sc.stopped {
			res.Notice = fmt.Sprintf("the marker search stopped after %d directories: markers further on were not looked for", maxMarkerDirs)
		}
		s.fill(ctx, c, res)
		return res, nil
	case "status":
		res := s.result(ctx, c, r.Op)
		if c.sess == nil || c.sess.ended() {
			res.Breakpoints = pendingList(root, c.bps)
		}
		return res, nil
	case "breakpoints":
		return s.breakpoints(ctx, c, root, r)
	case "launch", "attach":
		return s.start(ctx, c, root, r)
	case "exceptions":
		return s.exceptions(ctx, c, r)
	case "terminate":
		if c.sess == nil || c.sess.ended() {
			res := s.result(ctx, c, r.Op)
			res.Notice = "no live session to terminate"
			return res, nil
		}
		if c.timer != nil {
			c.timer.Stop()
			c.timer = nil
		}
		c.sess.finish(ctx, "terminated by the terminate op")
		return s.result(ctx, c, r.Op), nil
	case "output":
		res := &Result{Op: r.Op}
		s.fillState(c, res)
		if c.sess != nil {
			c.sess.mu.Lock()
			res.Output, res.Dropped = c.sess.out.take()
			c.sess.mu.Unlock()
		}
		return res, nil
	}
	sess := c.sess
	if sess == nil {
		return nil, fmt.Errorf("op %s: no debug session in this conversation: launch or attach first", r.Op)
	}
	if sess.ended() {
		return nil, fmt.Errorf("op %s: the session %s has ended (%s): launch again", r.Op, sess.label, sess.snap().endReason)
	}
	return s.control(ctx, c, sess, r)
}

// control runs the ops that need a live session.
func (s *Supervisor) control(ctx context.Context, c *conversation, sess *session, r Request) (*Result, error) {
	switch r.Op {
	case "continue", "step_over", "step_in", "step_out", "pause":
		return s.move(ctx, c, sess, r)
	case "threads":
		ts, total, err := sess.threads(ctx)
		if err != nil {
			return nil, fmt.Errorf("op threads: %w", err)
		}
		res := s.result(ctx, c, r.Op)
		res.Threads, res.Shown, res.Total = ts, len(ts), total
		return res, nil
	case "stack":
		fs, total, atLeast, err := sess.stack(ctx, r.ThreadID, maxFrames)
		if err != nil {
			return nil, fmt.Errorf("op stack: %w", err)
		}
		res := &Result{Op: r.Op}
		s.fillState(c, res)
		res.Frames, res.Shown, res.Total, res.TotalAtLeast = fs, len(fs), total, atLeast
		return res, nil
	case "scopes", "variables", "evaluate":
		return inspect(ctx, sess, r)
	}
	return nil, fmt.Errorf("unknown op %q", r.Op)
}

// move runs continue, the steps and pause, each waiting up to StopWait
// for the program to stop; a program still running says why, if it can.
func (s *Supervisor) move(ctx context.Context, c *conversation, sess *session, r Request) (*Result, error) {
	var moved bool
	var idle time.Duration
	var err error
	r.progress(fmt.Sprintf("%s: waiting up to %v for a stop", r.Op, s.opts.StopWait))
	start := time.Now()
	if r.Op == "pause" {
		moved, idle, err = sess.pause(ctx, r.ThreadID, s.opts.StopWait)
	} else {
		cmd := map[string]string{"continue": "continue", "step_over": "next", "step_in": "stepIn", "step_out": "stepOut"}[r.Op]
		moved, idle, err = sess.resume(ctx, cmd, r.ThreadID, s.opts.StopWait)
	}
	if err != nil {
		return nil, fmt.Errorf("op %s: %w", r.Op, err)
	}
	res := s.result(ctx, c, r.Op)
	waited := time.Since(start).Round(100 * time.Millisecond)
	switch {
	case moved:
	case r.Op == "pause":
		res.Notice = s.pauseMissed(ctx, sess, res, waited, idle)
	case idle > 0:
		res.Notice = fmt.Sprintf("still running after %v, and %s; call status later, or pause", waited, blockedWords(idle))
	default:
		res.Notice = fmt.Sprintf("still running after %v: call status later, or pause", s.opts.StopWait)
	}
	return res, nil
}

// inspect runs scopes, variables and evaluate: each reads the stopped
// program through a handle the previous answers gave.
func inspect(ctx context.Context, sess *session, r Request) (*Result, error) {
	res := &Result{Op: r.Op, Session: sess.label}
	var err error
	switch r.Op {
	case "scopes":
		if r.FrameID == 0 {
			return nil, errors.New("op scopes: argument 'frame_id' is required (from stack, or the stop's frame)")
		}
		res.Scopes, err = sess.scopes(ctx, r.FrameID)
	case "variables":
		if r.Reference == 0 {
			return nil, errors.New("op variables: argument 'reference' is required (from scopes, variables or evaluate)")
		}
		res.Variables, res.Total, err = sess.variables(ctx, r.Reference)
		res.Shown = len(res.Variables)
	case "evaluate":
		if strings.TrimSpace(r.Expression) == "" {
			return nil, errors.New("op evaluate: argument 'expression' is required")
		}
		res.Value, err = sess.evaluate(ctx, r.Expression, r.FrameID)
	}
	if err != nil {
		return nil, fmt.Errorf("op %s: %w", r.Op, err)
	}
	res.State = sess.snap().state
	return res, nil
}

// pauseMissed words a pause that did not stop the program, and lists
// its threads (the threads request works while it runs). debugpy stops a
// thread only when it runs Python code: a thread blocked in a lock, a
// read or a C call cannot be stopped, and pausing again does not help.
func (s *Supervisor) pauseMissed(ctx context.Context, c *session, res *Result, waited, idle time.Duration) string {
	if ts, total, err := c.threads(ctx); err == nil {
		res.Threads, res.Shown, res.Total = ts, len(ts), total
	}
	switch {
	case c.adapter.id == "debugpy" && idle > 0:
		return fmt.Sprintf("the pause did not stop the program within %v, and %s. debugpy stops a thread only when it runs Python code, so pausing again will not help: to see where the threads block, set breakpoints before their blocking calls and launch again; terminate ends the program", waited, blockedWords(idle))
	case c.adapter.id == "debugpy":
		return fmt.Sprintf("the pause did not stop the program within %v: it is busy outside Python code (a C extension or a system call), where debugpy cannot stop it; pause again once it is back in Python code, or terminate", waited)
	case idle > 0:
		return fmt.Sprintf("the pause did not stop the program within %v, and %s; call status later, or terminate", waited, blockedWords(idle))
	}
	return fmt.Sprintf("the pause did not stop the program within %v; call status later, or pause again", waited)
}

// result is the session part of an answer: state, stop, end.
func (s *Supervisor) result(ctx context.Context, c *conversation, op string) *Result {
	res := &Result{Op: op}
	s.fill(ctx, c, res)
	return res
}

func (s *Supervisor) fill(ctx context.Context, c *conversation, res *Result) {
	s.fillState(c, res)
	if res.State == stateStopped {
		res.Stop = c.sess.stopInfo(ctx)
	}
}

// fillState fills the session, state and end, without the stop (which
// may cost requests: the ops that do not show it skip it).
func (s *Supervisor) fillState(c *conversation, res *Result) {
	if c.sess == nil {
		res.State = "none"
		return
	}
	sn := c.sess.snap()
	res.Session, res.State = c.sess.label, sn.state
	if sn.state == stateEnded {
		res.Ended, res.ExitCode = sn.endReason, sn.exitCode
	}
}

// breakpoints updates the table and, when a session runs, the adapter.
func (s *Supervisor) breakpoints(ctx context.Context, c *conversation, root string, r Request) (*Result, error) {
	if r.File == "" {
		return nil, errors.New("op breakpoints: argument 'file' is required")
	}
	file, err := agentPath(root, "file", r.File)
	if err != nil {
		return nil, fmt.Errorf("op breakpoints: %w", err)
	}
	if fi, err := os.Stat(file); err != nil || fi.IsDir() {
		return nil, fmt.Errorf("op breakpoints: argument 'file': %s is not a file", r.File)
	}
	specs := slices.Clone(r.Specs)
	for _, l := range r.Lines {
		specs = append(specs, LineSpec{Line: l})
	}
	lines, err := checkSpecs(specs)
	if err != nil {
		return nil, fmt.Errorf("op breakpoints: %w", err)
	}
	if len(lines) == 0 {
		delete(c.bps, file)
	} else {
		c.bps[file] = lines
	}
	res := s.result(ctx, c, r.Op)
	if c.sess != nil && !c.sess.ended() {
		bps, err := c.sess.setBreakpoints(ctx, file, lines)
		if err != nil {
			return nil, fmt.Errorf("op breakpoints: %w", err)
		}
		res.Breakpoints = bps
	} else {
		for _, l := range lines {
			bp := breakpointOf(relTo(root, file), l)
			bp.Pending = true
			res.Breakpoints = append(res.Breakpoints, bp)
		}
	}
	if len(lines) == 0 {
		res.Notice = "cleared the breakpoints of " + relTo(root, file)
	}
	return res, nil
}

func pendingList(root string, table map[string][]LineSpec) []Breakpoint {
	files := make([]string, 0, len(table))
	for f := range table {
		files = append(files, f)
	}
	slices.Sort(files)
	var out []Breakpoint
	for _, f := range files {
		for _, l := range table[f] {
			bp := breakpointOf(relTo(root, f), l)
			bp.Pending = true
			out = append(out, bp)
		}
	}
	return out
}

// agentPath confines a path the agent gave as argument arg (relative to
// root, or absolute) with workspace.Resolve, the one confinement check,
// and returns it under root as given, so that it shows relative to root
// as the agent's other paths do. An in-root symlink is followed: the
// adapter gets the file it points to.
func agentPath(root, arg, given string) (string, error) {
	_, rel, err := workspace.Resolve(root, given)
	if err != nil {
		return "", fmt.Errorf("argument '%s': %w", arg, err)
	}
	return filepath.Join(root, filepath.FromSlash(rel)), nil
}

// Close terminates every session. It does not wait for running calls:
// finishing a session makes them return.
func (s *Supervisor) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	live := s.live
	s.live = nil
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, sess := range live {
		wg.Go(func() { sess.finish(ctx, "agent-tools is shutting down") })
	}
	wg.Wait()
	return nil
}

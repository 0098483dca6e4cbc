// This file defines a debug session: one adapter connection, its state
// machine fed by events, and the stop sequence.

package dapbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/go-dap"
	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/internal/proc"
)

// Session states, as reported to the agent.
const (
	stateStarting = "starting"
	stateRunning  = "running"
	stateStopped  = "stopped"
	stateEnded    = "ended"
)

// stopTimeouts bound the adapter's stop: disconnect (≤3 s), then closing
// its pipe and waiting ≤3 s, then SIGTERM and SIGKILL of its group.
var stopTimeouts = &proc.Timeouts{Goodbye: 3 * time.Second, Grace: 3 * time.Second, Term: time.Second, Kill: 2 * time.Second}

// requestTimeout bounds a request that is not a launch.
const requestTimeout = 30 * time.Second

// session is one debug session. Its fields above mu are set before the
// session is shared and never change; mu guards the rest, which the
// reader goroutine updates from events.
type session struct {
	adapter  *adapterDef
	label    string // e.g. "delve launch cmd/app"
	attached bool
	root     string
	proc     *proc.Process // nil when we connected to a listening adapter
	conn     *conn
	tmpDir   string // delve's build output; removed at the end
	caps     dap.Capabilities
	log      zerolog.Logger // the supervisor's, with the adapter

	finishOnce sync.Once

	mu          sync.Mutex
	state       string
	gen         int // incremented at every stop and at the end
	stop        dap.StoppedEventBody
	lastThread  int
	pausing     bool
	exitCode    *int
	endReason   string
	initialized chan struct{} // closed at the initialized event
	changed     chan struct{} // closed and replaced at every state change
	debuggee    int           // pid from the process event
	unadopt     func()        // releases the debuggee's own group from the reaper
	configGen   int           // gen when configurationDone was answered
	out         outputRing
	ids         handles                 // frame ids and references of this stop
	current     int                     // depth of the stop's current frame (an exception's first user frame)
	exception   *ExceptionInfo          // the stop's exception, once asked (exceptionInfo)
	filters     []string                // the exception filters set
	resumed     string                  // the DAP command that last resumed the program (continue, next, stepIn, stepOut)
	interrupted string                  // a step whose stop was something else (a breakpoint), still pending in lldb
	bpLines     map[string]map[int]bool // file → the lines this session set there (asked and placed); cleared at a detach
	threadIDs   map[int]bool            // live threads, from thread events (debugpy sends them)
	parked      []Parked                // the stop's other threads at a breakpoint, once asked (parkedThreads)
	parkedMore  int                     // threads not looked at for parked
	parkedGen   int                     // gen parked was found for; 0: not yet
}

func newSession(a *adapterDef, root string) *session {
	s := &session{
		adapter:     a,
		root:        root,
		state:       stateStarting,
		initialized: make(chan struct{}),
		changed:     make(chan struct{}),
		out:         outputRing{limit: outputLimit},
	}
	s.ids.reset()
	return s
}

// onEvent is the state machine. It runs on the reader goroutine.
func (s *session) onEvent(m *message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch m.Event {
	case "initialized":
		select {
		case <-s.initialized:
		default:
			close(s.initialized)
		}
	case "stopped":
		s.stoppedLocked(m)
	case "continued":
		if s.state == stateStopped {
			s.state = stateRunning
		}
	case "exited":
		var b dap.ExitedEventBody
		json.Unmarshal(m.Body, &b)
		s.exitCode = &b.ExitCode
		s.endLocked(fmt.Sprintf("the program exited with code %d", b.ExitCode))
	case "terminated":
		s.endLocked("the program terminated")
	case "output":
		s.outputLocked(m)
		return
	case "process":
		var b dap.ProcessEventBody
		json.Unmarshal(m.Body, &b)
		s.debuggee = b.SystemProcessId
		s.adoptDebuggeeLocked()
		return
	case "thread":
		s.threadLocked(m)
		return
	default:
		return // module, breakpoint, loadedSource, custom events: not state
	}
	s.notifyLocked()
}

// stoppedLocked records a stop: its reason told truthfully, the thread it
// names, a new generation, and the handles of the previous stop dropped.
func (s *session) stoppedLocked(m *message) {
	var b dap.StoppedEventBody
	json.Unmarshal(m.Body, &b)
	b.Reason = normalizeReason(b.Reason, b.Description, s.pausing)
	s.pausing = false
	b.Description = s.stepTruthLocked(b)
	s.stop = b
	s.lastThread = b.ThreadId // 0 (delve after pause): defaultThread asks
	if s.state != stateEnded {
		s.state = stateStopped
	}
	s.gen++
	s.resetStopLocked()
}

// outputLocked keeps what the program and the adapter printed.
func (s *session) outputLocked(m *message) {
	var b dap.OutputEventBody
	json.Unmarshal(m.Body, &b)
	if s.state == stateEnded && s.adapter.id == "lldb" && b.Category == "stderr" {
		return // lldb-dap 19's own crash report at exit (SIGABRT, benign)
	}
	s.out.add(b.Category, b.Output)
}

// threadLocked keeps the set of live thread ids.
func (s *session) threadLocked(m *message) {
	var b dap.ThreadEventBody
	json.Unmarshal(m.Body, &b)
	if s.threadIDs == nil {
		s.threadIDs = map[int]bool{}
	}
	if b.Reason == "exited" {
		delete(s.threadIDs, b.ThreadId)
	} else {
		s.threadIDs[b.ThreadId] = true
	}
}

// onResponse runs on the reader goroutine, in stream order with events.
// Adapters resume the program when they answer configurationDone (delve
// stops a running target to attach remotely, then goes on), so a stop
// seen before that answer is over.
func (s *session) onResponse(m *message) {
	if m.Command != "configurationDone" || !m.Success {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == stateStopped {
		s.state = stateRunning
		s.resetStopLocked()
	}
	s.configGen = s.gen
}

func (s *session) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *session) endLocked(why string) {
	if s.state == stateEnded {
		return
	}
	s.state = stateEnded
	s.endReason = why
	s.gen++
	s.resetStopLocked()
	s.notifyLocked()
}

// resetStopLocked forgets what belonged to the last stop: its frames,
// references, current frame and exception.
func (s *session) resetStopLocked() {
	s.ids.reset()
	s.current, s.exception = 0, nil
}

func (s *session) end(why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endLocked(why)
}

// stepTruthLocked keeps the stop's description true about steps. A step
// that a breakpoint interrupts stays pending in lldb-dap (its thread
// plan), and a later continue then stops with reason "step (step out)"
// where the interrupted step ends: the description says so, rather than
// pass it off as a step the agent just asked for.
func (s *session) stepTruthLocked(b dap.StoppedEventBody) string {
	resumed := s.resumed
	s.resumed = ""
	step := map[string]string{"next": "step_over", "stepIn": "step_in", "stepOut": "step_out"}
	switch {
	case step[resumed] != "" && b.Reason != "step":
		s.interrupted = step[resumed]
	case resumed == "continue" && b.Reason == "step" && s.interrupted != "":
		why := fmt.Sprintf("the %s interrupted earlier finished here: %s keeps an interrupted step pending across continue", s.interrupted, s.adapter.id)
		s.interrupted = ""
		return why
	case b.Reason == "step":
		s.interrupted = ""
	}
	return b.Description
}

// normalizeReason maps adapter-specific stop reasons onto DAP's: lldb-dap
// reports a pause as an exception "signal SIGSTOP".
func normalizeReason(reason, desc string, pausing bool) string {
	if reason == "exception" && strings.Contains(desc, "SIGSTOP") {
		if pausing {
			return "pause"
		}
		return "signal SIGSTOP"
	}
	return reason
}

// snapshot is a copy of the state for one answer.
type snapshot struct {
	state     string
	gen       int
	stop      dap.StoppedEventBody
	thread    int
	exitCode  *int
	endReason string
	changed   <-chan struct{}
}

func (s *session) snap() snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return snapshot{s.state, s.gen, s.stop, s.lastThread, s.exitCode, s.endReason, s.changed}
}

// waitChange waits until the state generation passes gen (a stop or the
// end), for at most d. It reports whether that happened.
func (s *session) waitChange(ctx context.Context, gen int, d time.Duration) (bool, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		sn := s.snap()
		if sn.gen > gen || sn.state == stateEnded {
			return true, nil
		}
		select {
		case <-sn.changed:
		case <-t.C:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// ended reports whether the session is over.
func (s *session) ended() bool { return s.snap().state == stateEnded }

// watchConn ends the session when the adapter connection closes.
func (s *session) watchConn() {
	<-s.conn.done
	// Before finish, the adapter going away is unexpected: a crash.
	unexpected := !s.ended()
	why := "the debug adapter closed the connection"
	tail := ""
	if s.proc != nil {
		select {
		case <-s.proc.Done():
			why = "the debug adapter exited"
		case <-time.After(200 * time.Millisecond):
		}
		if tail = oneLine(s.proc.StderrTail(5)); tail != "" {
			why += ": " + tail
		}
	}
	s.end(why)
	ev := s.log.Info()
	if unexpected {
		ev = s.log.Warn()
	}
	if s.proc == nil {
		ev.Msg("debug adapter connection closed")
		return
	}
	ev = ev.Int("pid", s.proc.Pid())
	if unexpected && tail != "" {
		ev = ev.Str("stderr", tail)
	}
	select {
	case <-s.proc.Done():
		ev.Str("status", exitStatus(s.proc.Err())).Msg("debug adapter exited")
	default:
		ev.Msg("debug adapter closed the connection")
	}
}

// exitStatus describes a process's exit for the log.
func exitStatus(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}

// finishWhenEnded stops the adapter as soon as the program has ended, so
// that nothing lingers until the next call or the TTL. It runs on its own
// goroutine from the end of a successful start.
func (s *session) finishWhenEnded() {
	for {
		sn := s.snap()
		if sn.state == stateEnded {
			break
		}
		<-sn.changed
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	s.finish(ctx, s.snap().endReason)
}

// finish ends the session for good: disconnect (terminating a launched
// debuggee, detaching from an attached one), close the transport, stop
// the adapter's process group, and kill a launched debuggee that its
// adapter put in a group of its own (delve does). Safe to call twice.
func (s *session) finish(ctx context.Context, why string) {
	s.finishOnce.Do(func() {
		sn := s.snap()
		s.end(why) // first: the adapter's exit that follows is not the reason
		s.log.Info().Str("session", s.label).Str("reason", why).Msg("debug session ended")
		goodbye := func(ctx context.Context) error {
			select {
			case <-s.conn.done:
			default:
				if s.attached && sn.state != stateEnded {
					s.leaveRunning(ctx, sn)
				}
				args := map[string]any{"terminateDebuggee": !s.attached}
				s.conn.call(ctx, "disconnect", args, 3*time.Second, nil)
			}
			s.conn.close()
			return nil
		}
		if s.proc != nil {
			if err := s.proc.Stop(ctx, goodbye); err != nil {
				s.log.Warn().Err(err).Msg("debug adapter did not stop")
			}
			if out := s.proc.Stdout(); out != nil {
				out.Close()
			}
		} else {
			goodbye(ctx)
		}
		select {
		case <-s.conn.done:
		case <-time.After(time.Second):
		}
		s.mu.Lock()
		pid := s.debuggee
		s.mu.Unlock()
		if pid > 0 && !s.attached && killGroup(pid) {
			s.log.Warn().Int("debuggee", pid).Msg("killed the debuggee, which outlived its adapter")
		}
		s.mu.Lock()
		if s.unadopt != nil {
			s.unadopt()
		}
		s.mu.Unlock()
		if s.tmpDir != "" {
			os.RemoveAll(s.tmpDir)
		}
	})
}

// leaveRunning prepares a detach: it clears the breakpoints this session
// set and resumes the program if it is stopped. A headless dlv serving
// several clients keeps both across a disconnect: the program stayed
// halted at its breakpoint, and the breakpoint stopped the next attach.
// sn is the state before the session was marked ended.
func (s *session) leaveRunning(ctx context.Context, sn snapshot) {
	s.mu.Lock()
	files := make([]string, 0, len(s.bpLines))
	for f := range s.bpLines {
		files = append(files, f)
	}
	s.mu.Unlock()
	for _, f := range files {
		args := setBreakpointsArgs{Source: dap.Source{Name: filepath.Base(f), Path: f}, Breakpoints: []dap.SourceBreakpoint{}}
		if err := s.conn.call(ctx, "setBreakpoints", args, 3*time.Second, nil); err != nil {
			s.log.Warn().Err(err).Str("file", f).Msg("could not clear a breakpoint before detaching")
		}
	}
	if sn.state != stateStopped {
		return
	}
	tid := sn.thread
	if tid == 0 {
		tid = 1
	}
	if err := s.conn.call(ctx, "continue", map[string]any{"threadId": tid}, 3*time.Second, nil); err != nil {
		s.log.Warn().Err(err).Msg("could not resume the program before detaching")
	}
}

// adoptDebuggeeLocked hands a launched debuggee that leads a process group
// of its own (delve starts its target so) to the reaper, so that it dies
// even if agent-tools is SIGKILLed while the program runs: the adapter's
// group kill does not reach another group.
func (s *session) adoptDebuggeeLocked() {
	pid := s.debuggee
	if pid <= 1 || s.attached || s.unadopt != nil {
		return
	}
	if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
		s.unadopt = proc.Adopt(pid)
	}
}

// killGroup SIGKILLs a launched debuggee that outlived its adapter, and
// its group when it leads one (an exited debuggee's group too: its
// children may live on). It reports whether the debuggee itself was
// still running.
func killGroup(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	running := !zombie(pid)
	if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	return running
}

// zombie reports whether pid has exited and waits to be reaped.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// oneLine joins lines with " | ", for a message that is one line.
func oneLine(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", " | ") }

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, " | "))
}

// errNotStopped is returned by ops that need a stopped program.
var errNotStopped = errors.New("the program is running: call pause first (or status to see whether it stopped)")

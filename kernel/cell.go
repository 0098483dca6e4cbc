// This file defines running one cell on a [Kernel]: the request, the
// messages and stdout it produces, the idle budget, interrupts, tool()
// calls through the bridge, and the result.

package kernel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Bridge calls one of the harness's tools for tool() in a cell. It returns
// the tool's text and whether the tool failed; err means the call could not
// be made at all (no bridge, client gone).
type Bridge func(ctx context.Context, name string, args json.RawMessage) (text string, failed bool, err error)

// RunSpec is one cell to run.
type RunSpec struct {
	Code     string
	Budget   time.Duration // idle budget; 0 means defaultOptions.Timeout
	Grace    time.Duration // interrupt → kill; 0 means defaultOptions.Grace
	Bridge   Bridge        // nil: tool() raises "no harness bridge"
	Progress func(elapsed time.Duration, msg string)
}

// Cell statuses.
const (
	StatusOK          = "ok"
	StatusError       = "error"       // the cell raised
	StatusTimeout     = "timeout"     // the idle budget ran out
	StatusInterrupted = "interrupted" // the client cancelled the call
	StatusCrashed     = "crashed"     // the interpreter exited
)

// RunResult is what one cell produced.
type RunResult struct {
	Status    string   // StatusOK, ...
	Outputs   []Output // in order
	Err       string   // what went wrong, for the model; "" when ok
	StateLost bool     // the kernel is gone (crashed or killed)
	// MissingModule is the top-level module a ModuleNotFoundError named
	// ("pandas"), when the cell failed on one.
	MissingModule string
}

// noBridge is tool()'s error without a bridge.
const noBridge = `no harness bridge: the client did not declare experimental["agent-tools"].callTool, so tool() cannot reach its tools`

// Run runs one cell and returns its output. It never leaves the cell
// running: on timeout or cancellation it interrupts the kernel and, if the
// kernel does not stop within the grace period, kills it.
func (k *Kernel) Run(ctx context.Context, spec RunSpec) RunResult {
	c := &cell{k: k, spec: spec, started: time.Now()}
	return c.run(ctx)
}

// heartbeatEvery is how often a running cell reports progress.
const heartbeatEvery = 5 * time.Second

// cell is the state of one running cell, owned by the goroutine in Run.
type cell struct {
	k       *Kernel
	spec    RunSpec
	id      int
	started time.Time
	timeout time.Duration // the idle budget: the spec's, else the default
	grace   time.Duration // interrupt → kill: the spec's, else the default
	out     outputs

	// The kernel's stdout, read up to this cell's sync marker.
	stdout    <-chan []byte // k.stdout; nil once it reached EOF
	stdoutEOF bool          // k.stdout is closed and drained
	marker    []byte
	sawSync   bool
	pending   []byte // stdout bytes that may be the start of the marker

	// What the driver said about the cell.
	done     bool             // the driver sent "done"
	status   string           // with it: StatusOK, StatusError or StatusInterrupted
	doneAt   <-chan time.Time // the wait for the marker after "done"; nil once over
	lastErr  string           // "ZeroDivisionError: division by zero"
	shellErr bool             // lastErr is a failed shell command's exit status, not an exception
	missing  string           // the module of a ModuleNotFoundError

	// Stopping a cell that runs too long or whose call was cancelled.
	idle      *budget
	cancelled <-chan struct{}  // the call's ctx.Done(); nil once seen
	stopping  string           // StatusTimeout or StatusInterrupted once interrupted
	graceC    <-chan time.Time // the interrupt's grace period

	// The cell's tool() calls, each made on a goroutine of its own.
	bridgeCtx     context.Context // cancelled by an interrupt, or when run returns
	cancelBridges context.CancelFunc
	bridged       chan bridgeDone // the calls' answers
	finished      chan struct{}   // closed when run returns: late answers are dropped
}

type bridgeDone struct {
	call   int
	text   string
	failed bool
	err    error
}

// run sends the cell to the driver and handles what comes back until the
// driver is done and the sync marker has come (or stopped being awaited),
// or the cell ends early: the interpreter exits, or is killed after an
// interrupt it did not heed.
func (c *cell) run(ctx context.Context) RunResult {
	c.begin()
	if err := c.k.send(execRequest{T: "exec", ID: c.id, Code: c.spec.Code, Sync: string(c.marker)}); err != nil {
		return c.crashed()
	}
	c.openBridges(ctx)
	defer c.closeBridges()
	c.idle = newBudget(c.timeout)
	defer c.idle.stop()
	heartbeat := time.NewTicker(heartbeatEvery)
	defer heartbeat.Stop()
	c.stdout, c.cancelled = c.k.stdout, ctx.Done()
	for !c.settled() {
		if res, over := c.step(heartbeat.C); over {
			return res
		}
	}
	c.flushPending()
	return c.outcome()
}

// begin numbers the cell, makes its sync marker, takes over the stdout
// the previous cell left after its marker and settles the limits.
func (c *cell) begin() {
	k := c.k
	k.nextID++
	c.id = k.nextID
	c.marker = fmt.Appendf(nil, "\x1e<agent-tools-sync %d>\x1e", c.id)
	c.pending, k.leftover = k.leftover, nil
	c.drainStale()
	c.timeout, c.grace = c.spec.Budget, c.spec.Grace
	if c.timeout <= 0 {
		c.timeout = defaultOptions.Timeout
	}
	if c.grace <= 0 {
		c.grace = defaultOptions.Grace
	}
}

// openBridges prepares the cell's tool() calls: they outlive the call's
// cancellation (an interrupt cancels them) but not the cell.
func (c *cell) openBridges(ctx context.Context) {
	c.bridgeCtx, c.cancelBridges = context.WithCancel(context.WithoutCancel(ctx))
	c.bridged = make(chan bridgeDone)
	c.finished = make(chan struct{})
}

func (c *cell) closeBridges() {
	close(c.finished)
	c.cancelBridges()
}

// settled reports whether the cell is over: the driver said done, and the
// sync marker came or is no longer awaited.
func (c *cell) settled() bool { return c.done && (c.sawSync || c.doneAt == nil) }

// step waits for one event and handles it. over reports that the cell
// ended early, with res its result.
func (c *cell) step(heartbeat <-chan time.Time) (res RunResult, over bool) {
	select {
	case m, ok := <-c.k.msgs:
		if !ok {
			return c.crashedWith(c.stopping), true
		}
		c.onMessage(m)
	case chunk, ok := <-c.stdout:
		c.onStdout(chunk, ok)
	case r := <-c.bridged:
		c.answerCall(r)
	case <-c.idle.C():
		c.interrupt(StatusTimeout)
	case <-c.cancelled:
		c.cancelled = nil
		c.interrupt(StatusInterrupted)
	case <-c.graceC:
		return c.killed(), true
	case <-c.doneAt:
		c.doneAt = nil // the marker did not come: finish without it
	case <-heartbeat:
		c.reportProgress()
	}
	return RunResult{}, false
}

// onMessage handles one driver message.
func (c *cell) onMessage(m message) {
	if m.T == "sync" && m.ID == c.id {
		c.awaitSync()
		return
	}
	if c.handle(m) {
		c.done, c.status = true, m.Status
		c.doneAt = time.After(syncWait)
	}
}

// onStdout handles a chunk of the kernel's stdout, or its end (ok false).
func (c *cell) onStdout(chunk []byte, ok bool) {
	if ok {
		c.stdoutChunk(chunk)
		return
	}
	c.stdout, c.stdoutEOF = nil, true // the process is ending
	if c.done {
		c.doneAt = nil // no marker will come
	}
}

// answerCall sends a tool() call's answer to the driver; the idle budget
// runs again once no call is pending.
func (c *cell) answerCall(r bridgeDone) {
	c.idle.resume()
	req := replyRequest{T: "reply", Call: r.call, OK: !r.failed, Text: r.text}
	if r.err != nil {
		req.Error = r.err.Error()
	}
	c.k.send(req)
}

// interrupt stops a cell that is still running, for why (StatusTimeout or
// StatusInterrupted), keeping the interpreter: its tool() calls are
// cancelled and the grace period starts.
func (c *cell) interrupt(why string) {
	if c.stopping != "" || c.done {
		return
	}
	c.stopping = why
	c.k.log.Info().Int("cell", c.id).Str("why", why).Dur("budget", c.timeout).Msg("interrupting the cell")
	c.cancelBridges()
	c.k.interrupt()
	c.graceC = time.After(c.grace)
}

// killed kills the interpreter of a cell that did not stop within the
// grace period of its interrupt.
func (c *cell) killed() RunResult {
	c.k.log.Warn().Int("cell", c.id).Dur("grace", c.grace).Msg("the cell did not stop after the interrupt: killing the kernel (state lost)")
	c.k.kill()
	res := c.result(c.stopping)
	res.StateLost = true
	res.Err = c.stopMessage() + fmt.Sprintf("; the kernel did not stop within %v of the interrupt and was killed: kernel restarted; state lost", c.grace)
	return res
}

func (c *cell) reportProgress() {
	if c.spec.Progress != nil {
		c.spec.Progress(time.Since(c.started), fmt.Sprintf("cell running for %s", time.Since(c.started).Round(time.Second)))
	}
}

// outcome is the result of a cell the driver finished.
func (c *cell) outcome() RunResult {
	switch {
	case c.stopping != "":
		res := c.result(c.stopping)
		res.Err = c.stopMessage() + "; interrupted, kernel state kept"
		return res
	case c.status == StatusError:
		res := c.result(StatusError)
		res.Err = c.errorSummary()
		res.MissingModule = c.missing
		return res
	case c.status == StatusInterrupted: // KeyboardInterrupt raised by the cell itself
		res := c.result(StatusError)
		res.Err = "the cell was interrupted"
		return res
	}
	return c.result(StatusOK)
}

func (c *cell) stopMessage() string {
	if c.stopping == StatusTimeout {
		return fmt.Sprintf("timeout: the cell ran for its whole idle budget of %v (time spent waiting on tool() calls does not count); output up to the timeout is above", c.timeout)
	}
	return "cancelled by the client"
}

// awaitSync reads the kernel's stdout until the cell's marker (bounded by
// syncWait), so that output of child processes comes before the value.
func (c *cell) awaitSync() {
	t := time.NewTimer(syncWait)
	defer t.Stop()
	for !c.sawSync && c.stdout != nil {
		select {
		case chunk, ok := <-c.stdout:
			if !ok {
				c.stdout, c.stdoutEOF = nil, true
				return
			}
			c.stdoutChunk(chunk)
		case <-t.C:
			return
		}
	}
}

// drainStale drops messages and stdout left over from an earlier cell
// (a background thread's output is kept, attributed to this cell).
func (c *cell) drainStale() {
	for {
		select {
		case m, ok := <-c.k.msgs:
			if !ok {
				return
			}
			if m.T == "out" {
				c.out.add(Output{Kind: m.Name, Text: m.Text})
			}
		default:
			return
		}
	}
}

// handle records one driver message and reports whether the cell is done.
func (c *cell) handle(m message) bool {
	if m.ID != c.id && m.T != "out" {
		return false // a late message of an earlier, interrupted cell
	}
	switch m.T {
	case "out":
		kind := KindStdout
		if m.Name == "stderr" {
			kind = KindStderr
		}
		c.out.add(Output{Kind: kind, Text: m.Text})
	case "display", "value":
		kind := KindDisplay
		if m.T == "value" {
			kind = KindValue
		}
		if m.Kind == "image" {
			c.addImage(m)
			return false
		}
		c.out.add(Output{Kind: kind, Text: m.Text, MIME: m.MIME})
	case "error":
		c.recordError(m)
	case "call":
		c.callTool(m)
	case "done":
		return true
	}
	return false
}

// recordError keeps what an error message says for the cell's summary.
func (c *cell) recordError(m message) {
	if m.Trace != "" {
		c.out.add(Output{Kind: KindError, Text: m.Trace})
	}
	c.shellErr = m.Shell
	if m.Ename == "ModuleNotFoundError" && m.Module != "" && !strings.Contains(m.Module, ".") {
		c.missing = m.Module
	}
	c.lastErr = m.Evalue
	if m.Ename != "" {
		c.lastErr = m.Ename
		if m.Evalue != "" {
			c.lastErr += ": " + m.Evalue
		}
	}
}

// callTool makes a tool() call of the cell on a goroutine of its own,
// pausing the idle budget; the answer comes back on c.bridged.
func (c *cell) callTool(m message) {
	c.idle.pause()
	go func() {
		d := bridgeDone{call: m.Call}
		if c.spec.Bridge == nil {
			d.err = errors.New(noBridge)
		} else {
			d.text, d.failed, d.err = c.spec.Bridge(c.bridgeCtx, m.Name, m.Args)
		}
		select {
		case c.bridged <- d:
		case <-c.finished:
		}
	}()
}

func (c *cell) addImage(m message) {
	data, w, h, err := fitImage(m.Data, m.MIME)
	if err != nil {
		c.out.add(Output{Kind: KindNote, Text: "[an image was left out: " + err.Error() + "]"})
		return
	}
	c.out.add(Output{Kind: KindImage, MIME: m.MIME, Data: data, Width: w, Height: h,
		Text: fmt.Sprintf("[image %s %d×%d]", m.MIME, w, h)})
}

// stdoutChunk adds process-level output, watching for the sync marker.
func (c *cell) stdoutChunk(chunk []byte) {
	if c.sawSync {
		c.k.leftover = append(c.k.leftover, chunk...)
		return
	}
	buf := append(c.pending, chunk...)
	if i := bytes.Index(buf, c.marker); i >= 0 {
		c.addStdout(buf[:i])
		c.k.leftover = append(c.k.leftover, buf[i+len(c.marker):]...)
		c.pending = nil
		c.sawSync = true
		return
	}
	keep := 0
	for n := min(len(c.marker)-1, len(buf)); n > 0; n-- {
		if bytes.HasPrefix(c.marker, buf[len(buf)-n:]) {
			keep = n
			break
		}
	}
	c.addStdout(buf[:len(buf)-keep])
	c.pending = append([]byte(nil), buf[len(buf)-keep:]...)
}

func (c *cell) flushPending() {
	if !c.sawSync {
		c.addStdout(c.pending)
		c.pending = nil
	}
}

func (c *cell) addStdout(b []byte) {
	if len(b) > 0 {
		c.out.add(Output{Kind: KindStdout, Text: string(b)})
	}
}

func (c *cell) result(status string) RunResult {
	return RunResult{Status: status, Outputs: c.out.finish()}
}

func (c *cell) errorSummary() string {
	if c.lastErr == "" {
		return "the cell failed"
	}
	line, _, _ := strings.Cut(cleanText(c.lastErr), "\n")
	if c.shellErr {
		return truncateMiddle(line, 500)
	}
	return "the cell raised " + truncateMiddle(line, 500)
}

func (c *cell) crashed() RunResult { return c.crashedWith("") }

// crashedWith reports an interpreter that exited during the cell.
func (c *cell) crashedWith(stopping string) RunResult {
	if !c.stdoutEOF {
		for chunk := range c.k.stdout { // the rest of its output
			c.stdoutChunk(chunk)
		}
	}
	c.flushPending()
	<-c.k.proc.Done()
	res := c.result(StatusCrashed)
	res.StateLost = true
	status := exitText(c.k.proc.Err())
	c.k.log.Warn().Int("cell", c.id).Str("status", status).Str("stderr", cleanStderr(c.k.proc.StderrTail(logStderrLines))).
		Msg("the kernel exited while running a cell")
	res.Err = fmt.Sprintf("the %s kernel exited (%s) while running the cell; the next cell starts a fresh kernel: kernel restarted; state lost%s",
		c.k.Lang, status, stderrNote(c.k.proc.StderrTail(stderrNoteLines)))
	if stopping != "" {
		res.Status = stopping
	}
	return res
}

// This file defines the worker pool: spawning, steering, waiting for and
// stopping background worker processes.

package workers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/internal/proc"
)

// State is a worker's (or an attempt's) state.
type State string

// The states. A worker's state is its latest attempt's.
const (
	Running State = "running"
	Done    State = "done"   // exited 0
	Failed  State = "failed" // exited non-zero, or could not start
	Killed  State = "killed" // stopped by vibe_kill, vibe_send or the end of the run
)

// stopTimeouts: a worker has already read its brief, so closing stdin
// means nothing to it; SIGTERM follows almost at once, SIGKILL 3 s later.
var stopTimeouts = proc.Timeouts{Grace: 10 * time.Millisecond, Term: 3 * time.Second, Kill: 2 * time.Second}

// stdoutLinger bounds how long the monitor waits, after the worker exited,
// for its stdout to reach EOF (only a process that left the worker's group
// can still hold it).
const stdoutLinger = 2 * time.Second

// maxLine bounds one stdout line; the rest of a longer line is dropped.
const maxLine = 1 << 20

// Pool runs the workers of one agent-tools run.
//
// Ownership: mu guards the worker table and every worker's and attempt's
// mutable fields; an attempt's monitor goroutine owns its stdout and its
// Extractor until it publishes the outcome under mu and closes done.
type Pool struct {
	opts Options
	log  zerolog.Logger // the supervisor's log: starts, exits, kills

	mu      sync.Mutex // guards the fields below and the workers' and attempts' fields
	workers map[string]*worker
	order   []*worker
	next    int
	closed  bool
}

type worker struct {
	op       sync.Mutex // serialises Send and Kill on this worker; never held with Pool.mu waiting on it
	id       string
	label    string
	tier     string
	brief    string
	messages []string
	attempts []*attempt
}

type attempt struct {
	n          int
	proc       *proc.Process // nil when it could not start
	started    time.Time
	ended      time.Time
	state      State
	stopReason string // why it was stopped, when it was
	result     string
	exit       string      // the exit status of a failed attempt
	log        *lockedTail // stdout as it arrives, bounded by Options.LogBytes
	done       chan struct{}
}

// lockedTail is a tail written by an attempt's stdout reader and read by
// vibe_wait at any time.
type lockedTail struct {
	mu sync.Mutex // guards t
	t  tail
}

func (l *lockedTail) line(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Write([]byte(s + "\n"))
}

func (l *lockedTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.t.String()
}

// NewPool returns a pool running opts' commands; nil opts means the
// defaults (and no commands). log receives the workers' starts, exits and
// kills; nil discards them.
func NewPool(opts *Options, log *zerolog.Logger) *Pool {
	p := &Pool{opts: opts.withDefaults(), workers: map[string]*worker{}}
	if log != nil {
		p.log = *log
	}
	return p
}

// ConfiguredTiers returns the tiers that have a command, in [Tiers] order.
func (p *Pool) ConfiguredTiers() []string {
	var out []string
	for _, t := range Tiers {
		if _, ok := p.opts.Commands[t]; ok {
			out = append(out, t)
		}
	}
	return out
}

// Spawn starts a worker on brief in root and returns at once. tier ""
// means fast, or the only configured tier.
func (p *Pool) Spawn(root, brief, label, tier string) (Status, error) {
	if strings.TrimSpace(brief) == "" {
		return Status{}, errors.New("argument 'brief': empty; say what the worker should do")
	}
	if strings.TrimSpace(label) == "" {
		return Status{}, errors.New("argument 'label': empty; give the worker a short name")
	}
	tier, err := p.tier(tier)
	if err != nil {
		return Status{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.admitLocked(); err != nil {
		return Status{}, err
	}
	p.next++
	w := &worker{id: "w" + strconv.Itoa(p.next), label: label, tier: tier, brief: brief}
	p.workers[w.id] = w
	p.order = append(p.order, w)
	p.startLocked(w, root)
	return p.statusLocked(w), nil
}

// tier resolves the tier argument.
func (p *Pool) tier(t string) (string, error) {
	configured := p.ConfiguredTiers()
	if t == "" {
		if len(configured) == 1 {
			return configured[0], nil
		}
		t = "fast"
	}
	if _, ok := p.opts.Commands[t]; !ok {
		return "", fmt.Errorf("argument 'tier': no worker command for tier %q; configured: %s", t, strings.Join(configured, ", "))
	}
	return t, nil
}

// admitLocked refuses a new attempt when the run is over or too many run.
func (p *Pool) admitLocked() error {
	if p.closed {
		return errors.New("the run is ending: no new workers")
	}
	if n := p.runningLocked(); n >= p.opts.MaxRunning {
		return fmt.Errorf("%d workers are running, the maximum: wait for one (vibe_wait) or stop one (vibe_kill) first; vibe_list shows them", n)
	}
	return nil
}

func (p *Pool) runningLocked() int {
	n := 0
	for _, w := range p.order {
		if w.latest().state == Running {
			n++
		}
	}
	return n
}

func (w *worker) latest() *attempt { return w.attempts[len(w.attempts)-1] }

// fullBrief is the brief with every message sent since appended.
func (w *worker) fullBrief() string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(w.brief, "\n"))
	for _, m := range w.messages {
		b.WriteString("\n\n---\n\n")
		b.WriteString(strings.TrimRight(m, "\n"))
	}
	b.WriteString("\n")
	return b.String()
}

// startLocked starts the worker's next attempt. A command that cannot
// start gives a failed attempt, not an error: the table stays consistent.
func (p *Pool) startLocked(w *worker, root string) {
	a := &attempt{n: len(w.attempts) + 1, started: time.Now(), state: Running, done: make(chan struct{}),
		log: &lockedTail{t: tail{max: p.opts.LogBytes}}}
	w.attempts = append(w.attempts, a)
	env := append(os.Environ(),
		"AGENT_TOOLS_WORKER_ID="+w.id,
		"AGENT_TOOLS_WORKER_LABEL="+w.label,
		"AGENT_TOOLS_WORKER_TIER="+w.tier,
		"AGENT_TOOLS_WORKER_ATTEMPT="+strconv.Itoa(a.n),
	)
	creds := credentialsFor(p.opts.Commands[w.tier])
	pr, err := proc.Start(proc.Spec{
		Name:        "worker " + w.id,
		Path:        "/bin/sh",
		Args:        []string{"-c", shellCommand(p.opts.Commands[w.tier])},
		Dir:         root,
		Env:         env,
		Credentials: creds, // its agent CLI's own key; see credentials.go
		Stdin:       true,
		Stdout:      true,
		StderrTail:  p.opts.LogBytes,
		Timeouts:    &stopTimeouts,
	})
	if err != nil {
		a.state, a.exit, a.ended = Failed, err.Error(), time.Now()
		p.log.Warn().Str("worker", w.id).Int("attempt", a.n).Err(err).Msg("worker did not start")
		close(a.done)
		return
	}
	a.proc = pr
	p.log.Info().Str("worker", w.id).Str("tier", w.tier).Int("attempt", a.n).Int("pid", pr.Pid()).Msg("worker started")
	if len(creds) > 0 {
		p.log.Debug().Str("worker", w.id).Strs("credentials", creds).Msg("the worker's agent CLI may inherit these credentials")
	}
	go feed(pr.Stdin(), w.fullBrief())
	go p.monitor(w.id, a)
}

// shellCommand returns the script sh -c runs for a worker command. A
// simple command is exec'd, so that the agent CLI itself leads the process
// group and gets SIGTERM first: a shell leader would die of it at once, and
// its group would be SIGKILLed with it (see internal/proc).
func shellCommand(cmd string) string {
	if strings.ContainsAny(cmd, ";&|()<>`\n") || strings.HasPrefix(strings.TrimSpace(cmd), "exec ") {
		return cmd
	}
	return "exec " + cmd
}

// feed writes the brief to the worker's stdin and closes it.
func feed(w io.WriteCloser, brief string) {
	io.WriteString(w, brief)
	w.Close()
}

// monitor reads the attempt's stdout, waits for it to exit and publishes
// the outcome.
func (p *Pool) monitor(id string, a *attempt) {
	var ex Extractor
	stdout := a.proc.Stdout()
	read := make(chan struct{})
	go func() {
		defer close(read)
		readLines(stdout, func(line string) {
			a.log.line(line)
			ex.Line(line)
		})
	}()
	<-a.proc.Done()
	t := time.NewTimer(stdoutLinger)
	select {
	case <-read:
	case <-t.C:
		stdout.Close() // a process outside the group holds it: stop reading
		<-read
	}
	t.Stop()
	stdout.Close()

	p.mu.Lock()
	defer p.mu.Unlock()
	a.ended = time.Now()
	a.result = ex.Final()
	switch err := a.proc.Err(); {
	case a.stopReason != "":
		a.state = Killed
	case err == nil:
		a.state = Done
	default:
		a.state, a.exit = Failed, exitText(err)
	}
	ev := p.log.Info()
	if a.state == Failed {
		ev = p.log.Warn().Str("exit", a.exit).Str("stderr", a.proc.StderrTail(5))
	}
	ev.Str("worker", id).Int("attempt", a.n).Str("state", string(a.state)).Dur("ran", a.ended.Sub(a.started)).Msg("worker ended")
	close(a.done)
}

// readLines calls line for each line of r (without its newline), cutting
// lines longer than maxLine.
func readLines(r io.Reader, line func(string)) {
	buf := make([]byte, 0, 64<<10)
	chunk := make([]byte, 32<<10)
	over := false
	for {
		n, err := r.Read(chunk)
		data := chunk[:n]
		for len(data) > 0 {
			i := slices.Index(data, '\n')
			if i < 0 {
				if !over {
					buf = append(buf, data[:min(len(data), maxLine-len(buf))]...)
					over = len(buf) >= maxLine
				}
				break
			}
			if !over {
				buf = append(buf, data[:min(i, maxLine-len(buf))]...)
			}
			line(string(buf))
			buf, over, data = buf[:0], false, data[i+1:]
		}
		if err != nil {
			if len(buf) > 0 {
				line(string(buf))
			}
			return
		}
	}
}

// exitText says how an attempt's process ended: "exit status 3",
// "killed by signal SIGSEGV (segmentation fault)".
func exitText(err error) string { return proc.Describe(err) }

// lookup returns the worker with id.
func (p *Pool) lookup(id string) (*worker, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, ok := p.workers[id]
	if !ok {
		return nil, p.unknownLocked(id)
	}
	return w, nil
}

func (p *Pool) unknownLocked(id string) error {
	ids := slices.Sorted(maps.Keys(p.workers))
	if len(ids) == 0 {
		return fmt.Errorf("argument 'worker_id': no worker %q: none was spawned yet (vibe_spawn)", id)
	}
	if len(ids) > 10 {
		ids = append(ids[:10], "…")
	}
	return fmt.Errorf("argument 'worker_id': no worker %q; the workers are %s (vibe_list)", id, strings.Join(ids, ", "))
}

// Send appends message to the worker's brief and runs it again, stopping
// the current attempt first if it is running. It returns once the new
// attempt has started.
func (p *Pool) Send(ctx context.Context, root, id, message string) (Status, error) {
	if strings.TrimSpace(message) == "" {
		return Status{}, errors.New("argument 'message': empty; say what the worker should do differently")
	}
	w, err := p.lookup(id)
	if err != nil {
		return Status{}, err
	}
	w.op.Lock()
	defer w.op.Unlock()
	if err := p.stop(ctx, w, "superseded by vibe_send"); err != nil {
		return Status{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.admitLocked(); err != nil {
		return Status{}, err
	}
	w.messages = append(w.messages, message)
	p.startLocked(w, root)
	return p.statusLocked(w), nil
}

// Kill stops the worker (its whole process group: SIGTERM, then SIGKILL).
// Killing a worker that is not running changes nothing.
func (p *Pool) Kill(ctx context.Context, id string) (Status, error) {
	w, err := p.lookup(id)
	if err != nil {
		return Status{}, err
	}
	w.op.Lock()
	defer w.op.Unlock()
	if err := p.stop(ctx, w, "stopped by vibe_kill"); err != nil {
		return Status{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.statusLocked(w), nil
}

// stop stops w's latest attempt if it runs, and waits until its outcome is
// published.
func (p *Pool) stop(ctx context.Context, w *worker, reason string) error {
	p.mu.Lock()
	a := w.latest()
	if a.state != Running {
		p.mu.Unlock()
		return nil
	}
	a.stopReason = reason
	p.mu.Unlock()
	if err := a.proc.Stop(ctx, nil); err != nil {
		return fmt.Errorf("stopping worker %s: %w", w.id, err)
	}
	select {
	case <-a.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Wait blocks until the worker is no longer running, timeout passes, or
// ctx is done (then it returns ctx's error; the worker keeps running).
// After the timeout it returns the running status with StillRunning set.
// With showLog, the result carries the tail of the current attempt's
// stdout and stderr.
func (p *Pool) Wait(ctx context.Context, id string, timeout time.Duration, showLog bool) (r WaitResult, err error) {
	defer func() {
		if err == nil && showLog {
			r.Log = p.logOf(id)
		}
	}()
	w, err := p.lookup(id)
	if err != nil {
		return WaitResult{}, err
	}
	start := time.Now()
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		p.mu.Lock()
		a := w.latest()
		if a.state != Running {
			st := p.statusLocked(w)
			p.mu.Unlock()
			return WaitResult{Status: st}, nil
		}
		done := a.done
		p.mu.Unlock()
		select {
		case <-done: // finished, or superseded by vibe_send: look again
		case <-t.C:
			p.mu.Lock()
			st := p.statusLocked(w)
			p.mu.Unlock()
			return WaitResult{Status: st, StillRunning: true, WaitedMs: time.Since(start).Milliseconds()}, nil
		case <-ctx.Done():
			return WaitResult{}, ctx.Err()
		}
	}
}

// logLines bounds the log a vibe_wait shows.
const logLines = 40

// logOf returns the tail of the current attempt's stdout and stderr.
func (p *Pool) logOf(id string) string {
	p.mu.Lock()
	a := p.workers[id].latest()
	p.mu.Unlock()
	var b strings.Builder
	b.WriteString("stdout (last lines):\n")
	if a.log != nil {
		b.WriteString(lastLines(a.log.String(), logLines))
	}
	b.WriteString("\nstderr (last lines):\n")
	if a.proc != nil {
		b.WriteString(a.proc.StderrTail(logLines))
	}
	return strings.TrimRight(b.String(), "\n")
}

// List returns every worker's status, oldest first.
func (p *Pool) List() ListResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := ListResult{Workers: []Status{}, MaxRunning: p.opts.MaxRunning}
	for _, w := range p.order {
		st := p.statusLocked(w)
		st.History = nil
		r.Workers = append(r.Workers, st)
		if st.State == Running {
			r.Running++
		}
	}
	return r
}

// Close stops every running worker; no worker starts afterwards.
func (p *Pool) Close(ctx context.Context) error {
	p.mu.Lock()
	p.closed = true
	ws := slices.Clone(p.order)
	p.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(ws))
	for i, w := range ws {
		wg.Go(func() { errs[i] = p.stop(ctx, w, "the run ended") })
	}
	wg.Wait()
	return errors.Join(errs...)
}

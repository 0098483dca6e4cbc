// This file defines the worker pool: its table of workers, and spawning,
// steering, waiting for and stopping them. Running one attempt of a worker
// is in attempt.go.

package workers

import (
	"context"
	"errors"
	"fmt"
	"maps"
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

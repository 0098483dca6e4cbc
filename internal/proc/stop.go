//go:build linux

// This file defines the stop sequence: Stop, StopAll and their timeouts.

package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
)

// Timeouts bound each step of [Process.Stop].
type Timeouts struct {
	Goodbye time.Duration // how long the goodbye func may run
	Grace   time.Duration // after closing stdin, before SIGTERM
	Term    time.Duration // after SIGTERM, before SIGKILL
	Kill    time.Duration // after SIGKILL, before giving up as unresponsive
}

// DefaultTimeouts are used by Stop unless Spec.Timeouts overrides them. Start
// copies them, so changing them affects only later Starts.
var DefaultTimeouts = Timeouts{
	Goodbye: 2 * time.Second,
	Grace:   1 * time.Second,
	Term:    2 * time.Second,
	// A SIGKILLed child may take seconds to be gone on a loaded machine
	// (clangd writing its index, or tearing down gigabytes, took over 2 s
	// at load 8 in every clangd test): only one still there after this is
	// reported unresponsive.
	Kill: 10 * time.Second,
}

// ErrUnresponsive is wrapped by Stop's error when a child survives SIGKILL
// for Timeouts.Kill (typically a process stuck in uninterruptible sleep).
var ErrUnresponsive = errors.New("unresponsive subprocess")

// orDefault returns t with zero (or negative) fields taken from
// DefaultTimeouts; a nil t gives DefaultTimeouts.
func (t *Timeouts) orDefault() Timeouts {
	d := DefaultTimeouts
	if t == nil {
		return d
	}
	pick := func(v, def time.Duration) time.Duration {
		if v <= 0 {
			return def
		}
		return v
	}
	return Timeouts{
		Goodbye: pick(t.Goodbye, d.Goodbye),
		Grace:   pick(t.Grace, d.Grace),
		Term:    pick(t.Term, d.Term),
		Kill:    pick(t.Kill, d.Kill),
	}
}

// Stop runs the stop sequence and returns once the child is gone:
//
//  1. goodbye(ctx), if non-nil: the protocol's own shutdown (LSP
//     shutdown+exit, DAP disconnect), bounded by Timeouts.Goodbye; its error
//     is ignored, since the steps below follow either way;
//  2. close stdin, wait Timeouts.Grace;
//  3. SIGTERM the group, wait Timeouts.Term;
//  4. SIGKILL the group, wait Timeouts.Kill;
//  5. if the child still has not exited, return an error wrapping
//     [ErrUnresponsive] with its pid.
//
// When the child exits, whatever is left of its process group is SIGKILLed,
// so grandchildren never outlive it. Stop returns nil when the child is gone,
// whatever its exit status ([Process.Err] has that).
//
// When ctx is done, the remaining waits are skipped and the group is
// SIGKILLed at once; the wait for SIGKILL to take effect still happens. Stop
// is safe to call more than once and concurrently: later calls wait for the
// first one (or their own ctx) and return its result; their goodbye is not
// called.
func (p *Process) Stop(ctx context.Context, goodbye func(context.Context) error) error {
	p.stopMu.Lock()
	first := p.stopped == nil
	if first {
		p.stopped = make(chan struct{})
	}
	stopped := p.stopped
	p.stopMu.Unlock()

	if first {
		p.stopErr = p.stop(ctx, goodbye)
		close(stopped)
		return p.stopErr
	}
	select {
	case <-stopped:
		return p.stopErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *Process) stop(ctx context.Context, goodbye func(context.Context) error) error {
	t := p.timeouts
	if goodbye != nil && !p.hasExited() {
		p.sayGoodbye(ctx, goodbye, t.Goodbye)
	}
	if p.stdin != nil {
		p.stdin.Close()
	}
	if !p.waitExit(ctx, t.Grace) {
		_ = p.Signal(syscall.SIGTERM)
		if !p.waitExit(ctx, t.Term) {
			_ = p.Signal(syscall.SIGKILL)
			if !p.waitExit(context.Background(), t.Kill) && !p.waitZombie(5*t.Kill) {
				return fmt.Errorf("stopping %s: %w: pid %d still running %v after SIGKILL", p.name, ErrUnresponsive, p.pid, t.Kill)
			}
			if !p.hasExited() {
				return nil // dead, not yet reaped: see waitZombie
			}
		}
	}
	<-p.done // follows exit within stderrLinger
	return nil
}

// sayGoodbye runs goodbye on its own goroutine so that a goodbye that ignores
// its ctx cannot hold up Stop; it returns when goodbye returns, the child
// exits, or d passes.
func (p *Process) sayGoodbye(ctx context.Context, goodbye func(context.Context) error, d time.Duration) {
	gctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		_ = goodbye(gctx)
	}()
	select {
	case <-returned:
	case <-p.exitedCh:
	case <-gctx.Done():
	}
}

// waitExit waits up to d for the child to exit and reports whether it did.
func (p *Process) waitExit(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exitedCh:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return p.hasExited()
}

// waitZombie is the wait for a child that SIGKILL reached but that the
// kernel has not finished tearing down: a zombie (its main thread gone,
// the others still exiting). It runs no more code, but a multi-threaded
// server holding gigabytes can stay one for many seconds on a loaded
// machine (clangd did, at load 10, in the lspbridge tests). It waits for
// the exit up to d while the child stays a zombie, and reports whether
// the child is past running: exited, or a zombie still, to be reaped in
// the background. A child that is not a zombie after SIGKILL (stuck in
// uninterruptible sleep) gives false at once.
func (p *Process) waitZombie(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if p.hasExited() {
			return true
		}
		if !zombie(p.pid) {
			return p.hasExited()
		}
		if time.Now().After(deadline) {
			return true
		}
		p.waitExit(context.Background(), 100*time.Millisecond)
	}
}

// zombie reports a process in state Z (or X, being reaped), from
// /proc/<pid>/stat.
func zombie(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state …: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 || i+2 >= len(data) {
		return false
	}
	return data[i+2] == 'Z' || data[i+2] == 'X'
}

func (p *Process) hasExited() bool {
	select {
	case <-p.exitedCh:
		return true
	default:
		return false
	}
}

// StopAll stops every live process concurrently, without goodbyes, and
// returns their errors joined. Call it at shutdown.
func StopAll(ctx context.Context) error {
	procs := Live()
	errs := make([]error, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Go(func() { errs[i] = p.Stop(ctx, nil) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

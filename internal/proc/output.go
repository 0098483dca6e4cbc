//go:build linux

// This file defines Output, the one way to run a short command (a checker,
// git show, a probe) and collect what it printed, and Describe, the one
// way to say in words how a child ended.

package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// outputLinger bounds how long Output keeps reading stdout after the child
// and its group are gone: EOF is immediate unless a process that left the
// group (setsid) still holds the pipe, and that process then loses it.
const outputLinger = 250 * time.Millisecond

// Result is what a command run by [Output] printed.
type Result struct {
	Stdout    []byte // at most the limit given to Output
	StdoutCut bool   // more was printed than Stdout holds (the rest was read and dropped)
	Stderr    string // the end of stderr, Spec.StderrTail bytes of it
	StderrCut bool   // stderr was longer: its start was dropped
	Elapsed   time.Duration
}

// StderrTail returns the last n lines of Stderr, as [Process.StderrTail]
// does.
func (r Result) StderrTail(n int) string { return lastLines(r.Stderr, n) }

// Ended says how a child run by [Output] ended when it did not exit with
// status 0. It is the error Output returns then.
type Ended struct {
	Name     string
	Pid      int
	Code     int            // exit status; -1 when a signal ended it
	Signal   syscall.Signal // the signal that ended it, or 0
	Timeout  time.Duration  // non-zero: it ran out of this time and its group was killed
	Canceled bool           // the caller's context ended first and its group was killed
}

// Exited reports whether the child ended by itself with an exit status
// (not killed by a signal, nor stopped by Output).
func (e *Ended) Exited() bool { return e.Timeout == 0 && !e.Canceled && e.Signal == 0 }

// How says in words how the child ended: "exit status 2", "killed by
// signal SIGSEGV (segmentation fault)", "did not finish within 1m0s and
// was stopped", "stopped: the call was cancelled".
func (e *Ended) How() string {
	switch {
	case e.Timeout > 0:
		return fmt.Sprintf("did not finish within %v and was stopped", e.Timeout)
	case e.Canceled:
		return "stopped: the call was cancelled"
	case e.Signal != 0:
		return signalText(e.Signal)
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

func (e *Ended) Error() string { return fmt.Sprintf("%s (pid %d): %s", e.Name, e.Pid, e.How()) }

func signalText(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return fmt.Sprintf("killed by signal %s (%s)", name, sig)
	}
	return fmt.Sprintf("killed by signal %d", int(sig))
}

// Describe says in words how a child ended, given [Process.Err] or the
// error of [Output]: "exit status 0" for nil, "exit status 3", "killed by
// signal SIGKILL (killed)", "did not finish within 1s and was stopped";
// any other error (one from starting it) as its own text.
func Describe(err error) string {
	if err == nil {
		return "exit status 0"
	}
	if e, ok := endedOf(err); ok {
		return e.How()
	}
	return err.Error()
}

// ExitCode returns the exit status of a child that ended by itself,
// given [Process.Err] or the error of [Output]: 0 for nil; false when it
// was killed by a signal or stopped, or never ran.
func ExitCode(err error) (int, bool) {
	if err == nil {
		return 0, true
	}
	e, ok := endedOf(err)
	if !ok || !e.Exited() {
		return 0, false
	}
	return e.Code, true
}

// endedOf turns the error of Output or Process.Err into an Ended.
func endedOf(err error) (*Ended, bool) {
	if e, ok := errors.AsType[*Ended](err); ok {
		return e, true
	}
	ee, ok := errors.AsType[*exec.ExitError](err)
	if !ok {
		return nil, false
	}
	e := &Ended{Pid: ee.Pid(), Code: ee.ExitCode()}
	if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() {
		e.Signal = st.Signal()
	}
	return e, true
}

// Output runs the command spec describes to its end and returns what it
// printed. Its stdin is /dev/null; stdout is kept up to limit bytes (0:
// 16 MiB) and stderr's end up to Spec.StderrTail. The error is nil when
// it exited with status 0, an [*Ended] when it ran, or why it could not
// start.
//
// The wait is bounded by timeout (0: none) and by ctx: at either, the
// child's whole process group is SIGKILLed and Output returns at once. It
// never waits for grandchildren: when the child exits, what is left of
// its group is killed (see [Start]), and a process that left the group
// and still holds stdout is given outputLinger, then the pipe is dropped.
func Output(ctx context.Context, spec Spec, timeout time.Duration, limit int) (Result, error) {
	if limit <= 0 {
		limit = 16 << 20
	}
	spec.Stdin, spec.Stdout = false, true
	start := time.Now()
	p, err := Start(spec)
	if err != nil {
		return Result{}, err
	}
	var res Result
	read := make(chan struct{})
	go func() {
		defer close(read)
		res.Stdout, res.StdoutCut = readUpTo(p.stdout, limit)
	}()
	stopped := awaitExit(ctx, p, timeout)
	// The group is being killed (see reap); stdout's linger runs beside
	// stderr's, which Done waits for.
	_ = p.stdout.SetReadDeadline(time.Now().Add(outputLinger))
	<-read
	p.stdout.Close()
	<-p.Done()
	res.Stderr = p.StderrTail(0)
	res.StderrCut = p.stderr.cut()
	res.Elapsed = time.Since(start)
	if stopped != nil {
		stopped.Name, stopped.Pid, stopped.Code = p.name, p.pid, -1
		return res, stopped
	}
	return res, exitError(p)
}

// awaitExit waits for p to exit, at most timeout (0: no bound) and while
// ctx lasts. When either ends first it SIGKILLs p's group, waits for p's
// exit, and says why it stopped p; nil when p exited by itself.
func awaitExit(ctx context.Context, p *Process, timeout time.Duration) *Ended {
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	var stopped *Ended
	select {
	case <-p.exitedCh:
		return nil
	case <-expired:
		stopped = &Ended{Timeout: timeout}
	case <-ctx.Done():
		stopped = &Ended{Canceled: true}
	}
	_ = p.Signal(syscall.SIGKILL)
	<-p.exitedCh
	return stopped
}

// exitError is Output's error for a p that exited by itself: nil for
// status 0, else an [*Ended] (Code -1 when a signal ended it), or p's own
// error when it is not an exit.
func exitError(p *Process) error {
	err := p.Err()
	if err == nil {
		return nil
	}
	e, _ := endedOf(err)
	if e == nil {
		return err
	}
	e.Name = p.name
	if e.Signal != 0 {
		e.Code = -1
	}
	return e
}

// readUpTo reads f to EOF (or its read deadline), keeping the first limit
// bytes and reporting whether there were more.
func readUpTo(f *os.File, limit int) ([]byte, bool) {
	var out []byte
	buf := make([]byte, 32<<10)
	cut := false
	for {
		n, err := f.Read(buf)
		keep := max(0, min(n, limit-len(out)))
		out = append(out, buf[:keep]...)
		cut = cut || keep < n
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				rest := &cutWriter{room: limit - len(out)}
				drainBuffered(f, rest, buf)
				out = append(out, rest.b...)
				cut = cut || rest.cut
			}
			return out, cut
		}
	}
}

// cutWriter keeps up to room bytes and notes whether more came.
type cutWriter struct {
	b    []byte
	room int
	cut  bool
}

func (w *cutWriter) Write(p []byte) (int, error) {
	keep := min(len(p), w.room-len(w.b))
	w.b = append(w.b, p[:keep]...)
	w.cut = w.cut || keep < len(p)
	return len(p), nil
}

// LookPath finds an executable the way [Start] does (exec.LookPath): the
// one place outside Start that resolves a program name, so that no other
// package imports os/exec.
func LookPath(file string) (string, error) { return exec.LookPath(file) }

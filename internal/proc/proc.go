//go:build linux

// This file defines Spec, Process and Start: starting a child and owning it
// until it is reaped.

package proc

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// defaultStderrTail is the stderr ring size when Spec.StderrTail is 0.
const defaultStderrTail = 64 << 10

// stderrLinger bounds how long the stderr drain waits, after the child
// exited, for stderr to reach EOF. EOF is immediate unless a process outside
// the child's group still holds the pipe; that process then loses it.
const stderrLinger = 250 * time.Millisecond

// Spec describes a child process.
type Spec struct {
	Name string   // short label for errors, e.g. "gopls"; default: base of Path
	Path string   // resolved with exec.LookPath when not absolute
	Args []string // arguments after argv[0] (which is Path)
	Dir  string   // working directory; "" means ours
	// Env is the child's environment (nil: ours), less the variables that
	// look like credentials (see IsCredential and EnvPolicy).
	Env []string
	// Credentials names the credentials this child gets although they
	// look like ones: exact names or prefixes followed by "*"
	// ("ANTHROPIC_*"). A worker's agent CLI needs its own key.
	Credentials []string
	ExtraFiles  []*os.File // become fd 3, 4, ... in the child; the caller closes its copies after Start
	Stdin       bool       // true: a pipe available via Process.Stdin(); false: /dev/null
	Stdout      bool       // true: a pipe via Process.Stdout(); false: /dev/null (never our stdout)
	// StderrTail is how many bytes of stderr to keep; 0 (or less) means 64 KiB. Stderr
	// is always captured, never inherited, and drained continuously so that
	// a chatty child never blocks on a full pipe.
	StderrTail int
	// Timeouts overrides DefaultTimeouts for Stop; zero fields take the
	// default.
	Timeouts *Timeouts
}

// Process is a running (or exited) child started by [Start].
//
// Ownership: after Start, the reap goroutine owns the exec.Cmd and is the only
// writer of exited, err and done; the stderr drain goroutine owns the stderr
// pipe; the caller owns the Stdout pipe (read it to EOF, then Close it) and
// may write and Close Stdin. Stop closes Stdin itself. All methods are safe
// for concurrent use.
type Process struct {
	name     string
	pid      int // set on the spawner goroutine before Start returns
	seq      uint64
	cmd      *exec.Cmd
	stdin    *stdinPipe // nil unless Spec.Stdin
	stdout   *os.File   // nil unless Spec.Stdout
	stderr   *ring
	timeouts Timeouts

	exitedCh chan struct{} // closed when the child has exited (not yet reaped)
	done     chan struct{} // closed when reaped and stderr is final

	mu     sync.Mutex // guards exited and err; held while signalling the group
	exited bool
	err    error

	stopMu  sync.Mutex    // guards stopped
	stopped chan struct{} // non-nil once Stop ran; closed when it is over
	stopErr error         // written before stopped is closed
}

// Start starts the child described by spec in its own process group, with a
// parent-death signal (SIGKILL), and registers its group with the reaper.
func Start(spec Spec) (*Process, error) {
	name := spec.Name
	if name == "" {
		name = filepath.Base(spec.Path)
	}
	path := spec.Path
	if !filepath.IsAbs(path) {
		var err error
		if path, err = exec.LookPath(path); err != nil {
			return nil, fmt.Errorf("starting %s: %w", name, err)
		}
	}
	policy := currentEnvPolicy()
	env, withheld := childEnv(spec.Env, policy.Pass, spec.Credentials)
	cmd := &exec.Cmd{
		Path:        path,
		Args:        append([]string{spec.Path}, spec.Args...),
		Dir:         spec.Dir,
		Env:         env,
		ExtraFiles:  spec.ExtraFiles,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	}
	p := &Process{
		name:     name,
		cmd:      cmd,
		stderr:   newRing(tailSize(spec.StderrTail)),
		timeouts: spec.Timeouts.orDefault(),
		exitedCh: make(chan struct{}),
		done:     make(chan struct{}),
	}
	stderr, err := p.pipes(cmd, spec)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	err = spawn(cmd, p)
	closeFiles(cmd.Stdin, cmd.Stdout, cmd.Stderr) // the child's ends
	if err != nil {
		closeFiles(p.stdin, p.stdout, stderr)
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	if len(withheld) > 0 && policy.Withheld != nil {
		policy.Withheld(name, withheld)
	}
	stderrDone := make(chan struct{})
	go p.drain(stderr, stderrDone)
	go p.reap(stderr, stderrDone)
	return p, nil
}

// pipes creates the child's stdio pipes, setting cmd's ends and p's ends. It
// returns the read end of stderr.
func (p *Process) pipes(cmd *exec.Cmd, spec Spec) (stderr *os.File, err error) {
	defer func() {
		if err != nil {
			closeFiles(cmd.Stdin, cmd.Stdout, p.stdin, p.stdout)
		}
	}()
	if spec.Stdin {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		cmd.Stdin, p.stdin = r, &stdinPipe{f: w}
	}
	if spec.Stdout {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		cmd.Stdout, p.stdout = w, r
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = w
	return r, nil
}

// drain copies stderr into the ring until EOF, or until the read deadline
// that reap sets once the child has exited; then it takes what is already in
// the pipe and closes it.
func (p *Process) drain(stderr *os.File, done chan<- struct{}) {
	defer close(done)
	defer stderr.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := stderr.Read(buf)
		p.stderr.Write(buf[:n])
		if errors.Is(err, os.ErrDeadlineExceeded) {
			drainBuffered(stderr, p.stderr, buf)
			return
		}
		if err != nil {
			return
		}
	}
}

// drainBuffered copies what f holds right now into w without waiting for
// more. A deadline that expired while this goroutine was not running makes
// Read fail before it looks at the pipe, so without this the last words of a
// child on a busy machine could be lost. It stops after a bounded amount, in
// case a process outside the group keeps writing.
func drainBuffered(f *os.File, w io.Writer, buf []byte) {
	_ = f.SetReadDeadline(time.Time{})
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	for range 64 {
		var n int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			n, rerr = unix.Read(int(fd), buf) // the fd is non-blocking
			return true                       // one attempt, never wait
		})
		if err != nil || rerr != nil || n <= 0 {
			return
		}
		w.Write(buf[:n])
	}
}

// reap waits for the child to exit, kills the rest of its group, reaps it and
// publishes the result.
func (p *Process) reap(stderr *os.File, stderrDone <-chan struct{}) {
	zombie := waitExited(p.pid)
	var err error
	if !zombie {
		err = p.cmd.Wait()
	}
	p.mu.Lock()
	p.exited = true
	// While the leader is an unreaped zombie its pid cannot be reused, so
	// this reaches only what is left of its own group.
	_ = unix.Kill(-p.pid, unix.SIGKILL)
	p.mu.Unlock()
	close(p.exitedCh)
	if zombie {
		err = p.cmd.Wait()
	}
	unregister(p) // before "-": see reaperConn.ensure
	reaper.notify('-', p.pid)

	// EOF on stderr normally follows at once; the deadline only matters if a
	// process outside the group holds the pipe, and it then loses it.
	if derr := stderr.SetReadDeadline(time.Now().Add(stderrLinger)); derr != nil {
		// Already closed at EOF, or (not for a pipe on Linux) not pollable.
		t := time.NewTimer(stderrLinger)
		select {
		case <-stderrDone:
		case <-t.C:
			stderr.Close()
		}
		t.Stop()
	}
	<-stderrDone

	if err != nil {
		err = fmt.Errorf("%s (pid %d): %w", p.name, p.pid, err)
	}
	p.mu.Lock()
	p.err = err
	p.mu.Unlock()
	close(p.done)
}

// waitExited blocks until the child has exited, leaving it unreaped. It
// reports false if waitid failed, in which case the caller must reap first.
func waitExited(pid int) bool {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err == nil
		}
	}
}

// Pid returns the child's pid, which is also its process group id.
func (p *Process) Pid() int { return p.pid }

// Stdin returns the child's stdin, or nil when Spec.Stdin was false. Closing
// it more than once is harmless.
func (p *Process) Stdin() io.WriteCloser {
	if p.stdin == nil {
		return nil
	}
	return p.stdin
}

// Stdout returns the child's stdout, or nil when Spec.Stdout was false. The
// caller keeps reading it (a full pipe blocks the child), then closes it. EOF
// comes once the child and every process that inherited its stdout are gone.
func (p *Process) Stdout() io.ReadCloser {
	if p.stdout == nil {
		return nil
	}
	return p.stdout
}

// StderrTail returns the end of what the child wrote to stderr: with n > 0
// its last n lines, surrounding whitespace trimmed; with n <= 0 all that is
// kept (the last Spec.StderrTail bytes, cut to whole lines where possible).
// After Done it is final. It is the one "last lines of stderr" helper: the
// supervisors' error messages and logs all go through it.
func (p *Process) StderrTail(n int) string {
	return p.stderrTail(n)
}

// StderrExcerpt returns the first head and the last tail non-blank lines
// of what the child wrote to stderr, with a line "…" between them when
// lines were left out: the cause a failing program states first ("error:
// Unknown binary 'rust-analyzer' in official toolchain …") as well as the
// end of the backtrace that follows it. After Done it is final.
func (p *Process) StderrExcerpt(head, tail int) string {
	return p.stderr.excerpt(head, tail)
}

func (p *Process) stderrTail(n int) string { return lastLines(p.stderr.String(), n) }

// lastLines returns s's last n lines, surrounding whitespace trimmed; all
// of s when n <= 0.
func lastLines(s string, n int) string {
	if n <= 0 {
		return s
	}
	s = strings.TrimRight(s, " \t\r\n")
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		i = strings.LastIndexByte(s[:i], '\n')
		if i < 0 {
			i = 0
		}
	}
	return strings.TrimLeft(s[i:], "\n")
}

// Done is closed when the child has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err returns the child's exit status once Done is closed (nil for exit code
// 0, else an error wrapping *exec.ExitError), and nil while it runs.
func (p *Process) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Signal sends sig to the child's whole process group (and to the child, in
// case it left the group). After the child exited it returns
// os.ErrProcessDone.
func (p *Process) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exited {
		return os.ErrProcessDone
	}
	gerr := unix.Kill(-p.pid, sig)
	perr := unix.Kill(p.pid, sig)
	if gerr != nil && perr != nil {
		return fmt.Errorf("signalling %s (pid %d): %w", p.name, p.pid, gerr)
	}
	return nil
}

// stdinPipe is the write end of the child's stdin; Close is idempotent.
type stdinPipe struct {
	f    *os.File
	once sync.Once
	err  error
}

func (s *stdinPipe) Write(b []byte) (int, error) { return s.f.Write(b) }

func (s *stdinPipe) Close() error {
	s.once.Do(func() { s.err = s.f.Close() })
	return s.err
}

// closeFiles closes each non-nil *os.File or *stdinPipe among fs.
func closeFiles(fs ...any) {
	for _, f := range fs {
		switch f := f.(type) {
		case *os.File:
			if f != nil {
				f.Close()
			}
		case *stdinPipe:
			if f != nil {
				f.Close()
			}
		}
	}
}

func tailSize(n int) int {
	if n <= 0 {
		return defaultStderrTail
	}
	return n
}

// live holds the processes started and not yet reaped.
var live struct {
	mu    sync.Mutex // guards procs and seq
	procs map[*Process]struct{}
	seq   uint64
}

func register(p *Process) {
	live.mu.Lock()
	defer live.mu.Unlock()
	if live.procs == nil {
		live.procs = make(map[*Process]struct{})
	}
	live.seq++
	p.seq = live.seq
	live.procs[p] = struct{}{}
}

func unregister(p *Process) {
	live.mu.Lock()
	defer live.mu.Unlock()
	delete(live.procs, p)
}

// Live returns the processes started and not yet reaped, oldest first.
func Live() []*Process {
	live.mu.Lock()
	defer live.mu.Unlock()
	ps := make([]*Process, 0, len(live.procs))
	for p := range live.procs {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b *Process) int { return cmp.Compare(a.seq, b.seq) })
	return ps
}

// This file defines a Kernel: one interpreter process with its driver,
// started, read from, written to and stopped. Running a cell on it is in
// cell.go.

package kernel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/rs/zerolog"
)

// startTimeout bounds how long an interpreter may take to say it is ready.
const startTimeout = 30 * time.Second

// syncWait bounds how long a finished cell waits for its sync marker on the
// kernel's stdout (output of child processes that are still running is
// attributed to the next cell).
const syncWait = time.Second

// Kernel is one running interpreter with its driver.
//
// Goroutines: readMessages owns the message pipe (fd 4's other end) and
// feeds msgs; readStdout owns the stdout pipe and feeds stdout. Only one
// cell runs at a time ([Pool] serializes them); the goroutine in Run owns
// the cell's state. writeMu serializes writes to the request pipe.
type Kernel struct {
	Lang    Language
	Interp  Interpreter
	Version string // the interpreter's version, from the driver
	proc    *proc.Process
	log     zerolog.Logger // the supervisor's log, with the language and pid

	writeMu sync.Mutex // guards req
	req     *os.File

	msgs     chan message
	stdout   chan []byte
	leftover []byte // stdout bytes after the last sync marker
	nextID   int
	trace    func(from side, line []byte) // StartSpec.trace
}

// StartSpec says how to start a kernel.
type StartSpec struct {
	Lang   Language
	Interp Interpreter
	Dir    string   // working directory (the run's root)
	Prefix []string // command prefix, e.g. a sandbox entry command
	// Log receives the kernel's start, interrupts, kill and exit; nil (or
	// the zero Logger) discards them.
	Log *zerolog.Logger
	// trace, when set (by tests), sees every protocol line either side
	// writes, without its newline; it is called from the goroutine that
	// reads the messages and, under the write lock, from the sender.
	trace func(from side, line []byte)
}

// Start starts an interpreter with its driver and waits until it is ready.
func Start(ctx context.Context, s StartSpec) (*Kernel, error) {
	reqR, reqW, msgR, msgW, err := driverPipes()
	if err != nil {
		return nil, fmt.Errorf("starting the %s kernel: %w", s.Lang, err)
	}
	argv := driverArgv(s)
	p, err := proc.Start(proc.Spec{
		Name:       string(s.Lang) + "-kernel",
		Path:       argv[0],
		Args:       argv[1:],
		Dir:        s.Dir,
		Env:        driverEnv(),
		ExtraFiles: []*os.File{reqR, msgW},
		Stdout:     true,
		Timeouts:   &proc.Timeouts{Goodbye: time.Second, Grace: 500 * time.Millisecond, Term: time.Second},
	})
	reqR.Close()
	msgW.Close()
	var log zerolog.Logger
	if s.Log != nil {
		log = s.Log.With().Str("lang", string(s.Lang)).Logger()
	}
	if err != nil {
		reqW.Close()
		msgR.Close()
		log.Warn().Str("interpreter", s.Interp.Path).Err(err).Msg("kernel did not start")
		return nil, fmt.Errorf("starting the %s kernel (%s): %w", s.Lang, s.Interp.Path, err)
	}
	k := &Kernel{
		Lang:   s.Lang,
		Interp: s.Interp,
		proc:   p,
		log:    log.With().Int("pid", p.Pid()).Logger(),
		req:    reqW,
		msgs:   make(chan message, 1024),
		stdout: make(chan []byte, 256),
		trace:  s.trace,
	}
	go k.readMessages(msgR)
	go k.readStdout(p.Stdout())
	if err := k.waitReady(ctx); err != nil {
		k.log.Warn().Str("interpreter", s.Interp.Path).Err(err).Msg("kernel did not start")
		k.Stop(context.WithoutCancel(ctx))
		return nil, err
	}
	ev := k.log.Info().Str("interpreter", s.Interp.Path).Str("chosen", s.Interp.Why).Str("version", k.Version)
	if len(s.Prefix) > 0 {
		ev = ev.Strs("prefix", s.Prefix)
	}
	ev.Msg("kernel started")
	return k, nil
}

// driverPipes makes the protocol's two pipes: the driver reads requests
// from reqR (its fd 3) and writes messages to msgW (its fd 4).
func driverPipes() (reqR, reqW, msgR, msgW *os.File, err error) {
	reqR, reqW, err = os.Pipe()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	msgR, msgW, err = os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, nil, nil, nil, err
	}
	return reqR, reqW, msgR, msgW, nil
}

// driverArgv is the command that runs the driver in s's interpreter,
// after s's prefix.
func driverArgv(s StartSpec) []string {
	argv := []string{s.Interp.Path, "-q", "-c", pythonDriver}
	if s.Lang == JavaScript {
		argv = []string{s.Interp.Path, "--no-deprecation", "-e", nodeDriver}
	}
	return append(append([]string{}, s.Prefix...), argv...)
}

// driverEnv is ours, with output unbuffered, in UTF-8, without colours or
// pagers, and plots drawn off screen.
func driverEnv() []string {
	return append(os.Environ(),
		"MPLBACKEND=Agg", "PYTHONUNBUFFERED=1", "PYTHONIOENCODING=utf-8",
		"TERM=dumb", "NO_COLOR=1", "FORCE_COLOR=0", "PAGER=cat", "GIT_PAGER=cat")
}

func (k *Kernel) waitReady(ctx context.Context) error {
	t := time.NewTimer(startTimeout)
	defer t.Stop()
	for {
		select {
		case m, ok := <-k.msgs:
			if !ok {
				<-k.proc.Done()
				return fmt.Errorf("the %s kernel (%s) exited during start-up (%v)%s", k.Lang, k.Interp.Path, k.proc.Err(), stderrNote(k.proc.StderrTail(stderrNoteLines)))
			}
			if m.T == "ready" {
				k.Version = m.Version
				return nil
			}
		case <-t.C:
			return fmt.Errorf("the %s kernel (%s) did not start within %v%s", k.Lang, k.Interp.Path, startTimeout, stderrNote(k.proc.StderrTail(stderrNoteLines)))
		case <-ctx.Done():
			return fmt.Errorf("starting the %s kernel: %w", k.Lang, ctx.Err())
		}
	}
}

// readMessages decodes the driver's messages until the pipe closes. A
// line that is not a message of the protocol is logged and dropped.
func (k *Kernel) readMessages(r *os.File) {
	defer close(k.msgs)
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			if k.trace != nil {
				k.trace(fromDriver, line)
			}
			var m message
			jerr := json.Unmarshal(line, &m)
			if _, known := lookupKind(m.T, fromDriver); jerr == nil && known {
				k.msgs <- m
			} else {
				k.log.Warn().Str("line", truncateMiddle(string(line), 200)).Msg("the driver sent a line that is not a message of the protocol (dropped)")
			}
		}
		if err != nil {
			return
		}
	}
}

// readStdout forwards what the kernel process writes to fd 1 and 2.
func (k *Kernel) readStdout(r io.ReadCloser) {
	defer close(k.stdout)
	defer r.Close()
	for {
		buf := make([]byte, 32<<10)
		n, err := r.Read(buf)
		if n > 0 {
			k.stdout <- buf[:n]
		}
		if err != nil {
			return
		}
	}
}

// send writes one request (an execRequest, replyRequest or
// interruptRequest) to the driver.
func (k *Kernel) send(r any) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	k.writeMu.Lock()
	defer k.writeMu.Unlock()
	if k.trace != nil {
		k.trace(fromGo, data)
	}
	_, err = k.req.Write(append(data, '\n'))
	return err
}

// Exited reports whether the interpreter has exited, and how.
func (k *Kernel) Exited() (bool, error) {
	select {
	case <-k.proc.Done():
		return true, k.proc.Err()
	default:
		return false, nil
	}
}

// Pid is the interpreter's process id.
func (k *Kernel) Pid() int { return k.proc.Pid() }

// Stop ends the interpreter: EOF on its request pipe (the driver exits),
// then the supervisor's SIGTERM/SIGKILL sequence.
func (k *Kernel) Stop(ctx context.Context) error {
	k.log.Debug().Msg("stopping the kernel")
	return k.proc.Stop(ctx, func(ctx context.Context) error {
		k.writeMu.Lock()
		k.req.Close()
		k.writeMu.Unlock()
		select {
		case <-k.proc.Done():
		case <-ctx.Done():
		}
		return nil
	})
}

// kill ends the interpreter at once.
func (k *Kernel) kill() {
	k.proc.Signal(syscall.SIGKILL)
	k.writeMu.Lock()
	k.req.Close()
	k.writeMu.Unlock()
	<-k.proc.Done()
}

// interrupt asks the running cell to stop, keeping the interpreter's
// state: an interrupt request, which node's driver turns into the end of
// an await or a script termination (the Python driver ignores it), and
// SIGINT to the process group (KeyboardInterrupt in Python; child
// processes stop too).
func (k *Kernel) interrupt() {
	k.send(interruptRequest{T: "interrupt"})
	// One signal to the group, which includes the interpreter: a second
	// one (proc.Signal also signals the pid) could interrupt the driver
	// while it reports the first.
	syscall.Kill(-k.proc.Pid(), syscall.SIGINT)
}

// exitStatus names an exit error the way a shell would (see
// proc.Describe).
func exitStatus(err error) string { return proc.Describe(err) }

// stderrNoteLines is how many lines of an interpreter's stderr an error
// about its exit shows; logStderrLines, how many a log line carries.
const (
	stderrNoteLines = 15
	logStderrLines  = 5
)

// stderrNote follows an error about an interpreter's exit with the end of
// its stderr (already cut to lines by proc's StderrTail).
func stderrNote(tail string) string {
	if tail = cleanStderr(tail); tail == "" {
		return ""
	}
	return "\nits stderr ends with:\n" + tail
}

// cleanStderr is an interpreter's stderr as text fit for a message.
func cleanStderr(tail string) string { return strings.TrimSpace(cleanText(tail)) }

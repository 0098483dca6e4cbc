//go:build linux

// This file defines the reaper: a copy of this executable that SIGKILLs our
// children's process groups when we die, so grandchildren never outlive us.

package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const (
	// reaperEnv, set to "1", makes [RunReaperIfAsked] run the reaper loop.
	reaperEnv = "AGENT_TOOLS_REAPER"
	// reaperAckTimeout bounds how long the first Start waits for a new reaper
	// to say it is running in reaper mode.
	reaperAckTimeout = 5 * time.Second
	// reaperWriteTimeout bounds one event write, should the reaper hang.
	reaperWriteTimeout = time.Second
)

// reaperConn is our side of the reaper: the write end of its event pipe.
type reaperConn struct {
	mu     sync.Mutex // guards all fields
	w      *os.File   // event pipe; nil while no reaper runs
	pid    int        // reaper pid; 0 while none runs
	err    error      // why grandchildren are not covered, if they are not
	failed bool       // a launch failed: do not retry at every Start
}

var reaper reaperConn

// ReaperErr reports why the reaper is not running, or nil when it is (or when
// no child has been started yet). Without a reaper, children still die with
// us through Pdeathsig, but their own children may not.
func ReaperErr() error {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	return reaper.err
}

// ensure starts a reaper if none runs and tells it about every live group.
// It is called on the spawner goroutine before each fork. A reaper that died
// is replaced; one that could not be launched is not retried.
func (r *reaperConn) ensure() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w != nil || r.failed {
		return
	}
	if os.Getenv(reaperEnv) == "1" {
		// We are a would-be reaper whose main did not call RunReaperIfAsked;
		// launching another would recurse.
		r.err = errors.New("starting reaper: " + reaperEnv + "=1 is set here: RunReaperIfAsked must be the first call in main and TestMain")
		r.failed = true
		return
	}
	w, pid, err := startReaper()
	if err != nil {
		r.err = fmt.Errorf("starting reaper: %w", err)
		r.failed = true
		return
	}
	r.w, r.pid, r.err = w, pid, nil
	// A reaper started after an earlier one died must learn the groups that
	// are still live. Removal from live happens before the "-" event (see
	// Process.reap), so no group is listed after it is gone.
	for _, p := range Live() {
		r.writeLocked('+', p.pid)
	}
}

// notify tells the reaper that group pgid started (op '+') or is gone ('-').
func (r *reaperConn) notify(op byte, pgid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writeLocked(op, pgid)
}

func (r *reaperConn) writeLocked(op byte, pgid int) {
	if r.w == nil {
		return
	}
	_ = r.w.SetWriteDeadline(time.Now().Add(reaperWriteTimeout))
	_, err := fmt.Fprintf(r.w, "%c%d\n", op, pgid)
	switch {
	case err == nil:
	case errors.Is(err, syscall.EPIPE):
		// The reaper is gone; let the next Start launch another. Its
		// waiter closes the pipe.
		r.err = fmt.Errorf("reaper (pid %d) is gone: %w", r.pid, err)
		r.w, r.pid = nil, 0
	default:
		// A timeout: keep the pipe open, since closing it would make the
		// reaper kill every live child once it wakes up.
		r.err = fmt.Errorf("writing to reaper (pid %d): %w", r.pid, err)
	}
}

// wait reaps the reaper process and forgets it, so the next Start launches a
// new one. (Normally the reaper outlives us: it exits only when we are gone.)
func (r *reaperConn) wait(cmd *exec.Cmd, w *os.File) {
	err := cmd.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == w {
		r.err = fmt.Errorf("reaper (pid %d) exited: %v", cmd.Process.Pid, err)
		r.w, r.pid = nil, 0
	}
	w.Close()
}

// startReaper launches the reaper and waits until it acknowledges that it runs
// in reaper mode. It returns the write end of the event pipe.
//
// The reaper is /proc/self/exe (the file os.Executable names), which stays
// valid even if the binary on disk is replaced or deleted. It gets its own
// process group, so killing our group does not take it down before it has
// done its job, and no Pdeathsig: it must outlive us.
func startReaper() (*os.File, int, error) {
	events, eventsW, err := os.Pipe()
	if err != nil {
		return nil, 0, err
	}
	ackR, ack, err := os.Pipe()
	if err != nil {
		events.Close()
		eventsW.Close()
		return nil, 0, err
	}
	defer ackR.Close()
	cmd := &exec.Cmd{
		Path:        "/proc/self/exe",
		Args:        []string{"agent-tools-reaper"},
		Env:         append(os.Environ(), reaperEnv+"=1"),
		ExtraFiles:  []*os.File{events, ack}, // fd 3, fd 4
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	err = cmd.Start()
	events.Close()
	ack.Close()
	if err != nil {
		eventsW.Close()
		return nil, 0, err
	}
	pid := cmd.Process.Pid
	go reaper.wait(cmd, eventsW)
	if err := readAck(ackR); err != nil {
		_ = unix.Kill(-pid, unix.SIGKILL)
		return nil, 0, fmt.Errorf("reaper (pid %d) did not start: %w (is RunReaperIfAsked the first call in main and TestMain?)", pid, err)
	}
	return eventsW, pid, nil
}

const reaperAck = "reaper ready\n"

func readAck(r *os.File) error {
	_ = r.SetReadDeadline(time.Now().Add(reaperAckTimeout))
	line, err := bufio.NewReader(r).ReadString('\n')
	if line == reaperAck {
		return nil
	}
	if err == nil {
		err = fmt.Errorf("unexpected answer %q", line)
	}
	return err
}

// RunReaperIfAsked must be the first call in main and in TestMain. In the
// reaper process it runs the reaper and exits; everywhere else it returns at
// once.
//
// The reaper writes nothing to stdout, ignores SIGINT, SIGTERM and SIGHUP, and
// exits only when the event pipe from its parent reaches EOF, after SIGKILLing
// every process group still listed.
func RunReaperIfAsked() {
	if os.Getenv(reaperEnv) != "1" {
		return
	}
	os.Exit(runReaper())
}

func runReaper() int {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	events := os.NewFile(3, "reaper-events")
	ack := os.NewFile(4, "reaper-ack")
	if events == nil || ack == nil {
		return 2
	}
	if _, err := ack.WriteString(reaperAck); err != nil {
		return 2
	}
	ack.Close()
	groups := make(map[int]bool)
	sc := bufio.NewScanner(events)
	for sc.Scan() {
		applyEvent(groups, sc.Text())
	}
	// EOF or a read error: our parent is gone either way.
	for pgid := range groups {
		_ = unix.Kill(-pgid, unix.SIGKILL)
	}
	return 0
}

// applyEvent applies one event line ("+<pgid>" or "-<pgid>") to groups.
// Malformed lines are ignored.
func applyEvent(groups map[int]bool, line string) {
	if len(line) < 2 {
		return
	}
	pgid, err := strconv.Atoi(line[1:])
	if err != nil || pgid <= 1 {
		return
	}
	switch line[0] {
	case '+':
		groups[pgid] = true
	case '-':
		delete(groups, pgid)
	}
}

//go:build linux

package proc_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// parentEnv makes the re-executed test binary act as a small parent program
// (see parentMain) instead of running tests.
const parentEnv = "AGENT_TOOLS_PROC_TEST_PARENT"

func TestMain(m *testing.M) {
	proc.RunReaperIfAsked()
	if os.Getenv(parentEnv) == "1" {
		os.Exit(parentMain())
	}
	os.Exit(m.Run())
}

// fast are Stop timeouts for tests whose children need no grace.
var fast = &proc.Timeouts{Goodbye: 100 * time.Millisecond, Grace: 100 * time.Millisecond, Term: time.Second, Kill: 5 * time.Second}

// start starts spec (with fast timeouts unless it has its own) and stops the
// process at the end of the test.
func start(t *testing.T, spec proc.Spec) *proc.Process {
	t.Helper()
	if spec.Timeouts == nil {
		spec.Timeouts = fast
	}
	p, err := proc.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(context.Background(), nil); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		if out := p.Stdout(); out != nil {
			out.Close()
		}
	})
	return p
}

func sh(script string) proc.Spec {
	return proc.Spec{Name: "sh", Path: "sh", Args: []string{"-c", script}}
}

// lines delivers r's lines on a channel that is closed at EOF.
func lines(r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

func next(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case l, ok := <-ch:
		if !ok {
			t.Fatal("unexpected EOF")
		}
		return l
	case <-time.After(testutil.IntegrationTimeout()):
		t.Fatal("timed out waiting for a line")
	}
	return ""
}

func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	ch := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		ch <- string(b)
	}()
	select {
	case s := <-ch:
		return s
	case <-time.After(testutil.IntegrationTimeout()):
		t.Fatal("timed out waiting for EOF")
	}
	return ""
}

func waitDone(t *testing.T, p *proc.Process) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(testutil.IntegrationTimeout()):
		t.Fatalf("pid %d still running; stderr: %s", p.Pid(), p.StderrTail(0))
	}
}

func stop(t *testing.T, p *proc.Process, goodbye func(context.Context) error) {
	t.Helper()
	if err := p.Stop(t.Context(), goodbye); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case <-p.Done():
	default:
		t.Fatal("Stop returned before Done was closed")
	}
}

// waitGone polls until every pid in pids is gone, or fails after within.
func waitGone(t *testing.T, pids map[string]int, within time.Duration) {
	t.Helper()
	var alive []string
	if !testutil.Poll(within, func() bool {
		alive = nil
		for name, pid := range pids {
			if testutil.Alive(pid) {
				alive = append(alive, fmt.Sprintf("%s (pid %d)", name, pid))
			}
		}
		return len(alive) == 0
	}) {
		t.Fatalf("still running after %v: %s", within, strings.Join(alive, ", "))
	}
}

func exitStatus(t *testing.T, err error) syscall.WaitStatus {
	t.Helper()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("Err() = %v, want an *exec.ExitError", err)
	}
	return ee.Sys().(syscall.WaitStatus)
}

func TestStdoutPipe(t *testing.T) {
	testutil.Needs(t, "sh")
	spec := sh(`echo hello; echo "$1"`)
	spec.Args = append(spec.Args, "sh", "world")
	spec.Stdout = true
	p := start(t, spec)
	if p.Stdin() != nil {
		t.Error("Stdin() != nil with Spec.Stdin false")
	}
	if got, want := readAll(t, p.Stdout()), "hello\nworld\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	waitDone(t, p)
	if err := p.Err(); err != nil {
		t.Errorf("Err() = %v", err)
	}
}

func TestStdinAndStdout(t *testing.T) {
	testutil.Needs(t, "sh")
	spec := sh(`while read l; do echo "echo $l"; done`)
	spec.Stdin, spec.Stdout = true, true
	p := start(t, spec)
	out := lines(p.Stdout())
	for _, w := range []string{"a", "b"} {
		fmt.Fprintln(p.Stdin(), w)
		if got, want := next(t, out), "echo "+w; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestStderrTail(t *testing.T) {
	testutil.Needs(t, "sh")
	p := start(t, sh(`echo one >&2; echo oops >&2; exit 3`))
	if p.Stdout() != nil {
		t.Error("Stdout() != nil with Spec.Stdout false")
	}
	waitDone(t, p)
	if got, want := p.StderrTail(0), "one\noops\n"; got != want {
		t.Errorf("StderrTail(0) = %q, want %q", got, want)
	}
	for n, want := range map[int]string{1: "oops", 2: "one\noops", 5: "one\noops"} {
		if got := p.StderrTail(n); got != want {
			t.Errorf("StderrTail(%d) = %q, want %q", n, got, want)
		}
	}
	if ws := exitStatus(t, p.Err()); ws.ExitStatus() != 3 {
		t.Errorf("exit status = %d, want 3", ws.ExitStatus())
	}
	if err := p.Signal(syscall.SIGTERM); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("Signal after exit = %v, want os.ErrProcessDone", err)
	}
}

// TestStderrBounded checks that 5 MB of stderr neither blocks the child nor
// grows the tail past its limit.
func TestStderrBounded(t *testing.T) {
	testutil.Needs(t, "sh", "yes", "head")
	const limit = 4096
	spec := sh(`yes 0123456789 | head -c 5000000 >&2`)
	spec.StderrTail = limit
	p := start(t, spec)
	waitDone(t, p)
	if err := p.Err(); err != nil {
		t.Fatalf("Err() = %v", err)
	}
	tail := p.StderrTail(0)
	if len(tail) > limit || len(tail) < limit-11 {
		t.Errorf("len(StderrTail(0)) = %d, want in [%d, %d]", len(tail), limit-11, limit)
	}
	// 5000000 = 454545*11 + 5: the last line is cut after "01234".
	ls := strings.Split(tail, "\n")
	if last := ls[len(ls)-1]; last != "01234" {
		t.Errorf("last partial line = %q, want %q", last, "01234")
	}
	for i, l := range ls[:len(ls)-1] {
		if l != "0123456789" {
			t.Fatalf("line %d of the tail = %q, want whole lines", i, l)
		}
	}
}

func TestExtraFiles(t *testing.T) {
	testutil.Needs(t, "sh")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	spec := sh(`echo via-fd3 >&3`)
	spec.ExtraFiles = []*os.File{w}
	start(t, spec)
	w.Close() // our copy; the child's keeps the pipe open until it exits
	if got, want := readAll(t, r), "via-fd3\n"; got != want {
		t.Errorf("fd 3 carried %q, want %q", got, want)
	}
}

func TestStartErrors(t *testing.T) {
	_, err := proc.Start(proc.Spec{Name: "nosuch", Path: "agent-tools-no-such-command"})
	if err == nil || !strings.Contains(err.Error(), "starting nosuch") || !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("Start of a missing command: %v", err)
	}
	_, err = proc.Start(proc.Spec{Path: "/bin/sh", Dir: "/no/such/dir"})
	if err == nil || !strings.Contains(err.Error(), "starting sh") {
		t.Errorf("Start in a missing dir: %v", err)
	}
}

func TestReaperRuns(t *testing.T) {
	testutil.Needs(t, "sh")
	start(t, sh(`exit 0`))
	if err := proc.ReaperErr(); err != nil {
		t.Fatalf("ReaperErr() = %v", err)
	}
	if pid := proc.ReaperPid(); pid <= 0 || !testutil.Alive(pid) {
		t.Errorf("reaper pid %d is not running", pid)
	}
}

// TestReaperReplaced checks that after the reaper dies, the next Start
// launches a new one.
func TestReaperReplaced(t *testing.T) {
	testutil.Needs(t, "sh")
	start(t, sh(`exit 0`))
	old := proc.ReaperPid()
	if old <= 0 {
		t.Fatalf("no reaper: %v", proc.ReaperErr())
	}
	if err := unix.Kill(old, unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, func() bool { return proc.ReaperErr() != nil }, "ReaperErr() still nil after the reaper was killed")
	if err, want := proc.ReaperErr(), fmt.Sprintf("reaper (pid %d)", old); !strings.Contains(err.Error(), want) {
		t.Errorf("ReaperErr() = %v, want it to mention %q", err, want)
	}
	start(t, sh(`exit 0`))
	if err := proc.ReaperErr(); err != nil {
		t.Fatalf("ReaperErr() after restart = %v", err)
	}
	if pid := proc.ReaperPid(); pid <= 0 || pid == old || !testutil.Alive(pid) {
		t.Errorf("reaper pid after restart = %d (old %d)", pid, old)
	}
}

func TestStopOnStdinClose(t *testing.T) {
	testutil.Needs(t, "sh", "cat")
	spec := sh(`cat >/dev/null; echo saw-eof >&2`)
	spec.Stdin = true
	// Grace is long: the child must exit because stdin closed, not by SIGTERM.
	spec.Timeouts = &proc.Timeouts{Grace: testutil.IntegrationTimeout()}
	p := start(t, spec)
	stop(t, p, nil)
	if err := p.Err(); err != nil {
		t.Errorf("Err() = %v, want a clean exit", err)
	}
	if got, want := p.StderrTail(0), "saw-eof\n"; got != want {
		t.Errorf("StderrTail(0) = %q, want %q", got, want)
	}
}

func TestStopEscalatesToSIGKILL(t *testing.T) {
	testutil.Needs(t, "sh", "sleep")
	spec := sh(`trap '' TERM; echo ready; exec sleep 100`)
	spec.Stdout = true
	tm := proc.Timeouts{Goodbye: 50 * time.Millisecond, Grace: 50 * time.Millisecond, Term: 200 * time.Millisecond, Kill: 5 * time.Second}
	spec.Timeouts = &tm
	p := start(t, spec)
	if l := next(t, lines(p.Stdout())); l != "ready" {
		t.Fatalf("got %q, want ready", l)
	}
	begin := time.Now()
	stop(t, p, nil)
	took := time.Since(begin)
	if ws := exitStatus(t, p.Err()); ws.Signal() != syscall.SIGKILL {
		t.Errorf("Err() = %v, want death by SIGKILL", p.Err())
	}
	if min, max := tm.Grace+tm.Term, tm.Grace+tm.Term+tm.Kill; took < min || took > max {
		t.Errorf("Stop took %v, want between %v and %v", took, min, max)
	}
}

func TestStopKillsGrandchildren(t *testing.T) {
	testutil.Needs(t, "sh", "sleep")
	spec := sh(`sleep 300 & echo $!; wait`)
	spec.Stdout = true
	p := start(t, spec)
	gc, err := strconv.Atoi(next(t, lines(p.Stdout())))
	if err != nil {
		t.Fatal(err)
	}
	if !testutil.Alive(gc) {
		t.Fatalf("grandchild %d not running before Stop", gc)
	}
	stop(t, p, nil)
	waitGone(t, map[string]int{"grandchild": gc}, 2*time.Second)
}

// TestExitKillsGroup checks that a child that exits by itself takes the rest
// of its process group with it.
func TestExitKillsGroup(t *testing.T) {
	testutil.Needs(t, "sh", "sleep")
	spec := sh(`sleep 300 & echo $!`)
	spec.Stdout = true
	p := start(t, spec)
	gc, err := strconv.Atoi(next(t, lines(p.Stdout())))
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, p)
	waitGone(t, map[string]int{"grandchild": gc}, 2*time.Second)
}

func TestStopGoodbye(t *testing.T) {
	testutil.Needs(t, "sh")
	spec := sh(`read line; echo "got $line" >&2`)
	spec.Stdin = true
	spec.Timeouts = &proc.Timeouts{Goodbye: testutil.IntegrationTimeout(), Grace: testutil.IntegrationTimeout()}
	p := start(t, spec)
	called := false
	stop(t, p, func(ctx context.Context) error {
		called = true
		if _, ok := ctx.Deadline(); !ok {
			t.Error("goodbye ctx has no deadline")
		}
		_, err := io.WriteString(p.Stdin(), "bye\n")
		return err
	})
	if !called {
		t.Fatal("goodbye not called")
	}
	if err := p.Err(); err != nil {
		t.Errorf("Err() = %v, want a clean exit", err)
	}
	if got, want := p.StderrTail(0), "got bye\n"; got != want {
		t.Errorf("StderrTail(0) = %q, want %q", got, want)
	}
}

// TestStopGoodbyeHangs checks that a goodbye that ignores its ctx holds Stop
// up for no longer than Timeouts.Goodbye.
func TestStopGoodbyeHangs(t *testing.T) {
	testutil.Needs(t, "sh", "cat")
	spec := sh(`cat >/dev/null`)
	spec.Stdin = true
	spec.Timeouts = &proc.Timeouts{Goodbye: 100 * time.Millisecond, Grace: testutil.IntegrationTimeout()}
	p := start(t, spec)
	release := make(chan struct{})
	defer close(release)
	begin := time.Now()
	stop(t, p, func(context.Context) error { <-release; return nil })
	if took := time.Since(begin); took < 100*time.Millisecond {
		t.Errorf("Stop took %v, less than Timeouts.Goodbye", took)
	}
	if err := p.Err(); err != nil {
		t.Errorf("Err() = %v, want a clean exit on stdin EOF", err)
	}
}

func TestStopCancelledContextKills(t *testing.T) {
	testutil.Needs(t, "sh", "sleep")
	spec := sh(`trap '' TERM; echo ready; exec sleep 100`)
	spec.Stdout = true
	// Without the cancelled ctx this Stop would take a minute or more.
	long := testutil.IntegrationTimeout()
	spec.Timeouts = &proc.Timeouts{Goodbye: long, Grace: long, Term: long, Kill: 5 * time.Second}
	p := start(t, spec)
	next(t, lines(p.Stdout()))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := p.Stop(ctx, nil); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if ws := exitStatus(t, p.Err()); ws.Signal() != syscall.SIGKILL {
		t.Errorf("Err() = %v, want death by SIGKILL", p.Err())
	}
}

func TestStopTwiceConcurrently(t *testing.T) {
	testutil.Needs(t, "sleep")
	p := start(t, proc.Spec{Path: "sleep", Args: []string{"300"}})
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = p.Stop(t.Context(), nil) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Stop #%d: %v", i, err)
		}
	}
	if err := p.Stop(t.Context(), nil); err != nil {
		t.Errorf("Stop after Stop: %v", err)
	}
}

func TestSignal(t *testing.T) {
	testutil.Needs(t, "sh", "sleep")
	spec := sh(`trap 'echo got-usr1; exit 0' USR1; echo ready; sleep 300 & wait`)
	spec.Stdout = true
	p := start(t, spec)
	out := lines(p.Stdout())
	next(t, out)
	if err := p.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if l := next(t, out); l != "got-usr1" {
		t.Errorf("got %q, want got-usr1", l)
	}
	waitDone(t, p)
}

func TestStopAll(t *testing.T) {
	testutil.Needs(t, "sleep")
	var ps []*proc.Process
	for range 3 {
		ps = append(ps, start(t, proc.Spec{Path: "sleep", Args: []string{"300"}}))
	}
	isLive := func(p *proc.Process) bool {
		for _, q := range proc.Live() {
			if q == p {
				return true
			}
		}
		return false
	}
	for _, p := range ps {
		if !isLive(p) {
			t.Errorf("pid %d missing from Live()", p.Pid())
		}
	}
	if err := proc.StopAll(t.Context()); err != nil {
		t.Fatalf("StopAll: %v", err)
	}
	for _, p := range ps {
		select {
		case <-p.Done():
		default:
			t.Errorf("pid %d not done after StopAll", p.Pid())
		}
		if isLive(p) {
			t.Errorf("pid %d still in Live() after StopAll", p.Pid())
		}
	}
}

// onDyingThread runs f on a goroutine locked to an OS thread other than the
// main one and lets the goroutine exit while still locked, so Go destroys the
// thread. It returns once the thread is gone.
func onDyingThread(f func()) error {
	tids := make(chan int, 1)
	var try func(locked chan<- struct{})
	try = func(locked chan<- struct{}) {
		runtime.LockOSThread()
		if locked != nil {
			close(locked)
		}
		if unix.Gettid() == unix.Getpid() {
			// Exiting while locked to the main thread would wedge it, not
			// end it. Hold the main thread until the next try has a thread
			// of its own, so that one cannot be the main thread.
			next := make(chan struct{})
			go try(next)
			<-next
			runtime.UnlockOSThread()
			return
		}
		f()
		tids <- unix.Gettid()
	}
	go try(nil)
	tid := <-tids
	task := fmt.Sprintf("/proc/self/task/%d", tid)
	if !testutil.Poll(testutil.IntegrationTimeout(), func() bool {
		_, err := os.Stat(task)
		return errors.Is(err, os.ErrNotExist)
	}) {
		return fmt.Errorf("thread %d did not exit", tid)
	}
	return nil
}

// TestPdeathsigThreadTrap shows the trap the spawner exists for: a child
// forked with Pdeathsig from a thread that then exits is killed, though its
// parent process lives on.
func TestPdeathsigThreadTrap(t *testing.T) {
	testutil.Needs(t, "sleep")
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var err error
	if terr := onDyingThread(func() { err = cmd.Start() }); terr != nil {
		t.Fatal(terr)
	}
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if ws := exitStatus(t, err); ws.Signal() != syscall.SIGKILL {
			t.Errorf("naive child ended with %v, want SIGKILL", err)
		}
	case <-time.After(testutil.IntegrationTimeout()):
		cmd.Process.Kill()
		t.Fatal("naive child survived its thread: the trap did not reproduce")
	}
}

// TestChildOutlivesStartingThread checks that a child started from a
// goroutine whose thread then dies keeps running (the spawner forked it).
func TestChildOutlivesStartingThread(t *testing.T) {
	testutil.Needs(t, "sh")
	spec := sh(`while read l; do echo "echo $l"; done`)
	spec.Stdin, spec.Stdout = true, true
	var p *proc.Process
	var err error
	if terr := onDyingThread(func() { p, err = proc.Start(spec) }); terr != nil {
		t.Fatal(terr)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(context.Background(), nil) })
	// The thread is gone, so a Pdeathsig tied to it has already been sent;
	// an answer proves the child is alive.
	fmt.Fprintln(p.Stdin(), "ping")
	if l := next(t, lines(p.Stdout())); l != "echo ping" {
		t.Fatalf("got %q, want echo ping", l)
	}
	select {
	case <-p.Done():
		t.Fatalf("child exited: %v", p.Err())
	default:
	}
}

// parentMain is the re-executed test binary's parent mode. It starts
// children (one with a grandchild, one from a goroutine whose thread dies,
// one that writes to stdout with Spec.Stdout false), prints "<name> <pid>"
// lines and "ready", then runs until stdin closes or it is killed.
func parentMain() int {
	fail := func(err error) int {
		fmt.Printf("error: %v\n", err)
		return 1
	}
	withGrandchild := func(p *proc.Process, err error, name string) error {
		if err != nil {
			return err
		}
		gc, err := bufio.NewReader(p.Stdout()).ReadString('\n')
		if err != nil {
			return err
		}
		fmt.Printf("%s %d\n%s-grandchild %s", name, p.Pid(), name, gc)
		return nil
	}
	spec := proc.Spec{Path: "sh", Args: []string{"-c", "sleep 300 & echo $!; sleep 300"}, Stdout: true}
	p, err := proc.Start(spec)
	if err := withGrandchild(p, err, "child"); err != nil {
		return fail(err)
	}
	if terr := onDyingThread(func() { p, err = proc.Start(spec) }); terr != nil {
		return fail(terr)
	}
	if err := withGrandchild(p, err, "thread-child"); err != nil {
		return fail(err)
	}
	// A child that puts a process of its own in a new group (as delve does
	// with its debuggee): only Adopt brings that group in reach of the reaper.
	p, err = proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", "setsid sleep 300 & echo $!; sleep 300"}, Stdout: true})
	if err != nil {
		return fail(err)
	}
	own, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if err != nil {
		return fail(err)
	}
	ownPid, err := strconv.Atoi(strings.TrimSpace(own))
	if err != nil {
		return fail(err)
	}
	proc.Adopt(ownPid)
	fmt.Printf("adopted %d\n", ownPid)
	leaky, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", "echo LEAK; echo LEAK >&2"}})
	if err != nil {
		return fail(err)
	}
	<-leaky.Done()
	if err := proc.ReaperErr(); err != nil {
		return fail(err)
	}
	fmt.Printf("reaper %d\nready\n", proc.ReaperPid())
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// TestOrphansDieWhenParentIsKilled SIGKILLs a parent program (this test
// binary in parent mode) and checks that its children and their children
// are all gone within 2 s, and that its reaper exits.
func TestOrphansDieWhenParentIsKilled(t *testing.T) {
	testutil.Needs(t, "sh", "sleep")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := start(t, proc.Spec{
		Name:   "parent",
		Path:   exe,
		Env:    append(os.Environ(), parentEnv+"=1"),
		Stdin:  true,
		Stdout: true,
	})
	out := lines(parent.Stdout())
	pids := make(map[string]int)
	for {
		l := next(t, out)
		if l == "ready" {
			break
		}
		if strings.Contains(l, "LEAK") || strings.HasPrefix(l, "error:") {
			t.Fatalf("parent printed %q", l)
		}
		name, pid, _ := strings.Cut(l, " ")
		n, err := strconv.Atoi(pid)
		if err != nil || n <= 1 {
			t.Fatalf("bad line %q from parent", l)
		}
		pids[name] = n
	}
	if len(pids) != 6 {
		t.Fatalf("parent reported %v, want 2 children, 2 grandchildren, an adopted group and the reaper", pids)
	}
	for name, pid := range pids {
		if !testutil.Alive(pid) {
			t.Fatalf("%s (pid %d) not running before the parent is killed", name, pid)
		}
	}
	if err := unix.Kill(parent.Pid(), unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	reaperPid := pids["reaper"]
	delete(pids, "reaper")
	waitGone(t, pids, 2*time.Second)
	// The reaper exits once it has killed the groups; under -race that takes
	// a second more (the race runtime sleeps at exit).
	waitGone(t, map[string]int{"reaper": reaperPid}, testutil.IntegrationTimeout())
	waitDone(t, parent)
	if rest := readAll(t, parent.Stdout()); strings.Contains(rest, "LEAK") {
		t.Errorf("a child's output reached the parent's stdout: %q", rest)
	}
	if tail := parent.StderrTail(0); tail != "" {
		t.Errorf("parent stderr = %q, want nothing (children's stderr is captured, not inherited)", tail)
	}
}

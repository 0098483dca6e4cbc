//go:build linux

package proc_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

func TestOutputExitStatus(t *testing.T) {
	testutil.Needs(t, "sh")
	res, err := proc.Output(t.Context(), proc.Spec{Name: "three", Path: "sh", Args: []string{"-c", "echo out; echo err >&2; exit 3"}}, time.Minute, 0)
	e, ok := errors.AsType[*proc.Ended](err)
	if !ok {
		t.Fatalf("err = %v, want an *Ended", err)
	}
	if string(res.Stdout) != "out\n" || strings.TrimSpace(res.Stderr) != "err" {
		t.Errorf("stdout %q, stderr %q", res.Stdout, res.Stderr)
	}
	if !e.Exited() || e.Code != 3 || e.Name != "three" || e.Pid <= 0 {
		t.Errorf("Ended = %+v", e)
	}
	if got := proc.Describe(err); got != "exit status 3" {
		t.Errorf("Describe = %q", got)
	}
	if code, ok := proc.ExitCode(err); !ok || code != 3 {
		t.Errorf("ExitCode = %d, %v", code, ok)
	}
	if !strings.HasPrefix(err.Error(), "three (pid ") || !strings.HasSuffix(err.Error(), "): exit status 3") {
		t.Errorf("Error() = %q", err)
	}

	res, err = proc.Output(t.Context(), proc.Spec{Path: "sh", Args: []string{"-c", "echo fine"}}, time.Minute, 0)
	if err != nil || string(res.Stdout) != "fine\n" || proc.Describe(err) != "exit status 0" {
		t.Errorf("a clean exit: %q, %v", res.Stdout, err)
	}
}

func TestOutputSignal(t *testing.T) {
	testutil.Needs(t, "sh")
	_, err := proc.Output(t.Context(), proc.Spec{Path: "sh", Args: []string{"-c", "kill -SEGV $$"}}, time.Minute, 0)
	if got, want := proc.Describe(err), "killed by signal SIGSEGV (segmentation fault)"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	if _, ok := proc.ExitCode(err); ok {
		t.Error("ExitCode reports an exit status for a signal")
	}
	// Process.Err goes through the same words.
	p, err := proc.Start(proc.Spec{Path: "sh", Args: []string{"-c", "kill -KILL $$"}})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, p)
	if got := proc.Describe(p.Err()); got != "killed by signal SIGKILL (killed)" {
		t.Errorf("Describe(Process.Err()) = %q", got)
	}
	if got := proc.Describe(errors.New("starting x: no such file")); got != "starting x: no such file" {
		t.Errorf("Describe of a start error = %q", got)
	}
}

// TestOutputTimeoutKillsGroup is the checker whose grandchild holds the
// output pipe: a 1 s timeout returns in about 1 s (exec.CommandContext
// without WaitDelay waited for the grandchild), and the grandchild is gone.
func TestOutputTimeoutKillsGroup(t *testing.T) {
	testutil.Needs(t, "sh", "sleep")
	begin := time.Now()
	res, err := proc.Output(t.Context(), proc.Spec{Name: "checker", Path: "sh", Args: []string{"-c", "sleep 30 & echo $!; sleep 30"}}, time.Second, 0)
	took := time.Since(begin)
	e, ok := errors.AsType[*proc.Ended](err)
	if !ok || e.Timeout != time.Second || e.Exited() {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if got := proc.Describe(err); got != "did not finish within 1s and was stopped" {
		t.Errorf("Describe = %q", got)
	}
	if took < time.Second || took > 2500*time.Millisecond {
		t.Errorf("a 1 s timeout returned after %v", took)
	}
	t.Logf("1 s timeout with a grandchild holding stdout returned after %v", took)
	pid, perr := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
	if perr != nil {
		t.Fatalf("stdout %q: %v", res.Stdout, perr)
	}
	testutil.WaitGone(t, 2*time.Second, pid)
}

// TestOutputDoesNotWaitForGrandchild: a command that exits leaving a
// background child on its stdout returns at once; the child is killed
// with its group.
func TestOutputDoesNotWaitForGrandchild(t *testing.T) {
	testutil.Needs(t, "sh", "sleep")
	begin := time.Now()
	res, err := proc.Output(t.Context(), proc.Spec{Path: "sh", Args: []string{"-c", "sleep 30 & echo $!"}}, time.Minute, 0)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("Output waited %v for the grandchild", took)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
	testutil.WaitGone(t, 2*time.Second, pid)
}

// TestOutputEscapedGrandchild: a grandchild that left the group (setsid)
// and holds stdout costs outputLinger, not its lifetime.
func TestOutputEscapedGrandchild(t *testing.T) {
	testutil.Needs(t, "sh", "sleep", "setsid")
	// The grandchild writes its pid once it has left the group; the child
	// waits for that, then exits.
	f := t.TempDir() + "/pid"
	script := `setsid sh -c 'echo $$ > ` + f + `.tmp; mv ` + f + `.tmp ` + f + `; exec sleep 30' & while [ ! -s ` + f + ` ]; do sleep 0.01; done; cat ` + f
	begin := time.Now()
	res, err := proc.Output(t.Context(), proc.Spec{Path: "sh", Args: []string{"-c", script}}, time.Minute, 0)
	took := time.Since(begin)
	t.Logf("returned after %v with a grandchild outside the group holding stdout", took)
	pid, perr := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
	if perr != nil {
		t.Fatalf("stdout %q, %v", res.Stdout, err)
	}
	if !testutil.Alive(pid) {
		t.Fatal("the grandchild did not escape the group: the test proves nothing")
	}
	syscall.Kill(pid, syscall.SIGKILL)
	if err != nil {
		t.Fatal(err)
	}
	if took < 250*time.Millisecond || took > 5*time.Second {
		t.Errorf("Output took %v with a grandchild outside the group; want about 250 ms, its linger", took)
	}
}

func TestOutputCanceled(t *testing.T) {
	testutil.Needs(t, "sh", "sleep")
	ctx, cancel := context.WithCancel(t.Context())
	p := make(chan error, 1)
	go func() {
		_, err := proc.Output(ctx, proc.Spec{Path: "sh", Args: []string{"-c", "echo started; sleep 30"}}, 0, 0)
		p <- err
	}()
	cancel()
	select {
	case err := <-p:
		if e, ok := errors.AsType[*proc.Ended](err); !ok || !e.Canceled {
			t.Errorf("err = %v, want Canceled", err)
		}
	case <-time.After(testutil.IntegrationTimeout()):
		t.Fatal("Output did not return after its context was cancelled")
	}
}

func TestOutputLimit(t *testing.T) {
	testutil.Needs(t, "head")
	res, err := proc.Output(t.Context(), proc.Spec{Path: "head", Args: []string{"-c", "100000", "/dev/zero"}}, time.Minute, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != 1000 || !res.StdoutCut {
		t.Errorf("kept %d bytes, cut %v; want 1000, true", len(res.Stdout), res.StdoutCut)
	}
	res, err = proc.Output(t.Context(), proc.Spec{Path: "head", Args: []string{"-c", "1000", "/dev/zero"}}, time.Minute, 1000)
	if err != nil || len(res.Stdout) != 1000 || res.StdoutCut {
		t.Errorf("exactly the limit: kept %d, cut %v, %v", len(res.Stdout), res.StdoutCut, err)
	}
}

func TestOutputStartError(t *testing.T) {
	_, err := proc.Output(t.Context(), proc.Spec{Path: "agent-tools-no-such-program"}, time.Minute, 0)
	if err == nil {
		t.Fatal("no error")
	}
	if _, ok := errors.AsType[*proc.Ended](err); ok {
		t.Errorf("a program that did not start is reported as ended: %v", err)
	}
	if _, err := proc.LookPath("agent-tools-no-such-program"); err == nil {
		t.Error("LookPath found a program that does not exist")
	}
	if p, err := proc.LookPath("sh"); err != nil || !strings.HasPrefix(p, "/") {
		t.Errorf("LookPath(sh) = %q, %v", p, err)
	}
}

func TestOutputStderrCut(t *testing.T) {
	testutil.Needs(t, "sh", "head")
	res, err := proc.Output(t.Context(), proc.Spec{Path: "sh", Args: []string{"-c", "head -c 5000 /dev/zero | tr '\\0' 'x' >&2"}, StderrTail: 1000}, time.Minute, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !res.StderrCut || len(res.Stderr) > 1000 {
		t.Errorf("stderr of 5000 bytes kept in 1000: cut %v, kept %d", res.StderrCut, len(res.Stderr))
	}
	res, _ = proc.Output(t.Context(), proc.Spec{Path: "sh", Args: []string{"-c", "echo short >&2"}, StderrTail: 1000}, time.Minute, 0)
	if res.StderrCut {
		t.Error("a short stderr is reported cut")
	}
}

package dapbridge

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// pyFixture: total's loop body is line 4, the call line 13.
const pyFixture = `
-- requirements.txt --
-- app.py --
import sys

def total(xs):
    t = 0
    for x in xs:
        t += x
    return t

if len(sys.argv) > 1 and sys.argv[1] == "spin":
    n = 0
    while True:
        n += 1
xs = list(range(200))
print("first", flush=True)
s = total(xs[:3])
print("second", s, file=sys.stderr, flush=True)
print("third", flush=True)
`

func needDebugpy(t *testing.T) {
	testutil.NeedsFunc(t, "debugpy", func() string {
		if b := newResolver().debugpy(t.Context(), t.TempDir()); b.why != "" {
			return b.why
		}
		return ""
	})
}

// TestDebugpy drives a Python program through debugpy: breakpoints before
// launch, stack, variables (debugpy ignores count: the cap is ours),
// evaluate in a frame, steps, clearing a file's breakpoints (sent as [],
// which debugpy needs), continue to exit, output in order.
func TestDebugpy(t *testing.T) {
	needDebugpy(t)
	r := newRig(t, testOptions, pyFixture)
	r.do(Request{Op: "breakpoints", File: "app.py", Lines: []int{6, 15}})
	res := r.do(Request{Op: "launch", Program: "app.py"})
	res = r.settle(res)
	wantStop(t, res, "breakpoint", "app.py", 15)
	if len(res.Breakpoints) != 2 || !res.Breakpoints[0].Verified {
		t.Errorf("breakpoints at launch: %+v", res.Breakpoints)
	}
	scopes := r.do(Request{Op: "scopes", FrameID: res.Stop.FrameID})
	vars := r.do(Request{Op: "variables", Reference: scopes.Scopes[0].Reference})
	xs := findVar(t, vars.Variables, "xs")
	kids := r.do(Request{Op: "variables", Reference: xs.Reference})
	if kids.Shown != maxChildren || kids.Total <= maxChildren {
		t.Errorf("xs children: shown %d of %d", kids.Shown, kids.Total)
	}
	res = r.do(Request{Op: "continue"})
	res = r.settle(res)
	wantStop(t, res, "breakpoint", "app.py", 6)
	ev := r.do(Request{Op: "evaluate", Expression: "t + x + 100"})
	if ev.Value.Value != "100" {
		t.Errorf("evaluate t + x + 100 = %q", ev.Value.Value)
	}
	st := r.do(Request{Op: "stack"})
	if len(st.Frames) != 2 || st.Frames[0].Function != "total" || st.Frames[1].Line != 15 {
		t.Errorf("stack: %+v", st.Frames)
	}
	res = r.do(Request{Op: "step_over"})
	res = r.settle(res)
	wantStop(t, res, "step", "app.py", 5)
	// Clearing the file's breakpoints: the loop line is not hit again.
	bp := r.do(Request{Op: "breakpoints", File: "app.py", Lines: []int{}})
	if len(bp.Breakpoints) != 0 {
		t.Errorf("cleared: %+v", bp.Breakpoints)
	}
	res = r.do(Request{Op: "step_out"})
	res = r.settle(res)
	wantStop(t, res, "step", "app.py", 15)
	res = r.settle(r.do(Request{Op: "continue"}))
	if res.State != stateEnded {
		t.Fatalf("continue after clearing: %s %+v", res.State, res.Stop)
	}
	out := r.do(Request{Op: "output"})
	// debugpy forwards stdout and stderr from two threads, and may split a
	// line into several events: order holds within a stream, so each
	// stream is checked on its own, its chunks joined.
	streams := map[string]string{}
	for _, c := range out.Output {
		streams[c.Category] += c.Text
	}
	stdout, stderr := streams["stdout"], streams["stderr"]
	if i, j := strings.Index(stdout, "first\n"), strings.Index(stdout, "third\n"); i < 0 || j < i {
		t.Errorf("stdout not captured in order: %q\n%s", stdout, out.Text())
	}
	if !strings.Contains(stderr, "second 3\n") {
		t.Errorf("stderr not captured: %q\n%s", stderr, out.Text())
	}
	testutil.WaitNoneIn(t, r.root, 5*time.Second)
}

// TestDebugpyTTL: a short TTL ends the session and kills the debuggee;
// the next call reports it, and the supervisor's log has the adapter's
// start, the expiry, the session's end and the adapter's exit. A busy
// loop is paused first.
func TestDebugpyTTL(t *testing.T) {
	needDebugpy(t)
	var log testutil.LogBuffer
	r := newLoggedRig(t, &Options{StopWait: time.Second, TTL: 4 * time.Second}, logger(&log), pyFixture)
	res := r.do(Request{Op: "launch", Program: "app.py", Args: []string{"spin"}})
	if res.State != stateRunning {
		t.Fatalf("spin: %s", res.State)
	}
	res = r.do(Request{Op: "pause"})
	if res.Stop == nil || res.Stop.Reason != "pause" || res.Stop.File != "app.py" {
		t.Fatalf("pause: %+v", res.Stop)
	}
	sess := r.session()
	adapter, debuggee := sess.proc.Pid(), sess.debuggee
	if !testutil.Alive(debuggee) {
		t.Fatalf("debuggee %d not alive", debuggee)
	}
	<-sess.conn.done // the TTL ends it: the adapter connection closes
	res = r.do(Request{Op: "status"})
	if res.State != stateEnded || !strings.Contains(res.Notice, "TTL") {
		t.Errorf("after the TTL: state %s notice %q", res.State, res.Notice)
	}
	if testutil.Alive(adapter) || testutil.Alive(debuggee) {
		t.Errorf("after the TTL: adapter alive %v, debuggee alive %v", testutil.Alive(adapter), testutil.Alive(debuggee))
	}
	testutil.WaitNoneIn(t, r.root, 5*time.Second)
	pid := fmt.Sprintf(`"pid":%d`, adapter)
	wantLog(t, &log, `"level":"info"`, `"adapter":"debugpy"`, pid, `"message":"debug adapter started"`)
	wantLog(t, &log, `"level":"info"`, `"ttl":4000`, `"message":"debug session's TTL expired"`)
	wantLog(t, &log, `"level":"info"`, `"reason":"terminated: its TTL of 4s expired"`, `"message":"debug session ended"`)
	wantLog(t, &log, `"level":"info"`, pid, `"message":"debug adapter exited"`)
}

// TestDebugpyAdapterCrashLogged: an adapter killed under a running
// session ends it, and the log has a warning with the exit status.
func TestDebugpyAdapterCrashLogged(t *testing.T) {
	needDebugpy(t)
	var log testutil.LogBuffer
	r := newLoggedRig(t, &Options{StopWait: time.Second}, logger(&log), pyFixture)
	if res := r.do(Request{Op: "launch", Program: "app.py", Args: []string{"spin"}}); res.State != stateRunning {
		t.Fatalf("spin: %s", res.State)
	}
	sess := r.session()
	syscall.Kill(sess.proc.Pid(), syscall.SIGKILL)
	testutil.Poll(10*time.Second, sess.ended)
	res := r.do(Request{Op: "status"})
	if res.State != stateEnded || !strings.Contains(res.Ended, "the debug adapter exited") {
		t.Errorf("after the crash: state %s, ended %q", res.State, res.Ended)
	}
	wantLog(t, &log, `"level":"warn"`, `"adapter":"debugpy"`, fmt.Sprintf(`"pid":%d`, sess.proc.Pid()), `"status":"`, `signal: killed"`, `"message":"debug adapter exited"`)
	wantLog(t, &log, `"level":"info"`, `"reason":"the debug adapter exited`, `"message":"debug session ended"`)
	testutil.WaitNoneIn(t, r.root, 5*time.Second)
}

// TestDebugpyAttach attaches to a program listening with
// python -m debugpy --listen, stops at a breakpoint, and detaches leaving
// it running.
func TestDebugpyAttach(t *testing.T) {
	needDebugpy(t)
	r := newRig(t, &Options{StopWait: time.Minute}, pyFixture+`-- wait.py --
import time
def work(i):
    return i * 2
i = 0
while True:
    i = work(i % 1000 + 1)
    time.sleep(0.01)
`)
	// Without breakpoints the attach answers at once, running (it used to
	// wait StopWait for a stop that could not come).
	port, p := startDebugpyListener(t, r.root)
	begin := time.Now()
	res := attachWhenListening(t, r, port)
	if res.State != stateRunning || !strings.Contains(res.Notice, "no breakpoints") || time.Since(begin) > r.sup.opts.StopWait/2 {
		t.Fatalf("attach without breakpoints: state %s, notice %q after %v", res.State, res.Notice, time.Since(begin))
	}
	r.do(Request{Op: "terminate"})
	p.Stop(t.Context(), nil)

	port, p = startDebugpyListener(t, r.root)
	r.do(Request{Op: "breakpoints", File: "wait.py", Lines: []int{3}})
	res = attachWhenListening(t, r, port)
	res = r.settle(res)
	wantStop(t, res, "breakpoint", "wait.py", 3)
	r.do(Request{Op: "terminate"})
	select {
	case <-p.Done():
		t.Fatal("the attached program died at detach")
	default:
	}
}

// startDebugpyListener starts wait.py under python -m debugpy --listen.
func startDebugpyListener(t *testing.T, root string) (int, *proc.Process) {
	t.Helper()
	python := newResolver().debugpy(t.Context(), root).path
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	p, err := proc.Start(proc.Spec{Path: python, Args: []string{"-m", "debugpy", "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--wait-for-client", filepath.Join(root, "wait.py")}, Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(context.Background(), nil) })
	return port, p
}

// attachWhenListening attaches, retrying while the listener is not up
// (debugpy --listen prints no readiness line).
func attachWhenListening(t *testing.T, r *rig, port int) *Result {
	t.Helper()
	var res *Result
	var err error
	if !testutil.Poll(testutil.IntegrationTimeout(), func() bool {
		res, err = r.sup.Do(r.ctx(), r.conv, r.root, Request{Op: "attach", Port: port, Adapter: "debugpy"})
		if err != nil && !strings.Contains(err.Error(), "connection refused") {
			t.Fatal(err)
		}
		return err == nil
	}) {
		t.Fatal(err)
	}
	r.t.Logf("attach →\n%s", res.Text())
	return res
}

// pyThreadsFixture: two threads released together by a barrier reach the
// breakpoint line 5 at once.
const pyThreadsFixture = `
-- requirements.txt --
-- app.py --
import threading
b = threading.Barrier(2)
def worker(name):
    b.wait()
    x = name
    return x

ts = [threading.Thread(target=worker, args=("w%d" % i,)) for i in range(2)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print("done", flush=True)
`

// TestDebugpyParkedThread: two threads hit one breakpoint together and
// debugpy sends one stopped event; a continue resumes both, so the second
// hit used to go unreported. The stop names the other thread parked at the
// breakpoint, or (when it was suspended just before the line) the next
// continue stops there: either way both hits are seen.
func TestDebugpyParkedThread(t *testing.T) {
	needDebugpy(t)
	r := newRig(t, testOptions, pyThreadsFixture)
	r.do(Request{Op: "breakpoints", File: "app.py", Lines: []int{5}})
	res := r.do(Request{Op: "launch", Program: "app.py"})
	res = r.settle(res)
	wantStop(t, res, "breakpoint", "app.py", 5)
	first := res.Stop.ThreadID
	if len(res.Stop.Parked) == 1 {
		p := res.Stop.Parked[0]
		if p.ThreadID == first || p.File != "app.py" || p.Line != 5 || !strings.Contains(res.Text(), fmt.Sprintf("also at a breakpoint: thread %d  app.py:5  worker", p.ThreadID)) {
			t.Errorf("parked thread: %+v\n%s", p, res.Text())
		}
		st := r.do(Request{Op: "stack", ThreadID: p.ThreadID})
		if len(st.Frames) == 0 || st.Frames[0].Line != 5 {
			t.Errorf("stack of the parked thread: %+v", st.Frames)
		}
		return
	}
	res = r.settle(r.do(Request{Op: "continue"}))
	if res.Stop == nil || res.Stop.ThreadID == first || res.Stop.Line != 5 {
		t.Fatalf("the second thread's hit was not reported, neither at the stop nor at the next continue:\n%s", res.Text())
	}
}

// pyDeadlockFixture: two threads take two locks in opposite orders.
const pyDeadlockFixture = `
-- requirements.txt --
-- app.py --
import threading
a, b = threading.Lock(), threading.Lock()
bar = threading.Barrier(2)
def one():
    with a:
        bar.wait()
        with b:
            pass
def two():
    with b:
        bar.wait()
        with a:
            pass
ts = [threading.Thread(target=one), threading.Thread(target=two)]
for t in ts:
    t.start()
for t in ts:
    t.join()
`

// TestDebugpyDeadlock: a deadlocked program uses no CPU, so the launch
// answers once it has been idle for idleWindow rather than after the whole
// stop_wait, and says it is blocked; debugpy cannot pause threads blocked
// in a lock, and the pause answer says so, lists the threads and does not
// advise pausing again.
func TestDebugpyDeadlock(t *testing.T) {
	needDebugpy(t)
	r := newRig(t, &Options{StopWait: time.Minute}, pyDeadlockFixture)
	start := time.Now()
	res := r.do(Request{Op: "launch", Program: "app.py"})
	if took := time.Since(start); res.State != stateRunning || !strings.Contains(res.Notice, "it has used no CPU for") || took > 30*time.Second {
		t.Fatalf("launch of a deadlock, after %v:\n%s", took, res.Text())
	}
	res = r.do(Request{Op: "pause"})
	text := res.Text()
	if res.State != stateRunning || !strings.Contains(text, "debugpy stops a thread only when it runs Python code, so pausing again will not help") ||
		!strings.Contains(text, "blocked on a lock (a deadlock?)") || !strings.Contains(text, "(one)") || !strings.Contains(text, "(two)") {
		t.Errorf("pause of a deadlock:\n%s", text)
	}
	if strings.Contains(text, "or pause") {
		t.Errorf("the pause answer advises pausing again:\n%s", text)
	}
	r.do(Request{Op: "terminate"})
}

// TestBusyIsNotIdle: a program busy in a loop is never taken as idle: a
// continue into it waits the whole stop_wait and says only "still running".
func TestBusyIsNotIdle(t *testing.T) {
	needDebugpy(t)
	saved := idleWindow
	idleWindow = 500 * time.Millisecond
	t.Cleanup(func() { idleWindow = saved })
	r := newRig(t, &Options{StopWait: 2 * time.Second}, pyFixture)
	res := r.do(Request{Op: "launch", Program: "app.py", Args: []string{"spin"}})
	if res.State != stateRunning || strings.Contains(res.Notice, "no CPU") || !strings.Contains(res.Notice, "still running after 2s") {
		t.Errorf("launch of a busy loop:\n%s", res.Text())
	}
}

// pyPackageFixture: pkg/main.py imports its sibling relatively, which
// works only when it runs as the module pkg.main.
const pyPackageFixture = `
-- requirements.txt --
-- pkg/__init__.py --
-- pkg/util.py --
def shout(s):
    return s.upper() + "!"
-- pkg/main.py --
from .util import shout

print(shout("hi"), flush=True)
-- script.py --
print("plain", flush=True)
`

// TestDebugpyRelativeImports: launching a package's file that imports
// relatively runs it as its module (as a script it fails: "attempted
// relative import with no known parent package") and says so; a plain
// script still runs as a script.
func TestDebugpyRelativeImports(t *testing.T) {
	needDebugpy(t)
	r := newRig(t, testOptions, pyPackageFixture)
	r.do(Request{Op: "breakpoints", File: "pkg/util.py", Lines: []int{2}})
	res := r.do(Request{Op: "launch", Program: "pkg/main.py"})
	res = r.settle(res)
	wantStop(t, res, "breakpoint", "pkg/util.py", 2)
	if !strings.Contains(res.Text(), "ran pkg/main.py as the module pkg.main (python -m)") {
		t.Errorf("launch pkg/main.py does not say how it ran:\n%s", res.Text())
	}
	r.do(Request{Op: "terminate"})
	res = r.settle(r.do(Request{Op: "launch", Program: "script.py"}))
	if res.State != stateEnded || strings.Contains(res.Text(), "as the module") {
		t.Errorf("launch script.py:\n%s", res.Text())
	}
}

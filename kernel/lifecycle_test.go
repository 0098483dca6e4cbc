package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// shortBudget keeps the timeout tests quick; it is not a timing assertion:
// the tests only check what happens once the budget is spent. It must
// still be long enough for an ordinary cell (or a kernel's first cell) on a
// loaded 2-core CI machine under the race detector: 1 s was not.
const shortBudget = 3 * time.Second

func TestTimeoutKeepsStateAndOutput(t *testing.T) {
	needsPython(t)
	s := newSession(t, &Options{Timeout: shortBudget, Grace: 5 * time.Second})
	s.py("kept = 'still here'")
	res := s.run(Python, "import time\nprint('before the loop', flush=True)\nwhile True:\n    time.sleep(0.01)")
	if res.Status != StatusTimeout || res.StateLost {
		t.Fatalf("status %s stateLost %v, want timeout with state kept: %s", res.Status, res.StateLost, res.Text())
	}
	text := res.Text()
	for _, want := range []string{"before the loop", "KeyboardInterrupt", "error: timeout: the cell ran for its whole idle budget of " + shortBudget.String(), "interrupted, kernel state kept"} {
		if !strings.Contains(text, want) {
			t.Errorf("result lacks %q:\n%s", want, text)
		}
	}
	if got := s.py("kept"); got != "Out: 'still here'" {
		t.Errorf("state after the interrupt: %q", got)
	}
	s.wantLogged("interrupting the cell", map[string]string{"lang": "python", "why": StatusTimeout, "budget": fmt.Sprint(shortBudget.Milliseconds())})
	// A busy loop in a child process is interrupted too.
	res = s.run(Python, "!sleep 30")
	if res.Status != StatusTimeout || res.StateLost {
		t.Errorf("!sleep: %s", res.Text())
	}
	if got := s.py("kept"); got != "Out: 'still here'" {
		t.Errorf("state after interrupting !sleep: %q", got)
	}
}

func TestTimeoutKillsAKernelThatIgnoresSIGINT(t *testing.T) {
	needsPython(t)
	s := newSession(t, &Options{Timeout: shortBudget, Grace: 500 * time.Millisecond})
	s.py("kept = 1")
	res := s.run(Python, "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint('ignoring SIGINT', flush=True)\nwhile True:\n    pass")
	if res.Status != StatusTimeout || !res.StateLost {
		t.Fatalf("status %s stateLost %v, want timeout with state lost: %s", res.Status, res.StateLost, res.Text())
	}
	for _, want := range []string{"ignoring SIGINT", "was killed: kernel restarted; state lost"} {
		if !strings.Contains(res.Text(), want) {
			t.Errorf("result lacks %q:\n%s", want, res.Text())
		}
	}
	res = s.run(Python, "'kept' in globals()")
	if !res.OK() || body(res) != "Out: False" {
		t.Errorf("the next cell should run in a fresh kernel: %s", res.Text())
	}
	killed := s.wantLogged("the cell did not stop after the interrupt: killing the kernel (state lost)", map[string]string{"lang": "python", "level": "warn"})
	if starts := s.logged("kernel started"); len(starts) != 2 || killed == nil || starts[0]["pid"] != killed["pid"] || starts[1]["pid"] == killed["pid"] {
		t.Errorf("want the killed kernel's start and its replacement's in the log; got starts %v, kill %v", starts, killed)
	}
}

func TestCancelInterrupts(t *testing.T) {
	needsPython(t)
	s := newSession(t, nil)
	s.py("kept = 2")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// The cell's tool() call says it is running; it then sleeps until the
	// cancellation interrupts it.
	var once atomic.Bool
	bridge := func(context.Context, string, json.RawMessage) (string, bool, error) {
		if once.CompareAndSwap(false, true) {
			cancel()
		}
		return "", false, nil
	}
	res, err := s.pool.Eval(ctx, Request{Code: "import time\ntool('ping')\nprint('waiting', flush=True)\ntime.sleep(60)", Root: s.root, Description: "a test cell", Bridge: bridge})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusInterrupted || res.StateLost || !strings.Contains(res.Text(), "cancelled by the client") {
		t.Errorf("cancelled cell: %s", res.Text())
	}
	s.wantLogged("interrupting the cell", map[string]string{"why": StatusInterrupted, "level": "info"})
	if got := s.py("kept"); got != "Out: 2" {
		t.Errorf("state after cancellation: %q", got)
	}
}

func TestCrashRestartsKernel(t *testing.T) {
	needsPython(t)
	s := newSession(t, nil)
	s.py("kept = 1")
	res := s.run(Python, "import os\nprint('exiting', flush=True)\nos._exit(3)")
	if res.Status != StatusCrashed || !res.StateLost {
		t.Fatalf("status %s, want crashed: %s", res.Status, res.Text())
	}
	for _, want := range []string{"exiting", "the python kernel exited (exit status 3) while running the cell", "state lost"} {
		if !strings.Contains(res.Text(), want) {
			t.Errorf("result lacks %q:\n%s", want, res.Text())
		}
	}
	if got := s.py("'kept' in globals()"); got != "Out: False" {
		t.Errorf("after the crash: %q", got)
	}
	res = s.run(Python, "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)")
	if res.Status != StatusCrashed || !strings.Contains(res.Text(), "killed by signal SIGSEGV (segmentation fault)") {
		t.Errorf("segfault: %s", res.Text())
	}
	if !strings.Contains(res.Text(), "Fatal Python error: Segmentation fault") {
		t.Errorf("the segfault report lacks faulthandler's stderr: %s", res.Text())
	}
	if got := s.py("1"); got != "Out: 1" {
		t.Errorf("after the segfault: %q", got)
	}
	s.wantLogged("the kernel exited while running a cell", map[string]string{"status": "exit status 3", "level": "warn"})
	if e := s.wantLogged("the kernel exited while running a cell", map[string]string{"status": "killed by signal SIGSEGV (segmentation fault)"}); e != nil {
		// The entry carries the last few lines of faulthandler's report, the
		// same lines the result's stderr note ends with.
		st, _ := e["stderr"].(string)
		if st == "" || strings.Count(st, "\n") >= logStderrLines || !strings.HasSuffix(res.Text(), st) {
			t.Errorf("the crash's log entry should carry the last %d lines of stderr: %q", logStderrLines, st)
		}
	}
	if n := len(s.logged("kernel started")); n != 3 {
		t.Errorf("want 3 kernel starts logged (first, after the exit, after the segfault), got %d", n)
	}
}

func TestReset(t *testing.T) {
	needsPython(t)
	s := newSession(t, nil)
	s.py("kept = 1")
	res := s.runReq(Request{Code: "'kept' in globals()", Reset: true})
	want := "# a test cell (python)\n[kernel reset: started clean]\n[python kernel: " + debianPython + " (Python 3."
	if !strings.HasPrefix(res.Text(), want) || !strings.HasSuffix(res.Text(), "; configured)]\nOut: False") {
		t.Errorf("reset: %q", res.Text())
	}
	s.wantLogged("kernel reset: stopping it to start clean", map[string]string{"lang": "python"})
	s.wantLogged("kernel started", map[string]string{"lang": "python", "interpreter": debianPython, "chosen": "configured"})
}

// fakeBridge answers tool() calls like a harness would.
func fakeBridge(delay time.Duration) Bridge {
	return func(ctx context.Context, name string, args json.RawMessage) (string, bool, error) {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return "", false, ctx.Err()
		}
		if name != "read" {
			return "unknown tool " + name, true, nil
		}
		var a struct{ Path string }
		json.Unmarshal(args, &a)
		return "contents of " + a.Path, false, nil
	}
}

func TestBridgeDoesNotSpendTheBudget(t *testing.T) {
	needsPython(t)
	needsNode(t)
	s := newSession(t, &Options{Timeout: shortBudget, Grace: 5 * time.Second})
	// Each bridged call takes longer than the whole budget.
	bridge := fakeBridge(3 * shortBudget / 2)
	res := s.runReq(Request{Code: "a = tool('read', {'path': 'x.txt'})\nb = tool('read', {'path': 'y.txt'})\n(a, b)", Bridge: bridge})
	if !res.OK() || body(res) != "Out: ('contents of x.txt', 'contents of y.txt')" {
		t.Errorf("python bridged calls: %s", res.Text())
	}
	res = s.runReq(Request{Code: "try:\n    tool('write', {})\nexcept ToolError as e:\n    print('failed:', e)", Bridge: fakeBridge(0)})
	if !res.OK() || body(res) != "failed: unknown tool write" {
		t.Errorf("python failing tool: %s", res.Text())
	}
	res = s.runReq(Request{Language: JavaScript, Code: "const r = await tool('read', {path: 'z.txt'}); r.toUpperCase()", Bridge: bridge})
	if !res.OK() || body(res) != "Out: 'CONTENTS OF Z.TXT'" {
		t.Errorf("js bridged call: %s", res.Text())
	}
	res = s.runReq(Request{Code: "while True: pass", Bridge: bridge})
	if res.Status != StatusTimeout {
		t.Errorf("a busy loop should time out: %s", res.Text())
	}
}

func TestNoBridge(t *testing.T) {
	needsPython(t)
	s := newSession(t, nil)
	res := s.run(Python, "tool('read', {'path': 'a'})")
	if res.Status != StatusError || !strings.Contains(res.Text(), "RuntimeError: no harness bridge") {
		t.Errorf("python without a bridge: %s", res.Text())
	}
}

func TestMissingInterpreter(t *testing.T) {
	p := NewPool(&Options{Python: "/nonexistent/python3"}, nil)
	_, err := p.Eval(t.Context(), Request{Code: "1", Root: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `the configured python interpreter "/nonexistent/python3"`) {
		t.Errorf("err = %v", err)
	}
}

func TestPrefixAndBinaryStdout(t *testing.T) {
	needsPython(t)
	s := newSession(t, &Options{Prefix: []string{"env", "AGENT_TOOLS_PREFIXED=yes"}})
	if got := s.py("import os\nos.environ.get('AGENT_TOOLS_PREFIXED')"); got != "Out: 'yes'" {
		t.Errorf("the kernel did not run under the prefix: %s", got)
	}
	if got := s.py("import sys\nsys.stdout.buffer.write('bytes é\\n'.encode())\nsys.stdout.flush()"); got != "bytes é" {
		t.Errorf("sys.stdout.buffer: %q", got)
	}
}

// TestExitBetweenCells: a kernel that exits while no cell runs (here a
// timer thread calls os._exit) is noticed by the next cell, which runs in
// a fresh kernel and says so; the log has the exit's status.
func TestExitBetweenCells(t *testing.T) {
	needsPython(t)
	s := newSession(t, nil)
	s.py("import os, threading\nkept = 1\nthreading.Timer(0.2, lambda: os._exit(4)).start()")
	slot := s.pool.slots[Python]
	testutil.Eventually(t, func() bool {
		slot.sem <- struct{}{}
		defer func() { <-slot.sem }()
		exited, _ := slot.k.Exited()
		return exited
	}, "the kernel did not exit")
	res := s.run(Python, "'kept' in globals()")
	if !res.OK() || !strings.Contains(res.Text(), "[the previous python kernel had exited (exit status 4): kernel restarted; state lost]") || !strings.HasSuffix(res.Text(), "Out: False") {
		t.Errorf("the cell after the exit: %s", res.Text())
	}
	s.wantLogged("the kernel had exited between cells: restarting it", map[string]string{"status": "exit status 4", "level": "warn"})
}

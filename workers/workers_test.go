package workers

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

func TestMain(m *testing.M) {
	proc.RunReaperIfAsked()
	os.Exit(m.Run())
}

// newTestPool returns a pool whose fast and good tiers run the fake agent
// CLI (testdata/fakeagent.sh, a test fixture: no agent CLI exists here),
// and a fresh root.
func newTestPool(t *testing.T, maxRunning int) (*Pool, string) {
	t.Helper()
	fake, err := filepath.Abs("testdata/fakeagent.sh")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(nil, map[string]string{"fast": "sh " + fake, "good": "sh " + fake}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxRunning = maxRunning
	p := NewPool(&cfg, nil)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testutil.IntegrationTimeout())
		defer cancel()
		if err := p.Close(ctx); err != nil {
			t.Errorf("closing the pool: %v", err)
		}
	})
	return p, t.TempDir()
}

func waitDone(t *testing.T, p *Pool, id string) WaitResult {
	t.Helper()
	r, err := p.Wait(t.Context(), id, testutil.IntegrationTimeout(), false)
	if err != nil {
		t.Fatalf("waiting for %s: %v", id, err)
	}
	if r.StillRunning {
		t.Fatalf("%s still running after %v", id, testutil.IntegrationTimeout())
	}
	return r
}

// pids waits for the fake agent of worker id to write its own pid and its
// child's.
func pids(t *testing.T, root, id string) (self, child int) {
	t.Helper()
	path := filepath.Join(root, "fakeagent-"+id+".pids")
	testutil.Eventually(t, func() bool {
		data, err := os.ReadFile(path)
		f := strings.Fields(string(data))
		if err != nil || len(f) != 2 {
			return false
		}
		self, _ = strconv.Atoi(f[0])
		child, _ = strconv.Atoi(f[1])
		return true
	}, "the fake agent %s never wrote %s", id, path)
	return self, child
}

// waitGone fails the test unless every pid is gone within the integration
// timeout (a killed process takes a moment to die).
func waitGone(t *testing.T, what string, pids ...int) {
	t.Helper()
	t.Logf("waiting for %v to be gone after %s", pids, what)
	testutil.WaitGone(t, testutil.IntegrationTimeout(), pids...)
}

func TestSpawnWaitDone(t *testing.T) {
	p, root := newTestPool(t, 4)
	st, err := p.Spawn(root, "fix the tests\nthen stop", "tests", "")
	if err != nil {
		t.Fatal(err)
	}
	if st.ID != "w1" || st.State != Running || st.Tier != "fast" || st.Attempts != 1 {
		t.Errorf("spawn status = %+v, want w1 running fast attempt 1", st)
	}
	r := waitDone(t, p, "w1")
	if r.State != Done || r.Result != "done: fix the tests (attempt 1, 2 lines)" {
		t.Errorf("wait = %+v", r)
	}
	data, err := os.ReadFile(filepath.Join(root, "fakeagent-w1.txt"))
	if err != nil || string(data) != "fix the tests\nthen stop\n" {
		t.Errorf("the worker's edit: %q, %v", data, err)
	}
	if !strings.Contains(r.Text(), "w1 done (attempt 1, fast): tests\n\ndone: fix the tests") {
		t.Errorf("text:\n%s", r.Text())
	}
}

func TestSpawnReturnsAtOnce(t *testing.T) {
	p, root := newTestPool(t, 4)
	st, err := p.Spawn(root, "sleep", "sleeper", "good")
	if err != nil {
		t.Fatal(err)
	}
	if st.State != Running || st.Tier != "good" {
		t.Fatalf("spawn status = %+v", st)
	}
	self, child := pids(t, root, st.ID) // it runs on after Spawn returned
	if !testutil.Alive(self) || !testutil.Alive(child) {
		t.Errorf("worker %d or its child %d is not running", self, child)
	}
	r, err := p.Wait(t.Context(), st.ID, 0, true)
	if err != nil || !r.StillRunning || r.State != Running {
		t.Errorf("wait 0 on a running worker = %+v, %v; want still running", r, err)
	}
	if !strings.Contains(r.Text(), "w1 still running") || !strings.Contains(r.Text(), "stdout (last lines):") {
		t.Errorf("text: %s", r.Text())
	}
}

func TestWaitCancelledLeavesWorkerRunning(t *testing.T) {
	p, root := newTestPool(t, 4)
	st, _ := p.Spawn(root, "sleep", "sleeper", "")
	self, _ := pids(t, root, st.ID)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.Wait(ctx, st.ID, time.Hour, false); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: err = %v", err)
	}
	if !testutil.Alive(self) {
		t.Error("cancelling the wait stopped the worker")
	}
}

func TestKillStopsWorkerAndChildren(t *testing.T) {
	p, root := newTestPool(t, 4)
	st, _ := p.Spawn(root, "sleep", "sleeper", "")
	self, child := pids(t, root, st.ID)
	k, err := p.Kill(t.Context(), st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if k.State != Killed || k.Stopped != "stopped by vibe_kill" || k.Result != "interrupted by SIGTERM" {
		t.Errorf("kill status = %+v", k)
	}
	waitGone(t, "vibe_kill", self, child)
	again, err := p.Kill(t.Context(), st.ID)
	if err != nil || again.State != Killed {
		t.Errorf("second kill = %+v, %v", again, err)
	}
}

func TestSendReruns(t *testing.T) {
	p, root := newTestPool(t, 1)
	st, _ := p.Spawn(root, "start on it\nsleep", "steered", "")
	self, _ := pids(t, root, st.ID)
	s2, err := p.Send(t.Context(), root, st.ID, "now finish") // max 1: the old attempt must be gone first
	if err != nil {
		t.Fatal(err)
	}
	if s2.Attempts != 2 || s2.State != Running {
		t.Errorf("send status = %+v", s2)
	}
	waitGone(t, "vibe_send", self)
	r := waitDone(t, p, st.ID)
	if r.State != Done || r.Attempts != 2 || r.Result != "done: start on it (attempt 2, 6 lines)" {
		t.Errorf("wait = %+v", r)
	}
	if len(r.History) != 1 || r.History[0].State != Killed || r.History[0].Attempt != 1 {
		t.Errorf("history = %+v", r.History)
	}
	data, _ := os.ReadFile(filepath.Join(root, "fakeagent-w1.txt"))
	if want := "start on it\nsleep\n\n---\n\nnow finish\n"; string(data) != want {
		t.Errorf("brief of attempt 2 = %q, want %q", data, want)
	}
}

func TestFailedWorker(t *testing.T) {
	p, root := newTestPool(t, 4)
	st, _ := p.Spawn(root, "fail", "failing", "")
	r := waitDone(t, p, st.ID)
	if r.State != Failed || r.Exit != "exit status 3" || !strings.Contains(r.StderrTail, "failing as the brief asks") {
		t.Errorf("wait = %+v", r)
	}
	if !strings.Contains(r.Text(), "failed: exit status 3") {
		t.Errorf("text:\n%s", r.Text())
	}
	r, err := p.Wait(t.Context(), st.ID, 0, true)
	if err != nil || !strings.Contains(r.Log, `{"type":"system","subtype":"init","worker":"w1","attempt":1}`) || !strings.Contains(r.Log, "stderr (last lines):\nfakeagent w1: attempt 1, 1 lines of brief\nfakeagent w1: failing") {
		t.Errorf("show_log: %q, %v", r.Log, err)
	}
}

func TestPlainTextResult(t *testing.T) {
	p, root := newTestPool(t, 4)
	st, _ := p.Spawn(root, "say it\nplain", "plain", "")
	r := waitDone(t, p, st.ID)
	if r.Result != "done: say it\n(attempt 1, plain text)" {
		t.Errorf("result = %q", r.Result)
	}
}

func TestList(t *testing.T) {
	p, root := newTestPool(t, 4)
	if got := p.List().Text(); got != "no workers (0 of 4 may run at once)" {
		t.Errorf("empty list: %q", got)
	}
	p.Spawn(root, "quick", "one", "")
	waitDone(t, p, "w1")
	p.Spawn(root, "sleep", "two", "good")
	pids(t, root, "w2")
	l := p.List()
	if len(l.Workers) != 2 || l.Running != 1 {
		t.Fatalf("list = %+v", l)
	}
	w1, w2 := l.Workers[0], l.Workers[1]
	if w1.State != Done || w1.Attempts != 1 || w1.Result == "" || w2.State != Running || w2.ElapsedMs <= 0 {
		t.Errorf("list = %+v", l)
	}
	text := l.Text()
	for _, want := range []string{"2 workers, 1 running (at most 4 at once)", "w1  fast  done  attempts 1  one  result: done: quick", "w2  good  running 0s  attempts 1  two"} {
		if !strings.Contains(text, want) {
			t.Errorf("list text lacks %q:\n%s", want, text)
		}
	}
}

func TestLimitsAndErrors(t *testing.T) {
	p, root := newTestPool(t, 1)
	p.opts.Commands = map[string]string{"fast": p.opts.Commands["fast"]}
	if _, err := p.Spawn(root, "sleep", "a", "good"); err == nil || !strings.Contains(err.Error(), `no worker command for tier "good"; configured: fast`) {
		t.Errorf("unconfigured tier: %v", err)
	}
	if _, err := p.Spawn(root, "sleep", "a", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Spawn(root, "sleep", "b", ""); err == nil || !strings.Contains(err.Error(), "1 workers are running, the maximum") {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := p.Wait(t.Context(), "w9", time.Second, false); err == nil || !strings.Contains(err.Error(), `no worker "w9"; the workers are w1`) {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := p.Spawn(root, " ", "a", ""); err == nil {
		t.Error("empty brief accepted")
	}
}

func TestCloseStopsEverything(t *testing.T) {
	p, root := newTestPool(t, 4)
	p.Spawn(root, "sleep", "a", "")
	p.Spawn(root, "sleep", "b", "")
	a, ac := pids(t, root, "w1")
	b, bc := pids(t, root, "w2")
	if err := p.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitGone(t, "Close", a, ac, b, bc)
	if _, err := p.Spawn(root, "x", "c", ""); err == nil {
		t.Error("spawn after Close succeeded")
	}
}

func TestShellCommand(t *testing.T) {
	tests := []struct{ in, want string }{
		{"codex exec --json -", "exec codex exec --json -"},
		{`claude -p --output-format "stream-json" --verbose`, `exec claude -p --output-format "stream-json" --verbose`},
		{"cd sub && amp -x", "cd sub && amp -x"},
		{"agent | tee log", "agent | tee log"},
		{"exec agent", "exec agent"},
	}
	for _, tt := range tests {
		if got := shellCommand(tt.in); got != tt.want {
			t.Errorf("shellCommand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

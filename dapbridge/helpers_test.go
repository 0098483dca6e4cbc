package dapbridge

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

func TestMain(m *testing.M) {
	proc.RunReaperIfAsked()
	os.Exit(m.Run())
}

// testOptions shorten the wait for a stop, so that the checks of a
// program still running do not take the default 15 s. A stop that is due
// but comes later (lldb compiling a breakpoint condition on a loaded
// machine) is waited for by settle, on the session's own state.
var testOptions = &Options{StopWait: 5 * time.Second}

// rig is one supervisor and workspace for an integration test.
type rig struct {
	t    *testing.T
	sup  *Supervisor
	root string
	conv string
}

func newRig(t *testing.T, opts *Options, archive string) *rig {
	t.Helper()
	return newLoggedRig(t, opts, nil, archive)
}

// newLoggedRig is newRig with a supervisor writing to log.
func newLoggedRig(t *testing.T, opts *Options, log *zerolog.Logger, archive string) *rig {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	testutil.WriteTree(t, root, archive)
	sup := NewSupervisor(opts, log)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		sup.Close(ctx)
	})
	return &rig{t: t, sup: sup, root: root, conv: "c1"}
}

func (r *rig) ctx() context.Context {
	ctx, cancel := context.WithTimeout(r.t.Context(), 3*testutil.IntegrationTimeout())
	r.t.Cleanup(cancel)
	return ctx
}

// do runs one op and fails the test on an error.
func (r *rig) do(req Request) *Result {
	r.t.Helper()
	res, err := r.sup.Do(r.ctx(), r.conv, r.root, req)
	if err != nil {
		r.t.Fatalf("%s: %v", req.Op, err)
	}
	r.t.Logf("%s →\n%s", req.Op, res.Text())
	return res
}

// fail runs one op that must fail, and returns the error text.
func (r *rig) fail(req Request) string {
	r.t.Helper()
	res, err := r.sup.Do(r.ctx(), r.conv, r.root, req)
	if err == nil {
		r.t.Fatalf("%s: want an error, got\n%s", req.Op, res.Text())
	}
	return err.Error()
}

// session returns the conversation's session (for pids).
func (r *rig) session() *session {
	c, _ := r.sup.conversation(r.conv)
	c.lock <- struct{}{}
	defer func() { <-c.lock }()
	return c.sess
}

// settle returns res when it is a stop or an end; when the program is
// still running it asks status until the adapter reports a stop or an end
// (or the integration timeout passes), and returns that answer.
func (r *rig) settle(res *Result) *Result {
	r.t.Helper()
	if res.Stop != nil || res.State != stateRunning {
		return res
	}
	testutil.Poll(testutil.IntegrationTimeout(), func() bool {
		st, err := r.sup.Do(r.ctx(), r.conv, r.root, Request{Op: "status"})
		if err != nil {
			r.t.Fatalf("status while waiting for a stop: %v", err)
		}
		if st.Stop == nil && st.State == stateRunning {
			return false
		}
		r.t.Logf("status after a late stop →\n%s", st.Text())
		res = st
		return true
	})
	return res
}

func wantStop(t *testing.T, res *Result, reason, file string, line int) {
	t.Helper()
	if res.Stop == nil {
		t.Fatalf("%s: not stopped (state %s, notice %q, ended %q)", res.Op, res.State, res.Notice, res.Ended)
	}
	if res.Stop.Reason != reason || res.Stop.File != file || res.Stop.Line != line {
		t.Fatalf("%s: stopped %s at %s:%d, want %s at %s:%d", res.Op, res.Stop.Reason, res.Stop.File, res.Stop.Line, reason, file, line)
	}
}

func findVar(t *testing.T, vs []Variable, name string) Variable {
	t.Helper()
	for _, v := range vs {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no variable %q among %v", name, vs)
	return Variable{}
}

// logger returns a logger writing JSON lines to l.
func logger(l *testutil.LogBuffer) *zerolog.Logger {
	log := l.Logger()
	return &log
}

// wantLog waits (bounded) until the log has a line holding every one of
// parts; the supervisor writes some lines from its own goroutines.
func wantLog(t *testing.T, l *testutil.LogBuffer, parts ...string) {
	t.Helper()
	if !testutil.Poll(10*time.Second, func() bool { return l.HasLine(parts...) }) {
		t.Errorf("no log line holds %q; the log:\n%s", parts, l.String())
	}
}

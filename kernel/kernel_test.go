package kernel

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
	"github.com/rs/zerolog"
)

func TestMain(m *testing.M) {
	proc.RunReaperIfAsked()
	os.Exit(m.Run())
}

// debianPython is the interpreter with pandas, matplotlib and tabulate
// (scripts/install-tools.sh installs them with apt).
const debianPython = "/usr/bin/python3"

func needsPython(t *testing.T) {
	t.Helper()
	testutil.NeedsFunc(t, "/usr/bin/python3 with pandas, matplotlib and tabulate", func() string {
		out, err := exec.Command(debianPython, "-c", "import pandas, matplotlib, tabulate").CombinedOutput()
		if err != nil {
			return strings.TrimSpace(string(out)) + " " + err.Error()
		}
		return ""
	})
}

func needsNode(t *testing.T) {
	t.Helper()
	testutil.Needs(t, "node")
}

// session is a pool with helpers to run cells in one test.
type session struct {
	t    *testing.T
	pool *Pool
	root string
	log  *testutil.LogBuffer // the pool's log, one JSON object a line
}

// logged returns the pool's log entries whose message is msg.
func (s *session) logged(msg string) []map[string]any {
	s.t.Helper()
	var out []map[string]any
	for _, e := range s.log.Entries(s.t) {
		if e["message"] == msg {
			out = append(out, e)
		}
	}
	return out
}

// wantLogged fails unless the log has an entry with message msg whose
// fields include want (compared as fmt's %v).
func (s *session) wantLogged(msg string, want map[string]string) map[string]any {
	s.t.Helper()
	entries := s.logged(msg)
	for _, e := range entries {
		if matches(e, want) {
			return e
		}
	}
	s.t.Errorf("no log entry %q with %v; the log:\n%s", msg, want, s.log.String())
	return nil
}

func matches(e map[string]any, want map[string]string) bool {
	for k, v := range want {
		if fmt.Sprint(e[k]) != v {
			return false
		}
	}
	return true
}

func newSession(t *testing.T, opts *Options) *session {
	t.Helper()
	o := Options{Python: debianPython}
	if opts != nil {
		o = *opts
		if o.Python == "" {
			o.Python = debianPython
		}
	}
	log := &testutil.LogBuffer{}
	zl := log.Logger().Level(zerolog.DebugLevel)
	p := NewPool(&o, &zl)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.Close(ctx); err != nil {
			t.Errorf("closing the pool: %v", err)
		}
	})
	return &session{t: t, pool: p, root: t.TempDir(), log: log}
}

func (s *session) run(lang Language, code string) *Result {
	s.t.Helper()
	return s.runReq(Request{Language: lang, Code: code})
}

func (s *session) runReq(req Request) *Result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.t.Context(), testutil.IntegrationTimeout())
	defer cancel()
	if req.Root == "" {
		req.Root = s.root
	}
	if req.Description == "" {
		req.Description = "a test cell"
	}
	res, err := s.pool.Eval(ctx, req)
	if err != nil {
		s.t.Fatalf("eval %q: %v", req.Code, err)
	}
	return res
}

// py runs a Python cell that must succeed and returns its text.
func (s *session) py(code string) string {
	s.t.Helper()
	res := s.run(Python, code)
	if !res.OK() {
		s.t.Fatalf("cell %q: status %s: %s", code, res.Status, res.Text())
	}
	return body(res)
}

// js runs a JavaScript cell that must succeed and returns its text.
func (s *session) js(code string) string {
	s.t.Helper()
	res := s.run(JavaScript, code)
	if !res.OK() {
		s.t.Fatalf("cell %q: status %s: %s", code, res.Status, res.Text())
	}
	return body(res)
}

// body is the result's text without the label line and the status line
// of a kernel's first cell (TestStatusLine checks that one).
func body(res *Result) string {
	_, rest, _ := strings.Cut(res.Text(), "\n")
	if strings.HasPrefix(rest, "[python kernel: ") || strings.HasPrefix(rest, "[javascript kernel: ") {
		_, rest, _ = strings.Cut(rest, "\n")
	}
	return rest
}

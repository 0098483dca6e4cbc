package dapbridge

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// requestLog records the DAP requests a supervisor sends, so a test can
// say which ones each op needs.
type requestLog struct {
	mu   sync.Mutex // guards sent
	sent []string
}

func (l *requestLog) record(command string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent = append(l.sent, command)
}

// take returns the requests sent since the last take.
func (l *requestLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.sent
	l.sent = nil
	return s
}

// TestRequestsPerOp counts, with real delve and debugpy (45 ms a
// request), the DAP requests each op sends through the session's
// connection: one op sends the requests it needs and no more (stack used
// to send a second stackTrace for a stop line it then dropped), and frame
// ids stay the same across launch, status, stack and scopes while the
// program is stopped, and never equal a variable reference.
func TestRequestsPerOp(t *testing.T) {
	cases := []struct {
		adapter, archive, file string
		line                   int
		local, callerExpr      string
	}{
		{"delve", goFixture, "main.go", 12, "total", "len(xs)"},
		{"debugpy", pyFixture, "app.py", 6, "t", "len(xs)"},
	}
	for _, c := range cases {
		t.Run(c.adapter, func(t *testing.T) {
			if c.adapter == "delve" {
				needDlv(t)
			} else {
				needDebugpy(t)
			}
			testRequestsPerOp(t, newRig(t, testOptions, c.archive), c.file, c.line, c.local, c.callerExpr)
		})
	}
}

func testRequestsPerOp(t *testing.T, r *rig, file string, line int, local, callerExpr string) {
	log := &requestLog{}
	r.sup.trace = log.record
	step := func(req Request, want ...string) *Result {
		t.Helper()
		res := r.do(req)
		if diff := cmp.Diff(want, log.take()); diff != "" {
			t.Errorf("op %s sent (-want +got):\n%s", req.Op, diff)
		}
		return res
	}
	step(Request{Op: "breakpoints", File: file, Lines: []int{line}})
	launch := step(Request{Op: "launch", Program: file},
		"initialize", "launch", "setBreakpoints", "setExceptionBreakpoints", "configurationDone", "stackTrace")
	wantStop(t, launch, "breakpoint", file, line)
	frame := launch.Stop.FrameID
	if st := step(Request{Op: "status"}); st.Stop == nil || st.Stop.FrameID != frame {
		t.Errorf("status: stop %+v, want frame %d", st.Stop, frame)
	}
	stack := step(Request{Op: "stack"}, "stackTrace")
	if len(stack.Frames) < 2 || stack.Frames[0].ID != frame {
		t.Fatalf("stack: %+v, want frame %d on top", stack.Frames, frame)
	}
	step(Request{Op: "stack"}) // the whole stack is known: nothing to ask
	if st := step(Request{Op: "status"}); st.Stop == nil || st.Stop.FrameID != frame {
		t.Errorf("status after stack: stop %+v, want frame %d", st.Stop, frame)
	}
	caller := stack.Frames[1].ID
	scopes := step(Request{Op: "scopes", FrameID: caller}, "scopes")
	vars := step(Request{Op: "variables", Reference: scopes.Scopes[0].Reference}, "variables")
	ids := []int{}
	for _, f := range stack.Frames {
		ids = append(ids, f.ID)
	}
	for _, v := range vars.Variables {
		if v.Reference != 0 && slices.Contains(ids, v.Reference) {
			t.Errorf("variable %s has reference %d, also a frame id (%v)", v.Name, v.Reference, ids)
		}
	}
	if slices.Contains(ids, scopes.Scopes[0].Reference) {
		t.Errorf("scope reference %d is also a frame id (%v)", scopes.Scopes[0].Reference, ids)
	}
	step(Request{Op: "evaluate", Expression: local}, "evaluate")
	step(Request{Op: "evaluate", Expression: callerExpr, FrameID: caller}, "evaluate")
	step(Request{Op: "threads"}, "threads")
	// A frame id of this stop is still valid after all that.
	step(Request{Op: "scopes", FrameID: frame}, "scopes")

	next := step(Request{Op: "step_over"}, "next", "stackTrace")
	if next.Stop == nil || next.Stop.FrameID == frame {
		t.Errorf("after a step the top frame has a new id: %+v (old %d)", next.Stop, frame)
	}
	if msg := r.fail(Request{Op: "scopes", FrameID: caller}); !strings.Contains(msg, "not a frame of the current stop") {
		t.Errorf("stale frame: %s", msg)
	}
	log.take()
	step(Request{Op: "output"})
	step(Request{Op: "terminate"}, "disconnect")
}

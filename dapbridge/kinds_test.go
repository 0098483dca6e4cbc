package dapbridge

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// Fixtures for the breakpoint kinds and exception stops: a loop of five
// iterations printing "iter i" (the loop body's line is loopLine), and,
// given an argument, a crash: a Go index out of range, a Python raise in
// a function, a C++ throw.
const (
	goKinds = `
-- go.mod --
module kinds

go 1.22
-- main.go --
package main

import (
	"fmt"
	"os"
)

func main() {
	xs := []int{10, 20, 30}
	for i := 0; i < 5; i++ {
		fmt.Println("iter", i)
	}
	if len(os.Args) > 1 {
		fmt.Println(xs[len(os.Args)+1])
	}
}
`
	pyKinds = `
-- requirements.txt --
-- app.py --
import sys

def check(v):
    raise ValueError("bad value %d" % v)

for i in range(5):
    print("iter", i, flush=True)
if len(sys.argv) > 1:
    check(i)
`
	cppKinds = `
-- CMakeLists.txt --
project(kinds CXX)
-- main.cpp --
#include <cstdio>
#include <stdexcept>

int main(int argc, char **argv) {
	for (int i = 0; i < 5; i++) {
		printf("iter %d\n", i);
	}
	if (argc > 1) {
		throw std::runtime_error("bad value 3");
	}
	return 0;
}
`
)

// kindsCase is one adapter's fixture for testBreakpointKinds.
type kindsCase struct {
	file, program string
	loopLine      int
	iVar          string // the loop variable as the adapter's evaluate spells it
	exactHits     bool   // the adapter supports == N hit conditions
}

// testBreakpointKinds runs the same checks with each adapter: a condition
// that holds only on the third iteration stops once; a >= 3 hit condition
// first stops on the third hit; == 3 stops on the third only, or, where
// the adapter cannot say it (lldb-dap), is reported not set; a logpoint
// prints to output every iteration without stopping.
func testBreakpointKinds(t *testing.T, r *rig, k kindsCase) {
	loopOnce := func(spec LineSpec, wantI string) {
		t.Helper()
		r.do(Request{Op: "breakpoints", File: k.file, Specs: []LineSpec{spec}})
		res := r.do(Request{Op: "launch", Program: k.program})
		res = r.settle(res)
		wantStop(t, res, "breakpoint", k.file, k.loopLine)
		if ev := r.do(Request{Op: "evaluate", Expression: k.iVar}); ev.Value.Value != wantI {
			t.Errorf("%+v: stopped with i = %s, want %s", spec, ev.Value.Value, wantI)
		}
		res = r.settle(r.do(Request{Op: "continue"}))
		if spec.HitCondition == ">= 3" {
			if res.Stop == nil {
				t.Fatalf("hit >= 3: no second stop: %s", res.Text())
			}
			r.do(Request{Op: "terminate"})
			return
		}
		if res.State != stateEnded {
			t.Fatalf("%+v: stopped again: %s", spec, res.Text())
		}
	}
	loopOnce(LineSpec{Line: k.loopLine, Condition: k.iVar + " == 2"}, "2")
	loopOnce(LineSpec{Line: k.loopLine, HitCondition: ">= 3"}, "2")
	exact := LineSpec{Line: k.loopLine, HitCondition: "3"}
	if k.exactHits {
		loopOnce(exact, "2")
	} else {
		r.do(Request{Op: "breakpoints", File: k.file, Specs: []LineSpec{exact}})
		res := r.do(Request{Op: "launch", Program: k.program})
		if len(res.Breakpoints) != 1 || res.Breakpoints[0].Verified || !strings.Contains(res.Breakpoints[0].Message, "not set") || r.settle(res).State != stateEnded {
			t.Fatalf("hit 3 where the adapter cannot say it: want not set and no stop, got %s", res.Text())
		}
	}

	// A logpoint prints each iteration and never stops.
	r.do(Request{Op: "breakpoints", File: k.file, Specs: []LineSpec{{Line: k.loopLine, LogMessage: "at i={" + k.iVar + "}"}}})
	res := r.settle(r.do(Request{Op: "launch", Program: k.program}))
	if res.State != stateEnded {
		t.Fatalf("logpoint: the program did not run to its end: %s", res.Text())
	}
	out := r.do(Request{Op: "output"}).Text()
	for _, want := range []string{"at i=0", "at i=2", "at i=4", "iter 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("logpoint: output lacks %q:\n%s", want, out)
		}
	}
	r.do(Request{Op: "breakpoints", File: k.file, Lines: []int{}})
}

func wantException(t *testing.T, res *Result, typ, msg, file string, line int, fn string) {
	t.Helper()
	if res.Stop == nil || res.Stop.Exception == nil {
		t.Fatalf("no exception stop: %s", res.Text())
	}
	e := res.Stop.Exception
	if !strings.Contains(e.Type, typ) || !strings.Contains(e.Message, msg) {
		t.Errorf("exception %q: %q, want %q: %q", e.Type, e.Message, typ, msg)
	}
	if res.Stop.File != file || res.Stop.Line != line || !strings.Contains(res.Stop.Function, fn) {
		t.Errorf("current frame %s:%d %s, want %s:%d %s", res.Stop.File, res.Stop.Line, res.Stop.Function, file, line, fn)
	}
	if !strings.Contains(res.Text(), "exception "+e.Type) {
		t.Errorf("the stop line does not name the exception:\n%s", res.Text())
	}
}

// TestDelveBreakpointKinds: conditions, hit conditions and logpoints with
// delve, then a panic: it names its value and the current frame is
// main.main, not the runtime's.
func TestDelveBreakpointKinds(t *testing.T) {
	needDlv(t)
	r := newRig(t, testOptions, goKinds)
	testBreakpointKinds(t, r, kindsCase{file: "main.go", program: "main.go", loopLine: 11, iVar: "i", exactHits: true})
	res := r.do(Request{Op: "launch", Program: "main.go", Args: []string{"crash"}})
	res = r.settle(res)
	wantException(t, res, "panic", "index out of range [3] with length 3", "main.go", 14, "main.main")
	if res.Stop.Depth == 0 {
		t.Errorf("a panic's current frame is main.main, below the runtime's: depth 0")
	}
	// evaluate defaults to the current frame: main's xs.
	if ev := r.do(Request{Op: "evaluate", Expression: "len(xs)"}); ev.Value.Value != "3" {
		t.Errorf("evaluate len(xs) in the current frame = %q", ev.Value.Value)
	}
	ex := r.do(Request{Op: "exceptions"})
	if len(ex.Exceptions) == 0 {
		t.Errorf("delve lists no exception filters")
	}
	r.do(Request{Op: "terminate"})
}

// TestDebugpyBreakpointKinds: the same with debugpy, then an uncaught
// raise stops at the raising line by default (the launch says so), and
// the exceptions op turns that off.
func TestDebugpyBreakpointKinds(t *testing.T) {
	needDebugpy(t)
	r := newRig(t, testOptions, pyKinds)
	testBreakpointKinds(t, r, kindsCase{file: "app.py", program: "app.py", loopLine: 7, iVar: "i", exactHits: true})
	res := r.do(Request{Op: "launch", Program: "app.py", Args: []string{"crash"}})
	res = r.settle(res)
	wantException(t, res, "ValueError", "bad value 4", "app.py", 4, "check")
	if !strings.Contains(res.Notice, "stops on exceptions: uncaught") {
		t.Errorf("launch does not say it stops on uncaught exceptions: %q", res.Notice)
	}
	ex := r.do(Request{Op: "exceptions"})
	if !strings.Contains(ex.Text(), "exceptions uncaught  on") || !strings.Contains(ex.Text(), "exceptions raised  off") {
		t.Errorf("exceptions:\n%s", ex.Text())
	}
	if msg := r.fail(Request{Op: "exceptions", Filters: &[]string{"nosuch"}}); !strings.Contains(msg, "uncaught") {
		t.Errorf("unknown filter: %s", msg)
	}
	r.do(Request{Op: "exceptions", Filters: &[]string{}})
	r.do(Request{Op: "terminate"})
	res = r.settle(r.do(Request{Op: "launch", Program: "app.py", Args: []string{"crash"}}))
	if res.State != stateEnded {
		t.Errorf("with no exception filters the crash still stopped: %s", res.Text())
	}
}

// TestLLDBBreakpointKinds: the same with lldb-dap on C++, then a throw
// stopped by the cpp_throw filter, set before launch.
func TestLLDBBreakpointKinds(t *testing.T) {
	needLLDB(t)
	testutil.Needs(t, "g++")
	r := newRig(t, testOptions, cppKinds)
	cmd := exec.CommandContext(t.Context(), "g++", "-g", "-O0", "-o", filepath.Join(r.root, "app"), filepath.Join(r.root, "main.cpp"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	testBreakpointKinds(t, r, kindsCase{file: "main.cpp", program: "app", loopLine: 6, iVar: "i"})
	r.do(Request{Op: "exceptions", Adapter: "lldb", Filters: &[]string{"cpp_throw"}})
	res := r.do(Request{Op: "launch", Program: "app", Args: []string{"crash"}})
	res = r.settle(res)
	wantException(t, res, "std::runtime_error", "bad value 3", "main.cpp", 9, "main")
	r.do(Request{Op: "terminate"})
}

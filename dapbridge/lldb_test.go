package dapbridge

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// cFixture: sum's loop body is line 7, the call line 22, the spin loop's body line 18.
const cFixture = `
-- CMakeLists.txt --
project(fixture C)
add_executable(app main.c)
-- main.c --
#include <stdio.h>
#include <string.h>

int sum(int *xs, int n) {
	int total = 0;
	for (int i = 0; i < n; i++) {
		total += xs[i];
	}
	return total;
}

int main(int argc, char **argv) {
	int xs[200];
	for (int i = 0; i < 200; i++) xs[i] = i;
	if (argc > 1 && strcmp(argv[1], "spin") == 0) {
		volatile long n = 0;
		for (;;) {
			n++;
		}
	}
	printf("first\n");
	int s = sum(xs, 3);
	printf("sum %d\n", s);
	return 0;
}
`

func needLLDB(t *testing.T) {
	testutil.NeedsFunc(t, "lldb-dap", func() string {
		if newResolver().lldbPath() == "" {
			return "lldb-dap not found (apt install lldb-19)"
		}
		return ""
	})
	testutil.Needs(t, "gcc")
}

func buildC(t *testing.T, root string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "gcc", "-g", "-O0", "-o", filepath.Join(root, "app"), filepath.Join(root, "main.c"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
}

// TestLLDB drives a C program through lldb-dap: breakpoints before launch,
// stack, variables (the 200-element array capped at 50), evaluate in a
// frame, steps, continue to exit with output, then pause of a busy loop
// (lldb reports it as signal SIGSTOP: normalised to pause) and terminate.
func TestLLDB(t *testing.T) {
	needLLDB(t)
	r := newRig(t, testOptions, cFixture)
	buildC(t, r.root)
	r.do(Request{Op: "breakpoints", File: "main.c", Lines: []int{7}})
	res := r.do(Request{Op: "launch", Program: "app"})
	res = r.settle(res)
	wantStop(t, res, "breakpoint", "main.c", 7)
	st := r.do(Request{Op: "stack"})
	if len(st.Frames) < 2 || !strings.HasPrefix(st.Frames[0].Function, "sum") || st.Frames[1].Line != 22 {
		t.Fatalf("stack: %+v", st.Frames)
	}
	ev := r.do(Request{Op: "evaluate", Expression: "xs[i] + 100", FrameID: st.Frames[0].ID})
	if ev.Value.Value != "100" {
		t.Errorf("evaluate = %q", ev.Value.Value)
	}
	scopes := r.do(Request{Op: "scopes", FrameID: st.Frames[1].ID})
	vars := r.do(Request{Op: "variables", Reference: scopes.Scopes[0].Reference})
	xs := findVar(t, vars.Variables, "xs")
	kids := r.do(Request{Op: "variables", Reference: xs.Reference})
	if kids.Shown != maxChildren || kids.Total != 200 {
		t.Errorf("xs children: shown %d of %d", kids.Shown, kids.Total)
	}
	res = r.do(Request{Op: "step_over"})
	res = r.settle(res)
	wantStop(t, res, "step", "main.c", 6)
	r.do(Request{Op: "breakpoints", File: "main.c", Lines: []int{}})
	res = r.settle(r.do(Request{Op: "step_out"}))
	if res.Stop == nil || res.Stop.Line != 22 {
		t.Fatalf("step_out: %+v", res.Stop)
	}
	res = r.settle(r.do(Request{Op: "continue"}))
	if res.State != stateEnded || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("continue: %s %q", res.State, res.Ended)
	}
	text := r.do(Request{Op: "output"}).Text()
	if i, j := strings.Index(text, "first\n"), strings.Index(text, "sum 3\n"); i < 0 || j < i {
		t.Errorf("output:\n%s", text)
	}

	res = r.do(Request{Op: "launch", Program: "app", Args: []string{"spin"}})
	if res.State != stateRunning {
		t.Fatalf("spin: %s", res.State)
	}
	res = r.do(Request{Op: "pause"})
	if res.Stop == nil || res.Stop.Reason != "pause" || res.Stop.File != "main.c" {
		t.Fatalf("pause: %+v", res.Stop)
	}
	sess := r.session()
	r.do(Request{Op: "terminate"})
	if testutil.Alive(sess.proc.Pid()) || testutil.Alive(sess.debuggee) {
		t.Errorf("after terminate: lldb-dap alive %v, debuggee alive %v", testutil.Alive(sess.proc.Pid()), testutil.Alive(sess.debuggee))
	}
	testutil.WaitNoneIn(t, r.root, 5*time.Second)
}

// TestLLDBAttachPid attaches lldb-dap to a running process by pid, stops at
// a breakpoint in its loop, and detaches leaving it running.
func TestLLDBAttachPid(t *testing.T) {
	needLLDB(t)
	r := newRig(t, testOptions, cFixture)
	buildC(t, r.root)
	p, err := proc.Start(proc.Spec{Path: filepath.Join(r.root, "app"), Args: []string{"spin"}, Dir: r.root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(context.Background(), nil) })
	r.do(Request{Op: "breakpoints", File: "main.c", Lines: []int{18}})
	res := r.settle(r.do(Request{Op: "attach", Pid: p.Pid(), Program: "app"}))
	if res.Stop == nil || res.Stop.Reason != "breakpoint" || res.Stop.File != "main.c" || res.Stop.Line != 18 {
		t.Fatalf("attach: %+v", res.Stop)
	}
	r.do(Request{Op: "terminate"})
	select {
	case <-p.Done():
		t.Fatal("detaching killed the attached program")
	default:
	}
}

// rustFixture: total's loop body is line 4, the call line 13.
const rustFixture = `
-- Cargo.toml --
[package]
name = "app"
version = "0.1.0"
edition = "2021"
-- main.rs --
fn total(xs: &[i64]) -> i64 {
    let mut t = 0;
    for x in xs {
        t += x;
    }
    t
}

fn main() {
    let xs: Vec<i64> = (0..200).collect();
    let name = String::from("rusty");
    println!("first {}", name);
    let s = total(&xs[..3]);
    println!("sum {}", s);
}
`

// TestLLDBRust drives a Rust program through lldb-dap with Rust's lldb
// formatters loaded (a Cargo.toml marker): breakpoint before launch,
// stack, a Vec and a String shown as such, the Vec capped at 50 children,
// evaluate, continue to exit, output.
func TestLLDBRust(t *testing.T) {
	needLLDB(t)
	testutil.Needs(t, "rustc")
	r := newRig(t, testOptions, rustFixture)
	cmd := exec.CommandContext(t.Context(), "rustc", "-g", "-C", "opt-level=0", "-o", "app", "main.rs")
	cmd.Dir = r.root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rustc: %v\n%s", err, out)
	}
	r.do(Request{Op: "breakpoints", File: "main.rs", Lines: []int{4}})
	res := r.do(Request{Op: "launch", Program: "app"})
	res = r.settle(res)
	wantStop(t, res, "breakpoint", "main.rs", 4)
	st := r.do(Request{Op: "stack"})
	if len(st.Frames) < 2 || !strings.Contains(st.Frames[0].Function, "total") || st.Frames[1].Line != 13 {
		t.Fatalf("stack: %+v", st.Frames)
	}
	if ev := r.do(Request{Op: "evaluate", Expression: "t"}); ev.Value.Value != "0" {
		t.Errorf("evaluate t = %q", ev.Value.Value)
	}
	scopes := r.do(Request{Op: "scopes", FrameID: st.Frames[1].ID})
	vars := r.do(Request{Op: "variables", Reference: scopes.Scopes[0].Reference})
	if name := findVar(t, vars.Variables, "name"); !strings.Contains(name.Value, "rusty") {
		t.Errorf("name = %q: the Rust formatters are not loaded", name.Value)
	}
	kids := r.do(Request{Op: "variables", Reference: findVar(t, vars.Variables, "xs").Reference})
	if kids.Shown != maxChildren || kids.Total != 200 {
		t.Errorf("xs children: shown %d of %d", kids.Shown, kids.Total)
	}
	r.do(Request{Op: "breakpoints", File: "main.rs", Lines: []int{}})
	res = r.settle(r.do(Request{Op: "continue"}))
	if res.State != stateEnded {
		t.Fatalf("continue: %s", res.State)
	}
	if text := r.do(Request{Op: "output"}).Text(); !strings.Contains(text, "first rusty\nsum 3\n") {
		t.Errorf("output:\n%s", text)
	}
	testutil.WaitNoneIn(t, r.root, 5*time.Second)
}

// TestLLDBStepTruthAndArrays: a step_out interrupted by a breakpoint
// stays pending in lldb-dap, so a later continue stops where it ends with
// reason step: the stop says that it is the earlier step finishing. And
// evaluate of a C array shows its elements (lldb-dap gives only
// "int[200] @ 0x…"), capped.
func TestLLDBStepTruthAndArrays(t *testing.T) {
	needLLDB(t)
	r := newRig(t, testOptions, cFixture)
	buildC(t, r.root)
	r.do(Request{Op: "breakpoints", File: "main.c", Lines: []int{5}})
	r.do(Request{Op: "launch", Program: "app"})
	r.do(Request{Op: "breakpoints", File: "main.c", Lines: []int{5, 7}})
	res := r.do(Request{Op: "step_out"})
	res = r.settle(res)
	wantStop(t, res, "breakpoint", "main.c", 7)
	r.do(Request{Op: "breakpoints", File: "main.c", Lines: []int{}})
	res = r.settle(r.do(Request{Op: "continue"}))
	if res.Stop == nil {
		t.Fatalf("continue: lldb-dap no longer keeps the interrupted step_out (fine: then this test can go): %s", res.Text())
	}
	if !strings.Contains(res.Stop.Detail, "step_out interrupted earlier finished here") || res.Stop.Line != 22 {
		t.Errorf("continue after an interrupted step_out: %s", res.Text())
	}
	ev := r.do(Request{Op: "evaluate", Expression: "xs"})
	if !strings.HasPrefix(ev.Value.Value, "[0, 1, 2, 3,") || !strings.Contains(ev.Value.Value, "… 150 more]") {
		t.Errorf("evaluate xs = %q", ev.Value.Value)
	}
	r.do(Request{Op: "terminate"})
}

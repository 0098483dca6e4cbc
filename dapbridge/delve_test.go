package dapbridge

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// goFixture is a Go program: sum's loop body is line 12, the call of sum
// line 25; with the argument "spin" it loops forever (for pause).
const goFixture = `
-- go.mod --
module fixture

go 1.22
-- main.go --
package main

import (
	"fmt"
	"os"
	"strings"
)

func sum(xs []int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	return total
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "spin" {
		spin()
	}
	xs := make([]int, 200)
	long := strings.Repeat("ab", 500)
	fmt.Println("first")
	fmt.Fprintln(os.Stderr, "second")
	s := sum(xs[:3])
	fmt.Println("sum", s, len(long))
}

func spin() {
	n := 0
	for {
		n++
	}
}
`

// TestDelve drives a Go program through dlv dap: breakpoints set before
// launch, stack, scopes, variables with caps, evaluate, the three steps,
// continue to exit, output in order, then a second program paused in a
// busy loop and terminated. One debug build per launch (warm cache ~1 s).
func TestDelve(t *testing.T) {
	needDlv(t)
	r := newRig(t, testOptions, goFixture)
	r.do(Request{Op: "breakpoints", File: "main.go", Lines: []int{25}})
	res := r.do(Request{Op: "launch", Program: "main.go"})
	res = r.settle(res)
	wantStop(t, res, "breakpoint", "main.go", 25)
	if res.Stop.Source != "\ts := sum(xs[:3])" {
		t.Errorf("stop source = %q", res.Stop.Source)
	}

	// Variables of main: xs has 200 elements, capped at 50; long is cut.
	scopes := r.do(Request{Op: "scopes", FrameID: res.Stop.FrameID})
	vars := r.do(Request{Op: "variables", Reference: scopes.Scopes[0].Reference})
	xs := findVar(t, vars.Variables, "xs")
	long := findVar(t, vars.Variables, "long")
	if !long.Truncated || len([]rune(long.Value)) != maxValueLen+1 {
		t.Errorf("long: truncated=%v len=%d", long.Truncated, len(long.Value))
	}
	kids := r.do(Request{Op: "variables", Reference: xs.Reference})
	if kids.Shown != maxChildren || kids.Total != 200 || !strings.Contains(kids.Text(), "50 of 200 shown") {
		t.Errorf("xs children: shown %d total %d", kids.Shown, kids.Total)
	}

	// Step in to sum, over twice, evaluate, out.
	res = r.do(Request{Op: "step_in"})
	res = r.settle(res)
	wantStop(t, res, "step", "main.go", 9)
	r.do(Request{Op: "step_over"})
	res = r.settle(r.do(Request{Op: "step_over"}))
	if res.Stop == nil || res.Stop.Line != 11 {
		t.Fatalf("after two steps: %+v", res.Stop)
	}
	ev := r.do(Request{Op: "evaluate", Expression: "total + 41"})
	if ev.Value.Value != "41" {
		t.Errorf("evaluate total + 41 = %q", ev.Value.Value)
	}
	if msg := r.fail(Request{Op: "evaluate", Expression: "nosuchvar"}); !strings.Contains(msg, "nosuchvar") {
		t.Errorf("bad evaluate: %s", msg)
	}
	st := r.do(Request{Op: "stack"})
	if len(st.Frames) < 2 || st.Frames[0].Function != "main.sum" || st.Frames[1].Function != "main.main" {
		t.Errorf("stack: %+v", st.Frames)
	}
	res = r.do(Request{Op: "step_out"})
	res = r.settle(res)
	wantStop(t, res, "step", "main.go", 25)

	// A second launch is rejected while this one runs.
	if msg := r.fail(Request{Op: "launch", Program: "main.go"}); !strings.Contains(msg, "rejected") || !strings.Contains(msg, "delve launch main.go") {
		t.Errorf("second launch: %s", msg)
	}

	r.do(Request{Op: "breakpoints", File: "main.go", Lines: []int{}})
	res = r.settle(r.do(Request{Op: "continue"}))
	if res.State != stateEnded || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("continue: state %s, ended %q", res.State, res.Ended)
	}
	out := r.do(Request{Op: "output"})
	text := out.Text()
	// dlv reads the debuggee's stdout and stderr on two goroutines: order
	// holds within a stream.
	i, j, k := strings.Index(text, "first\n"), strings.Index(text, "sum 0 1000\n"), strings.Index(text, "stderr| second\n")
	if i < 0 || j < i || k < 0 {
		t.Errorf("output not captured in order:\n%s", text)
	}

	// Pause a busy loop, then terminate: nothing is left running.
	res = r.do(Request{Op: "launch", Program: ".", Args: []string{"spin"}})
	if res.State != stateRunning {
		t.Fatalf("spin: state %s", res.State)
	}
	res = r.do(Request{Op: "pause"})
	if res.Stop == nil || res.Stop.Reason != "pause" {
		t.Fatalf("pause: %+v", res)
	}
	sess := r.session()
	r.do(Request{Op: "terminate"})
	if testutil.Alive(sess.proc.Pid()) || testutil.Alive(sess.debuggee) {
		t.Errorf("after terminate: dlv alive %v, debuggee alive %v", testutil.Alive(sess.proc.Pid()), testutil.Alive(sess.debuggee))
	}
	testutil.WaitNoneIn(t, r.root, 0)
}

// TestDelveAttach attaches to a headless dlv server (remote mode), stops
// at a breakpoint in a running loop, and detaches leaving it running.
func TestDelveAttach(t *testing.T) {
	needDlv(t)
	r := newRig(t, &Options{StopWait: time.Minute}, goFixture)
	build := exec.CommandContext(t.Context(), "go", "build", "-gcflags=all=-N -l", "-o", "app", ".")
	build.Dir = r.root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	port, p := startHeadlessDlv(t, r.root)
	// Without breakpoints the attach answers at once, running (it used to
	// wait StopWait, 15 s by default, for a stop that could not come).
	start := time.Now()
	res := r.do(Request{Op: "attach", Port: port, Adapter: "delve"})
	if res.State != stateRunning || !strings.Contains(res.Notice, "no breakpoints") || time.Since(start) > r.sup.opts.StopWait/2 {
		t.Fatalf("attach without breakpoints: state %s, notice %q after %v", res.State, res.Notice, time.Since(start))
	}
	r.do(Request{Op: "terminate"})
	p.Stop(context.Background(), nil)

	port, p = startHeadlessDlv(t, r.root)
	r.do(Request{Op: "breakpoints", File: "main.go", Lines: []int{32}})
	res = r.do(Request{Op: "attach", Port: port, Adapter: "delve"})
	res = r.settle(res)
	wantStop(t, res, "breakpoint", "main.go", 32)
	r.do(Request{Op: "terminate"})
	select {
	case <-p.Done():
		t.Fatalf("detaching ended the headless dlv and its program: %s", p.StderrTail(0))
	default:
	}

	// The detach left it running, without our breakpoint: attached again
	// (another conversation, no breakpoints, a short wait), it is running,
	// a pause stops it, and a continue runs on rather than stop at line 32.
	r2 := &rig{t: t, sup: NewSupervisor(&Options{StopWait: 3 * time.Second}, nil), root: r.root, conv: "c2"}
	t.Cleanup(func() { r2.sup.Close(context.Background()) })
	if res := r2.do(Request{Op: "attach", Port: port, Adapter: "delve"}); res.State == stateStopped {
		t.Fatalf("re-attach: stopped at once, the breakpoint survived the detach:\n%s", res.Text())
	}
	res = r2.do(Request{Op: "pause"})
	if res.Stop == nil || res.Stop.Reason != "pause" {
		t.Fatalf("pause after re-attach: %s", res.Text())
	}
	res = r2.do(Request{Op: "continue"})
	if res.State != stateRunning || !strings.Contains(res.Notice, "still running") {
		t.Fatalf("continue after re-attach: stopped, the breakpoint survived the detach:\n%s", res.Text())
	}
	r2.do(Request{Op: "terminate"})
}

func needDlv(t *testing.T) {
	testutil.NeedsFunc(t, "dlv", func() string {
		if newResolver().dlvPath() == "" {
			return "dlv not found on PATH or in $GOPATH/bin"
		}
		return ""
	})
}

// startHeadlessDlv starts "dlv exec --headless" on the fixture's app
// (spinning) and returns its port once it listens.
func startHeadlessDlv(t *testing.T, root string) (int, *proc.Process) {
	t.Helper()
	p, err := proc.Start(proc.Spec{Path: newResolver().dlvPath(), Dir: root, Stdout: true,
		Args: []string{"exec", "--headless", "--listen", "127.0.0.1:0", "--accept-multiclient", "./app", "--", "spin"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(context.Background(), nil) })
	// Readiness: dlv prints "API server listening at: 127.0.0.1:PORT".
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	i := strings.LastIndex(line, ":")
	port, perr := strconv.Atoi(strings.TrimSpace(line[i+1:]))
	if err != nil || i < 0 || perr != nil {
		t.Fatalf("dlv's listening line: %q %v (%s)", line, err, p.StderrTail(0))
	}
	go io.Copy(io.Discard, p.Stdout())
	return port, p
}

// multiFileFixture is a main package of two files, a //go:build ignore
// script beside them, and a library package.
const multiFileFixture = `
-- go.mod --
module fixture

go 1.22
-- main.go --
package main

import "fmt"

func main() {
	fmt.Println(Shout("hi"))
}
-- shout.go --
package main

import "strings"

func Shout(s string) string {
	return strings.ToUpper(s) + "!"
}
-- gen.go --
//go:build ignore

package main

import "fmt"

func main() {
	fmt.Println("gen")
}
-- lib/lib.go --
package lib

func F() int { return 1 }
`

// TestDelveLaunchFileOfPackage: launching one file of a multi-file main
// package builds the package (dlv alone would compile the file alone:
// "undefined: Shout") and says so; a //go:build ignore script is built on
// its own; a file of a library package or a test file is refused with
// what to pass.
func TestDelveLaunchFileOfPackage(t *testing.T) {
	needDlv(t)
	r := newRig(t, testOptions, multiFileFixture)
	r.do(Request{Op: "breakpoints", File: "shout.go", Lines: []int{6}})
	var progress []string
	res := r.do(Request{Op: "launch", Program: "main.go", Progress: func(m string) { progress = append(progress, m) }})
	if len(progress) == 0 || !strings.Contains(progress[0], "delve is building .") {
		t.Errorf("progress of the launch: %q", progress)
	}
	res = r.settle(res)
	wantStop(t, res, "breakpoint", "shout.go", 6)
	if text := res.Text(); !strings.Contains(text, "built the package . (main.go and 1 other file), not main.go alone") {
		t.Errorf("launch main.go does not say what it built:\n%s", text)
	}
	r.do(Request{Op: "terminate"})

	r.do(Request{Op: "breakpoints", File: "shout.go", Lines: []int{}})
	res = r.settle(r.do(Request{Op: "launch", Program: "gen.go"}))
	if res.State != stateEnded || strings.Contains(res.Text(), "built the package") {
		t.Errorf("launch gen.go:\n%s", res.Text())
	}
	if out := r.do(Request{Op: "output"}).Text(); !strings.Contains(out, "gen\n") {
		t.Errorf("gen.go's output:\n%s", out)
	}
	if msg := r.fail(Request{Op: "launch", Program: "lib/lib.go"}); !strings.Contains(msg, "lib/lib.go is in package lib, not main") {
		t.Errorf("launch lib/lib.go: %s", msg)
	}
}

// TestDelveLaunchTimeout: a start that outlasts launch_timeout answers
// with the bound and what to do, and leaves nothing running.
func TestDelveLaunchTimeout(t *testing.T) {
	needDlv(t)
	r := newRig(t, &Options{LaunchTimeout: time.Nanosecond}, goFixture)
	msg := r.fail(Request{Op: "launch", Program: "main.go"})
	if !strings.Contains(msg, "did not start within 1ns (debug launch_timeout") {
		t.Errorf("launch past its timeout: %s", msg)
	}
	testutil.WaitNoneIn(t, r.root, 10*time.Second)
}

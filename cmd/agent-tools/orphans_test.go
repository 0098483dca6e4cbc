package main

// This file is the orphan test of issue 8: one of each kind of child
// (gopls, the debugpy adapter with its debuggee stopped at a breakpoint,
// the Python and JavaScript kernels, a worker with a grandchild), then
// SIGKILL agent-tools: every one of those processes must be gone within
// 2 s.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

func TestOrphansAfterSIGKILL(t *testing.T) {
	needsEvalTools(t)
	testutil.Needs(t, "gopls")
	testutil.NeedsFunc(t, "debugpy for "+evalPython, func() string {
		if out, err := exec.Command(evalPython, "-c", "import debugpy").CombinedOutput(); err != nil {
			return string(out)
		}
		return ""
	})
	fakeAgent, err := filepath.Abs("../../workers/testdata/fakeagent.sh")
	if err != nil {
		t.Fatal(err)
	}
	root := faultsRealPath(t, t.TempDir())
	testutil.WriteTree(t, root, `-- go.mod --
module orphans

go 1.22
-- main.go --
package main

func main() { println(answer()) }

func answer() int { return 42 }
-- requirements.txt --
-- app.py --
x = 1
print(x)
`)
	cfg := writeFile(t, t.TempDir(), "config.json", `{"eval":{"python":"`+evalPython+`"}}`)
	e := &faultsEnv{root: root}
	e.s = startServer(t, "--root", root, "--structured", "--vibe", "--worker", "fast="+fakeAgent, "--config", cfg)
	e.s.initialize()
	e.id = 1
	steps := []struct {
		tool string
		args map[string]any
	}{
		{"lsp", map[string]any{"action": "symbols", "file": "main.go"}},
		{"debug", map[string]any{"op": "breakpoints", "file": "app.py", "lines": []int{2}}},
		{"debug", map[string]any{"op": "launch", "program": "app.py"}},
		{"eval", map[string]any{"code": "1 + 1", "description": "start the python kernel for the test"}},
		{"eval", map[string]any{"code": "1 + 1", "description": "start the javascript kernel for the test", "language": "javascript"}},
		{"vibe_spawn", map[string]any{"brief": "wait for the kill\nsleep", "label": "sleeper"}},
	}
	for _, st := range steps {
		r, text := e.call(t, st.tool, st.args)
		if r.Result.IsError {
			t.Fatalf("%s %v: %s", st.tool, st.args, text)
		}
		if st.args["op"] == "launch" && !strings.Contains(string(r.Result.StructuredContent), `"reason":"breakpoint"`) {
			t.Fatalf("the debuggee did not stop at the breakpoint: %s", text)
		}
	}
	// The fake agent reports its pid and its child's once both run.
	pidFile := filepath.Join(root, "fakeagent-w1.pids")
	if !testutil.Poll(faultsBound, func() bool { _, err := os.Stat(pidFile); return err == nil }) {
		t.Fatal("the worker did not start its child")
	}
	children := cmdlines(testutil.Descendants(e.s.cmd.Process.Pid))
	for pid, cmd := range faultsLeftovers(root) {
		children[pid] = cmd
	}
	delete(children, e.s.cmd.Process.Pid)
	// One of each kind must be among them.
	for _, kind := range []string{"gopls", "debugpy.adapter", "app.py", "Python kernel driver", "JavaScript kernel driver", "fakeagent.sh", "sleep 300"} {
		found := false
		for _, cmd := range children {
			found = found || strings.Contains(cmd, kind)
		}
		if !found {
			t.Errorf("no %q among the children: %v", kind, children)
		}
	}
	e.s.cmd.Process.Signal(syscall.SIGKILL)
	<-e.s.ended
	var orphans map[int]string
	testutil.Poll(2*time.Second, func() bool {
		orphans = map[int]string{}
		for pid, cmd := range children {
			if testutil.Alive(pid) {
				orphans[pid] = cmd
			}
		}
		return len(orphans) == 0
	})
	for pid, cmd := range orphans {
		t.Errorf("pid %d outlived agent-tools' SIGKILL by 2 s: %s", pid, cmd)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	t.Logf("children before the SIGKILL: %d; orphans found: %d", len(children), len(orphans))
	for pid, cmd := range children {
		t.Logf("  %d  %.120s", pid, cmd)
	}
}

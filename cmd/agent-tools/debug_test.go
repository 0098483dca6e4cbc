package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// debugFixtures are one program per adapter, each with a breakpoint line
// that is hit at once, and the file to launch.
var debugFixtures = []struct {
	adapter, needs string
	archive        string
	file           string
	line           int
	program        string
	build          []string // a build step, run in the workspace
}{
	{"delve", "dlv", "-- go.mod --\nmodule fixture\n\ngo 1.22\n-- main.go --\npackage main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n", "main.go", 6, "main.go", nil},
	{"debugpy", "python3", "-- requirements.txt --\n-- app.py --\nx = 1\nprint(x)\n", "app.py", 2, "app.py", nil},
	{"lldb", "gcc", "-- CMakeLists.txt --\n-- main.c --\n#include <stdio.h>\nint main(void) {\n\tputs(\"hi\");\n\treturn 0;\n}\n", "main.c", 3, "app", []string{"gcc", "-g", "-O0", "-o", "app", "main.c"}},
}

// TestDebugSIGKILLLeavesNoAdapterOrDebuggee launches a program stopped at
// a breakpoint under each adapter, SIGKILLs agent-tools, and counts the
// processes left in the workspace (adapters and debuggees run there):
// none may survive, including delve's debuggee, which dlv puts in a
// process group of its own.
func TestDebugSIGKILLLeavesNoAdapterOrDebuggee(t *testing.T) {
	for _, fx := range debugFixtures {
		t.Run(fx.adapter, func(t *testing.T) {
			testutil.Needs(t, fx.needs)
			t.Setenv("TMPDIR", t.TempDir()) // delve's build output, which a SIGKILL leaves behind
			root := t.TempDir()
			if r, err := filepath.EvalSymlinks(root); err == nil {
				root = r
			}
			testutil.WriteTree(t, root, fx.archive)
			if fx.build != nil {
				cmd := exec.CommandContext(t.Context(), fx.build[0], fx.build[1:]...)
				cmd.Dir = root
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%v: %v\n%s", fx.build, err, out)
				}
			}
			s := startServer(t, "--root", root, "--conversation", "c-1", "--structured") // reads the stop reason
			s.initialize()
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"debug","arguments":{"op":"breakpoints","file":%q,"lines":[%d]}}}`, fx.file, fx.line))
			s.until(2)
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"debug","arguments":{"op":"launch","program":%q}}}`, fx.program))
			m := s.until(3)
			data, _ := json.Marshal(m)
			if !strings.Contains(string(data), `"reason":"breakpoint"`) {
				t.Fatalf("launch did not stop at the breakpoint: %s", data)
			}
			before := testutil.ProcessesIn(root)
			if len(before) < 2 {
				t.Fatalf("want an adapter and a debuggee running in the workspace, found pids %v", before)
			}
			s.cmd.Process.Signal(syscall.SIGKILL)
			<-s.ended
			testutil.WaitNoneIn(t, root, 5*time.Second) // none survives the SIGKILL of agent-tools
		})
	}
}

// TestDebugRunningDebuggeeDiesWithUs: a Go program running (not stopped)
// under delve, whose debuggee dlv put in a process group of its own, is
// gone after agent-tools exits on stdin EOF, and also after agent-tools is
// SIGKILLed (the debuggee's group is handed to the reaper with
// proc.Adopt). Also wires the debug section of --config (a short stop_wait).
func TestDebugRunningDebuggeeDiesWithUs(t *testing.T) {
	testutil.Needs(t, "dlv")
	for _, end := range []string{"stdin EOF", "SIGKILL"} {
		t.Run(end, func(t *testing.T) {
			t.Setenv("TMPDIR", t.TempDir()) // delve's build output, which a SIGKILL leaves behind
			root := t.TempDir()
			if r, err := filepath.EvalSymlinks(root); err == nil {
				root = r
			}
			testutil.WriteTree(t, root, "-- go.mod --\nmodule spin\n\ngo 1.22\n-- main.go --\npackage main\n\nfunc main() {\n\tn := 0\n\tfor {\n\t\tn++\n\t}\n}\n")
			cfg := writeFile(t, t.TempDir(), "config.json", `{"debug":{"stop_wait":"1s"}}`)
			s := startServer(t, "--root", root, "--config", cfg, "--structured") // reads the state
			s.initialize()
			s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"debug","arguments":{"op":"launch","program":"main.go"}}}`)
			m := s.until(2)
			data, _ := json.Marshal(m)
			if !strings.Contains(string(data), `"state":"running"`) || !strings.Contains(string(data), "still running after 1s") {
				t.Fatalf("launch: %s", data)
			}
			if len(testutil.ProcessesIn(root)) < 2 {
				t.Fatalf("want dlv and its debuggee running, found %v", testutil.ProcessesIn(root))
			}
			if end == "SIGKILL" {
				s.cmd.Process.Signal(syscall.SIGKILL)
			} else {
				s.stdin.Close()
			}
			select {
			case <-s.ended:
			case <-time.After(testutil.IntegrationTimeout()):
				t.Fatalf("agent-tools did not exit on %s", end)
			}
			testutil.WaitNoneIn(t, root, 5*time.Second) // none left in the workspace after end
		})
	}
}

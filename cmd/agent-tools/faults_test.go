package main

// This file is the fault-injection suite of issue 8 ("Faults"): children
// that crash, hang, flood their output or ignore signals, driven through
// the real binary. For each fault: the call returns a clear error within
// its bound, the server keeps serving (a ping and test_echo succeed next),
// the resource starts afresh on next use, and no process is left behind.
//
// Some children here are FAKES written for these tests (a language server
// and a debug adapter that misbehave on purpose); each says so in its doc
// comment. The kernel and worker faults use real python3 and sh.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// faultsBound is the bound on one faulty call: generous, so that it holds
// on a loaded 2-core CI machine; the configured timeouts are far shorter.
const faultsBound = 30 * time.Second

// faultsFakeLS is a FAKE language server (Content-Length framed JSON-RPC
// on stdio) for the fault suite; no real server misbehaves on demand.
// argv: mode (crash, hang or flood) and a state file. The first process
// of a mode writes its pid to the state file and misbehaves at its first
// hover: "crash" exits with status 7, "hang" ignores SIGTERM and never
// answers, "flood" writes 2 MiB to stderr before answering. Later
// processes (restarts) only answer. Every hover answer names the mode
// and the pid that answered.
const faultsFakeLS = `import json, os, signal, sys, time
mode, state = sys.argv[1], sys.argv[2]
first = not os.path.exists(state)
if first:
    with open(state + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(state + ".tmp", state)
inp, out = sys.stdin.buffer, sys.stdout.buffer

def read():
    length = 0
    while True:
        line = inp.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
    return json.loads(inp.read(length))

def send(m):
    m["jsonrpc"] = "2.0"
    b = json.dumps(m).encode()
    out.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
    out.flush()

while True:
    m = read()
    method, mid = m.get("method"), m.get("id")
    if method == "initialize":
        send({"id": mid, "result": {"capabilities": {"hoverProvider": True, "textDocumentSync": 1}}})
    elif method in ("textDocument/didOpen", "textDocument/didChange"):
        doc = m["params"]["textDocument"]
        send({"method": "textDocument/publishDiagnostics", "params": {"uri": doc["uri"], "version": doc.get("version"), "diagnostics": []}})
    elif method == "textDocument/hover":
        if first and mode == "crash":
            sys.stderr.write("fake-ls: crashing in the middle of a hover\n")
            sys.stderr.flush()
            os._exit(7)
        if first and mode == "hang":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            while True:
                time.sleep(3600)
        if mode == "flood":
            chunk = "fake-ls: flooding stderr " + "x" * 1000 + "\n"
            for _ in range(2048):
                sys.stderr.write(chunk)
            sys.stderr.flush()
        send({"id": mid, "result": {"contents": {"kind": "markdown", "value": "fake hover from %s pid %d" % (mode, os.getpid())}}})
    elif method == "shutdown":
        send({"id": mid, "result": None})
    elif method == "exit":
        sys.exit(0)
    elif mid is not None:
        send({"id": mid, "error": {"code": -32601, "message": "fake-ls does not serve " + method}})
`

// faultsFakePython is a FAKE interpreter installed as the workspace's
// .venv/bin/python, which the debugpy adapter prefers. The first time it
// is asked to run the adapter (-m debugpy.adapter) it plays a DAP adapter
// that answers initialize, then writes its pid to the state file and dies
// (exit 9) when the launch request arrives. Every other use, including
// later adapters and the debuggee, execs the real interpreter.
const faultsFakePython = `#!%[1]s
import json, os, sys
state = %[2]q
if sys.argv[1:3] != ["-m", "debugpy.adapter"] or os.path.exists(state):
    os.execv(%[1]q, [%[1]q] + sys.argv[1:])
inp, out = sys.stdin.buffer, sys.stdout.buffer

def read():
    length = 0
    while True:
        line = inp.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
    return json.loads(inp.read(length))

seq = 0
while True:
    m = read()
    seq += 1
    if m.get("command") == "initialize":
        b = json.dumps({"seq": seq, "type": "response", "request_seq": m["seq"], "success": True, "command": "initialize",
                        "body": {"supportsConfigurationDoneRequest": True}}).encode()
        out.write(b"Content-Length: %%d\r\n\r\n" %% len(b) + b)
        out.flush()
    elif m.get("command") == "launch":
        with open(state, "w") as f:
            f.write(str(os.getpid()))
        sys.stderr.write("fake-adapter: dying during launch\n")
        sys.stderr.flush()
        os._exit(9)
`

// faultsStubbornWorker is a FAKE worker (no agent CLI exists on the test
// machines) that ignores SIGTERM, as do the children it forks: a sleep and
// a shell with a sleep of its own (a grandchild of a grandchild). It
// writes its pid to worker-<attempt>.pid in its cwd (the root) and waits.
const faultsStubbornWorker = `#!/bin/sh
trap '' TERM
sleep 300 &
sh -c 'sleep 301 & wait' &
echo "$$" > "worker-$AGENT_TOOLS_WORKER_ATTEMPT.tmp" && mv "worker-$AGENT_TOOLS_WORKER_ATTEMPT.tmp" "worker-$AGENT_TOOLS_WORKER_ATTEMPT.pid"
wait
`

// faultsEnv is one agent-tools with every fake configured, shared by the
// faults (they run one after another).
type faultsEnv struct {
	s     *server
	root  string // the workspace (every child's cwd is inside it)
	state string // the fakes' state files and scripts
	id    int
}

func (e *faultsEnv) next() int { e.id++; return e.id }

// call calls a tool and fails the test when the answer takes longer than
// faultsBound.
func (e *faultsEnv) call(t *testing.T, tool string, args any) (callResult, string) {
	t.Helper()
	e.s.t = t
	start := time.Now()
	r := e.s.call(e.next(), tool, args)
	if d := time.Since(start); d > faultsBound {
		t.Errorf("%s took %v, over its bound of %v", tool, d, faultsBound)
	}
	return r, r.Result.Content[0].Text
}

// alive checks that the server keeps serving: a ping and a simple tool
// call both succeed.
func (e *faultsEnv) alive(t *testing.T) {
	t.Helper()
	e.s.t = t
	id := e.next()
	e.s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if m := e.s.until(id); m["result"] == nil {
		t.Fatalf("ping after the fault: %v", m)
	}
	if r, text := e.call(t, "test_echo", map[string]any{"text": "still here"}); r.Result.IsError || text != "still here" {
		t.Fatalf("test_echo after the fault: %+v", r.Result)
	}
}

// until calls a tool (bounded by faultsBound overall) until ok accepts
// the answer: restarts may be held back by a short backoff.
func (e *faultsEnv) until(t *testing.T, tool string, args any, ok func(callResult, string) bool) string {
	t.Helper()
	var text string
	if !testutil.Poll(faultsBound, func() bool {
		var r callResult
		r, text = e.call(t, tool, args)
		return ok(r, text)
	}) {
		t.Fatalf("%s never succeeded within %v; last answer: %s", tool, faultsBound, text)
	}
	return text
}

// statePid reads the pid a fake wrote to its state file.
func (e *faultsEnv) statePid(t *testing.T, name string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.state, name))
	if err != nil {
		t.Fatalf("the fake wrote no pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("state file %s: %v", name, err)
	}
	return pid
}

// faultsPid finds "pid N" (fake hover) or "Out: N" (eval) in an answer.
var faultsPid = regexp.MustCompile(`(?:pid|Out:) (\d+)`)

func faultsPidIn(t *testing.T, text string) int {
	t.Helper()
	m := faultsPid.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no pid in %q", text)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// faultsLeftovers lists the live processes (other than this one) whose
// cwd is inside one of dirs or whose command line mentions one of them.
func faultsLeftovers(dirs ...string) map[int]string {
	return cmdlines(testutil.Processes(func(p testutil.Process) bool {
		for _, d := range dirs {
			if testutil.Within(p.Cwd, d) || strings.Contains(p.Cmdline, d) {
				return true
			}
		}
		return false
	}))
}

// cmdlines maps each process to its command line.
func cmdlines(ps map[int]testutil.Process) map[int]string {
	out := map[int]string{}
	for pid, p := range ps {
		out[pid] = p.Cmdline
	}
	return out
}

// faultsRealPath resolves symlinks in a temp dir, as /proc shows cwds.
func faultsRealPath(t *testing.T, dir string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func startFaultsEnv(t *testing.T) *faultsEnv {
	t.Helper()
	e := &faultsEnv{root: faultsRealPath(t, t.TempDir()), state: faultsRealPath(t, t.TempDir())}
	fakeLS := writeFile(t, e.state, "fake_ls.py", faultsFakeLS)
	var servers []map[string]any
	for _, mode := range []string{"crash", "hang", "flood"} {
		writeFile(t, e.root, "a."+mode, "hello world\n")
		servers = append(servers, map[string]any{
			"name":       "fake-" + mode,
			"command":    []string{evalPython, fakeLS, mode, filepath.Join(e.state, mode+".pid")},
			"extensions": map[string]string{"." + mode: mode},
			"markers":    []string{"faults.marker"},
		})
	}
	writeFile(t, e.root, "faults.marker", "")
	testutil.WriteTree(t, e.root, "-- requirements.txt --\n-- app.py --\nx = 1\nprint(x)\n")
	os.MkdirAll(filepath.Join(e.root, ".venv", "bin"), 0o755)
	py := writeFile(t, e.root, ".venv/bin/python", fmt.Sprintf(faultsFakePython, evalPython, filepath.Join(e.state, "adapter.pid")))
	os.Chmod(py, 0o755)
	cfg, _ := json.Marshal(map[string]any{
		"lsp":  map[string]any{"ready_timeout": "5s", "request_timeout": "2s", "servers": servers},
		"eval": map[string]any{"python": evalPython, "timeout": "4s", "grace": "1s"},
	})
	worker := writeFile(t, e.state, "stubborn-worker.sh", faultsStubbornWorker)
	os.Chmod(worker, 0o755)
	e.s = startServer(t, "--root", e.root, "--structured", "--vibe", "--worker", "fast="+worker,
		"--config", writeFile(t, e.state, "config.json", string(cfg)))
	e.s.initialize()
	e.id = 1
	return e
}

// TestFaults injects one fault per kind of child into one agent-tools and
// counts the faults it survives; at the end agent-tools exits on stdin EOF
// and nothing it started may be left.
func TestFaults(t *testing.T) {
	needsEvalTools(t)
	e := startFaultsEnv(t)
	faults := []struct {
		name string
		run  func(t *testing.T, e *faultsEnv)
	}{
		{"lsp server crashes mid-request", faultsLSPCrash},
		{"lsp server hangs", faultsLSPHang},
		{"lsp server floods stderr", faultsLSPFlood},
		{"debug adapter dies during launch", faultsAdapterDies},
		{"python kernel segfaults", faultsKernelSegfault},
		{"kernel cell ignores SIGINT", faultsKernelIgnoresSIGINT},
		{"kernel cell prints megabytes", faultsKernelMegabytes},
		{"worker forks grandchildren and ignores SIGTERM", faultsWorkerIgnoresSIGTERM},
	}
	survived := 0
	for _, f := range faults {
		if t.Run(f.name, func(t *testing.T) { f.run(t, e) }) {
			survived++
		}
	}
	e.s.t = t
	e.s.stdin.Close()
	select {
	case <-e.s.ended:
	case <-time.After(testutil.IntegrationTimeout()):
		t.Fatal("agent-tools did not exit on stdin EOF")
	}
	if code := e.s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("agent-tools exit code %d after stdin EOF", code)
	}
	var left map[int]string
	testutil.Poll(5*time.Second, func() bool { left = faultsLeftovers(e.root, e.state); return len(left) == 0 })
	for pid, cmd := range left {
		t.Errorf("pid %d outlived agent-tools: %s", pid, cmd)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	t.Logf("faults survived: %d of %d; processes left behind: %d", survived, len(faults), len(left))
}

func faultsHover(mode string) map[string]any {
	return map[string]any{"action": "hover", "file": "a." + mode, "line": 1, "symbol": "hello"}
}

// faultsLSPRestarts checks the fault's server is gone and that the next
// use starts a fresh one that answers.
func faultsLSPRestarts(t *testing.T, e *faultsEnv, mode string, old int) {
	t.Helper()
	testutil.WaitGone(t, 2*time.Second, old)
	e.alive(t)
	text := e.until(t, "lsp", faultsHover(mode), func(r callResult, _ string) bool { return !r.Result.IsError })
	if !strings.Contains(text, "fake hover from "+mode) || faultsPidIn(t, text) == old {
		t.Errorf("want an answer from a fresh server, got %q (the faulty one was pid %d)", text, old)
	}
}

func faultsLSPCrash(t *testing.T, e *faultsEnv) {
	r, text := e.call(t, "lsp", faultsHover("crash"))
	if !r.Result.IsError || !strings.Contains(text, "fake-crash exited") || !strings.Contains(text, "crashing in the middle of a hover") {
		t.Errorf("want an error saying the server exited, with its stderr; got %q", text)
	}
	faultsLSPRestarts(t, e, "crash", e.statePid(t, "crash.pid"))
}

func faultsLSPHang(t *testing.T, e *faultsEnv) {
	r, text := e.call(t, "lsp", faultsHover("hang"))
	if !r.Result.IsError || !strings.Contains(text, "fake-hang did not answer textDocument/hover within 2s") {
		t.Errorf("want an error saying the server did not answer in time; got %q", text)
	}
	faultsLSPRestarts(t, e, "hang", e.statePid(t, "hang.pid"))
}

func faultsLSPFlood(t *testing.T, e *faultsEnv) {
	r, text := e.call(t, "lsp", faultsHover("flood"))
	if r.Result.IsError || !strings.Contains(text, "fake hover from flood") {
		t.Fatalf("want the answer that follows the flood; got %q", text)
	}
	pid := faultsPidIn(t, text)
	e.alive(t)
	// It did not die, so the same server answers again (after a second flood).
	r, text = e.call(t, "lsp", faultsHover("flood"))
	if r.Result.IsError || faultsPidIn(t, text) != pid {
		t.Errorf("second hover: want pid %d again, got %q", pid, text)
	}
}

func faultsAdapterDies(t *testing.T, e *faultsEnv) {
	testutil.NeedsFunc(t, "debugpy for "+evalPython, func() string {
		if out, err := exec.Command(evalPython, "-c", "import debugpy").CombinedOutput(); err != nil {
			return string(out)
		}
		return ""
	})
	if r, text := e.call(t, "debug", map[string]any{"op": "breakpoints", "file": "app.py", "lines": []int{2}}); r.Result.IsError {
		t.Fatalf("breakpoints: %s", text)
	}
	r, text := e.call(t, "debug", map[string]any{"op": "launch", "program": "app.py"})
	if !r.Result.IsError || !strings.Contains(text, "dying during launch") {
		t.Errorf("want an error naming the adapter's death; got %q", text)
	}
	testutil.WaitGone(t, 2*time.Second, e.statePid(t, "adapter.pid"))
	e.alive(t)
	// The next launch starts a fresh adapter (the real debugpy).
	r, text = e.call(t, "debug", map[string]any{"op": "launch", "program": "app.py"})
	if r.Result.IsError || !strings.Contains(string(r.Result.StructuredContent), `"reason":"breakpoint"`) {
		t.Fatalf("launch after the fault: %s\n%s", text, r.Result.StructuredContent)
	}
	if r, text := e.call(t, "debug", map[string]any{"op": "terminate"}); r.Result.IsError {
		t.Errorf("terminate: %s", text)
	}
}

// faultsEval runs a Python cell.
func faultsEval(t *testing.T, e *faultsEnv, code string) (callResult, string) {
	t.Helper()
	return e.call(t, "eval", map[string]any{"code": code, "description": "a cell of the fault injection suite"})
}

func faultsKernelPid(t *testing.T, e *faultsEnv) int {
	t.Helper()
	r, text := faultsEval(t, e, "import os\nos.getpid()")
	if r.Result.IsError {
		t.Fatalf("getpid cell: %s", text)
	}
	return faultsPidIn(t, text)
}

// faultsKernelRestarts checks that the old kernel is gone and the next
// cell runs in a fresh one.
func faultsKernelRestarts(t *testing.T, e *faultsEnv, old int) {
	t.Helper()
	testutil.WaitGone(t, 2*time.Second, old)
	e.alive(t)
	if pid := faultsKernelPid(t, e); pid == old {
		t.Errorf("the next cell ran in the old kernel (pid %d)", pid)
	}
}

func faultsKernelSegfault(t *testing.T, e *faultsEnv) {
	old := faultsKernelPid(t, e)
	r, text := faultsEval(t, e, "print('before the crash', flush=True)\nimport ctypes\nctypes.string_at(0)")
	if !r.Result.IsError || !strings.Contains(text, "before the crash") || !strings.Contains(strings.ToLower(text), "segmentation") {
		t.Errorf("want an error naming the segfault, with the output so far; got %q", text)
	}
	faultsKernelRestarts(t, e, old)
}

func faultsKernelIgnoresSIGINT(t *testing.T, e *faultsEnv) {
	old := faultsKernelPid(t, e)
	r, text := faultsEval(t, e, "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint('spinning', flush=True)\nwhile True:\n    pass")
	if !r.Result.IsError || !strings.Contains(text, "spinning") || !strings.Contains(text, "state lost") {
		t.Errorf("want an error saying the kernel was killed (state lost), with the output so far; got %q", text)
	}
	faultsKernelRestarts(t, e, old)
}

func faultsKernelMegabytes(t *testing.T, e *faultsEnv) {
	old := faultsKernelPid(t, e)
	r, text := faultsEval(t, e, "import sys\nfor i in range(5000):\n    sys.stdout.write('%06d ' % i + 'x' * 993 + '\\n')")
	if r.Result.IsError || !strings.Contains(text, "[output truncated:") || !strings.Contains(text, "004999 ") || len(text) > 100_000 {
		t.Errorf("want the head and tail of 5 MB (5000 writes) with a truncation note; got %d bytes: %.300q … %q", len(text), text, text[max(0, len(text)-300):])
	}
	e.alive(t)
	if pid := faultsKernelPid(t, e); pid != old {
		t.Errorf("the kernel was replaced (pid %d → %d); printing a lot is not a crash", old, pid)
	}
}

func faultsWorkerIgnoresSIGTERM(t *testing.T, e *faultsEnv) {
	if r, text := e.call(t, "vibe_spawn", map[string]any{"brief": "fork and ignore SIGTERM", "label": "stubborn"}); r.Result.IsError {
		t.Fatalf("vibe_spawn: %s", text)
	}
	workerPids := func(attempt int) map[int]string {
		t.Helper()
		pidFile := filepath.Join(e.root, fmt.Sprintf("worker-%d.pid", attempt))
		var procs map[int]string
		if !testutil.Poll(faultsBound, func() bool {
			data, err := os.ReadFile(pidFile)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			procs = cmdlines(testutil.Descendants(pid)) // sh, its sleep, the inner sh and its sleep
			return err == nil && len(procs) == 4
		}) {
			t.Fatalf("worker attempt %d did not start its grandchildren", attempt)
		}
		return procs
	}
	procs := workerPids(1)
	start := time.Now()
	if r, text := e.call(t, "vibe_kill", map[string]any{"worker_id": "w1"}); r.Result.IsError {
		t.Errorf("vibe_kill: %s", text)
	}
	var pids []int
	for pid := range procs {
		pids = append(pids, pid)
	}
	testutil.WaitGone(t, faultsBound-time.Since(start), pids...)
	if r, text := e.call(t, "vibe_wait", map[string]any{"worker_id": "w1", "timeout_seconds": 10}); !strings.Contains(text, "killed") {
		t.Errorf("vibe_wait after vibe_kill: %s (isError %v)", text, r.Result.IsError)
	}
	e.alive(t)
	// The worker runs again on vibe_send; agent-tools' exit stops it.
	if r, text := e.call(t, "vibe_send", map[string]any{"worker_id": "w1", "message": "again"}); r.Result.IsError {
		t.Fatalf("vibe_send: %s", text)
	}
	workerPids(2)
}

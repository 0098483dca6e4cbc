package main

// This file tests what agent-tools' children get and how they end: no
// credentials of ours in a kernel unless the env section passes them
// (issue 22 item 10), and no checker left running after a SIGKILL of
// agent-tools (issue 26 item 1).

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestKernelWithoutCredentials runs a Python cell through `agent-tools
// call` with the credentials a harness such as Claude Code hands us: the
// kernel sees only the one the env section passes, and the debug log
// names (never shows) what it withheld.
func TestKernelWithoutCredentials(t *testing.T) {
	needsEvalTools(t)
	dir := t.TempDir()
	cfg := writeFile(t, dir, "config.json", `{"env": {"pass": ["PASSED_TOKEN"]}, "eval": {"python": "`+evalPython+`"}}`)
	code := "import os\nprint(sorted(k for k in os.environ if k in ('ANTHROPIC_API_KEY', 'CLAUDE_CODE_MESSAGING_TOKEN', 'FOO_API_KEY', 'PASSED_TOKEN', 'GOFLAGS')))"
	args, _ := json.Marshal(map[string]any{"code": code, "description": "list the credentials the kernel inherited"})
	ctx, cancel := context.WithTimeout(t.Context(), testutil.IntegrationTimeout())
	defer cancel()
	cmd := testBinaryCmd(ctx, "call", "--root", dir, "--log-level", "debug", "--config", cfg, "eval", string(args))
	cmd.Env = append(cmd.Env, "ANTHROPIC_API_KEY=sekrit-1", "CLAUDE_CODE_MESSAGING_TOKEN=sekrit-2", "FOO_API_KEY=sekrit-3",
		"PASSED_TOKEN=handed-on", "GOFLAGS=-mod=mod")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("agent-tools call: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), `['GOFLAGS', 'PASSED_TOKEN']`) {
		t.Errorf("the kernel's environment, want only GOFLAGS and PASSED_TOKEN of those asked:\n%s", stdout.String())
	}
	log := stderr.String()
	for _, want := range []string{"credentials in our environment not passed to the child", "ANTHROPIC_API_KEY", "CLAUDE_CODE_MESSAGING_TOKEN", "FOO_API_KEY"} {
		if !strings.Contains(log, want) {
			t.Errorf("no %q in the debug log:\n%s", want, log)
		}
	}
	if strings.Contains(log, "sekrit") || strings.Contains(stdout.String(), "sekrit") {
		t.Errorf("a credential's value was written:\n%s\n%s", stdout.String(), log)
	}
}

func TestEnvSectionRefusesBadNames(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "config.json", `{"env": {"pass": ["NOT A NAME"]}}`)
	var stderr bytes.Buffer
	code := run(t.Context(), []string{"doctor", "--root", dir, "--config", cfg}, strings.NewReader(""), &bytes.Buffer{}, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), `"NOT A NAME" is not an environment variable name`) {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	cfg = writeFile(t, dir, "config2.json", `{"env": {"passthrough": ["X"]}}`)
	stderr.Reset()
	code = run(t.Context(), []string{"doctor", "--root", dir, "--config", cfg}, strings.NewReader(""), &bytes.Buffer{}, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "passthrough") {
		t.Errorf("unknown key: exit %d, stderr %q", code, stderr.String())
	}
}

// TestNoCheckerSurvivesSIGKILL starts a slow project checker (one that
// starts a grandchild and waits for it, as cargo check waits for rustc)
// through diagnostics "*", SIGKILLs agent-tools while it runs, and finds
// neither the checker nor its grandchild alive 2 s later.
func TestNoCheckerSurvivesSIGKILL(t *testing.T) {
	testutil.Needs(t, "sh", "sleep")
	root := faultsRealPath(t, t.TempDir())
	writeFile(t, root, "slow.marker", "")
	pidFile := filepath.Join(t.TempDir(), "pids")
	checker := writeFile(t, t.TempDir(), "slowcheck.sh",
		"#!/bin/sh\nsleep 300 &\necho \"$$ $!\" > "+pidFile+".tmp\nmv "+pidFile+".tmp "+pidFile+"\nwait\n")
	if err := os.Chmod(checker, 0o755); err != nil {
		t.Fatal(err)
	}
	server, _ := json.Marshal(map[string]any{"name": "slow", "language": "slow", "command": []string{"sh"},
		"extensions": map[string]string{".slow": "slow"}, "markers": []string{"slow.marker"},
		"checker": []string{checker}, "checker_format": "gcc"})
	cfg := writeFile(t, t.TempDir(), "config.json", `{"lsp": {"servers": [`+string(server)+`]}}`)
	s := startServer(t, "--root", root, "--config", cfg)
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lsp","arguments":{"action":"diagnostics","file":"*"}}}`)
	var pids []int
	if !testutil.Poll(faultsBound, func() bool {
		b, _ := os.ReadFile(pidFile)
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return len(pids) > 0
	}) {
		t.Fatal("the checker did not start")
	}
	if len(pids) != 2 || !testutil.Alive(pids[0]) || !testutil.Alive(pids[1]) {
		t.Fatalf("checker and grandchild pids %v, not both running", pids)
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.ended
	testutil.WaitGone(t, 2*time.Second, pids...) // the checker and its child outlive agent-tools' SIGKILL by no more than 2 s
}

// TestREADMEEnvExample: the env section shown in the README is one the
// decoder takes.
func TestREADMEEnvExample(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, `{"env":`) {
			line = l
		}
	}
	var sections map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &sections); err != nil {
		t.Fatalf("the README's env example %q: %v", line, err)
	}
	pass, err := parseEnvSection(sections["env"])
	if err != nil || len(pass) == 0 {
		t.Errorf("the README's env example: %v, %v", pass, err)
	}
}

// TestDebuggeeWithoutCredentials: a program launched under the debugger
// (debugpy's adapter, started through proc, starts it) does not see the
// credentials in our environment either.
func TestDebuggeeWithoutCredentials(t *testing.T) {
	needsEvalTools(t)
	testutil.NeedsFunc(t, "debugpy for "+evalPython, func() string {
		if out, err := exec.Command(evalPython, "-c", "import debugpy").CombinedOutput(); err != nil {
			return string(out)
		}
		return ""
	})
	t.Setenv("FOO_API_KEY", "sekrit-1")
	t.Setenv("CLAUDE_CODE_MESSAGING_TOKEN", "sekrit-2")
	t.Setenv("GOFLAGS", "-mod=mod")
	root := faultsRealPath(t, t.TempDir())
	testutil.WriteTree(t, root, `-- requirements.txt --
-- app.py --
import os
print("seen:", sorted(k for k in os.environ if k in ("FOO_API_KEY", "CLAUDE_CODE_MESSAGING_TOKEN", "GOFLAGS")))
`)
	cfg := writeFile(t, t.TempDir(), "config.json", `{"eval":{"python":"`+evalPython+`"}}`)
	e := &faultsEnv{root: root}
	e.s = startServer(t, "--root", root, "--config", cfg)
	e.s.initialize()
	if r, text := e.call(t, "debug", map[string]any{"op": "launch", "program": "app.py"}); r.Result.IsError {
		t.Fatalf("launch: %s", text)
	}
	out := e.until(t, "debug", map[string]any{"op": "output"}, func(r callResult, text string) bool {
		return strings.Contains(text, "seen:")
	})
	if !strings.Contains(out, "seen: ['GOFLAGS']") {
		t.Errorf("the debuggee's output, want it to see GOFLAGS only:\n%s", out)
	}
}

package dapbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-tools/agent-tools/internal/testutil"
	"github.com/agent-tools/agent-tools/internal/workspace"
)

// TestAdapterStatus checks the intersection rule's reasons: a missing
// marker, a missing binary, and dart, which has neither here.
func TestAdapterStatus(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n"), 0o644)
	t.Setenv("GOPATH", t.TempDir()) // no dlv in $GOPATH/bin either
	noBinaries := func(string) (string, error) { return "", errors.New("not found") }
	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	tests := []struct {
		name     string
		adapter  string
		lookPath func(string) (string, error)
		want     AdapterStatus
	}{
		{"delve usable", "delve", found, AdapterStatus{ID: "delve", Command: "dlv dap", Usable: true, Marker: "go.mod", Markers: []string{"go.mod"}}},
		{"delve binary missing", "delve", noBinaries, AdapterStatus{ID: "delve", Command: "dlv dap", Marker: "go.mod", Markers: []string{"go.mod"},
			Reason: "dlv not found on PATH or in $GOPATH/bin (go install github.com/go-delve/delve/cmd/dlv@v1.27.2)"}},
		{"dart marker missing", "dart", found, AdapterStatus{ID: "dart", Command: "dart debug_adapter", Reason: "no pubspec.yaml under the root"}},
		{"dart both missing", "dart", noBinaries, AdapterStatus{ID: "dart", Command: "dart debug_adapter",
			Reason: "no pubspec.yaml under the root; dart not found on PATH (install the Dart SDK)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newResolver()
			r.lookPath = tt.lookPath
			got := r.status(context.Background(), adapterByID(tt.adapter), root, scanMarkers(root).found[tt.adapter])
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDartUnavailable: on this machine (no Dart SDK) the adapters op says
// dart is unavailable, with the reason.
func TestDartUnavailable(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "pubspec.yaml"), []byte("name: x\n"), 0o644)
	res, err := NewSupervisor(nil, nil).Do(t.Context(), "", root, Request{Op: "adapters"})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Adapters {
		if a.ID == "dart" {
			// No Dart SDK can be installed on our machines; where one is,
			// dart must be listed as usable instead.
			if newResolver().resolve(t.Context(), adapterByID("dart"), root).why == "" {
				if !a.Usable || a.Marker != "pubspec.yaml" {
					t.Errorf("dart with an SDK on PATH: %+v", a)
				}
				return
			}
			if a.Usable || a.Marker != "pubspec.yaml" || !strings.Contains(a.Reason, "dart not found on PATH") {
				t.Errorf("dart: %+v", a)
			}
			return
		}
	}
	t.Fatal("dart is not listed")
}

// TestDebugpyPrefersProjectVenv: a project .venv python that can import
// debugpy runs both the adapter and the debuggee.
func TestDebugpyPrefersProjectVenv(t *testing.T) {
	needDebugpy(t)
	system := newResolver().debugpy(t.Context(), t.TempDir()).path
	root := t.TempDir()
	venv := filepath.Join(root, ".venv", "bin")
	os.MkdirAll(venv, 0o755)
	if err := os.Symlink(system, filepath.Join(venv, "python")); err != nil {
		t.Fatal(err)
	}
	b := newResolver().debugpy(t.Context(), root)
	want := filepath.Join(venv, "python")
	if b.path != want || b.python != want {
		t.Errorf("adapter %s, debuggee %s; want both %s", b.path, b.python, want)
	}
}

// fakePython writes an executable shell script standing in for an
// interpreter at path. The resolver tests use such fakes because no real
// interpreter can be made slow, or unable to start, on demand.
func fakePython(t *testing.T, path, script string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestDebugpyProbesRunAtOnce: every candidate interpreter is probed at
// once, and the answer still follows the order of preference. The
// project's python (first choice) can import debugpy only once the
// python3 on PATH (second choice) has been probed, which happens first
// only if the probes overlap; probed one after the other, it would say no
// and the second choice would win.
func TestDebugpyProbesRunAtOnce(t *testing.T) {
	testutil.Needs(t, "sh", "sleep", "touch")
	root, bin := t.TempDir(), t.TempDir()
	mark := filepath.Join(bin, "probed")
	venv := filepath.Join(root, ".venv", "bin", "python")
	fakePython(t, venv, fmt.Sprintf("i=0; while [ ! -e %q ]; do i=$((i+1)); [ $i -ge 800 ] && exit 1; sleep 0.01; done; exit 0", mark))
	onPath := filepath.Join(bin, "python3")
	fakePython(t, onPath, fmt.Sprintf("touch %q; exit 0", mark))
	r := newResolver()
	r.lookPath = func(string) (string, error) { return onPath, nil }
	if b := r.debugpy(t.Context(), root); b.path != venv {
		t.Errorf("adapter interpreter %q (%s); want the project's %s", b.path, b.why, venv)
	}
}

// TestDebugpyProbeRetriedAfterNoAnswer: an interpreter that could not be
// run gave no answer, so it is probed again next time rather than cached
// as unable to import debugpy.
func TestDebugpyProbeRetriedAfterNoAnswer(t *testing.T) {
	testutil.Needs(t, "sh")
	root := t.TempDir()
	venv := filepath.Join(root, ".venv", "bin", "python")
	fakePython(t, venv, "exit 0")
	os.Chmod(venv, 0o644) // not executable: the probe cannot start
	r := newResolver()
	r.lookPath = func(string) (string, error) { return "", errors.New("not found") }
	if b := r.debugpy(t.Context(), root); b.path == venv {
		t.Fatalf("chose %s, which cannot run", venv)
	}
	os.Chmod(venv, 0o755)
	if b := r.debugpy(t.Context(), root); b.path != venv {
		t.Errorf("after it became runnable: adapter interpreter %q (%s); want %s", b.path, b.why, venv)
	}
}

// TestBreakpointsWarmDebugpyProbes: a call before launch in a Python
// project starts the interpreter probes that launch will need.
func TestBreakpointsWarmDebugpyProbes(t *testing.T) {
	testutil.Needs(t, "python3")
	root := t.TempDir()
	testutil.WriteTree(t, root, "-- requirements.txt --\n-- app.py --\nprint(1)\n")
	sup := NewSupervisor(nil, nil)
	_, cands := sup.res.pythonCandidates(root)
	if _, err := sup.Do(t.Context(), "", root, Request{Op: "breakpoints", File: "app.py", Lines: []int{1}}); err != nil {
		t.Fatal(err)
	}
	sup.res.mu.Lock()
	var checks []*importCheck
	for _, p := range cands {
		if c := sup.res.imports[p]; c != nil {
			checks = append(checks, c)
		} else {
			t.Errorf("no probe started for %s", p)
		}
	}
	sup.res.mu.Unlock()
	for _, c := range checks {
		<-c.done
	}
}

// TestStartWarmsDebugpyProbes: attaching in a Python project starts the
// interpreter probes at once; elsewhere it starts none.
func TestStartWarmsDebugpyProbes(t *testing.T) {
	testutil.Needs(t, "python3")
	py, other := t.TempDir(), t.TempDir()
	testutil.WriteTree(t, py, "-- pyproject.toml --\n")
	testutil.WriteTree(t, other, "-- go.mod --\nmodule x\n")
	for _, tt := range []struct {
		root string
		want bool
	}{{py, true}, {other, false}} {
		sup := startSupervisor(tt.root, nil, nil)
		_, cands := sup.res.pythonCandidates(tt.root)
		sup.res.mu.Lock()
		var checks []*importCheck
		for _, p := range cands {
			c := sup.res.imports[p]
			if (c != nil) != tt.want {
				t.Errorf("root with %v marker: probe for %s started = %v", tt.want, p, c != nil)
			}
			if c != nil {
				checks = append(checks, c)
			}
		}
		sup.res.mu.Unlock()
		for _, c := range checks {
			<-c.done
		}
		sup.Close(t.Context())
	}
}

func TestMissingMarkerAtLaunch(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "app.py"), []byte("print(1)\n"), 0o644)
	_, err := NewSupervisor(nil, nil).Do(t.Context(), "", root, Request{Op: "launch", Program: "app.py"})
	if err == nil || !strings.Contains(err.Error(), "no pyproject.toml, setup.py or requirements.txt in the root") {
		t.Errorf("launch without a marker: %v", err)
	}
}

func TestOutputRing(t *testing.T) {
	o := outputRing{limit: 10}
	o.add("telemetry", "dropped")
	o.add("stdout", "abc\r\n")
	o.add("stderr", "de")
	o.add("stdout", "fghijk")
	got, dropped := o.take()
	want := []OutputChunk{{"stdout", "c\n"}, {"stderr", "de"}, {"stdout", "fghijk"}}
	if diff := cmp.Diff(want, got); diff != "" || dropped != 2 {
		t.Errorf("take (-want +got):\n%s dropped %d", diff, dropped)
	}
	if text := renderOutput(got, dropped); text != "[2 bytes dropped]\nc\nstderr| de\nfghijk\n" {
		t.Errorf("render: %q", text)
	}
	if got, dropped := o.take(); len(got) != 0 || dropped != 0 {
		t.Errorf("second take: %v %d", got, dropped)
	}
}

func TestNormalizeReason(t *testing.T) {
	tests := []struct {
		reason, desc string
		pausing      bool
		want         string
	}{
		{"exception", "signal SIGSTOP", true, "pause"},
		{"exception", "signal SIGSTOP", false, "signal SIGSTOP"},
		{"exception", "panic", false, "exception"},
		{"breakpoint", "", true, "breakpoint"},
	}
	for _, tt := range tests {
		if got := normalizeReason(tt.reason, tt.desc, tt.pausing); got != tt.want {
			t.Errorf("normalizeReason(%q, %q, %v) = %q, want %q", tt.reason, tt.desc, tt.pausing, got, tt.want)
		}
	}
}

func TestCapValue(t *testing.T) {
	v, cut := capValue(strings.Repeat("é", 500))
	if !cut || len([]rune(v)) != maxValueLen+1 {
		t.Errorf("cut %v, %d runes", cut, len([]rune(v)))
	}
	if v, cut := capValue("short"); cut || v != "short" {
		t.Errorf("short: %q %v", v, cut)
	}
}

// TestAgentPath: the agent's paths go through workspace.Resolve; a
// refusal names the argument and the path and wraps ErrOutside, and an
// accepted path comes back under the root as given (an in-root symlink
// followed to its target).
func TestAgentPath(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), nil, 0o644)
	os.Symlink(os.TempDir(), filepath.Join(root, "out"))
	os.Symlink("a.go", filepath.Join(root, "alias.go"))
	tests := []struct{ in, want, wantErr string }{
		{"a.go", "a.go", ""},
		{filepath.Join(root, "a.go"), "a.go", ""},
		{"alias.go", "a.go", ""},
		{"new/b.go", "new/b.go", ""}, // does not exist yet: the caller's stat says so
		{"../x.go", "", `argument 'file': path "../x.go" leads outside the workspace root`},
		{"/etc/passwd", "", `argument 'file': path "/etc/passwd" leads outside the workspace root`},
		{"out/x.go", "", `argument 'file': path "out/x.go" leads outside the workspace root through a symlink`},
	}
	for _, tt := range tests {
		got, err := agentPath(root, "file", tt.in)
		if tt.wantErr == "" {
			if err != nil || got != filepath.Join(root, tt.want) {
				t.Errorf("agentPath(%q) = %q, %v; want %q", tt.in, got, err, filepath.Join(root, tt.want))
			}
			continue
		}
		if !errors.Is(err, workspace.ErrOutside) || !strings.HasPrefix(errString(err), tt.wantErr) {
			t.Errorf("agentPath(%q) error = %q, want it to start %q and wrap ErrOutside", tt.in, errString(err), tt.wantErr)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestParseConfig: snake_case keys over the defaults; the old camelCase
// keys read with a deprecation warning; unknown keys and bad durations
// are errors naming the section and the key.
func TestParseConfig(t *testing.T) {
	d := DefaultOptions
	tests := []struct {
		name, in  string
		want      Options
		warn, err string
	}{
		{name: "nil", in: "", want: d},
		{name: "snake_case", in: `{"ttl":"2m","stop_wait":"3s","launch_timeout":"1m"}`,
			want: Options{TTL: 2 * time.Minute, StopWait: 3 * time.Second, LaunchTimeout: time.Minute}},
		{name: "camelCase warns", in: `{"ttl":"2m","stopWait":"3s"}`,
			want: Options{TTL: 2 * time.Minute, StopWait: 3 * time.Second, LaunchTimeout: d.LaunchTimeout},
			warn: `config debug.stopWait is deprecated: write "stop_wait"`},
		{name: "unknown key", in: `{"tll":"2m"}`, err: `config debug: unknown key "tll" (known: ttl, stop_wait, launch_timeout)`},
		{name: "bad duration", in: `{"ttl":"soon"}`, err: `config debug.ttl: want a positive duration`},
		{name: "seconds as a number", in: `{"stop_wait":15}`, err: `config debug.stop_wait: want a duration string such as "15s"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var warn strings.Builder
			got, err := parseConfig(json.RawMessage(tt.in), &warn)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !strings.Contains(warn.String(), tt.warn) || (tt.warn == "") != (warn.Len() == 0) {
				t.Errorf("warning %q, want %q", warn.String(), tt.warn)
			}
		})
	}
}

// TestHeldIsNotIdle: a debuggee in a tracing stop (the debugger holds it
// without a stop event, as lldb does while it reads a library's symbols)
// is sampled as held, which the idle rule counts as busy: under load such
// a stop lasted seconds with no CPU used and a launch answered "blocked
// on a lock" while the program had not reached main. A sleeping program
// is not held.
func TestHeldIsNotIdle(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	traced := exec.Command(sleep, "30")
	traced.SysProcAttr = &syscall.SysProcAttr{Ptrace: true} // stops at its exec, traced by this thread's process
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := traced.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { traced.Process.Kill(); traced.Wait() }()
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(traced.Process.Pid, &ws, 0, nil); err != nil || !ws.Stopped() {
		t.Fatalf("the traced child did not stop at its exec: %v %v", err, ws)
	}
	if s := sampleCPU(traced.Process.Pid); !s.ok || !s.held {
		t.Errorf("a program in a tracing stop sampled as %+v, want held", s)
	}

	free := exec.Command(sleep, "30")
	if err := free.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { free.Process.Kill(); free.Wait() }()
	if s := sampleCPU(free.Process.Pid); !s.ok || s.held {
		t.Errorf("a sleeping program sampled as %+v, want not held", s)
	}
}

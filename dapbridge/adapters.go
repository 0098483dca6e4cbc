// This file defines the adapter registry: which debug adapters exist, their
// root markers, how their command is resolved, and whether one is usable
// for a root (a marker and a binary that resolves).

package dapbridge

import (
	"context"
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
)

// adapterDef describes one debug adapter.
type adapterDef struct {
	id      string
	command string   // as shown to the agent, e.g. "dlv dap"
	markers []string // root markers; one is enough
	exts    []string // program extensions it launches (lldb: native binaries, no extension)
}

var adapterDefs = []*adapterDef{
	{id: "dart", command: "dart debug_adapter", markers: []string{"pubspec.yaml"}, exts: []string{".dart"}},
	{id: "debugpy", command: "python3 -m debugpy.adapter", markers: []string{"pyproject.toml", "setup.py", "requirements.txt"}, exts: []string{".py"}},
	{id: "delve", command: "dlv dap", markers: []string{"go.mod"}, exts: []string{".go"}},
	{id: "lldb", command: "lldb-dap", markers: []string{"Cargo.toml", "CMakeLists.txt"}},
}

func adapterByID(id string) *adapterDef {
	for _, a := range adapterDefs {
		if a.id == id {
			return a
		}
	}
	return nil
}

// AdapterStatus is one adapter's availability for a root.
type AdapterStatus struct {
	ID      string   `json:"id" jsonschema_description:"adapter id: dart, debugpy, delve or lldb"`
	Command string   `json:"command" jsonschema_description:"the adapter command"`
	Usable  bool     `json:"usable" jsonschema_description:"whether a session can start here"`
	Marker  string   `json:"marker,omitempty" jsonschema_description:"the first root marker found under the root (shallowest), relative to it: go.mod, py/pyproject.toml"`
	Markers []string `json:"markers,omitempty" jsonschema_description:"every marker found under the root, shallowest first (at most 5)"`
	More    int      `json:"moreMarkers,omitempty" jsonschema_description:"how many more markers were found than listed"`
	Reason  string   `json:"reason,omitempty" jsonschema_description:"why it is not usable"`
}

// binary is a resolved adapter command.
type binary struct {
	path   string   // executable
	args   []string // arguments before ours
	python string   // debugpy: the interpreter that runs the debuggee
	why    string   // non-empty when not resolved
}

// resolver finds adapter binaries. The debugpy import check runs a process
// (≈50 ms for /usr/bin/python3, 200–350 ms through a pyenv shim here), so
// each interpreter is checked at most once at a time, by one probe that
// every asker shares, and a definite answer is cached.
type resolver struct {
	lookPath func(string) (string, error) // proc.LookPath; tests replace it

	mu      sync.Mutex // guards imports
	imports map[string]*importCheck
}

// importCheck is one interpreter's "import debugpy" probe. ok and err are
// written before done is closed, and never after.
type importCheck struct {
	done chan struct{}
	ok   bool
	err  error // why the probe gave no answer (it could not run, or timed out); not cached
}

func newResolver() *resolver {
	return &resolver{lookPath: proc.LookPath, imports: map[string]*importCheck{}}
}

// markerIn returns the first of a's markers present in dir, or "".
func markerIn(a *adapterDef, dir string) string {
	for _, m := range a.markers {
		if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
			return m
		}
	}
	return ""
}

// findMarker looks for one of a's markers in dir and its parents up to
// root, and returns the directory holding it.
func findMarker(a *adapterDef, root, dir string) (string, string) {
	for {
		if m := markerIn(a, dir); m != "" {
			return dir, m
		}
		if dir == root || !strings.HasPrefix(dir, root) {
			return "", ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ""
		}
		dir = parent
	}
}

func markerList(a *adapterDef) string {
	if len(a.markers) == 1 {
		return a.markers[0]
	}
	return strings.Join(a.markers[:len(a.markers)-1], ", ") + " or " + a.markers[len(a.markers)-1]
}

// status reports whether a is usable in the root: a marker anywhere
// under it (found, from scanMarkers) and a binary that resolves.
func (r *resolver) status(ctx context.Context, a *adapterDef, root string, found []string) AdapterStatus {
	st := AdapterStatus{ID: a.id, Command: a.command}
	var why []string
	if len(found) == 0 {
		why = append(why, "no "+markerList(a)+" under the root")
	} else {
		st.Marker = found[0]
		st.Markers = found[:min(len(found), maxMarkersShown)]
		st.More = len(found) - len(st.Markers)
	}
	if b := r.resolve(ctx, a, root); b.why != "" {
		why = append(why, b.why)
	}
	st.Usable = len(why) == 0
	st.Reason = strings.Join(why, "; ")
	return st
}

// resolve finds the command of adapter a for a project rooted at root.
func (r *resolver) resolve(ctx context.Context, a *adapterDef, root string) binary {
	switch a.id {
	case "delve":
		if p := r.dlvPath(); p != "" {
			return binary{path: p, args: []string{"dap"}}
		}
		return binary{why: "dlv not found on PATH or in $GOPATH/bin (go install github.com/go-delve/delve/cmd/dlv@v1.27.2)"}
	case "debugpy":
		return r.debugpy(ctx, root)
	case "lldb":
		if p := r.lldbPath(); p != "" {
			return binary{path: p}
		}
		return binary{why: "lldb-dap not found on PATH (also looked for lldb-dap-NN, /usr/lib/llvm-*/bin/lldb-dap and lldb-vscode; apt install lldb-19)"}
	case "dart":
		if p, err := r.lookPath("dart"); err == nil {
			return binary{path: p, args: []string{"debug_adapter"}}
		}
		return binary{why: "dart not found on PATH (install the Dart SDK)"}
	}
	return binary{why: "unknown adapter " + a.id}
}

func (r *resolver) dlvPath() string {
	if p, err := r.lookPath("dlv"); err == nil {
		return p
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		home, _ := os.UserHomeDir()
		gopath = filepath.Join(home, "go")
	}
	p := filepath.Join(strings.Split(gopath, string(os.PathListSeparator))[0], "bin", "dlv")
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
		return p
	}
	return ""
}

// lldbPath resolves lldb-dap: the plain name, versioned names (highest
// first), the LLVM install dirs, then the old lldb-vscode names.
func (r *resolver) lldbPath() string {
	if p, err := r.lookPath("lldb-dap"); err == nil {
		return p
	}
	for v := 30; v >= 14; v-- {
		if p, err := r.lookPath(fmt.Sprintf("lldb-dap-%d", v)); err == nil {
			return p
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/llvm-*/bin/lldb-dap")
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	if len(dirs) > 0 {
		return dirs[0]
	}
	if p, err := r.lookPath("lldb-vscode"); err == nil {
		return p
	}
	for v := 30; v >= 10; v-- {
		if p, err := r.lookPath(fmt.Sprintf("lldb-vscode-%d", v)); err == nil {
			return p
		}
	}
	return ""
}

// pythonCandidates are the interpreters to try, best first: the project's
// own virtualenv, then python3 on PATH, then the system interpreter.
func (r *resolver) pythonCandidates(root string) (project string, all []string) {
	for _, v := range []string{".venv", "venv"} {
		p := filepath.Join(root, v, "bin", "python")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			project = p
			all = append(all, p)
			break
		}
	}
	if p, err := r.lookPath("python3"); err == nil {
		all = append(all, p)
	}
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		all = append(all, "/usr/bin/python3")
	}
	return project, all
}

// debugpy picks the adapter interpreter (the first candidate that can
// import debugpy) and the debuggee interpreter (the project's virtualenv
// when there is one, else the adapter's). Every candidate is probed at
// once: the answer still follows the order of preference, but a slow
// interpreter ahead (a pyenv shim) no longer adds its time to the next.
func (r *resolver) debugpy(ctx context.Context, root string) binary {
	project, cands := r.pythonCandidates(root)
	if len(cands) == 0 {
		return binary{why: "no python3 found (looked for .venv/bin/python, venv/bin/python, python3 on PATH, /usr/bin/python3)"}
	}
	checks := make([]*importCheck, len(cands))
	for i, p := range cands {
		checks[i] = r.checkImport(p)
	}
	var failed []string
	for i, p := range cands {
		select {
		case <-checks[i].done:
		case <-ctx.Done():
			return binary{why: fmt.Sprintf("checking whether %s can import debugpy: %v", p, ctx.Err())}
		}
		if checks[i].ok {
			b := binary{path: p, args: []string{"-m", "debugpy.adapter"}, python: p}
			if project != "" {
				b.python = project
			}
			return b
		}
		if err := checks[i].err; err != nil {
			failed = append(failed, err.Error())
		}
	}
	why := fmt.Sprintf("none of %s can import debugpy (apt install python3-debugpy, or pip install debugpy in the project's venv)", strings.Join(cands, ", "))
	if len(failed) > 0 {
		why += "; " + strings.Join(failed, "; ")
	}
	return binary{why: why}
}

// warm starts the probes that launching adapter a in root would wait for,
// without waiting for them, so that the first launch after an earlier
// debug call (typically breakpoints) finds them done.
func (r *resolver) warm(a *adapterDef, root string) {
	if a.id != "debugpy" {
		return // the others only look up paths
	}
	_, cands := r.pythonCandidates(root)
	for _, p := range cands {
		r.checkImport(p)
	}
}

// checkImport returns python's import check, starting its probe unless
// one is cached or running. The probe runs on its own goroutine, detached
// from any call's context (so an abandoned call does not waste it) and
// bounded by probe's own timeout. A probe that gave no answer is dropped
// from the cache, so that the next asker tries again.
func (r *resolver) checkImport(python string) *importCheck {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.imports[python]; c != nil {
		return c
	}
	c := &importCheck{done: make(chan struct{})}
	r.imports[python] = c
	go func() {
		_, err := probe(context.Background(), python, "-c", "import debugpy")
		_, exited := proc.ExitCode(err)
		switch {
		case err == nil:
			c.ok = true
		case exited:
			// It ran and said no (ModuleNotFoundError): a definite answer.
		default:
			c.err = err
			r.mu.Lock()
			delete(r.imports, python)
			r.mu.Unlock()
		}
		close(c.done)
	}()
	return c
}

// Check is one line of the doctor table for an adapter.
type Check struct {
	Name   string
	OK     bool
	Detail string
}

// Checks describes each adapter's binary without running anything, for
// the doctor table (the debugpy import is checked by the adapters op).
func Checks() []Check {
	r := newResolver()
	var out []Check
	for _, a := range adapterDefs {
		c := Check{Name: a.id}
		switch a.id {
		case "delve":
			if p := r.dlvPath(); p != "" {
				c.OK, c.Detail = true, p
				if bi, err := buildinfo.ReadFile(p); err == nil {
					c.Detail += " " + bi.Main.Version
				}
			}
		case "lldb":
			if p := r.lldbPath(); p != "" {
				c.OK, c.Detail = true, p
				if t, err := filepath.EvalSymlinks(p); err == nil && t != p {
					c.Detail += " → " + t
				}
			}
		case "debugpy":
			_, cands := r.pythonCandidates(".")
			if len(cands) > 0 {
				c.OK, c.Detail = true, "python3 -m debugpy.adapter with one of "+strings.Join(cands, ", ")+" (the debugpy import is checked by debug op adapters)"
			}
		case "dart":
			if p, err := r.lookPath("dart"); err == nil {
				c.OK, c.Detail = true, p
			}
		}
		if !c.OK {
			c.Detail = r.resolve(context.Background(), a, ".").why
		}
		out = append(out, c)
	}
	return out
}

// isGoBinary reports whether p is an executable built by Go (delve
// debugs those better than lldb).
func isGoBinary(p string) bool {
	_, err := buildinfo.ReadFile(p)
	return err == nil
}

// probe runs a short command through internal/proc (so it dies with us)
// and returns its stdout; it is stopped after 10 s or when ctx is done.
// Its error, when it ran, is a *proc.Ended.
func probe(ctx context.Context, path string, args ...string) (string, error) {
	res, err := proc.Output(ctx, proc.Spec{Name: filepath.Base(path), Path: path, Args: args, StderrTail: 4 << 10}, 10*time.Second, 1<<20)
	return string(res.Stdout), err
}

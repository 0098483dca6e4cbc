package dapbridge

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// monorepo has its projects only in subfolders; the root has no marker.
const monorepo = `
-- go/go.mod --
module app

go 1.22
-- go/main.go --
package main

import "fmt"

func main() {
	fmt.Println("go here")
}
-- py/pyproject.toml --
[project]
name = "app"
-- py/app.py --
x = 41
print("py here", x + 1)
-- c/CMakeLists.txt --
project(app C)
-- tools/deep/requirements.txt --
-- .hidden/Cargo.toml --
-- node_modules/x/pubspec.yaml --
`

// TestScanMarkers: every marker under the root, shallowest first, hidden
// directories, node_modules and what .gitignore ignores skipped, the depth
// bounded.
func TestScanMarkers(t *testing.T) {
	root := t.TempDir()
	testutil.WriteTree(t, root, monorepo+"-- a/b/c/d/e/f/go.mod --\n"+
		"-- .gitignore --\nbuild/\n-- build/vendor/go.mod --\n-- py/.gitignore --\nout.txt\n-- py/sub/Cargo.toml --\n-- py/sub/.gitignore --\nCargo.toml\n")
	got := scanMarkers(root)
	want := map[string][]string{
		"debugpy": {"py/pyproject.toml", "tools/deep/requirements.txt"},
		"delve":   {"go/go.mod"},
		"lldb":    {"c/CMakeLists.txt"},
	}
	if diff := cmp.Diff(want, got.found); diff != "" || got.stopped {
		t.Errorf("found (-want +got):\n%s stopped=%v", diff, got.stopped)
	}
}

// TestAdaptersInSubfolders: the adapters op says each adapter with a
// marker in a subfolder is usable, naming that subfolder's marker (it
// used to say "no pyproject.toml in the root").
func TestAdaptersInSubfolders(t *testing.T) {
	root := t.TempDir()
	testutil.WriteTree(t, root, monorepo)
	sup := NewSupervisor(nil, nil)
	sup.res.lookPath = func(name string) (string, error) {
		if name == "dart" {
			return "", errors.New("not found")
		}
		return "/usr/bin/" + name, nil
	}
	sup.res.imports["/usr/bin/python3"] = &importCheck{done: closed(), ok: true}
	res, err := sup.Do(context.Background(), "", root, Request{Op: "adapters"})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Text())
	want := map[string]string{"delve": "go/go.mod", "debugpy": "py/pyproject.toml", "lldb": "c/CMakeLists.txt"}
	for _, a := range res.Adapters {
		if w, ok := want[a.ID]; ok && (!a.Usable || a.Marker != w) {
			t.Errorf("%s: usable %v marker %q reason %q, want usable with %s", a.ID, a.Usable, a.Marker, a.Reason, w)
		}
		if a.ID == "dart" && (a.Usable || !strings.Contains(a.Reason, "no pubspec.yaml under the root")) {
			t.Errorf("dart (its marker is under node_modules only): %+v", a)
		}
	}
	if !strings.Contains(res.Text(), "debugpy  usable  python3 -m debugpy.adapter (py/pyproject.toml, tools/deep/requirements.txt)") {
		t.Errorf("text:\n%s", res.Text())
	}
}

func closed() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// TestLaunchInSubfolders launches a Go and a Python program that live in
// subfolders of a root without markers: each picks its own folder's
// marker (delve builds in go/, where go.mod is).
func TestLaunchInSubfolders(t *testing.T) {
	needDlv(t)
	needDebugpy(t)
	r := newRig(t, testOptions, monorepo)
	r.do(Request{Op: "breakpoints", File: "go/main.go", Lines: []int{6}})
	res := r.do(Request{Op: "launch", Program: "go/main.go"})
	res = r.settle(res)
	wantStop(t, res, "breakpoint", "go/main.go", 6)
	if res.Marker != "go/go.mod" {
		t.Errorf("delve went by %q, want go/go.mod", res.Marker)
	}
	r.do(Request{Op: "terminate"})
	r.do(Request{Op: "breakpoints", File: "py/app.py", Lines: []int{2}})
	res = r.do(Request{Op: "launch", Program: "py/app.py"})
	res = r.settle(res)
	wantStop(t, res, "breakpoint", "py/app.py", 2)
	if res.Marker != "py/pyproject.toml" {
		t.Errorf("debugpy went by %q, want py/pyproject.toml", res.Marker)
	}
	if ev := r.do(Request{Op: "evaluate", Expression: "x + 1"}); ev.Value.Value != "42" {
		t.Errorf("evaluate = %q", ev.Value.Value)
	}
	r.do(Request{Op: "terminate"})
}

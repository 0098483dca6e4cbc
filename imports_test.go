package agenttools_test

// TestImportRules enforces the import rules of STYLE.md §5.1 by parsing
// every non-test Go file of the module.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/agent-tools/agent-tools"

var domains = []string{"lspbridge", "patterns", "dapbridge", "kernel", "workers"}

// rule says which project packages a top-level package may import; nil
// means "anything" (cmd only).
func allowed(pkg, file string) func(imp string) bool {
	top := strings.SplitN(pkg, "/", 2)[0]
	switch {
	case top == "schema":
		return func(string) bool { return false }
	case top == "rpc":
		return func(imp string) bool { return imp == "schema" }
	case top == "conformance":
		return func(imp string) bool { return imp == "rpc" }
	case top == "internal":
		return func(imp string) bool { return strings.HasPrefix(imp, "internal/") }
	case slices.Contains(domains, top):
		return func(imp string) bool {
			if strings.HasPrefix(imp, "internal/") {
				return true
			}
			// Only tools.go adapts a domain package to rpc.
			return (imp == "rpc" || imp == "schema") && filepath.Base(file) == "tools.go"
		}
	case top == "cmd":
		return nil
	}
	return func(string) bool { return false }
}

func TestImportRules(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "third_party" || d.Name() == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == "." {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		pkg := filepath.ToSlash(filepath.Dir(path))
		ok := allowed(pkg, path)
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			rel, isProject := strings.CutPrefix(imp, module+"/")
			if !isProject || ok == nil {
				continue
			}
			if strings.HasPrefix(pkg, "internal/") && strings.HasPrefix(rel, pkg) {
				continue
			}
			if !ok(rel) {
				t.Errorf("%s imports %s, which STYLE.md 5.1 forbids for package %s", path, rel, pkg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("checked only %d files: is the walk broken?", checked)
	}
}

// TestImportRulesCatchViolations makes sure the rule table rejects what
// it must, so TestImportRules cannot pass vacuously.
func TestImportRulesCatchViolations(t *testing.T) {
	bad := []struct{ pkg, file, imp string }{
		{"rpc", "rpc/server.go", "lspbridge"},
		{"schema", "schema/schema.go", "rpc"},
		{"lspbridge", "lspbridge/client.go", "rpc"},
		{"lspbridge", "lspbridge/tools.go", "patterns"},
		{"kernel", "kernel/tools.go", "workers"},
		{"conformance", "conformance/replay.go", "patterns"},
		{"internal/proc", "internal/proc/proc.go", "rpc"},
	}
	for _, b := range bad {
		if allowed(b.pkg, b.file)(b.imp) {
			t.Errorf("%s may import %s, but must not", b.file, b.imp)
		}
	}
	good := []struct{ pkg, file, imp string }{
		{"rpc", "rpc/tool.go", "schema"},
		{"lspbridge", "lspbridge/tools.go", "rpc"},
		{"lspbridge", "lspbridge/client.go", "internal/proc"},
	}
	for _, g := range good {
		if !allowed(g.pkg, g.file)(g.imp) {
			t.Errorf("%s may not import %s, but should", g.file, g.imp)
		}
	}
}

// TestBinaryLinksNoTesting keeps the testing package (and test-only
// libraries) out of the shipped binary: a test helper that slips into a
// non-test file would otherwise link them, with their flags.
func TestBinaryLinksNoTesting(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-tags", "dart", "./cmd/agent-tools")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "testing" || strings.HasPrefix(dep, "testing/") || strings.HasPrefix(dep, "github.com/google/go-cmp") ||
			dep == module+"/internal/testutil" || dep == module+"/internal/corpus" {
			t.Errorf("the agent-tools binary links %s", dep)
		}
	}
}

// TestChildrenStartOnlyInProc keeps internal/proc the one place a child
// process starts (issue 26): no other non-test file imports os/exec or
// calls os.StartProcess, syscall.ForkExec, syscall.StartProcess,
// syscall.Exec or unix.Exec. A program name is resolved with
// proc.LookPath, which is exec.LookPath.
func TestChildrenStartOnlyInProc(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "third_party" || d.Name() == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.ToSlash(filepath.Dir(path)) == "internal/proc" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		for _, v := range processStarts(f) {
			t.Errorf("%s: %s: children start only through internal/proc (proc.Start, proc.Output; proc.LookPath to find a program)", fset.Position(v.pos), v.what)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("checked only %d files: is the walk broken?", checked)
	}
}

type processStart struct {
	pos  token.Pos
	what string
}

// processStarts returns f's imports of os/exec and its calls that start a
// process without it.
func processStarts(f *ast.File) []processStart {
	var out []processStart
	names := map[string]string{} // local name → import path, for os, syscall and unix
	for _, spec := range f.Imports {
		imp, _ := strconv.Unquote(spec.Path.Value)
		if imp == "os/exec" {
			out = append(out, processStart{spec.Pos(), "imports os/exec"})
		}
		local := filepath.Base(imp)
		if spec.Name != nil {
			local = spec.Name.Name
		}
		switch imp {
		case "os", "syscall", "golang.org/x/sys/unix":
			names[local] = imp
		}
	}
	forbidden := map[string][]string{
		"os":                    {"StartProcess"},
		"syscall":               {"ForkExec", "StartProcess", "Exec"},
		"golang.org/x/sys/unix": {"Exec"},
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && slices.Contains(forbidden[names[id.Name]], sel.Sel.Name) {
			out = append(out, processStart{sel.Pos(), "uses " + names[id.Name] + "." + sel.Sel.Name})
		}
		return true
	})
	return out
}

// TestProcessStartsCatchViolations makes sure processStarts finds what it
// must, so TestChildrenStartOnlyInProc cannot pass vacuously.
func TestProcessStartsCatchViolations(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int
	}{
		{`package p; import "os/exec"; var _ = exec.LookPath`, 1},
		{`package p; import x "os/exec"; var _ = x.Command`, 1},
		{`package p; import "os"; var _ = os.StartProcess`, 1},
		{`package p; import sc "syscall"; func f() { sc.ForkExec("", nil, nil); sc.Exec("", nil, nil) }`, 2},
		{`package p; import "golang.org/x/sys/unix"; var _ = unix.Exec`, 1},
		{`package p; import "os"; var _ = os.Getenv`, 0},
		{`package p; import "syscall"; var _ = syscall.Kill`, 0},
		{`package p; type T struct{ Exec int }; var syscall T; var _ = syscall.Exec`, 0},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "p.go", c.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := processStarts(f); len(got) != c.want {
			t.Errorf("%s: found %v, want %d", c.src, got, c.want)
		}
	}
}

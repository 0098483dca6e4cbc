package agenttools_test

// TestImportRules enforces the import rules of STYLE.md §5.1 by parsing
// every non-test Go file of the module.

import (
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
			dep == module+"/internal/testutil" {
			t.Errorf("the agent-tools binary links %s", dep)
		}
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestResolveReportsNewDiagnostics: accepting fmt.Errorf("…") →
// errors.New("…") in a Go module whose file does not import errors writes
// files that no longer build. resolve accept learns it from gopls through
// the files-written hook, as lsp_rename and didWrite do: the answer names
// `undefined: errors` at the rewritten line, and only that as new.
func TestResolveReportsNewDiagnostics(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module example.com/m\n\ngo 1.22\n")
	writeFile(t, root, "main.go", `package main

import "fmt"

func check(ok bool) error {
	if !ok {
		return fmt.Errorf("not ok")
	}
	return nil
}

func main() {
	fmt.Println(check(true))
}
`)
	s := startServer(t, "--root", root)
	s.initialize()
	// Open the file with the server first, as an agent that looked at it
	// would have: its clean state is the baseline.
	if r := s.call(2, "lsp", map[string]any{"action": "diagnostics", "file": "main.go"}); r.Result.IsError {
		t.Fatalf("diagnostics: %+v", r.Result)
	}
	r := s.call(3, "ast_edit", map[string]any{"pattern": `fmt.Errorf("$MSG")`, "rewrite": `errors.New("$MSG")`, "language": "go"})
	if r.Result.IsError {
		t.Fatalf("ast_edit: %+v", r.Result)
	}
	r = s.call(4, "resolve", map[string]any{"edit_id": "edit_1", "action": "accept"})
	text := r.Result.Content[0].Text
	if r.Result.IsError || !strings.Contains(text, "accepted edit_1") {
		t.Fatalf("resolve: %s", text)
	}
	if !strings.Contains(text, "undefined: errors") || !strings.Contains(text, "main.go:7") {
		t.Errorf("resolve accept does not report the new error:\n%s", text)
	}
	t.Logf("resolve answered:\n%s", text)

	// A write that leaves nothing wrong (it undoes the break) says it was
	// checked, so silence is never read as "looked at".
	r = s.call(5, "ast_edit", map[string]any{"pattern": `errors.New($M)`, "rewrite": `fmt.Errorf($M)`, "language": "go"})
	if r.Result.IsError {
		t.Fatalf("ast_edit: %+v", r.Result)
	}
	r = s.call(6, "resolve", map[string]any{"edit_id": "edit_2", "action": "accept"})
	text = r.Result.Content[0].Text
	if r.Result.IsError || !strings.Contains(text, "no new errors or warnings (checked: main.go)") || strings.Contains(text, "not checked") {
		t.Errorf("a clean accept does not say it was checked:\n%s", text)
	}
	t.Logf("the clean accept answered:\n%s", text)
}

package lspbridge

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// goVet runs `go vet ./...` in root (the oracle for "does it still
// build", tests included) and returns its output, "" when clean.
func goVet(t *testing.T, root string) string {
	t.Helper()
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return strings.TrimSpace(string(out))
	}
	return ""
}

// TestDiskChangesReachServer pins problem 6 of issue 12: after references
// made gopls read conn_test.go, a plain write (no didWrite) added a caller
// there and a new file with another; the rename must see both, and the
// tree must still build and vet afterwards.
func TestDiskChangesReachServer(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := jsonrpc2Tree(t)
	s := newSup(t, nil)
	ctx := testCtx(t)
	stream := filepath.Join(root, "stream.go")
	req := Request{Root: root, File: "stream.go", Line: lineOf(t, stream, "func NewPlainObjectStream("), Symbol: "NewPlainObjectStream"}
	r, err := s.Locations(ctx, "references", req)
	check(t, r, err, "conn_test.go:")
	before := r.Total

	// Written behind the server's back, as sed -i or a generator would.
	f, err := os.OpenFile(filepath.Join(root, "conn_test.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nfunc extraCaller() { _ = jsonrpc2.NewPlainObjectStream(nil) }\n")
	f.Close()
	writeFile(t, filepath.Join(root, "extra_test.go"), "package jsonrpc2_test\n\nimport \"github.com/sourcegraph/jsonrpc2\"\n\nvar _ = jsonrpc2.NewPlainObjectStream(nil)\n")

	r, err = s.Locations(ctx, "references", req)
	check(t, r, err, "conn_test.go:", "extra_test.go:5:")
	if r.Total != before+2 {
		t.Errorf("references after the plain writes: %d, want %d", r.Total, before+2)
	}
	rr, err := s.Rename(ctx, req, "NewPlainStream")
	check(t, rr, err, "conn_test.go", "extra_test.go  1 edits")
	if out := goVet(t, root); out != "" {
		t.Errorf("the tree does not build after the rename:\n%s", out)
	}
	data, _ := os.ReadFile(filepath.Join(root, "conn_test.go"))
	mustContain(t, string(data), "func extraCaller() { _ = jsonrpc2.NewPlainStream(nil) }")
}

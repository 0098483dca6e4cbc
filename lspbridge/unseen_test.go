package lspbridge

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestUnpublishedGoFileWasClean: gopls diagnoses its whole workspace in
// each pass and publishes only for files with findings, so a file it
// never published for, once a pass has ended, had none; an error it gets
// during a write is the write's. Found by the Go mutation soak (seed
// 1796692939215263571) on golang-jwt/jwt: a typo that broke the syntax of
// validator.go made gopls report "undefined: jwt.ClaimsValidator" in
// example_test.go, a line that names nothing the write changed; the
// answer took the file for one without a baseline, kept the error out
// and said only that errors naming what changed count as new (gopls check
// lists it). gopls does not report that one every time (under load it
// sometimes type-checks the test package without it), so the test has a
// break of the same kind that it always reports: b.go uses U, an alias of
// T in c.go; the write changes T in a.go, and the error in b.go (a file
// that does not mention T, so no dependent) names neither.
func TestUnpublishedGoFileWasClean(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := canonical(t.TempDir())
	writeFile(t, filepath.Join(root, "go.mod"), "module example.com/p\n\ngo 1.22\n")
	a := filepath.Join(root, "a.go")
	writeFile(t, a, "package p\n\n// T is what U stands for.\ntype T = int\n")
	writeFile(t, filepath.Join(root, "c.go"), "package p\n\n// U is T.\ntype U = T\n")
	writeFile(t, filepath.Join(root, "b.go"), "package p\n\nvar u U = 1\n\nvar _ = u\n")
	commitAll(t, root)
	s := newSup(t, nil)
	ctx := testCtx(t)
	if _, err := s.Diagnostics(ctx, Request{Root: root, File: "a.go"}); err != nil {
		t.Fatal(err)
	}
	// The write comes after gopls's first pass over the workspace, as an
	// agent's does after it has read a file or two.
	for _, srv := range s.running(root) {
		for {
			srv.mu.Lock()
			open, ch := srv.diagnosingLocked(), srv.changed
			srv.mu.Unlock()
			if !open && srv.announcesPasses() {
				break
			}
			select {
			case <-ch:
			case <-ctx.Done():
				t.Fatalf("gopls's first diagnosis pass did not end: %v", ctx.Err())
			}
		}
	}
	writeFile(t, a, "package p\n\n// T is what U stands for.\ntype T = string\n")
	w, err := s.DidWrite(ctx, root, []string{"a.go"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range w.Diagnostics {
		found = found || d.Path == "b.go" && strings.Contains(d.Message, "cannot use 1")
	}
	if !found || strings.Contains(w.Text, "first diagnosed during this write") {
		t.Errorf("the write's error in b.go, a file gopls had not published for, is not reported as new:\n%s", w.Text)
	}
	if out := goVet(t, root); !strings.Contains(out, "b.go:3") {
		t.Errorf("go vet does not find the break in b.go: %q", out)
	}
}

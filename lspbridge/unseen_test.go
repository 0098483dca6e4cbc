package lspbridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/corpus"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestUnpublishedGoFileWasClean: gopls diagnoses its whole workspace in
// each pass and publishes only for files with findings, so a file it
// never published for, once a pass has ended, had none; an error it gets
// during a write is the write's. Found by the Go mutation soak (seed
// 1796692939215263571) on golang-jwt/jwt: a typo that breaks the syntax
// of validator.go makes gopls report "undefined: jwt.ClaimsValidator" in
// example_test.go, which names nothing the write changed; the answer took
// the file for one without a baseline, kept the error out and said only
// that errors naming what changed count as new (gopls check lists it).
// The module is a dependency of the MCP Go SDK, so in the module cache.
func TestUnpublishedGoFileWasClean(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	var src string
	testutil.NeedsFunc(t, "github.com/golang-jwt/jwt/v5@v5.3.1 in the module cache", func() string {
		cache, err := corpus.GoModCache()
		if err != nil {
			return err.Error()
		}
		src = filepath.Join(cache, "github.com/golang-jwt/jwt/v5@v5.3.1")
		if _, err := os.Stat(filepath.Join(src, "validator.go")); err != nil {
			return err.Error()
		}
		return ""
	})
	root := canonical(t.TempDir())
	copyTree(t, src, root, nil)
	commitAll(t, root)
	s := newSup(t, nil)
	ctx := testCtx(t)
	if _, err := s.Diagnostics(ctx, Request{Root: root, File: "validator.go"}); err != nil {
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
	file := filepath.Join(root, "validator.go")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const in = "\t\t\tif slices.Contains(cmp, a) {\n\t\t\t\treturn nil"
	if !strings.Contains(string(data), in) {
		t.Fatalf("validator.go no longer has %q", in)
	}
	writeFile(t, file, strings.Replace(string(data), in, in[:len(in)-len("return nil")]+"returnq nil", 1))
	w, err := s.DidWrite(ctx, root, []string{"validator.go"})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range w.Diagnostics {
		found = found || d.Path == "example_test.go" && strings.Contains(d.Message, "undefined: jwt.ClaimsValidator")
	}
	if !found || strings.Contains(w.Text, "first diagnosed during this write") {
		t.Errorf("the write's error in example_test.go, a file gopls had not published for, is not reported as new:\n%s", w.Text)
	}
}

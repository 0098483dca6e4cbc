package lspbridge

import (
	"slices"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestWarningsBackAfterAFix: gopls runs its analyzers only on a package
// that type-checks, so a write that breaks one file hides the warnings of
// the others (here an S1001, a loop that should be copy) and the write
// that mends it shows them again. The checker's before and after differ
// by them, so they are new (TestMutationDiagnosticsGo holds us to the
// checker), but the answer says they are back: the file showed them with
// the same text before (found on spf13/pflag: reverting a broken
// errors.go reported string_array.go's two S1001 as new with no word).
func TestWarningsBackAfterAFix(t *testing.T) {
	testutil.Needs(t, "gopls", "go", "git")
	root := canonical(t.TempDir())
	testutil.WriteTree(t, root, `-- go.mod --
module example.com/m

go 1.21
-- a.go --
package m

func Val() int { return 1 }
-- b.go --
package m

func Cp(to, from []string) {
	for i, v := range from {
		to[i] = v
	}
}
`)
	gitCommitAll(t, root)
	s := newSup(t, &Options{DiagnosticCap: time.Minute, ReadyTimeout: time.Minute})
	ctx := indexCtx(t)
	r, err := s.Diagnostics(ctx, Request{Root: root, File: "b.go"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(r.Diagnostics, func(d Diag) bool { return d.Severity == "warning" }) {
		t.Fatalf("gopls shows no warning for the copy loop (S1001): the test needs one to hide and show again:\n%s", r.Text())
	}
	if _, err := s.Diagnostics(ctx, Request{Root: root, File: "a.go"}); err != nil {
		t.Fatal(err)
	}
	write := func(content string) *WriteResult {
		t.Helper()
		writeFile(t, root+"/a.go", content)
		w, err := s.DidWrite(ctx, root, []string{"a.go"})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w := write("package m\n\nfunc Val() int { return x }\n")
	if !slices.ContainsFunc(w.Diagnostics, func(d Diag) bool { return d.Path == "a.go" && d.Severity == "error" }) {
		t.Fatalf("breaking a.go: want its new error, got:\n%s", w.Text)
	}
	w = write("package m\n\nfunc Val() int { return 1 }\n")
	t.Logf("mending a.go:\n%s", w.Text)
	if !slices.ContainsFunc(w.Diagnostics, func(d Diag) bool { return d.Path == "b.go" && d.Severity == "warning" }) {
		t.Errorf("mending a.go: want b.go's warning among the new, as the checker has it, got:\n%s", w.Text)
	}
	mustContain(t, w.Text, "b.go:4: new since the last check, but back")
}

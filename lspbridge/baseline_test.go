package lspbridge

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestBaselinePyright pins problem 3 of issue 12: pyright's errors in an
// untouched tabulate.py (committed) are not new after a comment edit; one
// introduced error is, alone; and the text says what remains (problem 4).
func TestBaselinePyright(t *testing.T) {
	testutil.Needs(t, "pyright-langserver", "git")
	root := tabulateTree(t)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fixture"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	// pyright needs tens of seconds for tabulate.py on a loaded machine,
	// for each of the test's four checks of it: the test's bound is the
	// long one (at load 10, beside another run of this suite, the four
	// took 63 s).
	s := newSup(t, &Options{DiagnosticCap: 2 * time.Minute, ReadyTimeout: 2 * time.Minute})
	ctx := indexCtx(t)
	path := filepath.Join(root, "tabulate.py")
	appendTo := func(text string) *WriteResult {
		t.Helper()
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(text)
		f.Close()
		r, err := s.DidWrite(ctx, root, []string{"tabulate.py"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := appendTo("# a comment\n")
	if len(r.Diagnostics) != 0 || r.Suppressed < 5 {
		t.Fatalf("comment edit: want nothing new and the old errors counted as remaining, got %d new, %d remaining:\n%s", len(r.Diagnostics), r.Suppressed, r.Text)
	}
	// app.py's own old error (newer pyrights find one) may be among them:
	// pyright may diagnose app.py for the first time during this write, and
	// an error there that names nothing the write changed is not new.
	mustContain(t, r.Text, "no new errors or warnings after this write; ", " already there before remain (", "tabulate.py:61")
	old := r.Suppressed
	r = appendTo("_broken: int = \"x\"\n")
	if len(r.Diagnostics) != 1 || r.Suppressed != old {
		t.Fatalf("one new error: want 1 new and %d remaining, got %d and %d:\n%s", old, len(r.Diagnostics), r.Suppressed, r.Text)
	}
	mustContain(t, r.Text, "new errors and warnings after this write:", `is not assignable to declared type "int"`)

	// A local rename is not followed by the file's old errors as "new".
	rr, err := s.Rename(ctx, Request{Root: root, File: "tabulate.py", Line: lineOf(t, path, "def _isconvertible(conv, string):"), Symbol: "conv"}, "fn")
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Diagnostics) != 0 {
		t.Errorf("a local rename reported %d new diagnostics:\n%s", len(rr.Diagnostics), rr.Text())
	}
	mustContain(t, rr.Text(), "no new errors or warnings after the rename; ")
}

// TestBusyTextTells pins the second half of problem 4: when the server
// publishes nothing in time, the text says so (not an empty text with the
// reason only in skipped).
func TestBusyTextTells(t *testing.T) {
	testutil.Needs(t, "pyright-langserver")
	root := tabulateTree(t)
	s := newSup(t, &Options{DiagnosticCap: time.Millisecond, ReadyTimeout: time.Millisecond, IndexTimeout: time.Millisecond})
	r, err := s.DidWrite(testCtx(t), root, []string{"tabulate.py"})
	if err != nil {
		t.Fatal(err)
	}
	// pyright's diagnostics are pulled: the answer it had not given yet.
	mustContain(t, r.Text, "not checked: tabulate.py: diagnostics not available yet: pyright had not finished checking tabulate.py within")
	if len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0], "not available yet") {
		t.Errorf("skipped: %q", r.Skipped)
	}
}

// TestCodeActionsWaitTS pins problem 8 of issue 12: code_actions as the
// first call on a fresh typescript-language-server offers the quick fix
// for the line's error, which needs the line's diagnostics first.
func TestCodeActionsWaitTS(t *testing.T) {
	testutil.Needs(t, "typescript-language-server", "tsc")
	root := rxjsTree(t)
	writeFile(t, filepath.Join(root, "src", "fix.ts"), "import { identity } from './internal/util/identity';\n\nexport const n: number = identiy(1);\n")
	// Until the ready budget has passed, silence from a fresh server is not
	// taken to mean "clean"; a loaded machine needs more than the default.
	s := newSup(t, &Options{DiagnosticCap: time.Minute, ReadyTimeout: time.Minute})
	r, err := s.CodeActions(testCtx(t), Request{Root: root, File: "src/fix.ts", Line: 3, Symbol: "identiy"})
	check(t, r, err, "Change spelling to 'identity'", "(quickfix)")
}

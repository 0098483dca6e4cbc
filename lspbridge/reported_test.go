package lspbridge

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestRemainingCoversReported pins issue 23's "remaining after a fix
// covers the files that the earlier answers named", found on pflag: a
// parameter added to scale breaks its callers in b and c; fixing b alone is
// a write whose own search (the names b's change touched) does not reach
// c, and gopls does not republish c, whose errors did not change. The
// answer must still list c's error as remaining; once c is fixed too,
// nothing remains and c is no longer checked.
func TestRemainingCoversReported(t *testing.T) {
	tests := []struct {
		name, tool, tree string
		def, defNew      string // in the defining file
		b, bFix, c, cFix string // the callers' files, as written before and after their fix
		needs            []string
	}{
		{
			name:  "gopls",
			tool:  "gopls",
			needs: []string{"gopls", "go", "git"},
			tree: `-- go.mod --
module example.com/m

go 1.21
-- a.go --
package m

func Scale(x int) int { return x }
-- b.go --
package m

func UseB() int { return Scale(1) }
-- c.go --
package m

func UseC() int { return Scale(2) }
`,
			def: "a.go", defNew: "package m\n\nfunc Scale(x, y int) int { return x + y }\n",
			b: "b.go", bFix: "package m\n\nfunc UseB() int { return Scale(1, 0) }\n",
			c: "c.go", cFix: "package m\n\nfunc UseC() int { return Scale(2, 0) }\n",
		},
		{
			name:  "pyright",
			tool:  "pyright-langserver",
			needs: []string{"pyright-langserver", "git"},
			tree: `-- pyrightconfig.json --
{}
-- a.py --
def scale(x: int) -> int:
    return x
-- b.py --
from a import scale


def use_b() -> int:
    return scale(1)
-- c.py --
from a import scale


def use_c() -> int:
    return scale(2)
`,
			def: "a.py", defNew: "def scale(x: int, y: int) -> int:\n    return x + y\n",
			b: "b.py", bFix: "from a import scale\n\n\ndef use_b() -> int:\n    return scale(1, 0)\n",
			c: "c.py", cFix: "from a import scale\n\n\ndef use_c() -> int:\n    return scale(2, 0)\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			testutil.Needs(t, tc.needs...)
			root := canonical(t.TempDir())
			testutil.WriteTree(t, root, tc.tree)
			gitCommitAll(t, root)
			s := newSup(t, &Options{DiagnosticCap: time.Minute, ReadyTimeout: time.Minute})
			ctx := indexCtx(t)
			write := func(file, content string) *WriteResult {
				t.Helper()
				writeFile(t, filepath.Join(root, file), content)
				w, err := s.DidWrite(ctx, root, []string{file})
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			in := func(ds []Diag, file string) bool {
				return slices.ContainsFunc(ds, func(d Diag) bool { return d.Path == file })
			}

			// The files were looked at before (the server has their
			// packages loaded): the write is compared with that.
			for _, f := range []string{tc.def} {
				r, err := s.Diagnostics(ctx, Request{Root: root, File: f})
				check(t, r, err, "0 errors and warnings in "+f)
			}
			w := write(tc.def, tc.defNew)
			if !in(w.Diagnostics, tc.b) || !in(w.Diagnostics, tc.c) {
				t.Fatalf("changing %s: want new errors in %s and %s, got:\n%s", tc.def, tc.b, tc.c, w.Text)
			}
			w = write(tc.b, tc.bFix)
			if len(w.Diagnostics) != 0 || in(w.Remaining, tc.b) || !in(w.Remaining, tc.c) {
				t.Errorf("fixing %s: want nothing new and %s's error remaining, got:\n%s", tc.b, tc.c, w.Text)
			}
			mustContain(t, w.Text, "remain ("+tc.c+":")
			if !slices.Contains(w.Checked, tc.c) {
				t.Errorf("fixing %s: want %s checked again, checked %v", tc.b, tc.c, w.Checked)
			}
			w = write(tc.c, tc.cFix)
			if len(w.Diagnostics) != 0 || len(w.Remaining) != 0 {
				t.Errorf("fixing %s: want nothing new and nothing remaining, got:\n%s", tc.c, w.Text)
			}
			if got := s.reported.files(); len(got) != 0 {
				t.Errorf("after both fixes, files still held as reported: %v", got)
			}
			// A later write checks c no more: nothing an answer named is
			// left there.
			if err := os.WriteFile(filepath.Join(root, tc.b), []byte(tc.bFix+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := s.DidWrite(ctx, root, []string{tc.b})
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(w.Checked, tc.c) {
				t.Errorf("a write after both fixes: %s is clean, want it left out, got:\n%s", tc.c, w.Text)
			}
		})
	}
}

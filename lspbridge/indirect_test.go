package lspbridge

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestIndirectDependentsCaveat pins F3 of the node-pty and toml
// explorations: a write breaks a file two steps away (c uses b's result,
// whose type comes from a; c neither mentions the changed name nor
// imports a). A server that diagnoses only what it is sent (pyright) is
// sent the direct dependents only, so the answer must say that files
// reaching the change through others were not checked, and how to check
// them. gopls diagnoses the importers of a changed package itself: its
// answer sees c and needs no such caveat.
func TestIndirectDependentsCaveat(t *testing.T) {
	const caveat = "files that reach them only through other files were not"
	tests := []struct {
		name        string
		tools       []string
		tree        string
		file, after string
		far         string // the file two steps away
		wantCaveat  bool
	}{
		{
			name:  "pyright",
			tools: []string{"pyright-langserver", "git"},
			tree: `-- pyrightconfig.json --
{}
-- a.py --
def make() -> int:
    return 1
-- b.py --
from a import make


def get():
    return make()
-- c.py --
from b import get

total: int = get() + 1
`,
			file: "a.py", after: "def make() -> str:\n    return \"1\"\n",
			far: "c.py", wantCaveat: true,
		},
		{
			name:  "gopls",
			tools: []string{"gopls", "go", "git"},
			tree: `-- go.mod --
module example.com/m

go 1.21
-- a/a.go --
package a

type Kind int
-- b/b.go --
package b

import "example.com/m/a"

func New() a.Kind { return 0 }
-- c/c.go --
package c

import "example.com/m/b"

var V = b.New() + 1
`,
			file: "a/a.go", after: "package a\n\ntype Kind string\n",
			far: "c/c.go", wantCaveat: false,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			testutil.Needs(t, tc.tools...)
			root := canonical(t.TempDir())
			testutil.WriteTree(t, root, tc.tree)
			gitCommitAll(t, root)
			s := newSup(t, &Options{DiagnosticCap: time.Minute, ReadyTimeout: time.Minute})
			ctx := indexCtx(t)
			r, err := s.Diagnostics(ctx, Request{Root: root, File: tc.file})
			check(t, r, err, "0 errors and warnings in "+tc.file)
			if err := os.WriteFile(filepath.Join(root, tc.file), []byte(tc.after), 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := s.DidWrite(ctx, root, []string{tc.file})
			if err != nil {
				t.Fatal(err)
			}
			seen := slices.ContainsFunc(append(w.Diagnostics, w.Remaining...), func(d Diag) bool { return d.Path == tc.far })
			if tc.wantCaveat {
				if seen || slices.Contains(w.Checked, tc.far) {
					t.Fatalf("%s was checked: the test no longer needs the caveat; got:\n%s", tc.far, w.Text)
				}
				mustContain(t, w.Text, "only files that mention make or import a.py were checked", caveat, `lsp diagnostics "*" checks the whole project`)
				return
			}
			if !seen {
				t.Errorf("%s's error not seen:\n%s", tc.far, w.Text)
			}
			if strings.Contains(w.Text, caveat) {
				t.Errorf("a caveat for a server that diagnoses dependents:\n%s", w.Text)
			}
		})
	}
}

func TestDependentsNote(t *testing.T) {
	tsc := &ServerConfig{Checker: []string{"tsc", "--noEmit"}}
	tests := []struct {
		name     string
		cfg      *ServerConfig
		names    []string
		imports  bool
		more     int
		indirect bool
		want     string
	}{
		{"all direct ones checked", tsc, []string{"IEvent"}, true, 0, true,
			`only files that mention IEvent or import src/eventEmitter2.ts were checked; files that reach them only through other files were not (lsp diagnostics "*" checks the whole project with tsc)`},
		{"capped", tsc, []string{"IEvent"}, true, 3, true,
			`3 more files mention IEvent and were not checked (cap 8; files that import src/eventEmitter2.ts included), nor were files that reach them only through other files (lsp diagnostics "*" checks the whole project with tsc)`},
		{"many names", &ServerConfig{}, []string{"a1", "b2", "c3", "d4"}, false, 0, true,
			`only files that mention a1, b2, c3, … were checked; files that reach them only through other files were not (lsp diagnostics "*" checks the whole project)`},
		{"a server that diagnoses dependents, capped", tsc, []string{"Set"}, false, 35, false,
			"35 more files mention Set and were not checked (cap 8)"},
		{"a server that diagnoses dependents", tsc, []string{"Set"}, false, 0, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := dependentsNote(tc.cfg, "src/eventEmitter2.ts", tc.names, tc.imports, tc.more, tc.indirect); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

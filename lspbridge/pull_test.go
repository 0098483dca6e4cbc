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

// TestCrossFilePyright: pyright's diagnostics are pulled, so a write's
// answer rests on what pyright checked, not on a quiet window (issue 23
// item 6: at load, a typo was answered "no new errors" after 2 s; issue
// 24 item 3: a dependent's "before" unsettled). The quiet window is set
// to ten minutes: any wait resting on it would end at the cap, unsettled.
// On Debian's PyYAML, Reader.__init__ gains a parameter; the five loader
// classes that call it break. The new errors didWrite reports are checked
// against the pyright CLI's own, after minus before; a revert is answered
// "no new errors", and breaking it again reports the callers again.
func TestCrossFilePyright(t *testing.T) {
	testutil.Needs(t, "pyright-langserver", "pyright")
	root := pyyamlTree(t)
	s := newSup(t, &Options{QuietWindow: 10 * time.Minute, DiagnosticCap: time.Minute, ReadyTimeout: time.Minute})
	// Three writes, each with a minute's bound per pull: at load 8 they
	// ran past testCtx's 60 s.
	ctx := indexCtx(t)
	reader := filepath.Join(root, "yaml", "reader.py")
	orig, err := os.ReadFile(reader)
	if err != nil {
		t.Fatal(err)
	}
	before := pyrightCheck(t, root)
	r, err := s.Diagnostics(ctx, Request{Root: root, File: "yaml/reader.py"})
	check(t, r, err, "in yaml/reader.py")
	srv := s.running(root)
	if len(srv) != 1 || !srv[0].pullsNow() {
		t.Fatalf("pyright did not register pulled diagnostics (servers %d)", len(srv))
	}

	broken := strings.Replace(string(orig), "    def __init__(self, stream):", "    def __init__(self, stream, size):", 1)
	if broken == string(orig) {
		t.Fatal("Reader.__init__ not found in reader.py")
	}
	writeFile(t, reader, broken)
	after := pyrightCheck(t, root)
	want := newFindings(before, after)
	if !slices.ContainsFunc(want, func(f finding) bool { return f.path == "yaml/loader.py" }) {
		t.Fatalf("the oracle (pyright CLI) finds no new error in yaml/loader.py: %v", want)
	}
	w, err := s.DidWrite(ctx, root, []string{"yaml/reader.py"})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"quiet window", "taken as unchanged", "still publishing", "not available yet"} {
		if strings.Contains(w.Text, bad) {
			t.Errorf("the answer rests on a wait, not on pyright's check (%q):\n%s", bad, w.Text)
		}
	}
	var got []finding
	for _, d := range w.Diagnostics {
		got = append(got, finding{path: d.Path, msg: msgKey(d.Message)})
	}
	if !sameFindings(got, want) {
		t.Errorf("new errors after the write:\n got %v\nwant %v (pyright CLI, after minus before)\n%s", got, want, w.Text)
	}

	writeFile(t, reader, string(orig))
	w, err = s.DidWrite(ctx, root, []string{"yaml/reader.py"})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, w.Text, "no new errors or warnings after this write")
	if len(w.Diagnostics) != 0 {
		t.Errorf("the revert reported new diagnostics:\n%s", w.Text)
	}

	writeFile(t, reader, broken)
	w, err = s.DidWrite(ctx, root, []string{"yaml/reader.py"})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, w.Text, "yaml/loader.py:", `Argument missing for parameter "size"`)
}

// newFindings is after minus before, as multisets.
func newFindings(before, after []finding) []finding {
	n := map[finding]int{}
	for _, f := range before {
		n[f]++
	}
	var out []finding
	for _, f := range after {
		if n[f] > 0 {
			n[f]--
			continue
		}
		out = append(out, f)
	}
	return out
}

// sameFindings compares two lists as multisets.
func sameFindings(a, b []finding) bool {
	return len(newFindings(a, b)) == 0 && len(newFindings(b, a)) == 0
}

// TestConstructorCallers: callers of a constructor write its type's name,
// not __init__. A parameter added to Client.__init__ breaks main.py, which
// reaches Client through the package's re-export (it neither imports
// client.py nor mentions __init__, so neither the importers nor a search
// for the member's own name found it).
func TestConstructorCallers(t *testing.T) {
	testutil.Needs(t, "pyright-langserver")
	root := canonical(t.TempDir())
	writeFile(t, filepath.Join(root, "pyproject.toml"), "[project]\nname = \"app\"\nversion = \"0\"\n")
	writeFileAt(t, filepath.Join(root, "pkg", "client.py"), "class Client:\n    def __init__(self, base_url: str) -> None:\n        self.base_url = base_url\n")
	writeFileAt(t, filepath.Join(root, "pkg", "__init__.py"), "from .client import Client\n\n__all__ = [\"Client\"]\n")
	writeFile(t, filepath.Join(root, "main.py"), "from pkg import Client\n\nc = Client(\"http://example\")\n")
	s := newSup(t, &Options{ReadyTimeout: time.Minute, DiagnosticCap: time.Minute})
	ctx := testCtx(t)
	client := filepath.Join(root, "pkg", "client.py")
	r, err := s.Diagnostics(ctx, Request{Root: root, File: "pkg/client.py"})
	check(t, r, err, "0 errors and warnings in pkg/client.py")
	replaceIn(t, client, "def __init__(self, base_url: str) -> None:", "def __init__(self, base_url: str, timeout: float) -> None:")
	w, err := s.DidWrite(ctx, root, []string{"pkg/client.py"})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, w.Text, "main.py:3:", `Argument missing for parameter "timeout"`)
}

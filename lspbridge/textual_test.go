package lspbridge

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
	"github.com/agent-tools/agent-tools/patterns"
)

// grammarIdentifiers is the finder cmd/agent-tools wires: the tree-sitter
// engine's identifier search.
func grammarIdentifiers(ctx context.Context, path, name string) ([]LineCol, bool, error) {
	ps, ok, err := patterns.IdentifierUses(ctx, path, name)
	out := make([]LineCol, len(ps))
	for i, p := range ps {
		out[i] = LineCol{p.Line, p.Column}
	}
	return out, ok, err
}

// pyyamlTree copies the PyYAML package Debian ships (pure Python, not
// written by us) into a project root.
func pyyamlTree(t *testing.T) string {
	t.Helper()
	const src = "/usr/lib/python3/dist-packages/yaml"
	testutil.NeedsFunc(t, "PyYAML in "+src, func() string {
		if _, err := os.Stat(filepath.Join(src, "parser.py")); err != nil {
			return err.Error()
		}
		return ""
	})
	root := canonical(t.TempDir())
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".py") {
			data, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			writeFileAt(t, filepath.Join(root, "yaml", e.Name()), string(data))
		}
	}
	writeFileAt(t, filepath.Join(root, "pyproject.toml"), "[project]\nname = \"y\"\n")
	return root
}

func writeFileAt(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, content)
}

// TestRenameBlindMixin pins item 4 of issue 24 on PyYAML's own code:
// Scanner.peek_token is called as self.peek_token() by Parser, which does
// not inherit Scanner (Loader mixes both in), so pyright's rename edits
// only the definition. The word search finds Parser's uses; the rename is
// refused with them named and nothing written; with ignore_textual it goes
// ahead and still names them, and yaml.safe_load then really breaks.
func TestRenameBlindMixin(t *testing.T) {
	testutil.Needs(t, "pyright-langserver", "python3")
	root := pyyamlTree(t)
	scanner, parser := filepath.Join(root, "yaml", "scanner.py"), filepath.Join(root, "yaml", "parser.py")
	before := map[string]string{}
	for _, p := range []string{scanner, parser} {
		data, _ := os.ReadFile(p)
		before[p] = string(data)
	}
	// Independently of the grammar: the lines of parser.py naming it
	// (none of them in a comment or a string there).
	wantLines := 0
	for _, l := range strings.Split(before[parser], "\n") {
		if regexp.MustCompile(`\bpeek_token\b`).MatchString(l) {
			wantLines++
		}
	}
	if wantLines < 10 {
		t.Fatalf("parser.py names peek_token on %d lines: not the PyYAML this test was written for", wantLines)
	}
	s := newSup(t, &Options{Identifiers: grammarIdentifiers, DiagnosticCap: time.Minute, ReadyTimeout: 2 * time.Minute})
	ctx := testCtx(t)
	req := Request{Root: root, File: "yaml/scanner.py", Line: lineOf(t, scanner, "def peek_token(self):"), Symbol: "peek_token"}
	_, err := s.Rename(ctx, req, "peek_tok")
	if err == nil {
		t.Fatal("the rename went ahead although parser.py calls peek_token through self")
	}
	msg := err.Error()
	mustContain(t, msg, "cannot rename yaml/scanner.py:", "nothing was changed", "ignore_textual",
		"a word search finds "+itoa(wantLines)+" uses of peek_token in 1 file the rename does not touch (yaml/parser.py)",
		"yaml/parser.py:", "self.peek_token()", "… "+itoa(wantLines-textualShown)+" more")
	for p, text := range before {
		if data, _ := os.ReadFile(p); string(data) != text {
			t.Errorf("%s changed although the rename was refused", p)
		}
	}
	load := func() ([]byte, error) {
		cmd := exec.Command("python3", "-c", "import yaml; print(yaml.safe_load('a: [1, 2]'))")
		cmd.Dir = root
		return cmd.CombinedOutput()
	}
	if out, err := load(); err != nil || !strings.Contains(string(out), "{'a': [1, 2]}") {
		t.Fatalf("the copied PyYAML does not load before the rename: %v: %s", err, out)
	}

	req.IgnoreTextual = true
	rr, err := s.Rename(ctx, req, "peek_tok")
	if err != nil {
		t.Fatal(err)
	}
	text := rr.Text()
	if len(rr.Textual) != wantLines || len(rr.Files) != 1 || rr.Files[0].Path != "yaml/scanner.py" {
		t.Errorf("want the server's edit in scanner.py and %d textual uses named, got files %v and %d:\n%s", wantLines, rr.Files, len(rr.Textual), text)
	}
	mustContain(t, strings.SplitN(text, "\n", 3)[1], "warning: a word search finds", "they keep the old name")
	mustContain(t, rr.Warning, "a word search finds "+itoa(wantLines)+" uses of peek_token")
	if out, err := load(); err == nil || !strings.Contains(string(out), "peek_token") {
		t.Errorf("after the forced rename yaml.safe_load should fail on the uses left behind, got %v: %s", err, out)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestRenameTextualGopls: a local's rename is not searched for (b.go's
// own local of the same name is another variable); a function's is, and
// a mention in a comment or a string does not count where the grammar
// reads the file, but does under the plain word search, which says so.
func TestRenameTextualGopls(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := canonical(t.TempDir())
	testutil.WriteTree(t, root, `
-- go.mod --
module example.com/m

go 1.22
-- a.go --
package m

func Helper() int {
	total := 1
	return total + 1
}
-- b.go --
package m

func other() int {
	total := 2
	return total + Helper()
}
-- c.go --
package m

// Helper is described here, and named in a string.
var name = "Helper"
`)
	for _, tc := range []struct {
		name   string
		idents IdentifierFinder
		symbol string
		line   int
		to     string
		refuse string
	}{
		{"local", grammarIdentifiers, "total", 4, "sum", ""},
		{"function with grammar", grammarIdentifiers, "Helper", 3, "Aid", ""},
		{"function by words", nil, "Aid", 3, "Helper", "a word search finds 2 uses of Aid in 1 file the rename does not touch (c.go); no grammar read c.go, so a mention there may be in a comment or string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "function by words" {
				// c.go mentions the current name.
				writeFile(t, filepath.Join(root, "c.go"), "package m\n\n// Aid is described here, and named in a string.\nvar name = \"Aid\"\n")
			}
			s := newSup(t, &Options{Identifiers: tc.idents})
			rr, err := s.Rename(testCtx(t), Request{Root: root, File: "a.go", Line: tc.line, Symbol: tc.symbol}, tc.to)
			if tc.refuse != "" {
				if err == nil {
					t.Fatalf("renamed although c.go mentions %s:\n%s", tc.symbol, rr.Text())
				}
				mustContain(t, err.Error(), tc.refuse, "c.go:3  // Aid is described here", "c.go:4  var name = \"Aid\"")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rr.Textual) != 0 {
				t.Errorf("textual uses named for %s: %v", tc.symbol, rr.Textual)
			}
		})
	}
}

func TestWordLines(t *testing.T) {
	for _, tc := range []struct {
		text, name string
		want       []int
	}{
		{"peek_token()\nx.peek_token\npeek_tokens\n_peek_token\n", "peek_token", []int{1, 2}},
		{"$peek peek$ peek\n\npeek(peek)", "peek", []int{1, 3}},
		{"héllo\nhéllox", "héllo", []int{1}},
		{"", "x", nil},
	} {
		if got := wordLines(tc.text, tc.name); !slices.Equal(got, tc.want) {
			t.Errorf("wordLines(%q, %q) = %v, want %v", tc.text, tc.name, got, tc.want)
		}
	}
}

// TestRenameBlindObjectAssign: a minimal reproduction of the JavaScript
// mixin idiom (Object.assign(Animal.prototype, Walker)): tsserver does not
// link a.walk() in main.js to Walker.walk, so its rename edits mixin.js
// alone; the word search finds main.js's call, not its comment or string.
func TestRenameBlindObjectAssign(t *testing.T) {
	testutil.Needs(t, "typescript-language-server")
	root := canonical(t.TempDir())
	testutil.WriteTree(t, root, `
-- package.json --
{"name": "mx", "version": "1.0.0", "private": true, "type": "module"}
-- mixin.js --
export const Walker = {
  walk() { return "walking"; },
};
-- animal.js --
import { Walker } from "./mixin.js";

export class Animal {}
Object.assign(Animal.prototype, Walker);
-- main.js --
import { Animal } from "./animal.js";

const a = new Animal();
// walk is mixed in
console.log(a.walk(), "walk");
`)
	s := newSup(t, &Options{Identifiers: grammarIdentifiers})
	req := Request{Root: root, File: "mixin.js", Line: 2, Symbol: "walk"}
	_, err := s.Rename(testCtx(t), req, "stroll")
	if err == nil {
		t.Fatal("the rename went ahead although main.js calls walk through the mixin")
	}
	mustContain(t, err.Error(), "a word search finds 1 use of walk in 1 file the rename does not touch (main.js)", "main.js:5  console.log(a.walk(), \"walk\");")
	if strings.Contains(err.Error(), "main.js:4") {
		t.Errorf("the comment in main.js was counted:\n%v", err)
	}
}

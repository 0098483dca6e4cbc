package patterns

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/atomicfile"
	"github.com/google/go-cmp/cmp"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func readFile(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rewriteOne searches src (as file name) and returns the rewritten text.
func rewriteOne(t *testing.T, name, src, pattern, template string) string {
	t.Helper()
	root := writeTree(t, map[string]string{name: src})
	res, err := Search(context.Background(), root, pattern, SearchOptions{Path: name, KeepSource: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 {
		t.Fatalf("no match for %q in %s", pattern, name)
	}
	out, _ := Rewrite(&res.Files[0], template)
	return string(out)
}

// substituteSpan fills tmpl for the match s of src as Rewrite does (its
// $$$ captures widened over the comments beside them), without the
// file's indent unit.
func substituteSpan(l *Language, tmpl string, src []byte, s Span) string {
	fc := &fileComments{lang: l, src: src}
	return substitute(tmpl, src, s.Start, fc.widen(s, s.End-s.keep), fc)
}

func TestRewrite(t *testing.T) {
	tests := []struct {
		name, file, src, pattern, template, want string
	}{
		{
			name:     "go tabs: template in spaces becomes tabs, multi-line $$$ re-indented",
			file:     "a.go",
			src:      "package p\n\nfunc f() {\n\tif err != nil {\n\t\tcleanup()\n\t\treturn err\n\t}\n}\n",
			pattern:  "if err != nil { $$$BODY }",
			template: "if err != nil {\n    log.Print(err)\n    $$$BODY\n}",
			want:     "package p\n\nfunc f() {\n\tif err != nil {\n\t\tlog.Print(err)\n\t\tcleanup()\n\t\treturn err\n\t}\n}\n",
		},
		{
			name:     "python spaces: multi-line capture moved one level deeper",
			file:     "a.py",
			src:      "def f():\n    if x:\n        a()\n        b()\n",
			pattern:  "if $C: $$$BODY",
			template: "if $C:\n    try:\n        $$$BODY\n    finally:\n        done()",
			want:     "def f():\n    if x:\n        try:\n            a()\n            b()\n        finally:\n            done()\n",
		},
		{
			name: "nested matches: the outermost wins",
			file: "a.py", src: "f(f(1))\n", pattern: "f($X)", template: "g($X)",
			want: "g(f(1))\n",
		},
		{
			name: "only the matched span is replaced, not skipped trailing children",
			file: "a.py", src: "if a is None:\n    x()\nelse:\n    y()\n", pattern: "if $A is None: $B", template: "if $A is not None: $B",
			want: "if a is not None: x()\nelse:\n    y()\n",
		},
		{
			name: "literal dollar and unbound metavariable",
			file: "a.js", src: "foo(1);\n", pattern: "foo($X)", template: "bar($X, '$5', $Y)",
			want: "bar(1, '$5', );\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rewriteOne(t, tt.file, tt.src, tt.pattern, tt.template)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("rewrite (-want +got):\n%s", diff)
			}
		})
	}
}

func stageIn(t *testing.T, s *Stager, root, pattern, template string) *Staged {
	t.Helper()
	res, err := Search(context.Background(), root, pattern, SearchOptions{Language: "go", KeepSource: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Stage(res, template, false)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

var threeFiles = map[string]string{
	"a.go": "package p\n\nvar a = old(1)\n",
	"b.go": "package p\n\nvar b = old(2)\n",
	"c.go": "package p\n\nvar c = old(3)\n",
}

func TestResolveAccept(t *testing.T) {
	root := writeTree(t, threeFiles)
	s := NewStager()
	st := stageIn(t, s, root, "old($X)", "fresh($X)")
	if st.ID != "edit_1" || st.Replacements != 3 || len(st.Files) != 3 {
		t.Fatalf("staged %s with %d replacements in %d files", st.ID, st.Replacements, len(st.Files))
	}
	if got := readFile(t, root, "a.go"); got != threeFiles["a.go"] {
		t.Fatalf("staging wrote a.go: %q", got)
	}
	wantDiff := "--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n package p\n \n-var a = old(1)\n+var a = fresh(1)\n"
	if diff := cmp.Diff(wantDiff, st.Files[0].Diff); diff != "" {
		t.Errorf("diff (-want +got):\n%s", diff)
	}
	if _, err := s.Resolve("edit_1", "accept"); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.go", "b.go", "c.go"} {
		if got, want := readFile(t, root, n), strings.Replace(threeFiles[n], "old", "fresh", 1); got != want {
			t.Errorf("%s = %q, want %q", n, got, want)
		}
	}
	if _, err := s.Resolve("edit_1", "accept"); err == nil || !strings.Contains(err.Error(), "already accepted") {
		t.Errorf("second accept: %v", err)
	}
	if _, err := s.Resolve("edit_9", "accept"); err == nil || !strings.Contains(err.Error(), `unknown edit_id "edit_9"`) {
		t.Errorf("unknown id: %v", err)
	}
}

func TestResolveRejectsDrift(t *testing.T) {
	root := writeTree(t, threeFiles)
	s := NewStager()
	stageIn(t, s, root, "old($X)", "fresh($X)")
	drifted := "package p\n\nvar b = old(22)\n"
	os.WriteFile(filepath.Join(root, "b.go"), []byte(drifted), 0o644)
	_, err := s.Resolve("edit_1", "accept")
	if err == nil || !strings.Contains(err.Error(), "b.go changed on disk since it was staged; nothing was written") {
		t.Fatalf("accept after drift: %v", err)
	}
	for n, want := range map[string]string{"a.go": threeFiles["a.go"], "b.go": drifted, "c.go": threeFiles["c.go"]} {
		if got := readFile(t, root, n); got != want {
			t.Errorf("%s = %q, want %q (untouched)", n, got, want)
		}
	}
	if _, err := s.Resolve("edit_1", "accept"); err == nil || !strings.Contains(err.Error(), "already rejected") {
		t.Errorf("accept after rejection: %v", err)
	}
}

func TestResolveRollsBackFailedWrite(t *testing.T) {
	root := writeTree(t, threeFiles)
	s := NewStager()
	st := stageIn(t, s, root, "old($X)", "fresh($X)")
	atomicfile.BeforeReplace = func(path string) error {
		if filepath.Base(path) == "c.go" {
			return errors.New("disk full")
		}
		return nil
	}
	defer func() { atomicfile.BeforeReplace = nil }()
	_, err := s.Resolve(st.ID, "accept")
	if err == nil || !strings.Contains(err.Error(), "c.go: disk full; the 2 file(s) already replaced were restored, so nothing was changed") {
		t.Fatalf("accept with a failing third write: %v", err)
	}
	for n, want := range threeFiles {
		if got := readFile(t, root, n); got != want {
			t.Errorf("%s = %q, want %q (rolled back)", n, got, want)
		}
	}
}

func TestResolveDiscard(t *testing.T) {
	root := writeTree(t, threeFiles)
	s := NewStager()
	stageIn(t, s, root, "old($X)", "fresh($X)")
	if _, err := s.Resolve("edit_1", "discard"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, root, "a.go"); got != threeFiles["a.go"] {
		t.Errorf("discard wrote a.go: %q", got)
	}
	if _, err := s.Resolve("edit_1", "accept"); err == nil || !strings.Contains(err.Error(), "already discarded") {
		t.Errorf("accept after discard: %v", err)
	}
}

func TestSearchWorkspace(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gitignore":          "gen/\n*.pb.go\n!keep.pb.go\n",
		"a.go":                "package p\nvar _ = f(1)\n",
		"gen/b.go":            "package p\nvar _ = f(2)\n",
		"x.pb.go":             "package p\nvar _ = f(3)\n",
		"keep.pb.go":          "package p\nvar _ = f(4)\n",
		"node_modules/m/c.js": "f(5)\n",
		".hidden/d.go":        "package p\nvar _ = f(6)\n",
		"sub/e.py":            "f(7)\n",
		"sub/.gitignore":      "ignored.py\n",
		"sub/ignored.py":      "f(8)\n",
		"bin.go":              "package p\x00\nvar _ = f(9)\n",
		"web/app.js":          "f(10);\n",
	})
	res, err := Search(context.Background(), root, "f($X)", SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Files {
		for _, m := range f.Matches {
			got = append(got, f.Path+":"+m.Text)
		}
	}
	want := []string{"a.go:f(1)", "keep.pb.go:f(4)", "sub/e.py:f(7)", "web/app.js:f(10)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
	if _, err := Search(context.Background(), root, "f($X)", SearchOptions{Path: "../"}); err == nil || !strings.Contains(err.Error(), "outside the workspace root") {
		t.Errorf("path ../: %v", err)
	}
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(root, "link"))
	if _, err := Search(context.Background(), root, "f($X)", SearchOptions{Path: "link"}); err == nil || !strings.Contains(err.Error(), "outside the workspace root") {
		t.Errorf("symlink out: %v", err)
	}
	if _, err := Search(context.Background(), root, "f(", SearchOptions{}); err == nil || !strings.Contains(err.Error(), "does not parse in any language") {
		t.Errorf("unparseable everywhere: %v", err)
	}
	if _, err := Search(context.Background(), root, "f($X)", SearchOptions{Path: "README"}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing file: %v", err)
	}
}

// TestTerminatorInMatch: a statement's ';' the pattern does not spell is
// part of the match (as in ast-grep), and a rewrite keeps it unless the
// template ends with one.
func TestTerminatorInMatch(t *testing.T) {
	src := "const a = f(1);\nconst b = g(2) /* c */ ;\nlet c = 3\n"
	root := writeTree(t, map[string]string{"a.js": src})
	res, err := Search(context.Background(), root, "const $X = $Y", SearchOptions{Path: "a.js", KeepSource: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Files {
		for _, m := range f.Matches {
			got = append(got, src[m.Start:m.End])
		}
	}
	if want := []string{"const a = f(1);", "const b = g(2) /* c */ ;"}; !cmp.Equal(got, want) {
		t.Errorf("matches %q, want %q", got, want)
	}
	for template, want := range map[string]string{
		"let $X = $Y":  "let a = f(1);\nlet b = g(2) /* c */ ;\nlet c = 3\n",
		"let $X = $Y;": "let a = f(1);\nlet b = g(2);\nlet c = 3\n",
	} {
		if out := rewriteOne(t, "a.js", src, "const $X = $Y", template); out != want {
			t.Errorf("rewrite %q:\n%s\nwant\n%s", template, out, want)
		}
	}
	// A pattern that spells the ';' consumes it as before.
	if out := rewriteOne(t, "a.js", src, "const $X = $Y;", "let $X = $Y;"); out != "let a = f(1);\nlet b = g(2);\nlet c = 3\n" {
		t.Errorf("rewrite with ';' spelled: %q", out)
	}
}

// Template text after a capture that ends in a line comment goes on the
// next line, not into the comment (soak seed 77 of
// TestGeneratedRewriteDifferential: Scala def $A = $B → ($B $A) wrote
// scalaLibFound inside the body's last // line).
func TestRewriteAfterLineComment(t *testing.T) {
	for _, c := range []struct{ file, src, pattern, template, want string }{
		{"a.scala", "object O {\n  def found =\n    if (x.isFile) x.path\n    else \"\"\n  // and then again here.\n  def next = \"\"\n}\n",
			"def found = $B", "def found = ($B orElse y)",
			// The def's node holds the blanks up to the next one; they
			// stay (ast-grep glues its replacement to def next). The body
			// goes after the template's '(' (its own line only after
			// text that ends as the code's before it did, the '=').
			"object O {\n  def found = (if (x.isFile) x.path\n  else \"\"\n  // and then again here.\n   orElse y)\n  def next = \"\"\n}\n"},
		{"a.py", "while x:\n    f()  # c\n", "while $C: $B", "while $C: $B; g()", "while x: f()  # c\n; g()\n"},
		// A '#' in a string is no comment: the text stays on its line.
		{"a.py", "while x:\n    f(\"#\")\n", "while $C: $B", "while $C: $B; g()", "while x: f(\"#\"); g()\n"},
	} {
		got := rewriteOne(t, c.file, c.src, c.pattern, c.template)
		if got != c.want {
			t.Errorf("%s %q → %q:\n got  %q\n want %q", c.file, c.pattern, c.template, got, c.want)
		}
	}
}

// The file's indent unit comes from its blocks, not from its least
// indented line: a continuation line inside brackets or after a '\'
// (a tuple's 3-space item, a macro's 2-space body) does not count.
func TestBlockIndentUnit(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"python continuation in brackets", "x = (\n   1,\n)\ndef f(t):\n    a = 1\n    return t\n", "    "},
		{"C macro body after a backslash", "#define CHECK(x)  \\\n  do { } while (0)\n\nint f(int err) {\n    int a = 1;\n    if (err) return (err);\n    return a;\n}\n", "    "},
		{"two spaces throughout", "function f(a) {\n  if (a) {\n    g(a,\n        b)\n  }\n}\n", "  "},
		{"tabs", "func f() {\n\tif x {\n\t\ty()\n\t}\n}\n", "\t"},
		{"javadoc lines are no step", "/**\n * doc\n */\nclass A {\n  void f() {\n    g();\n  }\n}\n", "  "},
		{"no dominant step: no guess", "a:\n  b\nc:\n    d\n", ""},
		{"nothing indented", "a\nb\n", ""},
		{"a '(' in a string or comment is no continuation", "s = \"(\"  # (\nif a:\n  b\nif c:\n  d\n", "  "},
	} {
		if got := blockIndentUnit(c.text, nil); got != c.want {
			t.Errorf("%s: blockIndentUnit = %q, want %q", c.name, got, c.want)
		}
	}
}

// Rewrites keep the file's real indentation (the odd lines of
// TestBlockIndentUnit no longer set it), a captured body's lines keep
// their indentation relative to each other, and a multi-line string's
// lines stay as they are.
func TestRewriteIndentation(t *testing.T) {
	for _, c := range []struct{ name, file, src, pattern, template, want string }{
		{"python: a 3-space continuation line does not make the body 3 spaces (ply/cpp.py)", "a.py",
			"x = (\n   1,\n)\ndef f(t):\n    a = 1\n    return t\n",
			"def $F($$$A):\n    $$$B", "def $F($$$A):\n    log()\n    $$$B",
			"x = (\n   1,\n)\ndef f(t):\n    log()\n    a = 1\n    return t\n"},
		{"C: a macro's 2-space body does not make the file 2 spaces (lz4 checkFrame.c)", "a.c",
			"#define CHECK(x)  \\\n  do { } while (0)\n\nint f(int err) {\n    int a = 1;\n    if (err) return (err);\n    return a;\n}\n",
			"if ($C) return $X;", "if ($C) {\n    return $X;\n}",
			"#define CHECK(x)  \\\n  do { } while (0)\n\nint f(int err) {\n    int a = 1;\n    if (err) {\n        return (err);\n    }\n    return a;\n}\n"},
		{"a 2-space file still gets its own unit", "a.js",
			"function f(a) {\n  if (a) {\n    g()\n  }\n}\n",
			"if ($C) { $$$B }", "if ($C) {\n    debug()\n    $$$B\n}",
			"function f(a) {\n  if (a) {\n    debug()\n    g()\n  }\n}\n"},
		{"relative indentation inside the body is kept", "a.py",
			"def f(t):\n    if t:\n        a = 1\n    return t\n",
			"def $F($$$A):\n    $$$B", "def $F($$$A):\n    try:\n        $$$B\n    finally:\n        done()",
			"def f(t):\n    try:\n        if t:\n            a = 1\n        return t\n    finally:\n        done()\n"},
		{"a multi-line string's lines stay put", "a.py",
			"class A:\n    def f(t):\n        x = \"\"\"\nraw\n  two\n\"\"\"\n        return t\n",
			"def $F($$$A):\n    $$$B", "def $F($$$A):\n    if True:\n        $$$B",
			"class A:\n    def f(t):\n        if True:\n            x = \"\"\"\nraw\n  two\n\"\"\"\n            return t\n"},
		{"a YAML block scalar's lines move with its key (no string)", "a.yaml",
			"jobs:\n  build:\n    run: |\n      echo hi\n    x: 1\n",
			"build: $$$B", "build:\n  wrapped:\n    $$$B",
			"jobs:\n  build:\n    wrapped:\n      run: |\n        echo hi\n      x: 1\n"}, // the file's last line break, which the block's node holds, stays
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := rewriteOne(t, c.file, c.src, c.pattern, c.template); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// The matcher passes over comments, but a rewrite keeps them: a $$$
// capture's text takes the comments between it and its neighbouring
// pattern elements, and an empty $$$ the comments where it stands.
func TestRewriteKeepsComments(t *testing.T) {
	for _, c := range []struct{ name, file, src, pattern, template, want string }{
		{"javascript: leading, middle and trailing comments of a block", "a.js",
			"if (a) {\n  // lead\n  x()\n  // mid\n  y()\n  // trail\n}\n",
			"if ($C) { $$$B }", "if ($C) {\n  debug()\n  $$$B\n}",
			"if (a) {\n  debug()\n  // lead\n  x()\n  // mid\n  y()\n  // trail\n}\n"},
		{"javascript: a block of comments only", "a.js",
			"if (a) {\n  // only\n    // indented\n}\n",
			"if ($C) { $$$B }", "if ($C) {\n  debug()\n  $$$B\n}",
			"if (a) {\n  debug()\n  // only\n    // indented\n}\n"},
		{"python: a leading comment in a function body", "a.py",
			"def f(t):\n    # lead\n    a = 1\n    return t\n",
			"def $F($$$A):\n    $$$B", "def $F($$$A):\n    log()\n    $$$B",
			"def f(t):\n    log()\n    # lead\n    a = 1\n    return t\n"},
		{"go: a leading comment in an if body", "a.go",
			"package p\n\nfunc f() error {\n\tif err != nil {\n\t\t// why\n\t\treturn err\n\t}\n\treturn nil\n}\n",
			"if err != nil { $$$B }", "if err != nil {\n\tlog.Print(err)\n\t$$$B\n}",
			"package p\n\nfunc f() error {\n\tif err != nil {\n\t\tlog.Print(err)\n\t\t// why\n\t\treturn err\n\t}\n\treturn nil\n}\n"},
		{"php: comments in array() become comments in []", "a.php",
			"<?php\n$x = array(\n    // one\n    1,\n    2, // two\n    // three\n);\n",
			"array($$$A)", "[$$$A]",
			// The ']' goes after the line comment, not into it.
			"<?php\n$x = [// one\n1,\n2, // two\n// three\n];\n"},
		{"a trailing comment on the opening line stays with the body", "a.js",
			"if (a) { // lead\n  x()\n}\n",
			"if ($C) { $$$B }", "if ($C) {\n  debug()\n  $$$B\n}",
			"if (a) {\n  debug()\n  // lead\n  x()\n}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := rewriteOne(t, c.file, c.src, c.pattern, c.template); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// A rewrite whose file's comments cannot be read (the whole-file parse
// that finds them stops at its budget, where the search read only the
// statements it needed) says that the comments it deletes there are not
// known, in the answer's words, instead of listing none.
func TestRewriteSaysWhenCommentsUnread(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "def f%d(a):\n    # why %d\n    return g(a, %d)\n", i, i, i)
	}
	root := writeTree(t, map[string]string{"a.py": b.String()})
	res, err := Search(context.Background(), root, "g($A, $B)", SearchOptions{Language: "python", KeepSource: true})
	if err != nil || res.Total != 3000 {
		t.Fatalf("search: %v, %d matches", err, res.Total)
	}
	fm := &res.Files[0]
	if _, _, unread := rewrite(nil, fm, "h($B)"); unread {
		t.Fatalf("the comments were unread with the usual budget")
	}
	defer func(d time.Duration) { parseBudgetBase = d }(parseBudgetBase)
	parseBudgetBase = time.Microsecond - time.Duration(len(fm.Src))*5*time.Microsecond // see parseBudget
	_, reps, unread := rewrite(nil, fm, "h($B)")
	if !unread || len(reps) != 3000 {
		t.Fatalf("with a parse that cannot finish: unread %v, %d replacements; want true, 3000", unread, len(reps))
	}
	text := EditResult{EditID: "edit_1", Replacements: len(reps), CommentsUnread: []string{fm.Path}}.Text()
	if !strings.Contains(text, "warning: the comments of 1 file could not be read") || !strings.Contains(text, "a.py") {
		t.Errorf("the answer does not say the comments are unknown:\n%s", text)
	}
}

// A rewrite that parses, in a file whose original cannot be parsed again
// to compare the two (the search may have read only the statements it
// needed), is staged, and the answer says its replacements were not read
// with the code around them instead of passing it as checked.
func TestRewriteSaysWhenJoinsUnchecked(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "def f%d(a):\n    return g(a, %d)\n", i, i)
	}
	root := writeTree(t, map[string]string{"a.py": b.String()})
	res, err := Search(context.Background(), root, "g($A, $B)", SearchOptions{Language: "python", KeepSource: true})
	if err != nil || res.Total != 3000 {
		t.Fatalf("search: %v, %d matches", err, res.Total)
	}
	// The rewrite makes each call longer: its parse gets the budget of
	// that length beyond the original's (see parseBudget), which is
	// left none.
	template := "h($B, " + strconv.Quote(strings.Repeat("x", 200)) + ")"
	st, err := NewStager().Stage(res, template, false)
	if err != nil || len(st.JoinsUnchecked) != 0 {
		t.Fatalf("with the usual budget: %v, joins unchecked in %v", err, st.JoinsUnchecked)
	}
	defer func(d time.Duration) { parseBudgetBase = d }(parseBudgetBase)
	parseBudgetBase = time.Microsecond - time.Duration(len(res.Files[0].Src))*5*time.Microsecond
	st, err = NewStager().Stage(res, template, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.JoinsUnchecked, []string{"a.py"}) || st.Replacements != 3000 {
		t.Fatalf("with an original that cannot be parsed again: joins unchecked in %v, %d replacements; want [a.py], 3000", st.JoinsUnchecked, st.Replacements)
	}
	text := EditResult{EditID: st.ID, Replacements: st.Replacements, JoinsUnchecked: st.JoinsUnchecked}.Text()
	if !strings.Contains(text, "warning: the rewrite of 1 file parses, but could not be compared with the original") || !strings.Contains(text, "a.py") {
		t.Errorf("the answer does not say the joins went unchecked:\n%s", text)
	}
}

// A comment that no placed capture carries is deleted by the rewrite,
// and the staged edit says so (the answer's note).
func TestStageReportsDroppedComments(t *testing.T) {
	root := writeTree(t, map[string]string{"a.go": "package p\n\nfunc f() {\n\tg(a /* first */, b) // keep\n\tg(c, d)\n}\n"})
	st := stageIn(t, NewStager(), root, "g($A, $B)", "h($B)")
	want := []DroppedComment{{Path: "a.go", Line: 4, Text: "/* first */"}}
	if diff := cmp.Diff(want, st.Dropped); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	text := EditResult{EditID: st.ID, DroppedComments: st.Dropped}.Text()
	if !strings.Contains(text, "note: the rewrite deletes 1 comment that no metavariable carries") || !strings.Contains(text, "a.go:4 /* first */") {
		t.Errorf("the answer does not name the dropped comment:\n%s", text)
	}
	// A rewrite that places every capture drops nothing.
	root = writeTree(t, map[string]string{"a.go": "package p\n\nfunc f() {\n\tg(a /* first */, b)\n}\n"})
	if st := stageIn(t, NewStager(), root, "g($$$A)", "h($$$A)"); len(st.Dropped) != 0 {
		t.Errorf("dropped %v, want none", st.Dropped)
	}
}

// TestRewriteKeepsBlocksOnTheirLines: in a language whose blocks are
// told apart by indentation, a block that started its own line stays on
// one where the template writes it after other text, the template's
// lines go under the match's column, and the blanks that close the
// replaced text stay. Found when the identity rewrite test took in
// Python, YAML and Scala: if not ($C): $$$B moved the if's first
// statement onto its line and left the second after the if (the file
// still parsed: the meaning changed), YAML's $A: $B wrote env: node:
// true, and a key's list lost the file's last line break.
func TestRewriteKeepsBlocksOnTheirLines(t *testing.T) {
	runRewriteCases(t, []rewriteCase{
		{"python if body", "a.py", "def f(x):\n    if x:\n        a = 1\n        b = 2\n    return a\n",
			"if $C: $$$B", "if not ($C): $$$B", "def f(x):\n    if not (x):\n        a = 1\n        b = 2\n    return a\n"},
		{"python one-line body stays where the template puts it", "a.py", "if x:\n    a = 1\n",
			"if $C: $B", "if not ($C): $B", "if not (x): a = 1\n"},
		{"python brackets: only layout", "a.py", "y = f(\n    a +\n    b)\n",
			"f($A)", "g($A)", "y = g(a +\nb)\n"}, // not moved to a line of its own; re-indented as anywhere
		{"yaml mapping value, its comment and the last line break", "a.yaml", "env:\n  # why\n  node: true\n  browser: true\nlist:\n  - a\n",
			"env: $B", "environment: $B", "environment:\n  # why\n  node: true\n  browser: true\nlist:\n  - a\n"},
		{"yaml one-line list under its key", "a.yaml", "name: x\nlist:\n- a\n",
			"list: $B", "items: $B", "name: x\nitems:\n- a\n"},
		{"yaml entry after a dash", "a.yaml", "- name: x\n  val: 1\n- other: 2\n",
			"name: $A", "name: $A\nnote: renamed", "- name: x\n  note: renamed\n  val: 1\n- other: 2\n"},
		// Soak seed 1796668603291719588: a one-line block that is a
		// compound statement (a typeshed stub's def) cannot follow the
		// header; a header whose brackets span lines, or that goes on
		// after a '\', is indented as its first line.
		{"python one-line def under if", "a.pyi", "import sys\nif sys.version_info < (3, 15):\n    def label(code: str) -> int: ...  # undocumented\n",
			"if $C: $$$B", "if ($C): $$$B", "import sys\nif (sys.version_info < (3, 15)):\n    def label(code: str) -> int: ...  # undocumented\n"},
		{"python header over bracketed lines", "a.py", "def f(header):\n    for bom, enc in (\n        (A, \"a\"),\n        (B, \"b\"),\n        ):\n        if not header.startswith(bom):\n            continue\n",
			"for $X in $Y: $$$B", "for $X in ($Y): $$$B",
			"def f(header):\n    for bom, enc in ((\n        (A, \"a\"),\n        (B, \"b\"),\n        )):\n        if not header.startswith(bom):\n            continue\n"},
		{"python header after a backslash", "a.py", "while a and \\\n  b:\n    x = 1\n    y = 2\n",
			"while $C: $$$B", "while ($C): $$$B", "while (a and \\\n  b):\n    x = 1\n    y = 2\n"},
		// Soak seed 1796673055516294460 (tree-sitter-python's highlight
		// tests): comments at column 0 inside the blocks. The block's
		// indentation is its code's, and the elif after it stays.
		{"python comment at column 0 in the block", "a.py", "if foo():\n# <- keyword\n    pass\nelif bar():\n# <- keyword\n    pass\n",
			"if $C: $$$B", "if ($C): $$$B", "if (foo()):\n    # <- keyword\n    pass\nelif bar():\n# <- keyword\n    pass\n"},
		{"scala lambda's trailing blanks", "a.scala", "object O {\n  xs.map:\n    p =>\n      p + 1\n\n  val y = 2\n}\n",
			"$A =>\n  $A + 1\n\n  ", "$A =>\n  $A + 2\n\n  ", "object O {\n  xs.map:\n    p =>\n      p + 2\n\n  val y = 2\n}\n"},
	})
}

// TestRewriteBlockRuleStaysOut: where the rule of
// TestRewriteKeepsBlocksOnTheirLines must not fire (a review found each
// firing): the capture starts the match, sits in brackets, follows a
// line that goes on with a '\', or the template writes other text than
// the code's before it. Each result parses and means what the code did.
func TestRewriteBlockRuleStaysOut(t *testing.T) {
	runRewriteCases(t, []rewriteCase{
		{"python capture that starts the match", "a.py", "async def f(x):\n    if x:\n        open_conn(a,\n                  b).close()\n",
			"$C.close()", "await $C.aclose()", "async def f(x):\n    if x:\n        await open_conn(a,\n                  b).aclose()\n"},
		{"python backslash line", "a.py", "x = 1 + \\\n    foo(a,\n        b)\n",
			"$A + $B", "$A - $B", "x = 1 - foo(a,\n    b)\n"},
		{"python in brackets", "a.py", "result = list(items +\n              extra(a,\n                    b))\n",
			"list($A + $B)", "$A + $B", "result = items + extra(a,\n      b)\n"},
		{"yaml key renamed, value on its line", "a.yaml", "a:\n  b: 1\n  c: 2\n",
			"$K: 1", "new_$K: 1", "a:\n  new_b: 1\n  c: 2\n"},
		{"yaml quoted value", "a.yaml", "key:\n  value\nother: 1\n",
			"key: $B", "key: \"$B\"", "key: \"value\"\nother: 1\n"},
		{"yaml comment before a value the template quotes stays out of the quotes", "a.yaml", "key:\n  # why\n  value\nother: 1\n",
			"key: $B", "key: \"$B\"", "key: \"value\"\nother: 1\n"},
		{"yaml value after a dash's key keeps its column", "a.yaml", "steps:\n- env:\n    a: 1\n  run: x\n",
			"env: $B", "environment: $B", "steps:\n- environment:\n    a: 1\n  run: x\n"},
		{"haskell module at the file's start after blanks", "a.hs", "  \nmodule M where\nf x = x\n",
			// The grammar's root starts at the file's first byte: the match
			// does too (this panicked when the match began in blanks).
			"module $M where $$$B", "module $M (f) where $$$B", "module M (f) where f x = x\n"},
	})
}

// rewriteCase is a file, a pattern, its template and the file it should
// become.
// TestRewriteCaptureLeavesItsContinuation: a capture ends before a '\'
// that continues its last line (soak seed 1796668603291719588: libuv's
// #define whose body ends with '\' and a blank line); with the '\' it
// joined the template's next text to the code after the match.
func TestRewriteCaptureLeavesItsContinuation(t *testing.T) {
	src := "#ifndef X_H\n#define X_H\n\n#define FIELDS  \\\n  struct pollfd* fds;  \\\n  size_t used;  \\\n\n#endif /* X_H */\n"
	runRewriteCases(t, []rewriteCase{
		{"identity", "a.h", src, "#define $A $B\n", "#define $A $B\n",
			"#ifndef X_H\n#define X_H\n\n#define FIELDS struct pollfd* fds;  \\\nsize_t used;\n#endif /* X_H */\n"},
		{"in parentheses", "a.h", src, "#define $A $B\n", "#define $A ($B)\n",
			"#ifndef X_H\n#define X_H\n\n#define FIELDS (struct pollfd* fds;  \\\nsize_t used;)\n#endif /* X_H */\n"},
	})
}

// TestRewriteTemplateSemicolonBeforeTheCodes: a template's closing ';'
// is not written before the ';' that follows the match in the code (soak
// seed 1796668792384994763: a union in a Linux struct, whose ';' is the
// field declaration's, became union {…};;).
func TestRewriteTemplateSemicolonBeforeTheCodes(t *testing.T) {
	runRewriteCases(t, []rewriteCase{
		{"c union in a struct", "a.c", "struct msg {\n\tunion {\n\t\tstruct hdr\th;\n\t\tint error;\n\t};\n\tint x;\n};\n",
			"union {\n\tstruct hdr\th;\n\tint $A;\n};", "union {\n\tstruct hdr\th;\n\tint $A;\n};",
			"struct msg {\n\tunion {\n\t\tstruct hdr\th;\n\t\tint error;\n\t};\n\tint x;\n};\n"},
		{"expression whose statement ends after it", "a.c", "void f(void) { x = foo(1); }\n",
			"foo($A)", "bar($A);", "void f(void) { x = bar(1); }\n"},
		{"bash case arm", "a.sh", "case $x in\n  a) echo one;;\nesac\n",
			"echo $A", "printf '%s\\n' $A;", "case $x in\n  a) printf '%s\\n' one;;\nesac\n"},
		{"the code has none: the template's stays", "a.c", "void f(void) { if (a) foo(1); }\n",
			"if ($C) $S", "if ($C) { $S; }", "void f(void) { if (a) { foo(1);; } }\n"},
	})
}

// TestRewriteStringLinesStayAsWritten: a line of the template, or of a
// capture, that starts inside a string's text is that text, and gets no
// indentation; a capture of a string's text keeps its last line whole (the JavaScript identity soak, seed 1796670761523244705,
// read with the TypeScript compiler's parser: a template literal's
// ${value} line, written under an indented match, was indented).
func TestRewriteStringLinesStayAsWritten(t *testing.T) {
	runRewriteCases(t, []rewriteCase{
		{"javascript template literal in the template", "a.js", "function f() {\n  x = a ? value : `${data}\n${value}`;\n}\n",
			"$A = $C ? value : `${data}\n${value}`", "$A = $C ? value : `${data}\n${value}`",
			"function f() {\n  x = a ? value : `${data}\n${value}`;\n}\n"},
		{"python triple-quoted string in the template", "a.py", "def f():\n    g(1)\n",
			"g($A)", "g($A, \"\"\"one\ntwo\"\"\")", "def f():\n    g(1, \"\"\"one\ntwo\"\"\")\n"},
		// The rewrite differential, soak seed 1796671265926572728: a
		// string's text whose last line is a '\' and blanks before the
		// closing quote is its value, kept whole by $A (as ast-grep
		// keeps it), with CRLF line ends too.
		{"python string text ending in a continuation", "a.py", "x = g(\r\n    '\\n\\\r\n    dog.\\n\\\r\n    ')\r\n",
			"'$A'", "$A", "x = g(\r\n    \\n\\\r\n    dog.\\n\\\r\n    )\r\n"},
		// Soak seed 1796676010190612560: a docstring's text under a $$$
		// lost the line break and indentation before its closing quotes.
		{"python docstring under a run", "a.py", "def f():\n    \"\"\"Doc line.\n\n    More.\n    \"\"\"\n    return 1\n",
			"\"\"\"$$$A\"\"\"", "\"\"\"$$$A\"\"\"", "def f():\n    \"\"\"Doc line.\n\n    More.\n    \"\"\"\n    return 1\n"},
		{"javascript template literal in a capture", "a.js", "function f() {\n  if (a) {\n    g(`${x}\n${y}`);\n  }\n}\n",
			"if ($C) { $$$B }", "if (!($C)) {\n$$$B\n}", "function f() {\n  if (!(a)) {\n  g(`${x}\n${y}`);\n  }\n}\n"},
	})
}

// TestRewriteForHeaderWhole: a for header that is a lone $$$ takes the
// whole header, also where the grammar reads the ';' the pattern is
// retried with as an empty statement (JavaScript: for (;;) lost a ';',
// the identity soak with the TypeScript compiler's parser, seed
// 1796672626619355627).
func TestRewriteForHeaderWhole(t *testing.T) {
	runRewriteCases(t, []rewriteCase{
		{"javascript for (;;)", "a.js", "function f() {\n\tfor (;;) {\n\t\tg();\n\t}\n\tfor (i = 0;; i++) { h(); }\n}\n",
			"for ($$$H) { $$$B }", "for ($$$H) {\n  $$$B\n}", "function f() {\n\tfor (;;) {\n\t\tg();\n\t}\n\tfor (i = 0;; i++) {\n\t\th();\n\t}\n}\n"},
		{"c for (;;)", "a.c", "void f(void) {\n  for (;;) { g(); }\n}\n",
			"for ($$$H) { $$$B }", "for ($$$H) { $$$B }", "void f(void) {\n  for (;;) { g(); }\n}\n"},
	})
}

type rewriteCase struct{ name, file, src, pattern, template, want string }

func runRewriteCases(t *testing.T, cases []rewriteCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := rewriteOne(t, c.file, c.src, c.pattern, c.template); got != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

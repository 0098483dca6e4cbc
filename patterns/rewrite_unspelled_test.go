package patterns

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The classes TestIdentityRewriteKeepsTheSyntax found, each on a minimal
// file: what a rewrite writes where a match's $$$ took nothing, where the
// template ends in a line break, and where the match passed over code the
// pattern does not spell.

// stageFiles writes files into a fresh root, searches it with pat and stages
// tmpl.
func stageFiles(t *testing.T, lang, pat, tmpl string, files map[string]string) (*Staged, error) {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Search(context.Background(), root, pat, SearchOptions{Language: lang, KeepSource: true})
	if err != nil {
		t.Fatalf("search %q: %v", pat, err)
	}
	return NewStager().Stage(res, tmpl, false)
}

// newTexts is each staged file's new text, by path.
func newTexts(st *Staged) map[string]string {
	out := map[string]string{}
	for _, f := range st.Files {
		out[f.Path] = string(f.newText)
	}
	return out
}

func TestRewriteEmptyRunTakesItsComma(t *testing.T) {
	cases := []struct{ lang, file, src, pat, tmpl, want string }{
		// f($$$A, c) matches f(c): the template's ',' beside the empty
		// run goes with it, after it or before it.
		{"python", "a.py", "f(c)\nf(a, b, c)\n", "f($$$A, c)", "g($$$A, d)", "g(d)\ng(a, b, d)\n"},
		{"python", "a.py", "f(c)\nf(a, b, c)\n", "f($$$A, c)", "g(d, $$$A)", "g(d)\ng(d, a, b)\n"},
		{"go", "a.go", "package p\n\nvar _ = f(c)\n", "f($$$A, c)", "g($$$A,\n\td)", "package p\n\nvar _ = g(d)\n"},
		// A ',' that ends an earlier line stays (Go needs it there).
		{"go", "a.go", "package p\n\nvar _ = T{A: 1}\n", "T{A: $X, $$$R}", "T{\n\tA: $X,\n\t$$$R\n}", "package p\n\nvar _ = T{\n\tA: 1,\n\t\n}\n"},
		// JSON's {$$$, "a": 1}: the pattern's $$$ is an ERROR with the
		// ',' in it, which stays a separator, no part of the run.
		{"json", "a.json", "[{\"x\": 0, \"b\": 1}, {\"b\": 1}]\n", "{$$$R, \"b\": 1}", "{$$$R, \"c\": 2}", "[{\"x\": 0, \"c\": 2}, {\"c\": 2}]\n"},
	}
	for _, c := range cases {
		st, err := stageFiles(t, c.lang, c.pat, c.tmpl, map[string]string{c.file: c.src})
		if err != nil {
			t.Errorf("%s %q → %q: %v", c.lang, c.pat, c.tmpl, err)
			continue
		}
		if got := newTexts(st)[c.file]; got != c.want {
			t.Errorf("%s %q → %q:\n got  %q\n want %q", c.lang, c.pat, c.tmpl, got, c.want)
		}
	}
}

func TestRewriteTemplateLineBreak(t *testing.T) {
	cases := []struct{ lang, file, src, pat, tmpl, want string }{
		// A template's closing line break where the replaced text has
		// none would cut the expression in two.
		{"go", "a.go", "package p\n\nvar x = a.B(c) > 1\n", "$A.$B($C)", "$A.$B($C)\n", "package p\n\nvar x = a.B(c) > 1\n"},
		// Before the value a #define $A pattern leaves to the line.
		{"c", "a.c", "#define A 1\n#define B\n", "#define $A\n", "#define $A\n", "#define A 1\n#define B\n"},
		// A template whose last line ends in a comment keeps its line
		// break: code after the match must not go into the comment.
		{"python", "a.py", "r = requests.get(u).json()\n", "requests.get($U)", "httpx.get($U)  # migrated\n", "r = httpx.get(u)  # migrated\n.json()\n"},
		{"go", "a.go", "package p\n\nvar x = foo(1) + 2\n", "foo($X)", "bar($X) // TODO\n", "package p\n\nvar x = bar(1) // TODO\n + 2\n"},
	}
	for _, c := range cases {
		res, err := Search(context.Background(), filepath.Dir(writeTemp(t, c.file, c.src)), c.pat, SearchOptions{Language: c.lang, KeepSource: true})
		if err != nil || len(res.Files) != 1 {
			t.Fatalf("%q: %v, %d files", c.pat, err, len(res.Files))
		}
		out, _ := Rewrite(&res.Files[0], c.tmpl)
		if string(out) != c.want {
			t.Errorf("%s %q → %q:\n got  %q\n want %q", c.lang, c.pat, c.tmpl, out, c.want)
		}
	}
}

// writeTemp writes one file into a fresh directory and returns its path.
func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRewriteKeepsOrRefusesUnspelledCode(t *testing.T) {
	// Children left at the end of the match's last node stay, as the
	// root's do: type $A $B binds B to T's type parameters, and the
	// struct after them is kept.
	st, err := stageFiles(t, "go", "type $A $B", "type $A $B",
		map[string]string{"a.go": "package p\n\ntype T[A, B any] struct{ a A }\n\ntype U int\n"})
	if err != nil {
		t.Fatal(err)
	}
	if got := newTexts(st)["a.go"]; !strings.Contains(got, "type T [A, B any] struct{ a A }\n") {
		t.Errorf("the struct was not kept:\n%s", got)
	}
	// The template's closing ';' is the pattern's optional one: it is
	// not written before the children that stay (TypeScript's const $A:
	// $B; over a declaration with a value and no ';' wrote const e: T; =
	// {…}; the identity soak, seed 1796658432379931295).
	st, err = stageFiles(t, "typescript", "const $A: $B;", "let $A: $B;",
		map[string]string{"a.ts": "const e: T = {\n  m: 1,\n}\n\nconst x: U;\n"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := newTexts(st)["a.ts"], "let e: T = {\n  m: 1,\n}\n\nlet x: U;\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Code passed over inside the match, which no template can place, is
	// refused, named by file and line: async of async def under def
	// $F(): $$$, the other cases of a switch before its '}'.
	refusals := []struct{ lang, file, src, pat, tmpl, lost string }{
		{"python", "a.py", "def g():\n    pass\n\n\nasync def f():\n    pass\n", "def $F(): $$$B", "def $F() -> None: $$$B", "a.py:5: async"},
		{"go", "a.go", "package p\n\nfunc f(x int) {\n\tswitch x {\n\tcase 1:\n\t\tg()\n\tcase 2:\n\t\th()\n\t}\n}\n",
			"switch $X { case $V: $$$B }", "switch $X { case $V: $$$B; k() }", "a.go:7: case 2:"},
		// A pattern of several nodes passes over the ',' between two
		// arguments (the identity soak, seed 1796646149493833905).
		{"cpp", "a.cpp", "void f() {\n  self_.set(input_begin, input_end);\n}\n", "$A input_end", "$A input_end", "a.cpp:2: ,"},
		// The str of &'static str, passed over (&$B binds the lifetime),
		// is not written again by $C placing include_str: only the
		// template's own text, as whole words, writes code again (the
		// identity soak, seed 1796648102069470303).
		{"rust", "a.rs", "pub const N: &'static str = include_str!(\"a.json\");\n", "pub const $A: &$B = $C!(\"a.json\");",
			"pub const $A: &$B = $C!(\"a.json\");", "a.rs:1: str"},
		// The second '.' of a relative import two packages up, which from
		// .$A does not spell and its own '.' does not write again (the
		// identity soak, seed 1796668932352102309: setuptools' from
		// ..command.build_ext became from .command.build_ext).
		{"python", "a.py", "from .base import A\nfrom ..command.build_ext import build_ext\n", "from .$A import $B",
			"from .$A import $B", "a.py:2: ."},
	}
	for _, c := range refusals {
		st, err := stageFiles(t, c.lang, c.pat, c.tmpl, map[string]string{c.file: c.src})
		var ue *UnspelledCodeError
		if !errors.As(err, &ue) {
			t.Errorf("%s %q: staged %v, err %v; want a refusal for the code it drops", c.lang, c.pat, st != nil, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.lost) || !strings.Contains(msg, "$$$") {
			t.Errorf("%s %q: the refusal does not name %q or the way out:\n%s", c.lang, c.pat, c.lost, msg)
		}
	}
	// A template that writes the passed-over code again loses nothing:
	// no refusal, though the async def's match passes over its async.
	if _, err := stageFiles(t, "python", "def $F($$$P): $$$B", "async def $F($$$P): $$$B",
		map[string]string{"a.py": "def g():\n    pass\n\n\nasync def f():\n    pass\n"}); err != nil {
		t.Errorf("a rewrite to the same text: %v", err)
	}
	// A rule's match passes over the same code: its captures hold only
	// the metavariables, and its rewrite is refused too.
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.py"), []byte("async def f():\n    pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rule, err := ParseRule([]byte(`{"pattern": "def $F(): $$$B"}`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := SearchRule(context.Background(), root, rule, SearchOptions{Language: "python", KeepSource: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		for _, m := range f.Matches {
			for _, c := range m.Captures {
				if c.Name == "" {
					t.Errorf("a rule's match lists a capture with no name at [%d,%d)", c.Start, c.End)
				}
			}
		}
	}
	var ue *UnspelledCodeError
	if _, err := NewStager().Stage(res, "def $F() -> None: $$$B", false); !errors.As(err, &ue) {
		t.Errorf("a rule's rewrite that drops async: err %v, want a refusal", err)
	}
	// Spelled, the same code is placed: nothing refused.
	if _, err := stageFiles(t, "python", "async def $F(): $$$B", "async def $F() -> None: $$$B",
		map[string]string{"a.py": "async def f():\n    pass\n"}); err != nil {
		t.Errorf("async spelled: %v", err)
	}
}

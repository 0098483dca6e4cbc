package patterns

import (
	"context"
	"fmt"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// A node's text that none of its children covers is compared: a literal
// in a pattern matches only the same literal. Dart keeps a string's
// content as no node of its own, so print("a") matched print("b") (the
// generated differential soak found it); CSS's color_value, YAML's
// quoted scalars, Kotlin's character literals and Scala's interpolated
// strings are alike, and ast-grep still matches those (the difference
// "text no child covers"). A metavariable beside such text still binds.
func TestUncoveredText(t *testing.T) {
	cases := []struct {
		lang, file, src, pat string
		want                 []string
	}{
		{"dart", "a.dart", "void main() {\n  print(\"a\");\n  print(\"b\");\n}\n", `print("a")`, []string{`print("a")`}},
		{"dart", "a.dart", "void main() {\n  print('a');\n  print('b');\n}\n", `print('a')`, []string{`print('a')`}},
		{"dart", "a.dart", "void main() {\n  print(\"a $x\");\n  print(\"b $x\");\n}\n", `print("a $x")`, []string{`print("a $x")`}},
		{"dart", "a.dart", "void main() {\n  print(\"a\");\n  print(\"a $x\");\n  print(\"b $x\");\n}\n", `print("a $A")`, []string{`print("a $x")`}},
		{"dart", "a.dart", "void main() {\n  print(\"a\");\n  print(\"b\");\n}\n", `print("$A")`, []string{`print("a")`, `print("b")`}},
		{"css", "a.css", "a { color: #eee; }\nb { color: #fff; }\n", "$A: #eee;", []string{"color: #eee;"}},
		{"yaml", "a.yaml", "a: \"x\"\nb: \"y\"\nc: 'x'\nd: 'y'\n", `$K: "x"`, []string{`a: "x"`}},
		{"yaml", "a.yaml", "a: \"x\"\nb: \"y\"\n", `$K: "$V"`, []string{`a: "x"`, `b: "y"`}},
		{"kotlin", "a.kt", "fun m() { f('a'); f('b') }\n", "f('a')", []string{"f('a')"}},
		{"scala", "a.scala", "object O { f(s\"a$x\"); f(s\"b$x\") }\n", `f(s"a$x")`, []string{`f(s"a$x")`}},
		{"scala", "a.scala", "object O { f(s\"a$x\"); f(s\"b$x\") }\n", `f(s"a$X")`, []string{`f(s"a$x")`}},
		{"toml", "a.toml", "a = \"x\"\nb = \"y\"\n", `$K = "x"`, []string{`a = "x"`}},
		{"javascript", "a.js", "f(`a${x}`);\nf(`b${x}`);\n", "f(`a${$X}`)", []string{"f(`a${x}`)"}},
		// A metavariable used twice compares that text too (the generated
		// rewrite differential, seed 142: ast-grep matches both).
		{"css", "a.css", "a { padding: 5px 2px; margin: 5px 5px; }\n", "$A: $B $B;", []string{"margin: 5px 5px;"}},
		{"yaml", "a.yaml", "a: \"x\"\nb: \"y\"\n---\na: \"x\"\nb: \"x\"\n", "a: $V\nb: $V", []string{"a: \"x\"\nb: \"x\"\n"}},
		{"dart", "a.dart", "void main() {\n  f(\"a\" + \"b\");\n  f(\"a\" + \"a\");\n}\n", "f($A + $A)", []string{`f("a" + "a")`}},
	}
	for _, c := range cases {
		t.Run(c.lang+"/"+c.pat, func(t *testing.T) {
			l, err := LanguageByName(c.lang)
			if err != nil {
				t.Fatal(err)
			}
			testutil.NeedsFunc(t, "the "+c.lang+" grammar", func() string {
				_, why := l.Available()
				return why
			})
			root := writeTree(t, map[string]string{c.file: c.src})
			res, err := Search(context.Background(), root, c.pat, SearchOptions{Language: c.lang, KeepSource: true})
			if err != nil {
				t.Fatal(err)
			}
			got := matchedTexts(res)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

package patterns

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestRewriteReadWithTheCodeAround: a rewrite that parses but that the
// parser reads together with the code beside it is refused like a syntax
// error, and named (JOINED, with how); in JavaScript a replacement that
// would continue the statement before it gets a leading ';' instead.
// Found while writing the note of the twenty-first session: ($A) && ($B)
// over x = null⏎a && b staged x = null⏎(a) && (b), which calls null. The
// identity rewrite test holds the check to the TypeScript compiler's and
// python3's readings over drawn files (rewriteEach); these are the cases
// by hand, each kind of join once, and code that must stay staged.
func TestRewriteReadWithTheCodeAround(t *testing.T) {
	tests := []struct {
		name, lang, file, src, pattern, template string
		// want is the staged file, or "" when refused; joined names what
		// the refusal must say of one replacement.
		want, joined string
		semis        []string
	}{
		{name: "a ';' before a '(' after a line without one", lang: "javascript", file: "a.js",
			src: "let x = null\na && b\nc && d\nif (e && f) g()\n", pattern: "$A && $B", template: "($A) && ($B)",
			want:  "let x = null\n;(a) && (b)\n;(c) && (d)\nif ((e) && (f)) g()\n",
			semis: []string{"a.js:2", "a.js:3"}},
		{name: "no ';' where the line before has one", lang: "typescript", file: "a.ts",
			src: "let x = null;\na && b;\n", pattern: "$A && $B", template: "($A) && ($B)",
			want: "let x = null;\n(a) && (b);\n"},
		{name: "Go ends its lines itself", lang: "go", file: "a.go",
			src: "package p\n\nfunc f() {\n\tx := g()\n\ta && b\n}\n", pattern: "$A && $B", template: "($A) && ($B)",
			want: "package p\n\nfunc f() {\n\tx := g()\n\t(a) && (b)\n}\n"},
		{name: "a lost grouping", lang: "javascript", file: "a.js",
			src: "const y = (p + q) * r\nconst t = (a) + 1\n", pattern: "($X)", template: "$X",
			joined: "a.js:1:11: parses, but means something else: the replacement is no longer a whole"},
		{name: "a capture that is no longer one expression", lang: "javascript", file: "a.js",
			src: "const z = f((a, b))\n", pattern: "f(($X))", template: "f($X)",
			joined: `a.js:1:13: parses, but means something else: "a, b", one expression where it was captured, is no longer one`},
		{name: "a capture split by precedence", lang: "python", file: "a.py",
			src: "x = a - (b - c)\ny = a - (b * c)\n", pattern: "$A - ($B)", template: "$A - $B",
			joined: `a.py:1:9: parses, but means something else: "b - c", one expression where it was captured`},
		{name: "parentheses that only group stay a whole", lang: "python", file: "a.py",
			src: "for i in 1, 2, 3:\n    pass\n", pattern: "for $X in $Y: $$$B", template: "for $X in ($Y): $$$B",
			want: "for i in (1, 2, 3): pass\n"},
		{name: "a cast the compiler reads on through the member after it", lang: "typescript", file: "a.ts",
			src: "const v = (x as any).y;\nconst w = (x as T)[0];\n", pattern: "($X as $T).$P", template: "$X as $T.$P",
			joined: "a.ts:1:11: parses, but means something else: the TypeScript compiler reads the type after `as`"},
		{name: "a cast that becomes a cast to a dotted type", lang: "typescript", file: "a.ts",
			src: "const m = (e as Error).message;\n", pattern: "($X as $T).$P", template: "$X as $T.$P",
			joined: "a.ts:1:11: parses, but means something else: the TypeScript compiler reads the type after `as`"},
		{name: "a cast kept in its parentheses", lang: "typescript", file: "a.ts",
			src: "const v = (x as any).y;\n", pattern: "($X as $T).$P", template: "($X as $T)?.$P",
			want: "const v = (x as any)?.y;\n"},
		{name: "the code after continues the replacement", lang: "javascript", file: "a.js",
			src: "go();\n(function () {})()\n", pattern: "go();", template: "stop()",
			joined: "a.js:1:7: parses, but means something else: the expression_statement after it no longer starts where it did"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := writeTree(t, map[string]string{tt.file: tt.src})
			res, err := Search(context.Background(), root, tt.pattern, SearchOptions{Language: tt.lang, KeepSource: true})
			if err != nil {
				t.Fatal(err)
			}
			st, err := NewStager().Stage(res, tt.template, false)
			if tt.want == "" {
				var se *SyntaxErrorsError
				if !errors.As(err, &se) {
					t.Fatalf("staged (err %v), want a refusal naming %q", err, tt.joined)
				}
				if !strings.Contains(err.Error(), "changes what the code around it means") || !strings.Contains(err.Error(), tt.joined) {
					t.Errorf("refusal does not say %q:\n%s", tt.joined, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := string(st.Files[0].newText)
			if got != tt.want {
				t.Errorf("staged\n%s\nwant\n%s", got, tt.want)
			}
			if !slices.Equal(st.Semicolons, tt.semis) {
				t.Errorf("semicolons added at %v, want %v", st.Semicolons, tt.semis)
			}
			text := EditResult{EditID: st.ID, Semicolons: st.Semicolons}.Text()
			if len(tt.semis) > 0 && !strings.Contains(text, "note: a ';' was written before "+plural(len(tt.semis), "replacement")) {
				t.Errorf("the answer does not say where a ';' was added:\n%s", text)
			}
		})
	}
}

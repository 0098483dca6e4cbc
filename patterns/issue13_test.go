package patterns

// Regression tests for issue 13: the everyday patterns each language's
// users write, one test per item of the issue.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agent-tools/agent-tools/internal/testutil"
	"github.com/google/go-cmp/cmp"
)

type patCase struct {
	name, lang, pattern, src string
	opts                     CompileOptions
	want                     []string
}

func runPatCases(t *testing.T, tests []patCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, _ := LanguageByName(tt.lang)
			testutil.NeedsFunc(t, tt.lang+" grammar", func() string { _, why := l.Available(); return why })
			if diff := cmp.Diff(tt.want, find(t, tt.lang, tt.pattern, tt.src, tt.opts)); diff != "" {
				t.Errorf("%s %q (-want +got):\n%s", tt.lang, tt.pattern, diff)
			}
		})
	}
}

// Item 1: a lone $$$ fills a body, arm list or member list.
func TestLoneMultiFillsBody(t *testing.T) {
	runPatCases(t, []patCase{
		{name: "java if", lang: "java", pattern: "if ($X == null) { $$$ }",
			src:  "class A { void f() { if (a == null) { g(); h(); } if (b != null) { g(); } } }",
			want: []string{"if (a == null) { g(); h(); } {X=a}"}},
		{name: "c while", lang: "c", pattern: "while ($C) { $$$ }",
			src: "void f(void) { while (n > 0) { n--; } }", want: []string{"while (n > 0) { n--; } {C=n > 0}"}},
		{name: "c { $$$; } is a body too", lang: "c", pattern: "while ($C) { $$$; }",
			src: "void f(void) { while (n > 0) { n--; m++; } }", want: []string{"while (n > 0) { n--; m++; } {C=n > 0}"}},
		{name: "c for header", lang: "c", pattern: "for ($$$) { $$$ }",
			src: "void f(void) { for (i = 0; i < n; i++) { g(i); } }", want: []string{"for (i = 0; i < n; i++) { g(i); }"}},
		{name: "c# if", lang: "c-sharp", pattern: "if ($X == null) { $$$ }",
			src: "class A { void F() { if (a == null) { G(); } } }", want: []string{"if (a == null) { G(); } {X=a}"}},
		{name: "rust impl", lang: "rust", pattern: "impl $T for $U { $$$ }",
			src: "impl Show for Cache { fn a() {} fn b() {} }\nimpl Cache {}\n", want: []string{"impl Show for Cache { fn a() {} fn b() {} } {T=Show} {U=Cache}"}},
		{name: "rust match arms", lang: "rust", pattern: "match $E { $$$ARMS }",
			src: "fn f() { match x { 1 => a, _ => b } }", want: []string{"match x { 1 => a, _ => b } {E=x} {ARMS=1 => a, _ => b}"}},
		{name: "go switch", lang: "go", pattern: "switch $X { $$$ }",
			src: "package p\nfunc f() {\n\tswitch x {\n\tcase 1:\n\tcase 2:\n\t}\n}\n", want: []string{"switch x {\n\tcase 1:\n\tcase 2:\n\t} {X=x}"}},
		{name: "kotlin when", lang: "kotlin", pattern: "when ($X) { $$$ }",
			src: "fun f() { when (x) { 1 -> a()\n else -> b() } }", want: []string{"when (x) { 1 -> a()\n else -> b() } {X=x}"}},
		{name: "swift class", lang: "swift", pattern: "class $C: $B { $$$ }",
			src: "class A: B { var x = 1 }\n", want: []string{"class A: B { var x = 1 } {C=A} {B=B}"}},
		{name: "css rule", lang: "css", pattern: "$SEL { $$$ }",
			src: "a { color: red; }\n/* b { } */\n", want: []string{"a { color: red; } {SEL=a}"}},
		{name: "json object", lang: "json", pattern: "{ $$$ }",
			src: "{\"a\": {\"b\": 1}}", want: []string{"{\"a\": {\"b\": 1}}", "{\"b\": 1}"}},
		{name: "lua for", lang: "lua", pattern: "for $I, $V in ipairs($T) do $$$ end",
			src: "for i, v in ipairs(t) do print(v) end\n", want: []string{"for i, v in ipairs(t) do print(v) end {I=i} {V=v} {T=t}"}},
		{name: "haskell case", lang: "haskell", pattern: "case $X of $$$",
			src: "f x = case x of\n  1 -> a\n  _ -> b\n", want: []string{"case x of\n  1 -> a\n  _ -> b {X=x}"}},
		{name: "php if", lang: "php", pattern: "if ($X === null) { $$$ }",
			src: "<?php\nif ($a === null) { f(); }\n", want: []string{"if ($a === null) { f(); } {X=$a}"}},
	})
}

// Item 2: $$$P as a declaration's parameter list.
func TestMultiParameterList(t *testing.T) {
	runPatCases(t, []patCase{
		{name: "scala def", lang: "scala", pattern: "def $F($$$P): $T = $B",
			src: "object O { def add(a: Int, b: Int): Int = a + b }", want: []string{"def add(a: Int, b: Int): Int = a + b {F=add} {P=a: Int, b: Int} {T=Int} {B=a + b}"}},
		{name: "kotlin fun", lang: "kotlin", pattern: "fun $F($$$P): $T { $$$ }",
			src: "fun add(a: Int, b: Int): Int { return a + b }\n", want: []string{"fun add(a: Int, b: Int): Int { return a + b } {F=add} {P=a: Int, b: Int} {T=Int}"}},
		{name: "php function", lang: "php", pattern: "function $F($$$P) { $$$ }",
			src: "<?php\nfunction add($a, $b) { return $a + $b; }\n", want: []string{"function add($a, $b) { return $a + $b; } {F=add} {P=$a, $b}"}},
		{name: "java method", lang: "java", pattern: "public void $M($$$P) { $$$ }",
			src: "class A { public void add(int a, int b) { } private void no() { } }", want: []string{"public void add(int a, int b) { } {M=add} {P=int a, int b}"}},
		{name: "swift func", lang: "swift", pattern: "func $F($$$P) -> $T { $$$ }",
			src: "func add(a: Int, b: Int) -> Int { return a + b }\n", want: []string{"func add(a: Int, b: Int) -> Int { return a + b } {F=add} {P=a: Int, b: Int} {T=Int}"}},
	})
}

// Item 4: fragments that are not statements.
func TestFragments(t *testing.T) {
	runPatCases(t, []patCase{
		{name: "json pair", lang: "json", pattern: `"version": "$V"`,
			src: `{"version": "1.2", "d": "\"version\": \"x\"", "n": {"version": 3}}`, want: []string{`"version": "1.2" {V=1.2}`}},
		{name: "json pair by selector", lang: "json", pattern: `"version": "$V"`, opts: CompileOptions{Selector: "pair"},
			src: `{"version": 1, "v": {"version": "2"}}`, want: []string{`"version": "2" {V=2}`}},
		{name: "json array rest", lang: "json", pattern: `["a", $$$R]`,
			src: `[["a", 1, 2], ["b", 1]]`, want: []string{`["a", 1, 2] {R=1, 2}`}},
		{name: "yaml sequence item", lang: "yaml", pattern: "- name: $N\n  uses: $U",
			src: "steps:\n  - name: A\n    uses: x@v1\n  - name: B\n    run: echo\n", want: []string{"- name: A\n    uses: x@v1 {N=A} {U=x@v1}"}},
		{name: "c single-metavariable statement", lang: "c", pattern: "if ($X) $S",
			src: "void f(void) { if (a) b(); if (c) { d(); } }", want: []string{"if (a) b(); {X=a} {S=b();}", "if (c) { d(); } {X=c} {S={ d(); }}"}},
	})
}

// Item 5: the reading a person means.
func TestReadingsMeant(t *testing.T) {
	reads := []struct{ lang, pattern, want string }{
		{"c-sharp", "using $NS;", "declaration: using_directive"},
		{"cpp", "template <typename $T>\n$$$", "statement: template_declaration"},
		{"kotlin", "class $C($$$P) { $$$ }", "declaration: class_declaration"},
		{"go", "func ($R *Event) $NAME($$$) *Event { $$$ }", "declaration: method_declaration"},
		{"c", "#define $M $$$", "declaration: preproc_def"},
		{"go", "import ($$$)", "declaration: import_declaration"},
		{"java", "@Override", "annotation: marker_annotation"},
		// An interface's members, which no class holds (the generated
		// differential, seed 22: string-width's index.d.ts).
		{"typescript", "($A: string): number", "member: call_signature"},
		{"tsx", "new ($$$): $T", "member: construct_signature"},
	}
	for _, tt := range reads {
		l, _ := LanguageByName(tt.lang)
		p, err := Compile(l, tt.pattern, CompileOptions{})
		if err != nil {
			t.Errorf("Compile(%s, %q): %v", tt.lang, tt.pattern, err)
			continue
		}
		if got := p.ReadAs(); got != tt.want {
			t.Errorf("Compile(%s, %q) read as %q, want %q", tt.lang, tt.pattern, got, tt.want)
		}
	}
	runPatCases(t, []patCase{
		{name: "c# using directive", lang: "c-sharp", pattern: "using $NS;",
			src: "using System;\nclass A { void F() { using (var x = y) { } } }", want: []string{"using System; {NS=System}"}},
		{name: "cpp template covers the declaration", lang: "cpp", pattern: "template <typename $T>\n$$$",
			src: "template <typename T>\nclass A {};\n", want: []string{"template <typename T>\nclass A {}; {T=T}"}},
		{name: "dart import", lang: "dart", pattern: "import '$P';",
			src: "import 'dart:async';\nimport \"x.dart\";\n", want: []string{"import 'dart:async'; {P=dart:async}"}},
		{name: "typescript call signature", lang: "typescript", pattern: "($A: string): number",
			src:  "interface W {\n  (s: string): number;\n  (n: number): number;\n}\nconst f = (s: string): number => 1;\n",
			want: []string{"(s: string): number {A=s}"}},
		{name: "dart null assertion", lang: "dart", pattern: "$X!",
			src: "void f() { var a = b!; }", want: []string{"b! {X=b}"}},
	})
}

// Item 6: a match covers whole nodes.
func TestWholeNodeMatches(t *testing.T) {
	runPatCases(t, []patCase{
		{name: "css declaration", lang: "css", pattern: "margin: 0 auto;",
			src: "a { margin: 0 auto; }\nb { margin: 0 auto 1px; }\n", want: []string{"margin: 0 auto;"}},
		{name: "go ';' between statements may be a newline", lang: "go", pattern: "if err != nil { log.Print($E); $$$REST }",
			src:  "package p\nfunc f() {\n\tif err != nil {\n\t\tlog.Print(err)\n\t\tcleanup()\n\t}\n}\n",
			want: []string{"if err != nil {\n\t\tlog.Print(err)\n\t\tcleanup()\n\t} {E=err} {REST=cleanup()}"}},
	})
}

// Item 7: a rewrite keeps the separators the captured run owned.
func TestRewriteKeepsTrailingComma(t *testing.T) {
	src := "console.log(\n  a,\n  b,\n)\n"
	l, _ := LanguageByName("javascript")
	p, err := Compile(l, "console.log($$$ARGS)", CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pr := newParser()
	defer pr.close()
	tree, err := pr.parse(l, []byte(src), true)
	if err != nil {
		t.Fatal(err)
	}
	spans := p.Find(tree)
	if len(spans) != 1 {
		t.Fatalf("matches: %v", spans)
	}
	if got, want := substituteSpan(l, "logger.debug($$$ARGS)", []byte(src), spans[0]), "logger.debug(a,\nb,)"; got != want {
		t.Errorf("rewrite = %q, want %q (as ast-grep)", got, want)
	}
}

// Item 8: errors show the user's own text.
func TestErrorTextIsTheUsers(t *testing.T) {
	tests := []struct{ lang, pattern, want, never string }{
		{"c", "switch ($X) { $$$ case", `near "switch ($X) {`, "𐀀"},
		{"cpp", "f($X, ", "", "𐀀"},
		{"css", "$SEL { $$$ } }", "", "___"},
		{"go", "fmt.Errorf($args)", "$args is not a metavariable: names are uppercase ($ARGS)", "µ"},
	}
	for _, tt := range tests {
		l, _ := LanguageByName(tt.lang)
		_, err := Compile(l, tt.pattern, CompileOptions{})
		if err == nil {
			t.Errorf("Compile(%s, %q) = nil error", tt.lang, tt.pattern)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tt.want) || strings.Contains(msg, tt.never) || !utf8.ValidString(msg) {
			t.Errorf("Compile(%s, %q) error %q: want it to contain %q and never %q, valid UTF-8", tt.lang, tt.pattern, msg, tt.want, tt.never)
		}
	}
}

// Item 9: readings that silently matched nothing.
func TestReadingsThatMatched(t *testing.T) {
	runPatCases(t, []patCase{
		{name: "go method with a return type", lang: "go", pattern: "func ($R *Event) $NAME($$$) *Event { $$$ }",
			src: "package p\nfunc (e *Event) With(k string) *Event { return e }\nfunc (e *Event) Done() {}\n", want: []string{"func (e *Event) With(k string) *Event { return e } {R=e} {NAME=With}"}},
		{name: "go type switch", lang: "go", pattern: "switch $X := $Y.(type) { case $T: $$$ }",
			src:  "package p\nfunc f() {\n\tswitch v := x.(type) {\n\tcase int:\n\t\tuse(v)\n\tcase string:\n\t}\n}\n",
			want: []string{"switch v := x.(type) {\n\tcase int:\n\t\tuse(v)\n\tcase string:\n\t} {X=v} {Y=x} {T=int}"}},
		{name: "go switch with more cases", lang: "go", pattern: "switch $X { case $V: $$$ }",
			src: "package p\nfunc f() {\n\tswitch x {\n\tcase 1:\n\tcase 2:\n\t}\n}\n", want: []string{"switch x {\n\tcase 1:\n\tcase 2:\n\t} {X=x} {V=1}"}},
		{name: "c define", lang: "c", pattern: "#define $M $$$",
			src: "#define A 1\nint x = A;\n#define B(x) x\n", want: []string{"#define A 1\n {M=A}"}},
		{name: "php metavariables as variables", lang: "php", pattern: "$X = $Y",
			src: "<?php\n$a = 1;\nf($b);\n", want: []string{"$a = 1 {X=$a} {Y=1}"}},
		{name: "php catch variable", lang: "php", pattern: "try { $$$ } catch (Exception $E) { $$$ }",
			src: "<?php\ntry { f(); } catch (Exception $e) { g($e); }\n", want: []string{"try { f(); } catch (Exception $e) { g($e); } {E=$e}"}},
		{name: "ruby class names are constants", lang: "ruby", pattern: "class $C < $B\n  $$$\nend",
			src: "class A < B\n  def f; end\nend\nclass C\nend\n", want: []string{"class A < B\n  def f; end\nend {C=A} {B=B}"}},
		{name: "haskell module names are constants", lang: "haskell", pattern: "import qualified $M as $N",
			src: "module A where\nimport qualified Data.Map as Map\nimport Data.List\n", want: []string{"import qualified Data.Map as Map {M=Data.Map} {N=Map}"}},
		{name: "go import block", lang: "go", pattern: "import ($$$)",
			src: "package p\nimport (\n\t\"a\"\n\t\"b\"\n)\nimport \"c\"\n", want: []string{"import (\n\t\"a\"\n\t\"b\"\n)"}},
	})
	// Python def $F($$$): with no body is refused, not read as a
	// definition that matches nothing.
	l, _ := LanguageByName("python")
	if p, err := Compile(l, "def $F($$$):", CompileOptions{}); err == nil {
		t.Errorf("python def $F($$$): read as %s, want unparseable", p.ReadAs())
	}
	// When the reading used finds nothing, the other readings are named.
	g, _ := LanguageByName("go")
	p, err := Compile(g, "func ($R *Event) $NAME($$$) *Event { $$$ }", CompileOptions{Context: "statement"})
	if err != nil {
		t.Fatal(err)
	}
	var others []string
	for _, o := range p.OtherReadings() {
		others = append(others, o.ReadAs())
	}
	if !strings.Contains(strings.Join(others, "; "), "declaration: method_declaration") {
		t.Errorf("other readings of the method pattern read as %s: %v, want declaration: method_declaration among them", p.ReadAs(), others)
	}
}

// Item 10: a pattern as general as $X stops counting at a bound.
func TestCountingStopsAtBound(t *testing.T) {
	dir := t.TempDir()
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(dir, "f"+strings.Repeat("x", i)+".go"), []byte("package p\nvar a, b, c, d = 1, 2, 3, 4\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Search(context.Background(), dir, "$X", SearchOptions{Language: "go", MaxMatches: 10, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Partial || res.Total < 10 || len(res.Files) >= 20 {
		t.Errorf("Search($X, MaxMatches 10): partial=%v total=%d files=%d, want a partial count of at least 10 from fewer files", res.Partial, res.Total, len(res.Files))
	}
	full, err := Search(context.Background(), dir, "$X", SearchOptions{Language: "go", Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if full.Partial || len(full.Files) != 20 {
		t.Errorf("unbounded search: partial=%v files=%d, want every file", full.Partial, len(full.Files))
	}
}

// The answer says when the total is a lower bound, and names the other
// readings when nothing matched.
func TestGrepResultSaysSo(t *testing.T) {
	partial := GrepResult{Total: 100000, TotalIsLowerBound: true, Shown: 1, FilesMatched: 40, FilesSearched: 880,
		Matches: []MatchOut{{Path: "a.go", Start: Position{1, 1}, Text: "package p"}}}
	if got := partial.Text(); !strings.Contains(got, "1 shown of at least 100000 matches: counting stopped there") {
		t.Errorf("partial answer:\n%s", got)
	}
	none := GrepResult{FilesSearched: 3, ReadAs: []ReadAs{{Language: "go", Context: "statement", Node: "binary_expression"}},
		OtherReadings: []ReadAs{{Language: "go", Context: "declaration", Node: "method_declaration"}}}
	if got := none.Text(); !strings.Contains(got, `the go pattern also parses as declaration: method_declaration; retry with context: "declaration"`) {
		t.Errorf("empty answer:\n%s", got)
	}
}

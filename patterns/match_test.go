package patterns

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// find compiles pattern for lang and returns the matched texts, each
// followed by its captures as " {NAME=text}".
func find(t *testing.T, lang, pattern, src string, opts CompileOptions) []string {
	t.Helper()
	l, err := LanguageByName(lang)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(l, pattern, opts)
	if err != nil {
		t.Fatalf("Compile(%s, %q): %v", lang, pattern, err)
	}
	pr := newParser()
	defer pr.close()
	tree, err := pr.parse(l, []byte(src), true)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, s := range p.Find(tree) {
		m := src[s.Start:s.End]
		for _, c := range s.Captures {
			m += " {" + c.Name + "=" + src[c.Start:c.End] + "}"
		}
		got = append(got, m)
	}
	return got
}

func TestMatch(t *testing.T) {
	tests := []struct {
		name, lang, pattern, src string
		opts                     CompileOptions
		want                     []string
	}{
		// Go: the ladder reads a qualified call as a call (ast-grep: a type conversion, 0 hits).
		{name: "go qualified call", lang: "go", pattern: "fmt.Errorf($$$ARGS)",
			src:  "package p\nfunc f() error {\n\t// fmt.Errorf(\"in a comment\")\n\ts := \"fmt.Errorf(x)\"\n\treturn fmt.Errorf(\"x %w\", err)\n}\n",
			want: []string{`fmt.Errorf("x %w", err) {ARGS="x %w", err}`}},
		{name: "go one-arg qualified call", lang: "go", pattern: "errors.New($MSG)",
			src: "package p\nvar e = errors.New(\"boom\")\n", want: []string{`errors.New("boom") {MSG="boom"}`}},
		{name: "go trailing $$$ matches a bare return", lang: "go", pattern: "if err != nil { return $$$ }",
			src:  "package p\nfunc f() {\n\tif err != nil {\n\t\treturn\n\t}\n\tif err != nil { return nil, err }\n\tif err != nil {\n\t\t// why\n\t\treturn err\n\t}\n}\n",
			want: []string{"if err != nil {\n\t\treturn\n\t}", "if err != nil { return nil, err }", "if err != nil {\n\t\t// why\n\t\treturn err\n\t}"}},
		{name: "go repeated metavariable: spacing ignored, text compared", lang: "go", pattern: "$A == $A",
			src:  "package p\nvar _ = a+b == a + b\nvar _ = a.b == a.c\nvar _ = x == /* c */ x\n",
			want: []string{"a+b == a + b {A=a+b}", "x == /* c */ x {A=x}"}},
		{name: "go range wrapper capture", lang: "go", pattern: "for $I := range $X { $$$ }",
			src:  "package p\nfunc f() {\n\tfor _, v := range xs {\n\t\tuse(v)\n\t}\n}\n",
			want: []string{"for _, v := range xs {\n\t\tuse(v)\n\t} {I=_, v} {X=xs}"}},
		{name: "go sequence of statements", lang: "go", pattern: "$X := $F()\nuse($X)",
			src:  "package p\nfunc f() {\n\ta := g()\n\tuse(a)\n\tb := g()\n\tuse(c)\n}\n",
			want: []string{"a := g()\n\tuse(a) {X=a} {F=g}"}},
		{name: "go nested matches outer first", lang: "go", pattern: "f($X)",
			src: "package p\nvar _ = f(f(1))\n", want: []string{"f(f(1)) {X=f(1)}", "f(1) {X=1}"}},
		// Python
		{name: "python strings and comments never match code; f-strings do", lang: "python", pattern: "print($$$)",
			src:  "print(1)\n# print(2)\ns = 'print(3)'\nt = f'{print(4)}'\n",
			want: []string{"print(1)", "print(4)"}},
		{name: "python trailing $$$ block and else", lang: "python", pattern: "if $X is None: $$$",
			src:  "def f(a):\n    if a is None:\n        return 1\n    else:\n        return 2\n",
			want: []string{"if a is None:\n        return 1\n    else:\n        return 2 {X=a}"}},
		{name: "python zero-length $$$", lang: "python", pattern: "f($$$A, b)",
			src: "f(b)\nf(a, b)\nf(a, c)\n", want: []string{"f(b) {A=}", "f(a, b) {A=a}"}},
		{name: "python backtracking $$$", lang: "python", pattern: "foo($$$A, b, $$$C)",
			src: "foo(a, b, c, b)\n", want: []string{"foo(a, b, c, b) {A=a} {C=c, b}"}},
		{name: "python literal after $$$ found", lang: "python", pattern: "foo($$$, last)",
			src: "foo(a, b, last)\nfoo(a, last, b)\n", want: []string{"foo(a, b, last)"}},
		{name: "python comments inside matched code", lang: "python", pattern: "foo($A, $B)",
			src: "foo(1,  # one\n    2)\n", want: []string{"foo(1,  # one\n    2) {A=1} {B=2}"}},
		{name: "python $_ independent", lang: "python", pattern: "$_F($_F)",
			src: "test(a)\n", want: []string{"test(a)"}},
		// JavaScript / TypeScript / TSX
		{name: "javascript object literal needs the expression context", lang: "javascript", pattern: "{ a: $V }",
			src: "const o = { a: 1 };\n", want: []string{"{ a: 1 } {V=1}"}},
		{name: "javascript template literal interpolation is code", lang: "javascript", pattern: "log($X)",
			src: "`${log(1)}`;\n'log(2)';\n", want: []string{"log(1) {X=1}"}},
		{name: "javascript string content metavariable", lang: "javascript", pattern: `require("$M")`,
			src: "require(\"fs\");\nrequire('os');\n", want: []string{`require("fs") {M=fs}`}},
		{name: "typescript class member", lang: "typescript", pattern: "private $F: $T;",
			src: "class A {\n  private x: number;\n}\n", want: []string{"private x: number {F=x} {T=number}"}},
		{name: "tsx jsx element", lang: "tsx", pattern: "<Button $$$P />",
			src: "const e = <Button a={1} />;\n", want: []string{"<Button a={1} /> {P=a={1}}"}},
		// Rust
		{name: "rust method call; macro token trees are not code", lang: "rust", pattern: "$X.unwrap()",
			src: "fn f() { let a = b.unwrap(); assert_eq!(c.unwrap(), 1); }\n", want: []string{"b.unwrap() {X=b}"}},
		// C: one-argument call needs the statement context (ast-grep: macro_type_specifier).
		{name: "c one-argument call", lang: "c", pattern: "free($P)",
			src: "void g(void) { free(p); /* free(q) */ }\n", want: []string{"free(p) {P=p}"}},
		{name: "cpp call", lang: "cpp", pattern: "std::move($X)",
			src: "void g() { auto a = std::move(b); }\n", want: []string{"std::move(b) {X=b}"}},
		// Java
		{name: "java method call", lang: "java", pattern: "System.out.println($X)",
			src: "class A { void f() { System.out.println(1); } }\n", want: []string{"System.out.println(1) {X=1}"}},
		// Ruby
		{name: "ruby call", lang: "ruby", pattern: "puts $X",
			src: "def f\n  puts 1\nend\n# puts 2\n", want: []string{"puts 1 {X=1}"}},
		// Bash
		{name: "bash command", lang: "bash", pattern: "rm -rf $X",
			src: "rm -rf /tmp/x\necho 'rm -rf y'\n", want: []string{"rm -rf /tmp/x {X=/tmp/x}"}},
		// Selector forces the node.
		{name: "selector", lang: "go", pattern: "func _() { fmt.Println($A) }", opts: CompileOptions{Selector: "call_expression"},
			src: "package p\nfunc f() { fmt.Println(1) }\n", want: []string{"fmt.Println(1) {A=1}"}},
		{name: "forced context", lang: "go", pattern: "x", opts: CompileOptions{Context: "expression"},
			src: "package p\nvar y = x\n", want: []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := find(t, tt.lang, tt.pattern, tt.src, tt.opts)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("matches (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompileReadsPattern(t *testing.T) {
	tests := []struct{ lang, pattern, want string }{
		{"go", "fmt.Errorf($$$ARGS)", "statement: call_expression"},
		{"go", "func $F() {}", "declaration: function_declaration"},
		{"go", "a := 1\nb := 2", "statement: sequence of 2 (short_var_declaration, short_var_declaration)"},
		{"python", "def $F($$$): $$$", "statement: function_definition"},
		{"javascript", "{ a: $V }", "expression: object"},
		{"c", "free($P);", "statement: expression_statement"},
		{"java", "private int $X;", "member: field_declaration"},
	}
	for _, tt := range tests {
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
}

func TestCompileRejects(t *testing.T) {
	tests := []struct{ lang, pattern, want string }{
		{"go", "fmt.Errorf(", "unparseable pattern for go: no context accepts it (statement: "},
		{"python", "class $A", "unparseable pattern for python"},
		{"go", "$$$X", "a lone $$$"},
		{"go", "", "empty pattern"},
		{"go", "x", "context \"member\""}, // forced below
	}
	for i, tt := range tests {
		l, _ := LanguageByName(tt.lang)
		opts := CompileOptions{}
		if i == len(tests)-1 {
			opts.Context = "nope"
			tt.want = `context "nope" does not exist for go`
		}
		_, err := Compile(l, tt.pattern, opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Compile(%s, %q) = %v, want an error containing %q", tt.lang, tt.pattern, err, tt.want)
		}
	}
}

func TestLanguageByNameAndPath(t *testing.T) {
	for name, want := range map[string]string{"golang": "go", "PY": "python", "ts": "typescript", "c++": "cpp", "csharp": "c-sharp"} {
		l, err := LanguageByName(name)
		if err != nil || l.ID != want {
			t.Errorf("LanguageByName(%q) = %v, %v; want %s", name, l, err, want)
		}
	}
	for path, want := range map[string]string{"a/b.go": "go", "x.TSX": "tsx", "y.pyi": "python", "z.h": "c", "w.dart": "dart"} {
		if l := LanguageForPath(path); l == nil || l.ID != want {
			t.Errorf("LanguageForPath(%q) = %v; want %s", path, l, want)
		}
	}
	if _, err := LanguageByName("cobol"); err == nil {
		t.Error("LanguageByName(cobol) succeeded")
	}
}

// TestEveryGrammarParses checks each built-in grammar parses a trivial
// pattern (and the libc allocator override keeps parsing working).
func TestEveryGrammarParses(t *testing.T) {
	samples := map[string]string{
		"bash": "echo $X", "c": "f($X)", "c-sharp": "f($X)", "cpp": "f($X)", "css": "color: $C;",
		"dart": "print($X)", "go": "f($X)", "haskell": "f $X", "html": "<p>$X</p>", "java": "f($X)",
		"javascript": "f($X)", "json": `{"a": "$X"}`, "kotlin": "f($X)", "lua": "f($X)", "php": "f($X)",
		"python": "f($X)", "ruby": "f($X)", "rust": "f($X)", "scala": "f($X)", "swift": "f($X)",
		"toml": "a = 1", "tsx": "f($X)", "typescript": "f($X)", "yaml": "a: $X",
	}
	for _, l := range Languages() {
		if ok, why := l.Available(); !ok {
			t.Logf("%s: %s", l.ID, why)
			continue
		}
		if _, err := Compile(l, samples[l.ID], CompileOptions{}); err != nil {
			t.Errorf("%s: %v", l.ID, err)
		}
	}
}

// TestDottedPathCapture: a $X that ends the pattern takes a flat dotted
// path that ends its parent (Scala's import), and the match covers it.
func TestDottedPathCapture(t *testing.T) {
	src := "import scala.collection.mutable\nimport java.io._\nimport a.{B, C}\n"
	got := find(t, "scala", "import $P", src, CompileOptions{})
	want := []string{
		"import scala.collection.mutable {P=scala.collection.mutable}",
		"import java.io._ {P=java.io._}",
		"import a.{B, C} {P=a.{B, C}}",
	}
	if !cmp.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestBashRetries: a $$$ right before a ';' and a metavariable function
// name, which bash's grammar reads otherwise, are read as a user means them.
func TestBashRetries(t *testing.T) {
	src := "greet() {\n  echo hi\n}\nwhile read -r l; do\n  echo \"$l\"\ndone\n"
	if got, want := find(t, "bash", "$F() {\n  $$$BODY\n}", src, CompileOptions{}), []string{"greet() {\n  echo hi\n} {F=greet} {BODY=echo hi}"}; !cmp.Equal(got, want) {
		t.Errorf("function: got %q, want %q", got, want)
	}
	if got, want := find(t, "bash", "while $$$C; do\n  $$$\ndone", src, CompileOptions{}), []string{"while read -r l; do\n  echo \"$l\"\ndone {C=read -r l}"}; !cmp.Equal(got, want) {
		t.Errorf("while: got %q, want %q", got, want)
	}
}

// TestUnspelledTokens pins the rule for code tokens a pattern does not
// spell (the rows found by trying the tool on real code): one is stepped
// over only where the pattern expects a token, never by a metavariable or
// a whole node; and a match covers whole nodes. Without ast-grep, unlike
// TestDifferentialTokens.
func TestUnspelledTokens(t *testing.T) {
	tests := []struct {
		lang, pattern, src string
		want               []string
	}{
		{"rust", "&$X", "fn f() { let a = &mut x; let b = &y; }", []string{"&mut x {X=mut}", "&y {X=y}"}},
		{"javascript", "yield $X", "function* g() { yield* g(); yield h(); }", []string{"yield h() {X=h()}"}},
		{"python", "yield $X", "def f():\n    yield from g()\n", []string{}},
		{"typescript", "export function $F() {}", "export default function f() {}\nexport function g() {}\n", []string{"export function g() {} {F=g}"}},
		{"go", "var $V chan $T", "package p\nvar c chan<- int\nvar d chan int\n", []string{"var d chan int {V=d} {T=int}"}},
		{"python", "def $F(): $$$", "async def f(): pass\ndef g(): pass\n", []string{"async def f(): pass {F=f}", "def g(): pass {F=g}"}},
		{"javascript", "($P) => $B", "const a = async (u) => f(u);\nconst b = (u) => g(u);\n", []string{"(u) => g(u) {P=u} {B=g(u)}"}},
		{"rust", "fn $F() {}", "pub fn a() {}\nfn b() {}\n", []string{"fn b() {} {F=b}"}},
		// The else clause is not spelled: ignored, but inside the span.
		{"python", "if $A: $B", "if a: x()\nelse: y()\n", []string{"if a: x()\nelse: y() {A=a} {B=x()}"}},
	}
	for _, tt := range tests {
		got := find(t, tt.lang, tt.pattern, tt.src, CompileOptions{})
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %q (-want +got):\n%s", tt.lang, tt.pattern, diff)
		}
	}
}

// matchedTexts lists the source text of each match of res, file by file
// (res must be searched with KeepSource).
func matchedTexts(res *SearchResult) []string {
	var got []string
	for _, f := range res.Files {
		for _, m := range f.Matches {
			got = append(got, string(f.Src[m.Start:m.End]))
		}
	}
	return got
}

// TestSequencePassesOnlySeparators: between the items of a pattern of
// several nodes, which no parent kind holds together, a match passes
// over separators only. C++ $A input_end (a type and a name, read as two
// nodes) matched input_begin != input_end, the operator passed over (the
// identity soak, seed 1796646149493833905).
func TestSequencePassesOnlySeparators(t *testing.T) {
	src := "template <class iT> void f(iT input_begin, iT input_end) {\n  g(input_begin, input_end);\n  for (; input_begin != input_end; ++input_begin) {}\n}\n"
	runPatCases(t, []patCase{
		{name: "cpp", lang: "cpp", pattern: "$A input_end", src: src,
			want: []string{"iT input_end {A=iT}", "input_begin, input_end {A=input_begin}"}},
		// Statements side by side, with the ';' or newline tokens some
		// grammars keep between them.
		{name: "go", lang: "go", pattern: "a()\nb()", src: "package p\n\nfunc f() {\n\ta(); b()\n\ta() + b()\n}\n",
			want: []string{"a(); b()"}},
	})
}

// TestGapWithMetavariables: text inside a node that no child covers (a
// Scala string's) was not compared at all once it held a metavariable,
// so "RESIDUAL: $A\n" matched any string with one escape sequence, the
// identity rewrite then writing one string over another (soak seed
// 1796658698270972373). Its literal parts must be there; a metavariable
// stands for any text (nothing bound). A pattern's root node too, where
// a gap without letters or digits counts as the same (a review found
// "::\n" matched).
func TestGapWithMetavariables(t *testing.T) {
	src := "object O {\n  val a = \"RESIDUAL: 'scala %s'\\n\"\n  val b = \"ClassPath has ${x.y.size} entries:\\n${cp.s}\"\n  val c = \"xx\\nyy\"\n  val d = \"zz\\n\"\n  val e = \"::\\n\"\n  val f = \"\\n\"\n}\n"
	runPatCases(t, []patCase{
		{name: "literal prefix", lang: "scala", pattern: `"RESIDUAL: $A\n"`, src: src, want: []string{`"RESIDUAL: 'scala %s'\n"`}},
		{name: "$$$ may be empty", lang: "scala", pattern: `"RESIDUAL: 'scala %s'$$$\n"`, src: src, want: []string{`"RESIDUAL: 'scala %s'\n"`}},
		{name: "around the escape", lang: "scala", pattern: `"$A\n$B"`, src: src,
			want: []string{`"ClassPath has ${x.y.size} entries:\n${cp.s}"`, `"xx\nyy"`}},
		{name: "ends with the escape", lang: "scala", pattern: `"$A\n"`, src: src, want: []string{`"RESIDUAL: 'scala %s'\n"`, `"zz\n"`, `"::\n"`}},
		{name: "no metavariable: exact", lang: "scala", pattern: `"zz\n"`, src: src, want: []string{`"zz\n"`}},
	})
}

// TestRewriteStringWithGap: the text after a string's last child that the
// pattern's compared text spells (its closing quote) is the match's, not
// kept after it: "RESIDUAL\n" → "DONE\n" wrote "DONE\n"" (a review).
func TestRewriteStringWithGap(t *testing.T) {
	src := "object O {\n  val a = \"RESIDUAL\\n\"\n  val b = \"RESIDUAL: x\\n\"\n}\n"
	if got, want := rewriteOne(t, "a.scala", src, `"RESIDUAL\n"`, `"DONE\n"`), "object O {\n  val a = \"DONE\\n\"\n  val b = \"RESIDUAL: x\\n\"\n}\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := rewriteOne(t, "a.scala", src, `"RESIDUAL: $A\n"`, `"DONE\n"`), "object O {\n  val a = \"RESIDUAL\\n\"\n  val b = \"DONE\\n\"\n}\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestMatchSpellsEveryChildFirst: where a pattern can match leaving
// children inside a node or spelling them all, it spells them all; a
// child left over is only the last resort (then a rewrite is refused,
// TestRewriteKeepsOrRefusesUnspelledCode). Scala's header $$$ $A + sep
// took $$$ nothing and $A the '+', lbrace left over, so the captures
// written back said header + + sep (the generated differential, soak
// seed 1796681371228885479).
func TestMatchSpellsEveryChildFirst(t *testing.T) {
	tests := []struct {
		lang, pattern, src string
		want               []string
	}{
		{"scala", "t.mkString(header $$$R $A + sep)", "object A {\n  def f = t.mkString(header + lbrace + sep)\n}\n",
			[]string{"t.mkString(header + lbrace + sep) {R=+} {A=lbrace}"}},
		// Where no way spells every child, the match still stands.
		{"rust", "&$X", "fn f() { let a = &mut x; }", []string{"&mut x {X=mut}"}},
	}
	for _, tt := range tests {
		got := find(t, tt.lang, tt.pattern, tt.src, CompileOptions{})
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %q (-want +got):\n%s", tt.lang, tt.pattern, diff)
		}
	}
}

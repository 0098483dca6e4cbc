package patterns

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// fuzzLangs are the grammars the pattern fuzzers pick from: one of each
// family of scaffolds (Go's own ladder, Python's indentation, JavaScript's
// brace-first reading, Rust's macros, C's expando).
var fuzzLangs = []string{"go", "python", "javascript", "rust", "c"}

// fuzzContexts are the forced readings tried besides the ladder ("" means
// no force); a context a language lacks must be refused, not panic.
var fuzzContexts = []string{"", "", "statement", "expression", "member", "declaration", "type", "nonsense"}

func fuzzLanguage(t *testing.T, i uint8) *Language {
	t.Helper()
	l, err := LanguageByName(fuzzLangs[int(i)%len(fuzzLangs)])
	if err != nil {
		t.Fatal(err)
	}
	testutil.NeedsFunc(t, "the "+l.ID+" grammar", func() string {
		if ok, why := l.Available(); !ok {
			return why
		}
		return ""
	})
	return l
}

func fuzzPatternSeeds(f *testing.F) {
	for _, s := range []struct {
		lang    uint8
		pattern string
	}{
		{0, "fmt.Errorf($$$ARGS)"}, {0, "if err != nil { return $$$ }"}, {0, "$A == $A"},
		{0, "for $I := range $X { $$$ }"}, {0, "$X := $F()\nuse($X)"}, {0, "func $F($$$) {"},
		{1, "print($$$)"}, {1, "if $X is None: $$$"}, {1, "f($$$A, b)"}, {1, "def $F(self):\n    $$$"},
		{2, "console.log($$$)"}, {2, "{ a: $A }"}, {2, "$$$"}, {2, "`${$X}`"},
		{3, "println!($$$)"}, {3, "impl $T { $$$ }"}, {3, "$X.unwrap()"},
		{4, "malloc($N)"}, {4, "#define $X"}, {4, "struct $S { $$$ };"},
		{0, ""}, {1, "   \n\t"}, {2, "$"}, {3, "$$"}, {4, "$$$$"}, {0, "\xff\xfe"}, {1, "((((((("},
		{2, "$_"}, {3, "$lower"}, {4, "/* $X */"}, {0, "\x00"}, {1, "µ𐀀"},
	} {
		f.Add(s.lang, s.pattern, uint8(0))
	}
	f.Add(uint8(0), "f($X)", uint8(3))
	f.Add(uint8(1), "x = $Y", uint8(2))
	f.Add(uint8(2), "class $C { $$$ }", uint8(4))
	f.Add(uint8(3), "fn $F()", uint8(5))
	f.Add(uint8(4), "int", uint8(6))
	f.Add(uint8(0), "x", uint8(7))
}

// FuzzCompile: any pattern in any of a few languages, with or without a
// forced context, compiles or is refused with an error that says what is
// wrong; it never panics.
func FuzzCompile(f *testing.F) {
	fuzzPatternSeeds(f)
	f.Fuzz(func(t *testing.T, lang uint8, pattern string, ctx uint8) {
		l := fuzzLanguage(t, lang)
		p, err := Compile(l, pattern, CompileOptions{Context: fuzzContexts[int(ctx)%len(fuzzContexts)]})
		if err != nil {
			if p != nil {
				t.Fatalf("Compile(%s, %q) returned both a pattern and %v", l.ID, pattern, err)
			}
			if msg := err.Error(); len(msg) < 10 || !utf8.ValidString(msg) && utf8.ValidString(pattern) {
				t.Fatalf("Compile(%s, %q): unclear error %q", l.ID, pattern, msg)
			}
			return
		}
		if p == nil || len(p.Roots) == 0 || p.Lang != l || p.Context == "" {
			t.Fatalf("Compile(%s, %q) = %+v: a pattern without roots or context", l.ID, pattern, p)
		}
		if strings.TrimSpace(pattern) == "" {
			t.Fatalf("Compile(%s, %q) accepted a blank pattern", l.ID, pattern)
		}
		_ = p.ReadAs()
	})
}

// FuzzMatch: a compiled pattern run over arbitrary source never panics,
// every match and capture lies inside the source, a source with a match
// passes the literal prefilter, and matching on the subtrees parseFor
// keeps finds exactly what matching on the whole tree finds.
func FuzzMatch(f *testing.F) {
	for _, s := range []struct {
		lang         uint8
		pattern, src string
	}{
		{0, "fmt.Errorf($$$ARGS)", "package p\nfunc f() error {\n\treturn fmt.Errorf(\"x %w\", err)\n}\n"},
		{0, "$A == $A", "package p\nvar _ = a+b == a + b\nvar _ = x == /* c */ x\n"},
		{0, "$X := $F()\nuse($X)", "package p\nfunc f() {\n\ta := g()\n\tuse(a)\n}\n"},
		{0, "f($X)", "package p\nvar _ = f(f(f(f(1))))\n"},
		{1, "foo($$$A, b, $$$C)", "foo(a, b, c, b)\n"},
		{1, "if $X is None: $$$", "def f(a):\n    if a is None:\n        return 1\n    else:\n        return 2\n"},
		{1, "print($$$)", "print(1)\n# print(2)\nt = f'{print(4)}'\n"},
		{1, "print($$$)", "'''doc print'''\nx = \"print\" # print\nprint(x)\n"},
		{1, "$A if $B else $C", "y = 1if c else 2\n"},
		{1, "$A == $A", "@d\ndef f(a):\n    return a == a\ns = f'{a == a:>{w}}'\nt = '''\nb == b\n'''\nif x:\n    pass\nelse:\n    c == c\n"},
		{1, "print($$$)", "x = (1,\nprint(2))\ny = 'a\\\nprint(3)'\nz = 1 + \\\nprint(4)\n"},
		{2, "console.log($$$A, $B)", "console.log(1, 2, 3); console.log(); console.log(x)\n"},
		{2, "{ a: $A }", "const o = { a: 1 };\n"},
		{3, "$X.unwrap()", "fn main() { let x = y.unwrap().unwrap(); }\n"},
		{4, "malloc($N)", "int main(void) { char *p = malloc(10); }\n"},
		{0, "f($X)", "package p\nvar _ = f(\xff\xfe)\n"},
		{1, "$$$", ""},
		{2, "f($X)", "f(((((((((((("},
		{3, "$A", "\x00\x00\x00"},
	} {
		f.Add(s.lang, s.pattern, s.src)
	}
	f.Fuzz(func(t *testing.T, lang uint8, pattern, src string) {
		l := fuzzLanguage(t, lang)
		p, err := Compile(l, pattern, CompileOptions{})
		if err != nil {
			return
		}
		pr := newParser()
		defer pr.close()
		tree, err := pr.parse(l, []byte(src), true)
		if err != nil {
			return
		}
		n := uint32(len(src))
		spans := p.Find(tree)
		if _, broken := tree.firstError(); len(spans) > 0 && utf8.ValidString(src) && !broken {
			// The prefilter may never turn away a file that has a match.
			// (In a file with syntax errors, tree-sitter's recovery may
			// read the text of a string or comment as code; the
			// comment-and-string scan does not, by design.)
			for _, lit := range p.literals {
				if !lit.inCode(l, []byte(src)) {
					t.Fatalf("a match in the source, but the prefilter rejects it on %v", lit)
				}
			}
		}
		near, err := pr.parseFor(p, []byte(src))
		if err != nil {
			t.Fatalf("parseFor: %v after parse succeeded", err)
		}
		// Where files are split into statements (Python), a file with
		// syntax errors is read a statement at a time, and error recovery
		// may then differ from the whole file's.
		_, broken := tree.firstError()
		if got := p.Find(near); !sameSpans(got, spans) && (!broken || splitters[l.ID] == nil) {
			t.Fatalf("matches on the kept subtrees differ from the whole tree's:\n near %v\n whole %v", got, spans)
		}
		for _, s := range spans {
			if s.Start > s.End || s.End > n {
				t.Fatalf("match [%d,%d) outside the %d-byte source", s.Start, s.End, n)
			}
			for _, c := range s.Captures {
				if c.Start > c.End || c.End > n {
					t.Fatalf("capture %s [%d,%d) outside the %d-byte source", c.Name, c.Start, c.End, n)
				}
			}
		}
	})
}

// sameSpans compares matches by their byte ranges and captures' names and
// byte ranges (node indices differ between trees).
func sameSpans(a, b []Span) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Start != b[i].Start || a[i].End != b[i].End || len(a[i].Captures) != len(b[i].Captures) {
			return false
		}
		for j, c := range a[i].Captures {
			d := b[i].Captures[j]
			if c.Name != d.Name || c.Multi != d.Multi || c.Start != d.Start || c.End != d.End {
				return false
			}
		}
	}
	return true
}

// FuzzSplitPython: on any Python source, the statement split is never
// wrong where the parser can judge (each start is where a statement of an
// error-free module starts), and in an error-free file searches that
// parse only the statements around a literal find exactly what a parse of
// the whole file finds.
func FuzzSplitPython(f *testing.F) {
	for _, s := range []string{
		"a == a\n@d\ndef f(a):\n    return a == a\ns = f'{a == a:>{w}}'\nt = '''\nb == b\n'''\nif x:\n    pass\nelse:\n    c == c\n",
		"x = (1,\nprint(2))\ny = 'a\\\nprint(3)'\nz = 1 + \\\nprint(4)\nprint(5)\n",
		"class C:\n    def f(self):\n        return f\"{self.x!r:{w}}\" == f'{{'\n\nprint(1 == 1)\n",
		"try:\n    f(a)\nexcept E:\n    f(b)\nfinally:\n    f(c)\nf(d)\n",
		"s = rb'\\''\nif\"{\" in s: f(s)\nf(t)\n",
		"class C:\n    x = 1\n    @d\n    def f(self, a):\n        b = a\n        if b is None:\n            pass\n        else:\n            b = f(a == a)\n        return b\n    y = 2\n",
		"def f():\n    a = 1\n# c\n    b = [\n1]\n    try:\n        c = 2\n    except E:\n        def g(): print(1)\n    return c\n",
		// U+FEFF, U+2060 and U+200B are blanks to tree-sitter-python: a
		// line they lead starts its statement after them, one they end
		// is open after a +, and a file's mark hides neither a decorator
		// nor a def header.
		"x = 1\n\ufeffy = a == a\n", "x = a +\u200b\ny == y\n", "\ufeff@d\ndef f(): pass\nf(1)\n",
		"\ufeffdef f\n(): pass\nx\n", "if x:\n  a\n  \u2060b\nc\n",
	} {
		f.Add(s)
	}
	fuzzSplit(f, "python", splitPython, "$A == $A", "print($$$)", "f($A)", "if $X: $$$", "def $F($$$ARGS): $$$BODY")
}

// FuzzSplitGo is FuzzSplitPython for Go's top-level declarations.
func FuzzSplitGo(f *testing.F) {
	for _, s := range []string{
		"package p\n\nimport \"fmt\"\n\nfunc f() error {\n\tif err != nil {\n\t\treturn fmt.Errorf(\"x\")\n\t}\n\treturn nil\n}\n\nvar x = a == a\n",
		"package p\nvar f = func() int {\nreturn 1\n}\nfunc g() { _ = a == a }\nconst s = `\nfunc h() { a == a }\n`\ntype T struct{}\n",
		"package p\n/* a\nfunc f() {} */\nvar x = 1 +\nfunc() int { return a == a }()\nfunc f() {}\n",
		"package p\nfunc f() {\n\tfor i := range xs {\n\t}\n}\nfunc g() { x++\n}\nvar r = '\"'\nfunc h() {}\n",
		"package p\nvar\nA\nfunc()\nvar /* b */ B,\nC\nfunc()\nfunc f() {}\n",
	} {
		f.Add(s)
	}
	fuzzSplit(f, "go", splitGo, "$A == $A", "fmt.Errorf($$$)", "for $I := range $X { $$$ }", "if err != nil { return $$$ }")
}

func fuzzSplit(f *testing.F, langID string, split splitter, patterns ...string) {
	lang := mustLang(f, langID)
	pats := mustCompileAll(f, lang, patterns...)
	f.Fuzz(func(t *testing.T, src string) {
		pr := newParser()
		defer pr.close()
		whole, err := pr.parse(lang, []byte(src), true)
		if err != nil {
			return
		}
		_, broken := whole.firstError()
		// (C's parts also start inside a conditional directive, which is
		// not a top-level statement: there only the matches are held.)
		if starts, ok := split([]byte(src), nil); ok && !broken && langID != "c" {
			if s, off := startOffTree(whole, starts); off {
				t.Fatalf("the split starts a statement at %d, the parser does not", s)
			}
		}
		for _, p := range pats {
			got, want, err := partialAndWhole(pr, p, []byte(src), whole)
			if err != nil {
				t.Fatalf("parseFor: %v after parse succeeded", err)
			}
			// A file with syntax errors is read a statement at a time,
			// and error recovery may then differ from the whole file's.
			if !sameSpans(got, want) && !broken {
				t.Fatalf("%q: parsing around the literal finds %v, the whole file %v", p.Source, got, want)
			}
		}
	})
}

// startOffTree returns the first of a split's starts (after the file's
// own) where the whole file's parse starts no top-level node, and
// whether there is one. (A top-level comment is such a node: parts cut
// there read as the whole file does.)
func startOffTree(whole *Tree, starts []uint32) (uint32, bool) {
	top := map[uint32]bool{}
	for c := uint32(1); c < uint32(len(whole.nodes)); c = whole.nodes[c].next {
		top[whole.nodes[c].start] = true
	}
	for _, s := range starts[1:] {
		if !top[s] {
			return s, true
		}
	}
	return 0, false
}

// partialAndWhole is what p finds in src parsing only around its
// literal, and in the whole file's tree; a search must see the same.
func partialAndWhole(pr *parser, p *Pattern, src []byte, whole *Tree) (got, want []Span, err error) {
	near, err := pr.parseFor(p, src)
	if err != nil {
		return nil, nil, err
	}
	return p.Find(near), p.Find(whole), nil
}

// FuzzSplitC is FuzzSplitGo for C's top-level declarations and
// directives (make fuzz runs it).
func FuzzSplitC(f *testing.F) {
	for _, s := range []string{
		"#include <a.h>\n#ifndef H\n#define H 1\nint f(int a) {\n  if (a == a) { return 1; }\n  return 0;\n}\n#endif\n",
		"int x =\n#if A\n1\n#else\n2\n#endif\n;\nstruct s { int a; }\nv;\nint g(void) { if (x) { } }\n",
		"/* a\nint f() { if (b) { } } */\nchar *s = \"{\";\n#define M(x) \\\n  if (x) { }\nint h;\n",
		// Statements whose parentheses lie only in comments, strings or
		// a #define body are not parsed; inside braces a #define after a
		// last member without a comma is read as code.
		"#define A(x, ...) f(x) /* g(x) */ h(x)\n#define B \"(\" (1)\nint a = f(1); // g(2)\nenum { X = 4\n#define Y (1<<X)\n};\n",
		"#  define C(a) \\\n  sizeof(a)\nint s = sizeof(x);\n/* f(1) */\nchar *t = \"f(2)\";\n",
		// Code after #else, #endif or #ifdef's name on its line is code
		// to the grammar (the split mutants, seed 1796646226656961199).
		"#if A\nint x;\n#else struct S\n{\nint y;\n};\n#endif\nint f(int a) { if (a == a) { } }\n",
		"#ifdef A int q;\n#endif /* A */ X\nint w = sizeof(w);\n#ifndef B // b\nstruct s { int a; };\n#endif\n",
	} {
		f.Add(s)
	}
	fuzzSplit(f, "c", splitC, "if ($C) { $$$ }", "#define $A $B", "return $X;", "struct $S { $$$ }", "$F($$$)", "sizeof($X)")
}

// FuzzSplitTS is FuzzSplitGo for TypeScript's top-level statements: no
// cut falls inside a token, string, template, comment or regular
// expression of an error-free file (each is where the parser starts a
// statement), and the partial parse finds what the whole file's does.
func FuzzSplitTS(f *testing.F) {
	for _, s := range []string{
		"import a from 'a';\nexport const x = a.b(1);\nfunction f(y: number) {\n  if (y) { return y / 2; }\n  return /}/.test(`${y}`);\n}\n",
		"const s = `\nexport const no = ${ {a: `\n}\nconst no2 = f(1);\n`} }`;\nconst r = /'/g;\nconst q = a.b! / 2; // '\nclass C { m() { return 1; } }\n",
		"/* a\nconst no = f(1);\n*/\n@d()\nexport class A {\n  x = new B();\n}\ntype T = { a: string };\ninterface I { f(): void }\nif (a) /'/.test(b);\nconst z = x.return / 2;\n",
		"declare module 'm' {\n  export const a: number;\n}\nnamespace N { export const b = 1; }\nenum E { A, B }\nlet c = (d) => d.e(f);\n",
	} {
		f.Add(s)
	}
	fuzzSplit(f, "typescript", splitJS(false), "if ($C) { $$$ }", "$X.$M($$$)", "return $X", "const $A = $B", "new $C($$$)")
}

// FuzzSplitJS is FuzzSplitTS for JavaScript, whose grammar reads JSX.
func FuzzSplitJS(f *testing.F) {
	for _, s := range []string{
		"#!/usr/bin/env node\nconst a = require('a');\nfunction f(x) {\n  if (x) { return <div>{x}</div>; }\n  return x / 2;\n}\nmodule.exports = f;\n",
		"const r = /[/]'/;\nvar s = `${ `${a.b()}` }`;\nlet t = a < b;\nexport default class { m() { return this.x.y(1); } }\n",
	} {
		f.Add(s)
	}
	fuzzSplit(f, "javascript", splitJS(true), "if ($C) { $$$ }", "$X.$M($$$)", "return $X", "const $A = $B")
}

// FuzzDirectiveLines: on any C++ source without a syntax error, a search
// for a directive pattern, which parses only directive lines, differs
// from a parse of the whole file only as directiveDiff allows (make
// fuzz runs it; its first 2 minutes found a panic and four classes).
func FuzzDirectiveLines(f *testing.F) {
	for _, s := range []string{
		"#include <a.h>\nnamespace n {\n#define X 1\nstruct s {\n#include \"f.h\"\n};\n}\n",
		"const char *s = R\"(\n#define X 1\n)\";\n#define Y 2\n",
		"enum e { A,\n#define A A\n};\n/* c */ #define B 1 /* x\n y */\nint n = 1'000;\n#pragma once\n",
		"#define F(a) \\\n  a + \\\n  1\n#undef F\n#define G \n\n/* c */\n#define H 2\n",
	} {
		f.Add(s)
	}
	lang := mustLang(f, "cpp")
	pats := mustCompileAll(f, lang, "#define $A $B", "#define $A", "#include $H", "#pragma $X", "#undef $A")
	f.Fuzz(func(t *testing.T, src string) {
		pr := newParser()
		defer pr.close()
		whole, err := pr.parse(lang, []byte(src), true)
		if err != nil {
			return
		}
		if _, broken := whole.firstError(); broken {
			// Error recovery reads a file with syntax errors freely (a
			// #define inside an unclosed string); TestDirectiveLinesOnCorpus
			// holds the broken headers of /usr/include to directiveDiff.
			return
		}
		for _, p := range pats {
			tree, err := pr.parseFor(p, []byte(src))
			if err != nil {
				t.Fatalf("parseFor: %v after parse succeeded", err)
			}
			if why := directiveDiff(p, []byte(src), whole, p.Find(tree), p.Find(whole)); why != "" {
				t.Fatalf("%q: %s", p.Source, why)
			}
		}
	})
}

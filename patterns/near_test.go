package patterns

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestParseForKeepsWhatMatches checks the pruned flatten on small sources
// built to trip it: matches nested in matches, the anchor text in comments
// and strings, candidates side by side, and a file without the anchor.
func TestParseForKeepsWhatMatches(t *testing.T) {
	for _, tt := range []struct {
		lang, pattern, src string
		want               int // matches
	}{
		{"python", "$A == $A", "x = (a == a) == (a == a)\n# b == b\ny = 'c == c'\nz = d == e\n", 3},
		{"python", "print($$$)", "print(print(1), print(2))\ndef f():\n    print(3)\n", 4},
		{"python", "if $X is None: $$$", "if a is None:\n    if b is None:\n        pass\nelif a is not None:\n    pass\n", 2},
		{"python", "def $F($$$): $$$", "class C:\n    def f(self):\n        def g(): pass\n", 2},
		{"python", "$A == $A", "x = a != a\n", 0},
		{"go", "fmt.Errorf($$$A)", "package p\nfunc f() { _ = fmt.Errorf(\"%w\", fmt.Errorf(\"x\")) }\n// fmt.Errorf(y)\n", 2},
		{"go", "$A == $A", "package p\nvar _ = a+b == a + b\nvar _ = x == /* c */ x\nvar _ = x == y\n", 2},
		{"go", "for $I := range $X { $$$ }", "package p\nfunc f() {\n\tfor i := range xs {\n\t\tfor j := range i { _ = j }\n\t}\n}\n", 2},
		{"javascript", "console.log($$$A)", "console.log(console.log(1)); f(() => console.log(2))\n", 3},
	} {
		lang := mustLang(t, tt.lang)
		p, err := Compile(lang, tt.pattern, CompileOptions{})
		if err != nil {
			t.Fatalf("%s %q: %v", tt.lang, tt.pattern, err)
		}
		if p.rootSyms == nil {
			t.Fatalf("%s %q: no root symbols, so nothing is pruned", tt.lang, tt.pattern)
		}
		pr := newParser()
		whole, err := pr.parse(lang, []byte(tt.src), true)
		if err != nil {
			t.Fatal(err)
		}
		near, err := pr.parseFor(p, []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		want, got := p.Find(whole), p.Find(near)
		if len(want) != tt.want {
			t.Errorf("%s %q: %d matches on the whole tree, want %d", tt.lang, tt.pattern, len(want), tt.want)
		}
		if !sameSpans(got, want) {
			t.Errorf("%s %q: on the kept subtrees %v, on the whole tree %v", tt.lang, tt.pattern, got, want)
		}
		if len(near.nodes) >= len(whole.nodes) {
			t.Errorf("%s %q: kept %d of %d nodes", tt.lang, tt.pattern, len(near.nodes), len(whole.nodes))
		}
		pr.close()
	}
}

// TestParseForOnCorpus holds the pruned flatten to the whole tree on real
// code: the Python standard library and a twentieth of GOROOT/src, with the
// bench's patterns and a few more.
func TestParseForOnCorpus(t *testing.T) {
	t.Run("go", func(t *testing.T) {
		holdNearToWhole(t, "go", gorootSrc(t), ".go", 20,
			"if err != nil { return $$$ }", "fmt.Errorf($$$ARGS)", "for $I := range $X { $$$ }", "$A == $B",
			"$X.$M($$$)", "len($S) == 0", "defer $F()")
	})
	t.Run("python", func(t *testing.T) {
		holdNearToWhole(t, "python", pythonStdlib(t), ".py", 2,
			"print($$$)", "if $X is None: $$$", "$A == $B", "def $F($$$): $$$",
			"self.$A = $A", "raise $E($$$)", "return None", "def $F($$$ARGS): $$$BODY")
	})
}

func holdNearToWhole(t *testing.T, langID, dir, ext string, every int, patterns ...string) {
	lang := mustLang(t, langID)
	var pats []*Pattern
	for _, s := range patterns {
		p, err := Compile(lang, s, CompileOptions{})
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if p.rootSyms == nil {
			t.Fatalf("%q: no root symbols, so nothing is pruned", s)
		}
		pats = append(pats, p)
	}
	pr := newParser()
	defer pr.close()
	matches := make([]int, len(pats))
	kept, total := 0, 0
	files := eachCorpusFile(t, dir, ext, every, func(path string, src []byte) {
		whole, err := pr.parse(lang, src, true)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if _, broken := whole.firstError(); broken && langID == "c" {
			// A C file with a syntax error: where the parts holding the
			// literal parse clean, they are read as written, while the
			// whole file's error recovery may swallow code around the
			// error (see splitC); the two may differ, on purpose.
			return
		}
		for i, p := range pats {
			want := p.Find(whole)
			near, err := pr.parseFor(p, src)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if got := p.Find(near); !sameSpans(got, want) {
				t.Errorf("%s, %q: %d matches on the kept subtrees, %d on the whole tree", path, p.Source, len(got), len(want))
			}
			matches[i] += len(want)
			kept += len(near.nodes)
			total += len(whole.nodes)
		}
	})
	if files < 300 {
		t.Fatalf("only %d %s files under %s", files, ext, dir)
	}
	for i, n := range matches {
		if n == 0 {
			t.Errorf("%q matched nothing in %d files: the comparison proves little", pats[i].Source, files)
		}
	}
	t.Logf("%d files; matches per pattern %v; kept %.1f%% of the nodes", files, matches, 100*float64(kept)/float64(total))
}

// TestSplitPython checks the statement split on sources built to trip it.
func TestSplitPython(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want []string // the first line of each statement after the first
		ok   bool
	}{
		{"a = 1\nb = 2\n", []string{"b = 2"}, true},
		{"if a:\n    pass\nelse:\n    pass\nx = 1\n", []string{"x = 1"}, true},
		{"try:\n    pass\nexcept E:\n    pass\nfinally:\n    pass\nelsewhere = 1\n", []string{"elsewhere = 1"}, true},
		{"@d\n@e(1)\n# c\ndef f():\n    pass\n@g\nclass C: pass\n", []string{"@g"}, true},
		{"x = (1,\n2)\ny = [\n]\n", []string{"y = ["}, true},
		{"s = '''\nz = 1\n'''\nt = 2\n", []string{"t = 2"}, true},
		{"s = 'a\\\nz = 1'\nt = 2\n", []string{"t = 2"}, true},
		{"x = 1 + \\\n2\ny = 3\n", []string{"y = 3"}, true},
		{"def f():\n    x = 1\n# col 0 comment\n    y = 2\nz = 3\n", []string{"z = 3"}, true},
		{"s = f'{x:>{w}}' + f\"{d['k']}\" + f'{{'\nt = 1\n", []string{"t = 1"}, true},
		{"s = f'''{\n1}\n'''\nt = 1\n", []string{"t = 1"}, true},
		{"s = f'{d[\"}\"]}'\nt = 1\n", []string{"t = 1"}, true},
		{"if\"{\" in s: pass\nt = 1\n", []string{"t = 1"}, true},
		{"s = rb'\\''\nt = 1\n", []string{"t = 1"}, true},
		{"s = 'unterminated\nt = 1\n", nil, false},
		{"s = '''unterminated\nt = 1\n", nil, false},
		{"x = )\n", nil, false},
		{"x = (\n", nil, false},
		// A keyword glued to a number still leaves the statement open
		// (FuzzSplitPython, CI): 0 in 0 is one comparison to tree-sitter.
		{"0in\n0\nt = 1\n", []string{"t = 1"}, true},
		{"x = 1if\ny else 2\nt = 1\n", []string{"t = 1"}, true},
		{"x = 0x1f\nt = 1\n", []string{"t = 1"}, true},
		// A header that starts after other code on its line goes on
		// across the newline as one at the line's start does (FuzzSplitPython,
		// CI): tree-sitter reads x = 1 def f⏎(): pass as two statements,
		// the second from def to pass.
		{"x = 1 def f\n(): pass\nt = 1\n", []string{"t = 1"}, true},
		{"0%0\ufeffdef A\n(): pass\nt = 1\n", []string{"t = 1"}, true},
		{"x = f(a) class C\n: pass\nt = 1\n", []string{"t = 1"}, true},
		{"x = 0_while a\n: pass\nt = 1\n", []string{"t = 1"}, true},
		{"def g():\n    x = 1 for a in b\n(c): pass\nt = 1\n", []string{"t = 1"}, true},
		{"m = re.match(x)\nt = 1\n", []string{"t = 1"}, true},
		{"x = a if b else c\nt = 1\n", []string{"t = 1"}, true},
		{"x = 1 def f(): pass\nt = 1\n", []string{"t = 1"}, true},
		{"0%0def\nA\n(): pass\nt = 1\n", []string{"t = 1"}, true},
		{"0\n0def A\n(): pass\nt = 1\n", []string{"0def A", "t = 1"}, true},
		{" \ufeffdef A\n(): pass\nt = 1\n", []string{"t = 1"}, true},
		// A from with no import yet goes on (TestSplitHoldsOnMutants),
		// also across a line that starts with '.'; import * ends a line.
		{"from a\n\nimport b\nt = 1\n", []string{"t = 1"}, true},
		{"from a.b import *\nfrom c.d \nimport *\nt = 1\n", []string{"from c.d ", "t = 1"}, true},
		{"from c \n.d \r\nimport e\nt = 1\n", []string{"t = 1"}, true},
		{"def a(x): pass\ndef\ufeffb \n(c): pass\nt = 1\n", []string{"def\ufeffb ", "t = 1"}, true},
		{"f = lambda a\n: 1\nt = 1\n", []string{"t = 1"}, true},
		// A zero-width blank glued before a keyword ending a line leaves
		// it open as a space would.
		{"from a import b\u2060as\r\nc\nt = 1\n", []string{"t = 1"}, true},
		{"x = 1 # \u2060\ny = 2\n", nil, false}, // (in a comment too: only speed)
		// An '@' after an operand is matrix product; after a statement
		// that takes none, a decorator.
		{"x = a @ b\nt = 1\n", []string{"t = 1"}, true},
		{"x = 1;@d\ndef f(): pass\nt = 1\n", []string{"t = 1"}, true},
		{"from . import m\nt = 1\n", []string{"t = 1"}, true},
		{"from importlib.resources \n\nimport files\nt = 1\n", []string{"t = 1"}, true},
		{"from a import b\n1jfrom c \r\nimport d\nt = 1\n", []string{"1jfrom c \r", "t = 1"}, true},
		{"import a\u2060from c \nimport d\nt = 1\n", []string{"t = 1"}, true},
		{"from a import b;from c\r\nimport d\nt = 1\n", []string{"t = 1"}, true},
		{"x = 1;from c\nimport d\nt = 1\n", []string{"t = 1"}, true},
		{"x = ...\n1.5class C\n(E): pass\nt = 1\n", []string{"t = 1"}, true},
		{"from x import S @d\nclass C: pass\nt = 1\n", []string{"t = 1"}, true},
		{"def f(): ...\n @d\ndef g(): pass\nt = 1\n", []string{"t = 1"}, true},
		// A decorator after a statement that takes no operand.
		{"def A():pass@0\ndef A(): pass\nt = 1\n", []string{"t = 1"}, true},
		{"pass@0\n@e\ndef A(): pass\nt = 1\n", []string{"t = 1"}, true},
		// A zero-width character ending a line hides its newline from
		// tree-sitter's scanner: 0\ufeff⏎() is one call.
		{"0\ufeff\n()\nt = 1\n", nil, false},
		{"if 0:\n 0\n 0\u2060\n0\n", nil, false},
	} {
		checkSplit(t, splitPython, tt.src, tt.want, tt.ok)
	}
}

// checkSplit compares the first line of each statement split finds in
// src, past the first, with want (ok: whether the split may be trusted).
func checkSplit(t *testing.T, split splitter, src string, want []string, wantOK bool) {
	t.Helper()
	starts, ok := split([]byte(src), nil)
	if ok != wantOK {
		t.Errorf("%q: ok %v, want %v", src, ok, wantOK)
		return
	}
	if !ok {
		return
	}
	var got []string
	for _, s := range starts[1:] {
		line, _, _ := strings.Cut(src[s:], "\n")
		got = append(got, line)
	}
	if starts[0] != 0 || !slices.Equal(got, want) {
		t.Errorf("%q: statements start at %v (%q), want %q", src, starts, got, want)
	}
}

// TestSplitGo checks the declaration split on sources built to trip it.
func TestSplitGo(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want []string // the first line of each declaration after the first
		ok   bool
	}{
		{"package p\n\nimport \"fmt\"\n\nfunc f() {}\nvar x = 1\ntype T int\nconst c = 2\n",
			[]string{"import \"fmt\"", "func f() {}", "var x = 1", "type T int", "const c = 2"}, true},
		{"package p\nfunc f() {\nfunc() {}()\n}\nfunc g() {}\n", []string{"func f() {", "func g() {}"}, true},
		{"package p\nvar x = 1 +\nfunc() int { return 1 }()\nfunc g() {}\n", []string{"var x = 1 +", "func g() {}"}, true},
		{"package p\nconst s = `\nfunc f() {}\n`\nfunc g() {}\n", []string{"const s = `", "func g() {}"}, true},
		{"package p\n/*\nfunc f() {}\n*/\nfunc g() {}\n", []string{"func g() {}"}, true},
		{"package p\n// func f() {}\nfunc g() {}\nvar x = 1 +\nfunction\n", []string{"func g() {}", "var x = 1 +"}, true},
		{"package p\nfunc g() {}\nfunction := 1\n", nil, false}, // not Go at the top level: unsure
		{"package p\nvar r = '\\''\nfunc g() {}\n", []string{"var r = '\\''", "func g() {}"}, true},
		{"package p\nvar m map[string]\nfunc()\nvar a, b\nfunc()\ntype F\nfunc()\nfunc g() {}\n",
			[]string{"var m map[string]", "var a, b", "type F", "func g() {}"}, true},
		// The token before the name, across newlines and comments.
		{"package p\nvar\nm\nfunc()\nvar a,\nb\nfunc()\ntype /* F */ F\nfunc()\nvar x // int\nfunc g() {}\n",
			[]string{"var", "var a,", "type /* F */ F", "var x // int"}, true},
		// A func's parameters then an unnamed func: its result type
		// (FuzzSplitGo); other closing parentheses end the declaration.
		{"package p\nfunc f(\n\ta int,\n)\nfunc() {}\nvar x = f()\nfunc (t T) M() {}\nvar (\n\ty = 1\n)\nfunc (t T) N() {}\n",
			[]string{"func f(", "var x = f()", "func (t T) M() {}", "var (", "func (t T) N() {}"}, true},
		// Code Go forbids at the top level, which tree-sitter-go reads
		// without error, need not end at a newline: unsure (FuzzSplitGo).
		{"package p\nfunc()\nfunc(){}\nvar x = 1\n", nil, false},
		{"func\n()\nfunc(){}", nil, false},
		{"0%func()\nfunc(){}", nil, false},
		{"package p\nvar x = 1\nx++\nfunc f() {}\n", nil, false},
		{"package p\nvar s = \"unterminated\nfunc g() {}\n", nil, false},
		{"package p\nfunc g() {\n", nil, false},
		{"package p\n/* unterminated\n", nil, false},
	} {
		checkSplit(t, splitGo, tt.src, tt.want, tt.ok)
	}
}

// TestSplitOnCorpus holds each split to the parser: in every file of the
// Python standard library (and every fifth of GOROOT/src) that parses
// without error, each offset the split gives is where one of the file's
// top-level statements starts.
func TestSplitOnCorpus(t *testing.T) {
	t.Run("python", func(t *testing.T) {
		holdSplitToParser(t, "python", splitPython, pythonStdlib(t), ".py", 1)
	})
	t.Run("go", func(t *testing.T) {
		holdSplitToParser(t, "go", splitGo, gorootSrc(t), ".go", 5)
	})
}

func holdSplitToParser(t *testing.T, langID string, split splitter, dir, ext string, every int) {
	lang := mustLang(t, langID)
	pr := newParser()
	defer pr.close()
	files, unsure, found, stmts := 0, 0, 0, 0
	eachCorpusFile(t, dir, ext, every, func(path string, src []byte) {
		tree, err := pr.parse(lang, src, false)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if _, broken := tree.firstError(); broken {
			return
		}
		files++
		starts, ok := split(src, nil)
		if !ok {
			unsure++
			return
		}
		top := map[uint32]bool{}
		for c := uint32(1); c < uint32(len(tree.nodes)); c = tree.nodes[c].next {
			if !tree.skip(int(c)) {
				top[tree.nodes[c].start] = true
			}
		}
		for _, s := range starts[1:] {
			if !top[s] {
				line, _, _ := strings.Cut(string(src[s:]), "\n")
				t.Errorf("%s:%d: the split starts a statement at %q, the parser does not", path, s, line)
			}
		}
		found += len(starts) - 1
		stmts += len(top)
		if top[0] {
			stmts--
		}
	})
	if files < 500 {
		t.Fatalf("only %d files parsed without error under %s", files, dir)
	}
	if unsure > files/20 {
		t.Errorf("the split was unsure in %d of %d files", unsure, files)
	}
	t.Logf("%d files (%d unsure); the split found %d statement starts past the first, of the parser's %d", files, unsure, found, stmts)
}

// TestSplitC checks the C split on sources built to trip it.
func TestSplitC(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want []string // the first line of each part after the first
		ok   bool
	}{
		{"#include <a.h>\n#define N 1\nint x;\nint f(void) {\n  return 1;\n}\nstatic int g;\n",
			[]string{"#define N 1", "int x;", "int f(void) {", "static int g;"}, true},
		// Directives between declarations are parts of their own, and so
		// is the line after one; not in the middle of a declaration.
		{"#ifndef H\n#define H\nint x;\n#endif\n", []string{"#define H", "int x;", "#endif"}, true},
		{"int x =\n#ifdef A\n1\n#else\n2\n#endif\n;\nint y;\n", []string{"int y;"}, true},
		// Inside braces, strings, comments and continued directives.
		{"int f(void) {\nint y;\n#if A\n}\n#else\n}\n#endif\nint z;\n", nil, false},
		{"struct s {\n  int a;\n};\nchar *p = \"}\";\n/* int q;\n*/\nint r;\n",
			[]string{"char *p = \"}\";", "int r;"}, true},
		{"#define M(x) \\\n  do { x; } while (0)\nint a;\n// c \\\nint b;\n", nil, false},
		{"#define M(x) \\\n  do { x; } while (0)\nint a;\n", []string{"int a;"}, true},
		{"int a; /* unterminated\n", nil, false},
		{"char c = '\\'';\nint d;\n", []string{"int d;"}, true},
		// Indented lines and lines not starting a name do not start a part.
		{"int a;\n  int b;\n(void)0;\nint c;\n", []string{"int c;"}, true},
		// A directive ending in a blank or a '/' takes the next line with
		// text as its value (FuzzSplitC: #000000 0/⏎#define A"⏎ is one
		// preproc_call); a conditional does not.
		{"#define A 1/\n#define B 2\nint c;\n", []string{"int c;"}, true},
		// A directive whose keyword stands alone on its line takes its
		// argument from the next one (FuzzSplitC): unsure.
		{"int a;\n  #define\nA A()A(){}\nint c;\n", nil, false},
		{"int a;\n#endif\nint c;\n", []string{"#endif", "int c;"}, true},
		{"int a;\n#pragma x \n\n// c\nint b;\nint d;\n", []string{"#pragma x ", "int d;"}, true},
		{"int a;\n#endif \nint b;\n", []string{"#endif ", "int b;"}, true},
	} {
		checkSplit(t, splitC, tt.src, tt.want, tt.ok)
	}
	for _, part := range []struct {
		text string
		want bool
	}{
		{"#endif\n", true}, {"  #  ifdef X\n\n", true}, {"#endif /* H */\n// c\n/* d */\n", true},
		{"#if A && \\\n B\n", true}, {"#define X\n", false}, {"#endif\nint x;\n", false}, {"#iffy\n", false},
	} {
		if got := conditionalOnly([]byte(part.text)); got != part.want {
			t.Errorf("conditionalOnly(%q) = %v, want %v", part.text, got, part.want)
		}
	}
}

// TestParseForOnCorpusC holds C's partial parse (splitC and the pruned
// flatten) to the whole tree on Linux's headers (/usr/include/linux) and the
// tree-sitter runtime, in the files that parse without error (one header
// in six has a syntax error tree-sitter's C grammar finds, a macro it
// cannot read; there a part that parses clean is read as written, and
// may hold matches the whole file's error recovery swallows).
func TestParseForOnCorpusC(t *testing.T) {
	pats := []string{"if ($C) { $$$ }", "#define $A $B", "return $X;", "struct $S { $$$ }", "#include $F",
		"enum $E { $$$ }", "#ifdef $X\n$$$\n#endif", "typedef struct $S $T;", "$F($$$)", "sizeof($X)", "($T)$X"}
	testutil.NeedsFunc(t, "/usr/include (apt libc6-dev)", func() string {
		if _, err := os.Stat("/usr/include/stdio.h"); err != nil {
			return err.Error()
		}
		return ""
	})
	holdNearToWhole(t, "c", "/usr/include/linux", ".h", 1, pats...)
	src := filepath.Join(modDir(t, "github.com/tree-sitter/go-tree-sitter@*"), "src")
	lang := mustLang(t, "c")
	pr := newParser()
	defer pr.close()
	for _, s := range pats {
		p, _ := Compile(lang, s, CompileOptions{})
		eachCorpusFile(t, src, ".c", 1, func(path string, b []byte) {
			whole, _ := pr.parse(lang, b, true)
			if _, broken := whole.firstError(); broken {
				return // as in holdNearToWhole
			}
			want := p.Find(whole)
			near, err := pr.parseFor(p, b)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Find(near); !sameSpans(got, want) {
				t.Errorf("%s, %q: %d matches on the partial parse, %d on the whole tree", path, s, len(got), len(want))
			}
		})
	}
}

// glueWordAt knows every word midLine looks for, and mayGlue lets every
// line through that midLine finds glued.
func TestGlueWordsMatchMidKeywords(t *testing.T) {
	for _, kw := range append(slices.Clone(midKeywords), "from") {
		if got := glueWordAt([]byte(kw + " x")); got != kw {
			t.Errorf("glueWordAt(%q) = %q", kw+" x", got)
		}
	}
	for _, line := range []string{"x = 1 def f", "pass@0", "from a", "0_def A", "x = f(a) class C", "0%0\ufeffdef A", "y = 1 lambda a"} {
		h, g := midLine([]byte(line + "\n"))
		if !h && !g {
			t.Errorf("midLine(%q) finds nothing", line)
		}
	}
}

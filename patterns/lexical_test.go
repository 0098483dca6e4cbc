package patterns

import (
	"strings"
	"testing"
)

func TestPythonHasCode(t *testing.T) {
	print := literal{text: []byte("print"), word: true}
	for _, tt := range []struct {
		src  string
		want bool
	}{
		{"print(1)\n", true},
		{"x = 1  # print(1)\n", false},
		{"# print\n", false},
		{"# print", false},
		{"'''\nprint(1)\n'''\nx = 1\n", false},
		{"\"\"\"doc: print it\"\"\"\n", false},
		{"s = 'print'\n", false},
		{"s = b'print' + r\"print\" + Rb'print'\n", false},
		{"s = 'it\\'s print'\n", false},
		{"s = r'\\'' ; print(s)\n", true},
		{"s = '#'; print(s)\n", true},
		{"# it's\nprint(1)\n", true},
		{"'''doc'''; print(1)\n", true},
		{"f'{print(1)}'\n", true},             // f-strings hold code
		{"F\"x\" 'print'\n", true},            // unsure after an f-string: in code
		{"s = 'unterminated print\n", true},   // the parser decides
		{"s = '''unterminated print\n", true}, // likewise
		{"x_'print'\n", true},                 // a name glued to a quote: unsure
		{"pprint(1)\n", false},
		{"'print' # print\nprinter = print\n", true},
		{"", false},
	} {
		if got := print.inCode(mustLang(t, "python"), []byte(tt.src)); got != tt.want {
			t.Errorf("print in code in %q = %v, want %v", tt.src, got, tt.want)
		}
	}
	// Other languages, and literals that are not words, use the plain test.
	if !print.inCode(mustLang(t, "rust"), []byte("// print\n")) {
		t.Error("rust: a comment must still pass (no scanner)")
	}
	if !(literal{text: []byte("print")}).inCode(mustLang(t, "python"), []byte("'print'")) {
		t.Error("a string-content literal must pass inside a string")
	}
}

func mustLang(tb testing.TB, name string) *Language {
	tb.Helper()
	l, err := LanguageByName(name)
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// mustCompileAll compiles each pattern in lang, or fails.
func mustCompileAll(tb testing.TB, lang *Language, patterns ...string) []*Pattern {
	tb.Helper()
	var pats []*Pattern
	for _, s := range patterns {
		p, err := Compile(lang, s, CompileOptions{})
		if err != nil {
			tb.Fatalf("%s %q: %v", lang.ID, s, err)
		}
		pats = append(pats, p)
	}
	return pats
}

// TestPythonScannerOnStdlib holds the Python scanner to the parser on a
// real corpus, the Python standard library.
func TestPythonScannerOnStdlib(t *testing.T) {
	holdScannerToParser(t, "python", pythonStdlib(t), ".py", 1,
		"print", "None", "self", "return", "if", "import", "open", "len", "is", "def", "raise", "True")
}

// holdScannerToParser checks lang's comment-and-string scan on the files
// under dir ending in ext (every every-th one): in every file where the
// scan says a word occurs only in comments and strings, the parse must
// have no identifier or keyword token with that text.
func holdScannerToParser(t *testing.T, langID, dir, ext string, every int, words ...string) {
	t.Helper()
	lang := mustLang(t, langID)
	p := newParser()
	defer p.close()
	skipped := 0
	files := eachCorpusFile(t, dir, ext, every, func(path string, src []byte) {
		var tree *Tree
		for _, w := range words {
			l := literal{text: []byte(w), word: true}
			if !l.in(src) || l.inCode(lang, src) {
				continue
			}
			skipped++
			if tree == nil {
				var err error
				if tree, err = p.parse(lang, src, true); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
			}
			for i, n := range tree.nodes {
				if n.next != uint32(i)+1 || string(src[n.start:n.end]) != w {
					continue
				}
				kind := lang.kindName(lang.kind(n.sym))
				if strings.Contains(kind, "identifier") || !n.named() || strings.EqualFold(kind, w) {
					t.Errorf("%s:%d: the scanner says %q is only in comments and strings, but the parser has a %s token there", path, n.start, w, kind)
				}
			}
		}
	})
	if files < 500 {
		t.Fatalf("only %d %s files under %s", files, ext, dir)
	}
	t.Logf("%d files; %d (file, word) pairs skipped by the scanner, each checked against the parse", files, skipped)
}

func TestGoHasCode(t *testing.T) {
	err := literal{text: []byte("err"), word: true}
	for _, tt := range []struct {
		src  string
		want bool
	}{
		{"if err != nil {}\n", true},
		{"// err\n", false},
		{"// err", false},
		{"/* err */ x := 1\n", false},
		{"/* a */ err = nil\n", true},
		{"s := \"err: %v\"\n", false},
		{"s := \"a \\\" err\"\n", false},
		{"s := `err\n err`\n", false},
		{"r := '\"'; err = nil\n", true},
		{"r := '\\''; s := \"err\"\n", false},
		{"s := \"// not a comment\"; err = nil\n", true},
		{"s := \"unterminated err\n", true},
		{"/* unterminated err", true},
		{"s := `unterminated err", true},
		{"errs, error, _err := 1, 2, 3\n", false},
		{"", false},
	} {
		if got := err.inCode(mustLang(t, "go"), []byte(tt.src)); got != tt.want {
			t.Errorf("err in code in %q = %v, want %v", tt.src, got, tt.want)
		}
	}
}

// TestGoScannerOnGOROOT holds the Go scanner to the parser on Go's own
// sources (every tenth file keeps it to a few seconds).
func TestGoScannerOnGOROOT(t *testing.T) {
	holdScannerToParser(t, "go", gorootSrc(t), ".go", 10,
		"err", "nil", "range", "return", "if", "fmt", "Errorf", "for", "func", "len", "string", "true", "go")
}

package patterns

import (
	"os"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestPrefilter checks the literal prefilter against the matcher: a file
// the prefilter rejects must have no match, and every file with a match
// must pass it, including where a literal sits next to a digit (Python's
// 1if) or after an escape sequence inside a string.
func TestPrefilter(t *testing.T) {
	tests := []struct {
		lang, pattern, src string
		match              bool // the matcher finds something, so the prefilter must pass
	}{
		{"python", "if $X is None: $$$", "if x is None:\n    pass\n", true},
		{"python", "if $X is None: $$$", "if x is Nonesuch:\n    pass\nelif y: isNone()\n", false},
		{"python", "$A if $B else $C", "y = 1if c else 2\n", true},
		{"python", `print("\nhello")`, "print(\"\\nhello\")\n", true},
		{"python", "print($$$)", "pprint(x)\nprinter(y)\n", false},
		{"python", "print($$$)", "x=print(1)\n", true},
		{"go", "if err != nil { return $$$ }", "package p\nfunc f() { if err != nil { return } }\n", true},
		{"go", "if err != nil { return $$$ }", "package p\nfunc f() { if error != nil { return }; errs := 1 }\n", false},
		{"go", "fmt.Errorf($$$)", "package p\nvar _ = fmt.Errorf(\"x\")\n", true},
		{"go", "for $I := range $X { $$$ }", "package p\nfunc f() {\n\tfor i := range xs {}\n}\n", true},
		{"javascript", "$A?.foo", "a?.foo;\n", true},
		{"bash", "echo hello", "echo hello\n", true},
		{"rust", "println!($$$)", "fn main() { println!(\"hi\"); }\n", true},
		{"ruby", "$A.empty?", "x.empty?\n", true},
	}
	for _, tt := range tests {
		l, err := LanguageByName(tt.lang)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Compile(l, tt.pattern, CompileOptions{})
		if err != nil {
			t.Fatalf("Compile(%s, %q): %v", tt.lang, tt.pattern, err)
		}
		passes := true
		for _, lit := range p.literals {
			passes = passes && lit.in([]byte(tt.src))
		}
		found := len(find(t, tt.lang, tt.pattern, tt.src, CompileOptions{})) > 0
		if found != tt.match {
			t.Errorf("%s %q in %q: matcher found %v, the case expects %v", tt.lang, tt.pattern, tt.src, found, tt.match)
		}
		if found && !passes {
			t.Errorf("%s %q in %q: the prefilter rejects a file with a match (literals %v)", tt.lang, tt.pattern, tt.src, p.literals)
		}
		if !tt.match && passes {
			t.Errorf("%s %q in %q: the prefilter passes a file it should reject (literals %v)", tt.lang, tt.pattern, tt.src, p.literals)
		}
	}
}

func TestLiteralIn(t *testing.T) {
	word := literal{text: []byte("err"), word: true}
	for src, want := range map[string]bool{
		"err":           true,
		"x = err;":      true,
		"(err)":         true,
		"1err":          true,
		"error":         false,
		"_err":          false,
		"err2":          false,
		"errs, err_":    false,
		"xerr, err.Foo": true,
		"é err":         true,
		"":              false,
	} {
		if got := word.in([]byte(src)); got != want {
			t.Errorf("word literal err in %q = %v, want %v", src, got, want)
		}
	}
	if !(literal{text: []byte("err")}).in([]byte("error")) {
		t.Error("a non-word literal must match inside a word")
	}
}

// TestCPrefilterOnCorpus holds the C and C++ prefilter to the matcher on
// real headers and sources (/usr/include, every 15th header, every 40th C++ one): a file whose
// literals occur only in comments, strings or as a directive's name
// (# if) is not parsed, so it must have no match on a whole-file parse,
// and a parsed one must give the whole-file parse's matches. Before
// both, if ($C) { $$$ } parsed nearly every header (the word if in
// comments, # if in conditionals): over OpenSSL's headers it cost 155
// ms of CPU for no match, and 10 ms with them.
func TestCPrefilterOnCorpus(t *testing.T) {
	dir := needSystemHeaders(t)
	pr := newParser()
	defer pr.close()
	for _, c := range []struct {
		lang, ext string
		every     int
	}{{"c", ".h", 15}, {"cpp", ".hpp", 40}} {
		lang := mustLang(t, c.lang)
		pats := mustCompileAll(t, lang, "if ($C) { $$$ }", "return $X;", "while ($C) { $$$ }", "$X = NULL", "sizeof($X)", "#if $C\n$$$\n#endif", "# define $A $B", "#include $H", "for ($$$) { $$$ }")
		files, skipped := 0, 0
		eachCorpusFile(t, dir, c.ext, c.every, func(path string, src []byte) {
			whole, err := pr.parse(lang, src, true)
			if err != nil {
				return
			}
			files++
			for _, p := range pats {
				want := p.Find(whole)
				if !searchable(lang, src, p.literals) {
					skipped++
					if len(want) > 0 && isText(src) { // a file not UTF-8 is named as not searched
						t.Errorf("%s %q: the prefilter skips %s, which has %d matches (first at %d)", c.lang, p.Source, path, len(want), want[0].Start)
					}
					continue
				}
				near, err := pr.parseFor(p, src)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if got := p.Find(near); !sameSpans(got, want) {
					if _, broken := whole.firstError(); !broken {
						t.Errorf("%s %q in %s: the search finds %d, the whole file %d", c.lang, p.Source, path, len(got), len(want))
					}
				}
			}
		})
		t.Logf("%s: %d files, %d pattern×file pairs not parsed", c.lang, files, skipped)
		if files == 0 {
			t.Errorf("no %s file under %s", c.ext, dir)
		}
	}
}

// needSystemHeaders returns the directory of the system's C and C++
// headers, which the tests that read real C need.
func needSystemHeaders(t *testing.T) string {
	dir := "/usr/include"
	testutil.NeedsFunc(t, "C and C++ headers in "+dir+" (libc6-dev, libstdc++-dev)", func() string {
		if _, err := os.Stat(dir); err != nil {
			return err.Error()
		}
		return ""
	})
	return dir
}

// searchable is searchFile's filter: text (see isText) holding every
// literal a match needs in code.
func searchable(lang *Language, src []byte, literals []literal) bool {
	return isText(src) && inCodeAll(lang, src, literals)
}

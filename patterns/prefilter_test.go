package patterns

import "testing"

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

package patterns

import (
	"fmt"
	"slices"
	"testing"
)

// TestDirectiveLinesOnCorpus holds the directive-line parse to the whole
// file's parse on the system's C and C++ headers (code nobody here
// wrote): in a file the grammar reads without error, a directive pattern
// finds exactly what the whole parse finds; in a file with a syntax
// error it finds at least the directives the whole parse finds (by start:
// the whole parse can stretch a directive over the error), and may find
// more, the lines the whole parse reads as no definition around its
// error (a #define inside an enum's body is a preproc_call to it).
func TestDirectiveLinesOnCorpus(t *testing.T) {
	dir := needSystemHeaders(t)
	pr := newParser()
	defer pr.close()
	for _, c := range []struct {
		lang, ext string
		every     int
	}{{"c", ".h", 4}, {"cpp", ".h", 29}} {
		lang := mustLang(t, c.lang)
		pats := mustCompileAll(t, lang, "#define $A $B", "#define $A", "#define $F($$$P) $B", "# define $A 0", "#include $H", "#include <stdio.h>", "#pragma $X", "#undef $A")
		for _, p := range pats {
			if p.lineDirective == notDirective {
				t.Fatalf("%s %q (%s) is not read as a line directive", c.lang, p.Source, p.ReadAs())
			}
		}
		before := pr.directives
		clean, broken, more, moreClean := 0, 0, 0, 0
		files := eachCorpusFile(t, dir, c.ext, c.every, func(path string, src []byte) {
			whole, err := pr.parse(lang, src, true)
			if err != nil {
				return
			}
			_, hasError := whole.firstError()
			if hasError {
				broken++
			} else {
				clean++
			}
			for _, p := range pats {
				want := p.Find(whole)
				if !searchable(lang, src, p.literals) {
					if len(want) > 0 && isText(src) { // a file not UTF-8 is named as not searched
						t.Errorf("%s %q: the prefilter skips %s, which has %d matches", c.lang, p.Source, path, len(want))
					}
					continue
				}
				tree, err := pr.parseFor(p, src)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				got := p.Find(tree)
				if why := directiveDiff(p, src, whole, got, want); why != "" {
					t.Errorf("%s %q in %s: %s", c.lang, p.Source, path, why)
				}
				more += max(0, len(got)-len(want))
				if !hasError && len(got) > len(want) {
					moreClean += len(got) - len(want)
				}
			}
		})
		t.Logf("%s: %d headers (%d without a syntax error, %d with one), %d directive-line parses, %d more matches than the whole files' parse (%d in files without a syntax error)",
			c.lang, files, clean, broken, pr.directives-before, more, moreClean)
		if pr.directives == before {
			t.Errorf("%s: no search parsed directive lines only", c.lang)
		}
	}
}

// directiveDiff says how a directive search's matches (got) differ from
// the whole file's parse (want) where they may not: "" when every match
// of the whole parse is found (by start: around a syntax error the whole
// parse can stretch a directive over what follows), in a file without a
// syntax error exactly so, and each other match is a #define that the
// whole parse reads as no definition (a generic preproc_call inside an
// enum's body, part of an ERROR). An #include search must equal the
// whole parse where the file has no syntax error.
func directiveDiff(p *Pattern, src []byte, whole *Tree, got, want []Span) string {
	_, broken := whole.firstError()
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g Span) bool { return g.Start == w.Start && (broken || g.End == w.End) }) {
			return fmt.Sprintf("the whole file's match at %d (%.60q) is not found", w.Start, src[w.Start:w.End])
		}
	}
	for _, g := range got {
		if slices.ContainsFunc(want, func(w Span) bool { return g.Start == w.Start }) {
			continue
		}
		if p.lineDirective != directiveAnywhere && !broken {
			return fmt.Sprintf("a match at %d (%.60q) that the whole file's parse does not have", g.Start, src[g.Start:g.End])
		}
		for _, n := range whole.nodes {
			if k := p.Lang.kindName(p.Lang.kind(n.sym)); n.start == g.Start && n.end == g.End && k == p.Roots[0] {
				return fmt.Sprintf("a match at %d (%.60q) that the whole file's parse reads as a %s, unmatched", g.Start, src[g.Start:g.End], k)
			}
		}
	}
	return ""
}

// TestDirectiveLines: how lines are chosen, on minimal files.
func TestDirectiveLines(t *testing.T) {
	cases := []struct {
		name, src, pattern string
		want               []string // matched texts, in order
		directives         int      // 1: the directive-line parse answered
		cpp                bool
	}{
		{"a define in an enum, which the whole parse reads as a preproc_call", "enum e {\n  A,\n#define A A\n  B,\n};\n#define C 1\n", "#define $A $B",
			[]string{"#define A A\n", "#define C 1\n"}, 1, false},
		{"a define in a struct body", "struct s {\n  int a;\n#define S_A 1\n};\n", "#define $A $B", []string{"#define S_A 1\n"}, 1, false},
		{"a directive in a comment is none", "/*\n#define X 1\n*/\n#define Y 2\n", "#define $A $B", []string{"#define Y 2\n"}, 1, false},
		{"a comment before the '#'", "/* c */ #define X 1\nint a;\n", "#define $A $B", []string{"#define X 1\n"}, 1, false},
		{"a comment begun on the line", "#define X 1 /* one\n   two */\nint a;\n", "#define $A $B", []string{"#define X 1 /* one\n   two */\n"}, 1, false},
		{"continuation lines", "#define F(a) \\\n  (a + \\\n   1)\nint x;\n", "#define $F($A) $B", []string{"#define F(a) \\\n  (a + \\\n   1)\n"}, 1, false},
		{"a blank before the newline reads on, through a comment", "#define X \n\n/* c */\n#define Y 2\n", "#define $A", []string{"#define X \n\n/* c */\n", "#define Y 2\n"}, 1, false},
		{"a blank before the newline reads on: the next line is the value", "#define A(a) \n#undef B\n#undef C\n", "#undef $A", []string{"#undef C\n"}, 1, false},
		{"an include in a struct body is a preproc_call to the grammar: parsed as before", "struct s {\n#include \"f.h\"\n};\n#include <a.h>\n", "#include $H",
			[]string{"#include <a.h>\n"}, 0, false},
		{"an include at top level", "int a;\n#include <a.h>\nint b;\n", "#include $H", []string{"#include <a.h>\n"}, 1, false},
		{"no directive holds the literal", "int define = 1;\n", "#define $A $B", nil, 1, false},
		{"a line of a raw string is no directive: parsed as before", "const char *s = R\"(\n#define X 1\n)\";\n#define Y 2\n", "#define $A $B",
			[]string{"#define Y 2\n"}, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lang := mustLang(t, "c")
			if c.cpp {
				lang = mustLang(t, "cpp")
			}
			p, err := Compile(lang, c.pattern, CompileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pr := newParser()
			defer pr.close()
			tree, err := pr.parseFor(p, []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range p.Find(tree) {
				got = append(got, c.src[s.Start:s.End])
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("found %q, want %q", got, c.want)
			}
			if pr.directives != c.directives {
				t.Errorf("directive-line parses: %d, want %d", pr.directives, c.directives)
			}
		})
	}
}

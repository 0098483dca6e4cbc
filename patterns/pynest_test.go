package patterns

import (
	"slices"
	"strings"
	"testing"
)

// TestPyNestKeeps checks which nested Python statements a search parses,
// on sources built to trip the scan: the kept text must be exactly want,
// and the matches on it those of the whole file.
func TestPyNestKeeps(t *testing.T) {
	const def = "def $F($$$): $$$"
	for _, tt := range []struct {
		name, pattern, src, want string // want: the kept text; "" when nothing nested is left out
	}{
		{"middle statements go", def,
			"x = 1\ndef f():\n    a = 1\n    b = 2\n    c = 3\n    return a\ny = 2\n",
			"def f():\n    a = 1\n    return a\n"},
		{"first, last and holders stay", def,
			"class C:\n    '''doc'''\n    x = 1\n    def f(self):\n        a = 1\n        b = 2\n        return a\n    y = 2\n    z = 3\n",
			"class C:\n    '''doc'''\n    def f(self):\n        a = 1\n        return a\n    z = 3\n"},
		{"clauses stay with their statement", def,
			"def f():\n    a = 1\n    if a:\n        b = 2\n    else:\n        c = 3\n    try:\n        d = 4\n    except E:\n        pass\n    return a\n",
			"def f():\n    a = 1\n    return a\n"},
		{"clause blocks are blocks", def,
			"def f():\n    if a:\n        b = 1\n        b = 2\n        b = 3\n    else:\n        def g(): pass\n        c = 1\n        c = 2\n",
			"def f():\n    if a:\n        b = 1\n        b = 3\n    else:\n        def g(): pass\n        c = 2\n"},
		{"a decorator and its definition are one statement", def,
			"class C:\n    a = 1\n    @property\n    def p(self):\n        return 1\n    @staticmethod\n    @other\n    def q():\n        return 2\n    z = 3\n",
			""},
		{"comments and blank lines go with the statement before", def,
			"def f():\n    a = 1\n# col 0\n\n    b = 2\n    # deeper\n        # and deeper\n    c = 3\n",
			"def f():\n    a = 1\n# col 0\n\n    c = 3\n"},
		{"brackets, strings and continuations", def,
			"def f():\n    a = (1,\n2)\n    s = '''\ndef g(): pass\n'''\n    t = 1 + \\\n  2\n    u = [\n    ]\n    return a\n",
			// The word in a string keeps its statement, and so does a line
			// going on left of its statement (t's 2).
			"def f():\n    a = (1,\n2)\n    s = '''\ndef g(): pass\n'''\n    t = 1 + \\\n  2\n    return a\n"},
		{"a bracketed line left of its block stays, for the parser to see", "class $C: $$$",
			// tree-sitter reads baz) as a dedent, a syntax error that sends
			// the search to the whole file.
			"class C:\n    def f(self):\n        pass\n    def g(self):\n        (bar.\n    baz)\n    def h(self):\n        pass\n",
			"class C:\n    def f(self):\n        pass\n    def g(self):\n        (bar.\n    baz)\n    def h(self):\n        pass\n"},
		{"a line that cannot end there goes on", def,
			"def f():\n    a = 1\n    b = x and\n    c = 2\n    d = 3\n",
			"def f():\n    a = 1\n    d = 3\n"},
		{"the literal inside a nested block keeps its statement", def,
			"def f():\n    a = 1\n    for x in y:\n        z = 1\n        def g(): pass\n        z = 2\n    b = 2\n",
			"def f():\n    a = 1\n    for x in y:\n        z = 1\n        def g(): pass\n        z = 2\n    b = 2\n"},
		{"tabs: only top-level statements go", def,
			"x = 1\ndef f():\n\ta = 1\n\tb = 2\n\treturn a\n",
			""},
		{"a dedent to no enclosing level: unsure", def,
			"def f():\n        a = 1\n        b = 2\n    c = 3\n        d = 4\n",
			""},
		{"a pattern that spells a block keeps every statement", "def $F(): return $X",
			"def f():\n    a = 1\n    b = 2\n    return a\n",
			""},
		{"a repeated metavariable beside a block keeps every statement", "if $C: $$$B\nelse: $$$B",
			"if x:\n    a = 1\n    b = 2\n    c = 3\nelse:\n    a = 1\n    b = 3\n    c = 3\n",
			""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lang := mustLang(t, "python")
			p, err := Compile(lang, tt.pattern, CompileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			src := []byte(tt.src)
			pr := newParser()
			defer pr.close()
			lit := p.literals[0]
			for _, l := range p.literals {
				if len(l.occurrences(src, nil, -1, true)) < len(lit.occurrences(src, nil, -1, true)) {
					lit = l
				}
			}
			offs := lit.occurrences(src, nil, -1, true)
			var withNest, without string
			for _, nest := range []bool{true, false} {
				var b strings.Builder
				if rs, ok := pr.ranges(src, offs, splitPython, nest && p.nestBlind); ok {
					for i := 0; i < len(rs); i += 5 {
						b.Write(src[rs[i]:rs[i+1]])
					}
				} else {
					b.Write(src)
				}
				if nest {
					withNest = b.String()
				} else {
					without = b.String()
				}
			}
			want := tt.want
			if want == "" {
				want = without
			}
			if withNest != want {
				t.Errorf("kept\n%s\nwant\n%s", withNest, want)
			}
			whole, err := pr.parse(lang, src, true)
			if err != nil {
				t.Fatal(err)
			}
			near, err := pr.parseFor(p, src)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := p.Find(near), p.Find(whole); !sameSpans(got, want) {
				t.Errorf("matches %v on the kept statements, %v on the whole file", got, want)
			}
		})
	}
}

// TestNestBlind: nested statements are left out only for Python patterns
// that cannot see them.
func TestNestBlind(t *testing.T) {
	for _, tt := range []struct {
		lang, pattern string
		want          bool
	}{
		{"python", "def $F($$$): $$$", true},
		{"python", "def $F($$$ARGS): $$$BODY", true},
		{"python", "if $X is None: $$$", true},
		{"python", "$A == $A", true}, // the repeat captures expressions
		{"python", "print($$$)", true},
		{"python", "def $F(): return $X", false},      // spells the body
		{"python", "if $C: $$$B\nelse: $$$B", false},  // repeats a run of statements
		{"go", "if err != nil { return $$$ }", false}, // Python only
	} {
		p, err := Compile(mustLang(t, tt.lang), tt.pattern, CompileOptions{})
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		if p.nestBlind != tt.want {
			t.Errorf("%s %q: nestBlind %v, want %v (read as %s)", tt.lang, tt.pattern, p.nestBlind, tt.want, p.ReadAs())
		}
	}
}

// TestCapRanges: the smallest gaps are parsed across until at most max
// ranges are left, and the kept bytes still cover every range.
func TestCapRanges(t *testing.T) {
	r := func(pairs ...uint32) []uint32 {
		var out []uint32
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, pairs[i], pairs[i+1], 0, 0, 0)
		}
		return out
	}
	for _, tt := range []struct {
		in   []uint32
		max  int
		want []uint32
	}{
		{r(0, 10, 20, 30, 31, 40, 100, 110), 4, r(0, 10, 20, 30, 31, 40, 100, 110)},
		{r(0, 10, 20, 30, 31, 40, 100, 110), 3, r(0, 10, 20, 40, 100, 110)},
		{r(0, 10, 20, 30, 31, 40, 100, 110), 2, r(0, 40, 100, 110)},
		{r(0, 10, 20, 30, 31, 40, 100, 110), 1, r(0, 110)},
		{r(0, 1, 2, 3, 4, 5, 6, 7), 2, r(0, 5, 6, 7)}, // equal gaps: the first ones go
	} {
		if got := capRanges(slices.Clone(tt.in), tt.max); !slices.Equal(got, tt.want) {
			t.Errorf("capRanges(%v, %d) = %v, want %v", tt.in, tt.max, got, tt.want)
		}
	}
}

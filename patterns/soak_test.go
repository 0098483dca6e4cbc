package patterns

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Classes of wrong answer the generated soak (TestGeneratedDifferential,
// AGENT_TOOLS_SOAK=1) found, each on the shape of the real code it met.

// Before a '}', a ',' followed by more elements ends a list whose count the
// pattern spells: only the other cases of a switch, arms of a match and
// the like (siblings not separated by a comma) are passed over there.
// Seed 6: Go []$A{"$B"} matched []string{"a", "b", …} and JSON
// {"$A": true} an object of five pairs; ast-grep matches neither.
func TestListSeparatorBeforeClosingBrace(t *testing.T) {
	runPatCases(t, []patCase{
		{name: "go composite literal", lang: "go", pattern: `[]$A{"$B"}`,
			src:  "package p\n\nvar a = []string{\"x\"}\nvar b = []string{\"x\", \"y\", \"z\"}\nvar c = []string{\n\t\"x\",\n}\n",
			want: []string{`[]string{"x"} {A=string} {B=x}`, "[]string{\n\t\"x\",\n} {A=string} {B=x}"}},
		{name: "json object", lang: "json", pattern: "{\n  \"$A\": true\n}",
			src:  "{\"a\": {\"c\": true, \"go\": true}, \"b\": {\"node\": true}}\n",
			want: []string{`{"node": true} {A=node}`}},
		{name: "go switch keeps its other cases", lang: "go", pattern: "switch $X { case $V: $$$ }",
			src: "package p\nfunc f() {\n\tswitch x {\n\tcase 1:\n\tcase 2:\n\t}\n}\n", want: []string{"switch x {\n\tcase 1:\n\tcase 2:\n\t} {X=x} {V=1}"}},
	})
}

// A C pattern can match inside a conditional directive's condition: the
// partial parse left out a part that was only "#if …" whenever the
// pattern's literal was there, as if it could be only the keyword's (C
// $A < $B missed Python's #if !defined(Py_LIMITED_API) ||
// Py_LIMITED_API+0 < 0x030b0000, soak seed 13).
func TestCConditionInPartialParse(t *testing.T) {
	var b strings.Builder
	b.WriteString("// limited C API\n#if !defined(Py_LIMITED_API) || Py_LIMITED_API+0 < 0x030b0000\n#  include <stdlib.h>\n#endif\n")
	for i := range 40 {
		fmt.Fprintf(&b, "int f%d(void) { return %d; }\n", i, i)
	}
	src := b.String()
	root := writeTree(t, map[string]string{"a.c": src})
	res, err := Search(context.Background(), root, "$A < $B", SearchOptions{Language: "c", KeepSource: true})
	if err != nil {
		t.Fatal(err)
	}
	got := matchedTexts(res)
	if want := []string{"Py_LIMITED_API+0 < 0x030b0000"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// An unnamed token matches by kind, so its text is no prefilter evidence
// when the kind has other spellings: YAML's block scalar header |2 is a
// "|" token, and the search (prefiltered on "|2") found 1 of the 13
// block scalars that the full-tree matcher and ast-grep find (soak seed
// 11, on a Go module's YAML test data). The scalar's text, which no
// child covers, must be the same (ast-grep does not compare it: there
// yaml: | v: 1 matches too).
func TestRespelledTokenIsNoLiteral(t *testing.T) {
	src := "a:\n  yaml: |\n    name: test\n    value: 2\n  c: |\n    v: 1\n  b: |2\n     name: test\n    value: 2\n"
	root := writeTree(t, map[string]string{"a.yaml": src})
	res, err := Search(context.Background(), root, "$A: |2\n   name: test\n  value: 2", SearchOptions{Language: "yaml", KeepSource: true})
	if err != nil {
		t.Fatal(err)
	}
	got := matchedTexts(res)
	if want := []string{"yaml: |\n    name: test\n    value: 2", "b: |2\n     name: test\n    value: 2\n"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A Kotlin accessor with a modifier is read as an accessor, in a class
// after a property: private get() = $A was a sequence of an identifier
// private and a getter, which matches nothing (soak seeds 11 to 22, on
// tree-sitter-kotlin's corpus; ast-grep finds the accessor).
func TestKotlinAccessorPattern(t *testing.T) {
	src := "class Foo {\n  @JvmField\n  val bar: Int\n    private get() = 5\n    public set(value) {\n      field = value\n    }\n}\n"
	runPatCases(t, []patCase{
		{name: "getter", lang: "kotlin", pattern: "private get() = $A", src: src, want: []string{"private get() = 5 {A=5}"}},
		{name: "setter", lang: "kotlin", pattern: "public set($A) {\n  $B = value\n}", src: src,
			want: []string{"public set(value) {\n      field = value\n    } {A=value} {B=field}"}},
	})
}

// A C part inside a conditional is parsed with the conditional's lines:
// tree-sitter's C grammar reads some code otherwise there than at file
// scope (SECItem *(*Cb)(void *arg); is an expression statement inside
// #ifndef, a declaration alone), and the partial parse, which read the
// part alone, found what the whole file's parse does not (the split
// mutation soak, seed 1796669450968279827).
func TestCPartKeepsItsConditional(t *testing.T) {
	var b strings.Builder
	b.WriteString("#ifndef A_H\n#define A_H\n#ifdef X\nint a;\n#else\nSECItem *(*Cb)(void *arg);\n#endif\n")
	for i := range 40 {
		fmt.Fprintf(&b, "int f%d(void) { return %d; }\n", i, i)
	}
	b.WriteString("#endif\n")
	src := b.String()
	root := writeTree(t, map[string]string{"a.h": src})
	// The whole file's reading, a call, found by the partial parse too.
	res, err := Search(context.Background(), root, "(*Cb)($$$)", SearchOptions{Language: "c", KeepSource: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := matchedTexts(res), []string{"(*Cb)(void *arg)"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

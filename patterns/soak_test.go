package patterns

import "testing"

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

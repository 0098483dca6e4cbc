package patterns

import (
	"encoding/json"
	"testing"
)

// FuzzRule feeds arbitrary rule, constraints and utils JSON to ParseRule
// and CompileRule, and runs what compiles over the Go differential
// source: a bad rule is an error, never a panic or a hang. The seeds are
// the differential suite's rules.
func FuzzRule(f *testing.F) {
	for _, c := range ruleCases["go"] {
		f.Add(c.rule, c.constraints, c.utils)
	}
	f.Add(`{"kind": "if_statement", "has": {"stopBy": {"not": {}}}}`, `{"$A": 1}`, `{"a": {"matches": "a"}}`)
	l, _ := LanguageByName("go")
	_, src := ruleSource("go")
	p := newParser()
	tree, err := p.parse(l, []byte(src), true)
	p.close()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, rule, constraints, utils string) {
		spec, err := ParseRule(json.RawMessage(rule), json.RawMessage(constraints), json.RawMessage(utils))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		r, err := CompileRule(l, spec)
		if err != nil {
			return
		}
		for _, s := range r.FindRule(tree) {
			if s.Start > s.End || int(s.End) > len(src) {
				t.Fatalf("span [%d,%d) outside the source", s.Start, s.End)
			}
		}
	})
}

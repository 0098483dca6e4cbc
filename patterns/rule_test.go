package patterns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestRuleErrors: a bad rule is refused with the JSON path of the fault
// and what would be right there.
func TestRuleErrors(t *testing.T) {
	goLang, _ := LanguageByName("go")
	cases := []struct{ rule, constraints, utils, want string }{
		{rule: `{"pattern": "f($X)", "inside": {"kind": "if_statement", "stopBy": "far"}}`, want: `rule.inside.stopBy: want "neighbor", "end" or a rule object, got a string "far"`},
		{rule: `{"pattern": "f($X)", "inside": {"kind": "if_statement", "stopBy": 3}}`, want: `rule.inside.stopBy: want "neighbor", "end" or a rule object, got a number`},
		{rule: `{"pattern": "f($X)", "insde": {"kind": "if_statement"}}`, want: `rule: unknown key "insde"; known keys: pattern, kind, regex, all, any, not, matches, inside, has, precedes, follows`},
		{rule: `{"pattern": "f($X)", "has": {"kind": "identifier", "stopby": "end"}}`, want: `rule.has: unknown key "stopby"; known keys: pattern, kind, regex, all, any, not, matches, inside, has, precedes, follows, stopBy, field`},
		{rule: `{"pattern": "f($X)", "stopBy": "end"}`, want: `rule: unknown key "stopBy" (stopBy belongs in a relational rule`},
		{rule: `{"not": {"kind": "identifier"}}`, want: "rule: it does not say which kind of node to match"},
		{rule: `{"regex": "^x", "inside": {"kind": "block"}}`, want: "rule: it does not say which kind of node to match"},
		{rule: `{}`, want: "rule: empty rule"},
		{rule: `"f($X)"`, want: "rule: want a rule object"},
		{rule: `{"all": {"kind": "block"}}`, want: "rule.all: want an array of rule objects, got an object"},
		{rule: `{"any": [{"kind": "block"}, {"kind": 3}]}`, want: "rule.any[1].kind: want a node kind such as call_expression (a string), got a number"},
		{rule: `{"kind": "no_such_kind"}`, want: `rule.kind: go has no node kind "no_such_kind"`},
		{rule: `{"pattern": "$X.Close()", "inside": {"kind": "defer_statment", "stopBy": "end"}}`, want: `rule.inside.kind: go has no node kind "defer_statment"; did you mean defer_statement?`},
		{rule: `{"kind": "call_expression", "regex": "("}`, want: "rule.regex: error parsing regexp"},
		{rule: `{"kind": "call_expression", "precedes": {"kind": "block", "field": "body"}}`, want: "rule.precedes.field: field is only supported in has and inside"},
		{rule: `{"kind": "call_expression", "has": {"kind": "block", "field": "no_field"}}`, want: `rule.has.field: go has no field "no_field"`},
		{rule: `{"kind": "call_expression", "matches": "nope"}`, utils: `{"a": {"kind": "block"}}`, want: `rule.matches: no util named "nope"; utils defines a`},
		{rule: `{"kind": "call_expression", "matches": "a"}`, utils: `{"a": {"matches": "b"}, "b": {"kind": "block", "matches": "a"}}`, want: "utils.a: calls itself through matches (a → b → a)"},
		{rule: `{"pattern": "$A == $A"}`, constraints: `{"B": {"kind": "identifier"}}`, want: "constraints.B: $B is not in the rule; it binds $A"},
		{rule: `{"pattern": "$A == $A"}`, constraints: `{"a": {"kind": "identifier"}}`, want: "constraints.a: not a metavariable name"},
		{rule: `{"pattern": {"context": "f($X)", "strictness": "ast"}}`, want: "rule.pattern.strictness: not supported"},
		{rule: `{"pattern": {"selector": "call_expression"}}`, want: "rule.pattern: a pattern object needs context"},
		{rule: `{"kind": "call_expression", "nthChild": 1}`, want: "rule.nthChild: nthChild is not supported"},
		{rule: `{"kind": "call_expression", "inside": {"stopBy": "end"}}`, want: "rule.inside: empty rule"},
		{rule: `{"kind": "call_expression", "matches": {"id": "f", "args": {}}}`, want: "rule.matches: parameterised utils are not supported"},
		{rule: `{"pattern": "x := 1\ny := 2"}`, want: "rule.pattern: reads as statement: sequence of 2"},
	}
	for _, c := range cases {
		spec, err := ParseRule(json.RawMessage(c.rule), json.RawMessage(c.constraints), json.RawMessage(c.utils))
		if err == nil {
			_, err = CompileRule(goLang, spec)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("rule %s: got %v\nwant it to contain %q", c.rule, err, c.want)
		}
	}
}

func findRule(t *testing.T, lang, src, rule, constraints string) []string {
	t.Helper()
	l, _ := LanguageByName(lang)
	spec, err := ParseRule(json.RawMessage(rule), json.RawMessage(constraints), nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := CompileRule(l, spec)
	if err != nil {
		t.Fatal(err)
	}
	p := newParser()
	defer p.close()
	tree, err := p.parse(l, []byte(src), true)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range r.FindRule(tree) {
		m := src[s.Start:s.End]
		for _, c := range s.Captures {
			m += " " + c.Name + "=" + src[c.Start:c.End]
		}
		out = append(out, m)
	}
	return out
}

// TestRuleBindings: metavariables are shared between the parts of a rule
// (a name bound twice must capture the same code); not binds nothing.
func TestRuleBindings(t *testing.T) {
	src := "package p\nfunc f() {\n\tif a > 0 { g(a) }\n\tif b > 0 { g(c) }\n}\n"
	got := findRule(t, "go", src, `{"pattern": "if $X > 0 { $$$ }", "has": {"pattern": "g($X)", "stopBy": "end"}}`, "")
	if len(got) != 1 || !strings.HasPrefix(got[0], "if a > 0") || !strings.HasSuffix(got[0], "X=a") {
		t.Errorf("shared $X: got %q", got)
	}
	got = findRule(t, "go", src, `{"pattern": "if $X > 0 { $$$ }", "not": {"has": {"pattern": "g($Y)", "stopBy": "end"}}}`, "")
	if len(got) != 0 {
		t.Errorf("not with a match: got %q", got)
	}
	got = findRule(t, "go", src, `{"pattern": "if $X > 0 { $$$ }", "not": {"has": {"pattern": "h($Y)", "stopBy": "end"}}}`, "")
	if len(got) != 2 || strings.Contains(strings.Join(got, "|"), "Y=") {
		t.Errorf("not must not bind: got %q", got)
	}
}

// TestSearchRuleAndTemplate: SearchRule over a directory, and a rewrite
// template may use what the rule binds outside not, nothing else.
func TestSearchRuleAndTemplate(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\nfunc f(a, b io.Closer) {\n\tdefer a.Close()\n\tb.Close()\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.go"), []byte("package p\n// Close\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := ParseRule(json.RawMessage(`{"pattern": "$X.Close()", "not": {"inside": {"kind": "defer_statement", "stopBy": "end", "has": {"pattern": "$Y.Close()"}}}}`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := SearchRule(context.Background(), dir, spec, SearchOptions{KeepSource: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || res.Files[0].Matches[0].Text != "b.Close()" || res.Searched != 2 {
		t.Fatalf("got %d matches in %d searched: %+v", res.Total, res.Searched, res.Files)
	}
	if err := CheckRuleTemplate(res.Rules, "mustClose($X)"); err != nil {
		t.Errorf("$X is bound: %v", err)
	}
	err = CheckRuleTemplate(res.Rules, "mustClose($Y)")
	if err == nil || !strings.Contains(err.Error(), "$Y is bound only under not") {
		t.Errorf("$Y under not: got %v", err)
	}
	st, err := NewStager().Stage(res, "mustClose($X)", false)
	if err != nil || !strings.Contains(st.Files[0].Diff, "+\tmustClose(b)") {
		t.Fatalf("stage: %v %+v", err, st)
	}
}

// TestRuleLiterals: the prefilter keeps the literals of every pattern a
// match needs — the rule's own, all's, relational targets' — and none
// from under not or any, which a match may lack.
func TestRuleLiterals(t *testing.T) {
	goLang, _ := LanguageByName("go")
	cases := []struct {
		rule string
		want []string
	}{
		{`{"pattern": "$X.Close()", "not": {"inside": {"pattern": "defer $Y.Flush()", "stopBy": "end"}}}`, []string{"Close"}},
		{`{"kind": "if_statement", "has": {"pattern": "log.Fatal($$$)", "stopBy": "end"}}`, []string{"Fatal", "log"}},
		{`{"kind": "call_expression", "any": [{"pattern": "a.Open()"}, {"pattern": "b.Open()"}]}`, nil},
		{`{"all": [{"pattern": "$X.Close()"}, {"inside": {"pattern": "func $F() { $$$ }", "stopBy": "end"}}]}`, []string{"Close", "func"}},
	}
	for _, c := range cases {
		spec, err := ParseRule(json.RawMessage(c.rule), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := CompileRule(goLang, spec)
		if err != nil {
			t.Fatal(err)
		}
		var words []string
		for _, l := range r.literals {
			if isWord(string(l.text)) {
				words = append(words, string(l.text))
			}
		}
		sort.Strings(words)
		if strings.Join(words, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: literal words %q, want %q", c.rule, words, c.want)
		}
	}
}

// TestSearchRuleCancel: a cancelled call returns promptly with the
// context's error, even inside one large file with a costly rule.
func TestSearchRuleCancel(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("package p\n\nfunc f() {\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "\tx%d := g(a, b, c)\n", i)
	}
	b.WriteString("}\n")
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every identifier looks at every earlier statement of the function.
	spec, err := ParseRule(json.RawMessage(`{"kind": "identifier", "inside": {"kind": "short_var_declaration", "stopBy": "end", "follows": {"kind": "short_var_declaration", "stopBy": "end", "has": {"regex": "^never$", "stopBy": "end"}}}}`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = SearchRule(ctx, dir, spec, SearchOptions{})
	if err == nil {
		t.Fatal("the search finished: the rule is not costly enough to test cancelling")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the context's error", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("cancel took %v", d)
	}
}

// TestRuleUtilBinds: a util called both under not and outside it binds
// its names for the rewrite (the call outside not binds them).
func TestRuleUtilBinds(t *testing.T) {
	goLang, _ := LanguageByName("go")
	spec, err := ParseRule(json.RawMessage(`{"kind": "if_statement", "not": {"has": {"matches": "cmp"}}, "has": {"matches": "cmp", "stopBy": "end"}}`), nil,
		json.RawMessage(`{"cmp": {"pattern": "$A == $B"}}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := CompileRule(goLang, spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckRuleTemplate([]*Rule{r}, "$A != $B"); err != nil {
		t.Error(err)
	}
}

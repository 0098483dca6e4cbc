package patterns

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestRuleRandomDifferential generates rules from kinds, regexes and
// fields of the Go differential source — every relational operator with
// every stopBy form, field, all, any, not — and compares each with
// ast-grep scan, match for match. Patterns are few: how a pattern is
// read is the pattern suite's business: the few here read alike in both
// and share names, so bindings meet across sub-rules.
func TestRuleRandomDifferential(t *testing.T) {
	bin := astGrepPath()
	testutil.NeedsFunc(t, "the ast-grep CLI", func() string {
		if bin == "" {
			return "not on PATH nor in third_party/npm (scripts/install-tools.sh)"
		}
		return ""
	})
	for _, lc := range randomRuleLangs {
		t.Run(lc.lang, func(t *testing.T) { randomRules(t, bin, lc) })
	}
}

// randomRuleLang is what the generator draws from for one language.
type randomRuleLang struct {
	lang                   string
	kinds, regexes, fields []string
	patterns               []string // read alike by both engines
}

var randomRuleLangs = []randomRuleLang{
	{lang: "go",
		kinds: []string{"if_statement", "return_statement", "call_expression", "identifier", "selector_expression",
			"block", "for_statement", "defer_statement", "expression_statement", "short_var_declaration",
			"binary_expression", "func_literal", "argument_list", "function_declaration", "method_declaration", "interpreted_string_literal"},
		regexes:  []string{"^if", "err", "Close", "^return", "fmt", "^[a-z]+$", "==", "\\("},
		fields:   []string{"body", "condition", "function", "arguments", "consequence", "name", "left", "right", "result", "operand"},
		patterns: []string{"$A == $A", "$A := $B", "if $C { $$$ }", "return $$$", "for _, $A := range $B { $$$ }"}},
	{lang: "typescript",
		kinds: []string{"function_declaration", "arrow_function", "method_definition", "await_expression", "call_expression",
			"member_expression", "identifier", "property_identifier", "statement_block", "if_statement", "return_statement",
			"lexical_declaration", "expression_statement", "string", "arguments", "switch_case", "class_declaration"},
		regexes:  []string{"^async", "await", "console", "^return", "this", "^[a-z]+$", "===", "\\("},
		fields:   []string{"body", "condition", "function", "arguments", "consequence", "name", "object", "property", "parameters", "value"},
		patterns: []string{"await $X", "console.log($$$)", "return $X", "this.$P"}},
	{lang: "python",
		kinds: []string{"function_definition", "call", "identifier", "attribute", "block", "if_statement", "return_statement",
			"for_statement", "try_statement", "except_clause", "expression_statement", "assignment", "string", "argument_list", "comparison_operator", "decorator"},
		regexes:  []string{"^if", "print", "path", "^return", "self", "^[a-z]+$", "==", "\\("},
		fields:   []string{"body", "condition", "function", "arguments", "consequence", "name", "left", "right", "object", "attribute"},
		patterns: []string{"print($$$)", "$A == $A", "return $X", "self.$P"}},
}

func randomRules(t *testing.T, bin string, lc randomRuleLang) {
	l, _ := LanguageByName(lc.lang)
	testutil.NeedsFunc(t, lc.lang+" grammar", func() string { _, why := l.Available(); return why })
	dl, src := ruleSource(lc.lang)
	file := filepath.Join(t.TempDir(), "src"+dl.ext)
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	kinds, regexes, fields := lc.kinds, lc.regexes, lc.fields
	rng := rand.New(rand.NewPCG(15, 2026))
	var gen func(depth int, anchored bool) map[string]any
	gen = func(depth int, anchored bool) map[string]any {
		r := map[string]any{}
		if rng.IntN(4) == 0 {
			// Patterns both engines read alike (see diffcases_test.go),
			// sharing names so bindings meet across sub-rules.
			r["pattern"] = lc.patterns[rng.IntN(len(lc.patterns))]
		} else if anchored || rng.IntN(3) > 0 {
			r["kind"] = kinds[rng.IntN(len(kinds))]
		} else {
			r["regex"] = regexes[rng.IntN(len(regexes))]
		}
		if depth == 0 {
			return r
		}
		for range 1 + rng.IntN(2)*rng.IntN(2) {
			switch op := []string{"inside", "has", "precedes", "follows", "not", "any", "all"}[rng.IntN(7)]; op {
			case "not":
				r["not"] = gen(depth-1, false)
			case "any", "all":
				r[op] = []any{gen(depth-1, true), gen(depth-1, true)}
			default:
				rel := gen(depth-1, false)
				switch rng.IntN(3) {
				case 1:
					rel["stopBy"] = "end"
				case 2:
					rel["stopBy"] = gen(0, true)
				}
				if (op == "inside" || op == "has") && rng.IntN(3) == 0 {
					rel["field"] = fields[rng.IntN(len(fields))]
				}
				r[op] = rel
			}
		}
		return r
	}
	const n = 150
	agree, nonEmpty := 0, 0
	for i := range n {
		rule, _ := json.Marshal(gen(1+rng.IntN(2), true))
		c := ruleCase{name: fmt.Sprintf("random %d", i), rule: string(rule)}
		ours := runOursRule(l, src, c)
		peer := runAstGrepRule(bin, file, lc.lang, c)
		if peer.err != "" {
			if ours.err == "" {
				t.Errorf("%s: ast-grep refuses %s: %s", c.name, rule, strings.SplitN(peer.err, "\n", 2)[0])
			}
			continue
		}
		if !sameAnswer(ours, peer) {
			t.Errorf("%s %s:\n ours: %s\n ast-grep: %s", c.name, rule, ours, peer)
			continue
		}
		agree++
		if len(peer.spans) > 0 {
			nonEmpty++
		}
	}
	t.Logf("%s: %d random rules: %d agree with ast-grep (%d with matches)", lc.lang, n, agree, nonEmpty)
}

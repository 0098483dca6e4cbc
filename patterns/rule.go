// This file reads ast-grep's rule language from JSON: a rule object
// (atomic pattern, kind, regex; relational inside, has, precedes,
// follows with stopBy and field; composite all, any, not, matches), the
// constraints on its metavariables and the named utility rules it may
// call. ParseRule checks the shape of the whole request and names the
// JSON path of anything wrong; CompileRule then reads it for one language
// (patterns parsed, kinds and fields looked up). rulematch.go runs it.
//
// Semantics follow ast-grep 0.51: the keys of one rule object are all
// required, tried atomic first (pattern, kind, regex), then composite
// (all in order, any, not, matches), then relational (inside, has,
// precedes, follows); metavariables are shared by every part, so a name
// bound by one part must capture the same code in the next; not never
// binds; relational rules stop at the neighbour unless stopBy says end or
// gives a rule (the node that matches it is the last one tried).

package patterns

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// ruleKeys are the keys of a rule object, in the order ast-grep tries them.
var ruleKeys = []string{"pattern", "kind", "regex", "all", "any", "not", "matches", "inside", "has", "precedes", "follows"}

// unsupportedKeys are ast-grep rule keys this engine does not implement.
var unsupportedKeys = map[string]string{
	"nthChild":  "nthChild is not supported: use follows/precedes with stopBy, or a pattern of the parent",
	"range":     "range is not supported: narrow with path instead",
	"transform": "transform is not supported",
}

// RuleSpec is a parsed rule request: its shape is checked, nothing is
// compiled for a language yet.
type RuleSpec struct {
	root        *ruleExpr
	constraints []namedExpr // by name
	utils       map[string]*ruleExpr
}

type namedExpr struct {
	name string
	expr *ruleExpr
}

// ruleExpr is one rule object, as written.
type ruleExpr struct {
	path     string
	pattern  *patternExpr
	kind     string
	hasKind  bool
	regex    *regexp.Regexp
	all, any []*ruleExpr
	not      *ruleExpr
	matches  string
	inside   *relExpr
	has      *relExpr
	precedes *relExpr
	follows  *relExpr
}

type patternExpr struct {
	src, context, selector string
}

// stop modes of a relational rule.
const (
	stopNeighbor = iota
	stopEnd
	stopRule
)

type relExpr struct {
	path     string
	rule     *ruleExpr
	stop     int
	stopRule *ruleExpr
	field    string
}

// ParseRule reads a rule request: rule (an object), constraints
// (metavariable name → rule, may be empty) and utils (name → rule, may
// be empty).
func ParseRule(rule, constraints, utils json.RawMessage) (*RuleSpec, error) {
	spec := &RuleSpec{utils: map[string]*ruleExpr{}}
	if len(bytes.TrimSpace(utils)) > 0 {
		m, err := objectOf(utils, "utils", "an object of named rules, e.g. {\"is-literal\": {\"kind\": \"number\"}}")
		if err != nil {
			return nil, err
		}
		for _, name := range sortedKeys(m) {
			if name == "" {
				return nil, fmt.Errorf("utils: a util needs a name")
			}
			e, err := parseRuleExpr(m[name], "utils."+name)
			if err != nil {
				return nil, err
			}
			spec.utils[name] = e
		}
	}
	root, err := parseRuleExpr(rule, "rule")
	if err != nil {
		return nil, err
	}
	spec.root = root
	if len(bytes.TrimSpace(constraints)) > 0 {
		m, err := objectOf(constraints, "constraints", "an object from metavariable name to rule, e.g. {\"A\": {\"regex\": \"^[a-z]\"}}")
		if err != nil {
			return nil, err
		}
		for _, key := range sortedKeys(m) {
			name := strings.TrimLeft(key, "$")
			if !validMetaName(name) || name[0] == '_' {
				return nil, fmt.Errorf("constraints.%s: not a metavariable name: want an uppercase name such as A or ARGS (as in $A)", key)
			}
			e, err := parseRuleExpr(m[key], "constraints."+key)
			if err != nil {
				return nil, err
			}
			spec.constraints = append(spec.constraints, namedExpr{name, e})
		}
	}
	if err := spec.checkRefs(); err != nil {
		return nil, err
	}
	return spec, nil
}

// objectOf decodes a JSON object; what describes the wanted shape.
func objectOf(raw json.RawMessage, path, what string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%s: want %s, got %s", path, what, jsonKind(raw))
	}
	return m, nil
}

// jsonKind names the JSON type of raw, for messages.
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string " + clip(string(t), 40)
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

const ruleKeysHelp = "a rule has pattern, kind, regex (atomic), inside, has, precedes, follows (relational), all, any, not, matches (composite)"

func parseRuleExpr(raw json.RawMessage, path string) (*ruleExpr, error) {
	m, err := objectOf(raw, path, "a rule object ("+ruleKeysHelp+")")
	if err != nil {
		return nil, err
	}
	return parseRuleFields(m, path, nil)
}

// parseRuleFields reads a rule object's keys; extra are further keys the
// caller handles (stopBy and field of a relational rule).
func parseRuleFields(m map[string]json.RawMessage, path string, extra []string) (*ruleExpr, error) {
	if err := checkRuleKeys(m, path, extra); err != nil {
		return nil, err
	}
	e := &ruleExpr{path: path}
	for _, parse := range []func(*ruleExpr, map[string]json.RawMessage, string) error{parseAtomicFields, parseCompositeFields, parseRelationFields} {
		if err := parse(e, m, path); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// checkRuleKeys refuses a key that is neither a rule's nor one of extra,
// and a rule with no key of its own.
func checkRuleKeys(m map[string]json.RawMessage, path string, extra []string) error {
	for _, k := range sortedKeys(m) {
		if indexOf(ruleKeys, k) >= 0 || indexOf(extra, k) >= 0 {
			continue
		}
		if why, ok := unsupportedKeys[k]; ok {
			return fmt.Errorf("%s.%s: %s", path, k, why)
		}
		known := strings.Join(append(append([]string{}, ruleKeys...), extra...), ", ")
		hint := ""
		switch k {
		case "stopBy", "field":
			hint = " (" + k + " belongs in a relational rule: inside, has, precedes or follows)"
		case "constraints", "utils":
			hint = " (" + k + " is an argument next to rule, not a key inside it)"
		}
		return fmt.Errorf("%s: unknown key %q%s; known keys: %s", path, k, hint, known)
	}
	if len(m)-countKeys(m, extra) == 0 {
		return fmt.Errorf("%s: empty rule: give at least one of pattern, kind, regex, inside, has, precedes, follows, all, any, not, matches", path)
	}
	return nil
}

// parseAtomicFields reads the keys that test the node itself: pattern,
// kind and regex.
func parseAtomicFields(e *ruleExpr, m map[string]json.RawMessage, path string) error {
	var err error
	if raw, ok := m["pattern"]; ok {
		if e.pattern, err = parsePattern(raw, path+".pattern"); err != nil {
			return err
		}
	}
	if raw, ok := m["kind"]; ok {
		if e.kind, err = stringOf(raw, path+".kind", "a node kind such as call_expression"); err != nil {
			return err
		}
		e.hasKind = true
	}
	if raw, ok := m["regex"]; ok {
		s, err := stringOf(raw, path+".regex", "a regular expression over the node's text")
		if err != nil {
			return err
		}
		if e.regex, err = regexp.Compile(s); err != nil {
			return fmt.Errorf("%s.regex: %v", path, err)
		}
	}
	return nil
}

// parseCompositeFields reads the keys that combine rules: all, any, not
// and matches.
func parseCompositeFields(e *ruleExpr, m map[string]json.RawMessage, path string) error {
	var err error
	for _, key := range []string{"all", "any"} {
		raw, ok := m[key]
		if !ok {
			continue
		}
		subs, err := parseRuleList(raw, path+"."+key)
		if err != nil {
			return err
		}
		if key == "all" {
			e.all = subs
		} else {
			e.any = subs
		}
	}
	if raw, ok := m["not"]; ok {
		if e.not, err = parseRuleExpr(raw, path+".not"); err != nil {
			return err
		}
	}
	if raw, ok := m["matches"]; ok {
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
			return fmt.Errorf("%s.matches: parameterised utils are not supported: give the name of a rule in utils", path)
		}
		if e.matches, err = stringOf(raw, path+".matches", "the name of a rule in utils"); err != nil {
			return err
		}
	}
	return nil
}

// parseRuleList reads an array of rule objects (all, any).
func parseRuleList(raw json.RawMessage, path string) ([]*ruleExpr, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || list == nil {
		return nil, fmt.Errorf("%s: want an array of rule objects, got %s", path, jsonKind(raw))
	}
	var subs []*ruleExpr
	for i, r := range list {
		s, err := parseRuleExpr(r, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		subs = append(subs, s)
	}
	return subs, nil
}

// parseRelationFields reads the relational keys: inside, has, precedes
// and follows.
func parseRelationFields(e *ruleExpr, m map[string]json.RawMessage, path string) error {
	for _, rel := range []struct {
		key string
		to  **relExpr
	}{{"inside", &e.inside}, {"has", &e.has}, {"precedes", &e.precedes}, {"follows", &e.follows}} {
		raw, ok := m[rel.key]
		if !ok {
			continue
		}
		r, err := parseRelation(raw, path+"."+rel.key, rel.key == "inside" || rel.key == "has")
		if err != nil {
			return err
		}
		*rel.to = r
	}
	return nil
}

func countKeys(m map[string]json.RawMessage, keys []string) int {
	n := 0
	for _, k := range keys {
		if _, ok := m[k]; ok {
			n++
		}
	}
	return n
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

func stringOf(raw json.RawMessage, path, what string) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return "", fmt.Errorf("%s: want %s (a string), got %s", path, what, jsonKind(raw))
	}
	if strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("%s: empty: want %s", path, what)
	}
	return s, nil
}

func parsePattern(raw json.RawMessage, path string) (*patternExpr, error) {
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && t[0] == '{' {
		m, _ := objectOf(raw, path, "")
		for _, k := range sortedKeys(m) {
			if k != "context" && k != "selector" {
				if k == "strictness" {
					return nil, fmt.Errorf("%s.strictness: not supported: patterns match as ast-grep's default (smart) strictness", path)
				}
				return nil, fmt.Errorf("%s: unknown key %q; a pattern object has context and selector", path, k)
			}
		}
		raw, ok := m["context"]
		if !ok {
			return nil, fmt.Errorf("%s: a pattern object needs context (the code) and may have selector (the node kind to match)", path)
		}
		ctx, err := stringOf(raw, path+".context", "the code the pattern is read in")
		if err != nil {
			return nil, err
		}
		p := &patternExpr{src: ctx, context: ctx}
		if raw, ok := m["selector"]; ok {
			if p.selector, err = stringOf(raw, path+".selector", "a node kind inside context"); err != nil {
				return nil, err
			}
		}
		return p, nil
	}
	s, err := stringOf(raw, path, `a code pattern, or {"context": "...", "selector": "kind"}`)
	if err != nil {
		return nil, err
	}
	return &patternExpr{src: s}, nil
}

func parseRelation(raw json.RawMessage, path string, fieldOK bool) (*relExpr, error) {
	m, err := objectOf(raw, path, "a rule object with optional stopBy and field")
	if err != nil {
		return nil, err
	}
	extra := []string{"stopBy"}
	if fieldOK {
		extra = append(extra, "field")
	} else if _, ok := m["field"]; ok {
		return nil, fmt.Errorf("%s.field: field is only supported in has and inside (as in ast-grep)", path)
	}
	r := &relExpr{path: path}
	if r.rule, err = parseRuleFields(m, path, extra); err != nil {
		return nil, err
	}
	if sb, ok := m["stopBy"]; ok {
		t := bytes.TrimSpace(sb)
		switch {
		case bytes.Equal(t, []byte(`"neighbor"`)):
		case bytes.Equal(t, []byte(`"end"`)):
			r.stop = stopEnd
		case len(t) > 0 && t[0] == '{':
			r.stop = stopRule
			if r.stopRule, err = parseRuleExpr(sb, path+".stopBy"); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf(`%s.stopBy: want "neighbor", "end" or a rule object, got %s`, path, jsonKind(sb))
		}
	}
	if f, ok := m["field"]; ok {
		if r.field, err = stringOf(f, path+".field", "a field name of the grammar, such as body or arguments"); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// walk calls fn for e and every rule below it (stopBy rules included;
// utils not followed); inNot says whether a not is on the way.
func (e *ruleExpr) walk(inNot bool, fn func(e *ruleExpr, inNot bool)) {
	if e == nil {
		return
	}
	fn(e, inNot)
	for _, s := range e.all {
		s.walk(inNot, fn)
	}
	for _, s := range e.any {
		s.walk(inNot, fn)
	}
	e.not.walk(true, fn)
	for _, r := range []*relExpr{e.inside, e.has, e.precedes, e.follows} {
		if r != nil {
			r.rule.walk(inNot, fn)
			r.stopRule.walk(inNot, fn)
		}
	}
}

// exprs lists the rule trees of a request: rule, then utils, then
// constraints.
func (s *RuleSpec) exprs() []*ruleExpr {
	out := []*ruleExpr{s.root}
	for _, n := range sortedKeys(s.utils) {
		out = append(out, s.utils[n])
	}
	for _, c := range s.constraints {
		out = append(out, c.expr)
	}
	return out
}

// checkRefs checks that every matches names a util and that utils do not
// call themselves.
func (s *RuleSpec) checkRefs() error {
	var err error
	for _, root := range s.exprs() {
		root.walk(false, func(e *ruleExpr, _ bool) {
			if err == nil && e.matches != "" && s.utils[e.matches] == nil {
				defined := "utils is empty"
				if len(s.utils) > 0 {
					defined = "utils defines " + strings.Join(sortedKeys(s.utils), ", ")
				}
				err = fmt.Errorf("%s.matches: no util named %q; %s", e.path, e.matches, defined)
			}
		})
	}
	if err != nil {
		return err
	}
	// Depth-first over util calls: a util on the current path again is a cycle.
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(name string, chain []string) error
	visit = func(name string, chain []string) error {
		switch state[name] {
		case 1:
			return fmt.Errorf("utils.%s: calls itself through matches (%s)", name, strings.Join(append(chain, name), " → "))
		case 2:
			return nil
		}
		state[name] = 1
		var err error
		s.utils[name].walk(false, func(e *ruleExpr, _ bool) {
			if err == nil && e.matches != "" {
				err = visit(e.matches, append(chain, name))
			}
		})
		state[name] = 2
		return err
	}
	for _, n := range sortedKeys(s.utils) {
		if err := visit(n, nil); err != nil {
			return err
		}
	}
	return nil
}

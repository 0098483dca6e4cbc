// This file holds a rule's side of a workspace search (SearchRule, a
// Rule as a finder: parsed whole, matched with findRule; the search
// itself is search.go's) and what the tools ask of a compiled rule.

package patterns

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// SearchRule finds the matches of a rule under root: Search's walk,
// language choice and prefilter, with each file that passes parsed whole
// (a rule looks at parents and siblings). opts.Context and opts.Selector
// do not apply (a rule's pattern carries its own).
func SearchRule(ctx context.Context, root string, spec *RuleSpec, opts SearchOptions) (*SearchResult, error) {
	if opts.Context != "" || opts.Selector != "" {
		return nil, fmt.Errorf(`context and selector apply to pattern; in a rule write "pattern": {"context": "...", "selector": "kind"}`)
	}
	res, compiled, err := search(ctx, root, opts, lookFor{
		compile:     func(l *Language) (finder, error) { return CompileRule(l, spec) },
		none:        "the rule compiles in no language",
		prefixFails: true,
	})
	if err != nil {
		return nil, err
	}
	for _, l := range sortedLangs(compiled) {
		res.Rules = append(res.Rules, compiled[l].(*Rule))
	}
	return res, nil
}

func (r *Rule) prefilter() (*Language, []literal) { return r.Lang, r.literals }

// findIn parses the whole file: a rule looks at parents and siblings.
func (r *Rule) findIn(p *parser, src []byte, stopped func() bool) ([]Span, error) {
	tree, err := p.parse(r.Lang, src, false)
	if err != nil {
		return nil, err
	}
	return r.findRule(tree, stopped), nil
}

// Bound lists the metavariables a rule binds outside not, as spelled.
func (r *Rule) Bound() []string { return r.bound }

// CheckRuleTemplate refuses a rewrite template naming a metavariable the
// rule does not bind (outside not, which never binds).
func CheckRuleTemplate(rs []*Rule, tmpl string) error {
	for _, r := range rs {
		name, spelled, ok := unboundIn(tmpl, r.bound)
		if !ok {
			continue
		}
		binds := bindsText(r.bound)
		if r.names[name] {
			return fmt.Errorf("%s is bound only under not in the rule, and not never binds; %s", spelled, binds)
		}
		return fmt.Errorf("%s is not in the rule; %s", spelled, binds)
	}
	return nil
}

// KindsRead names the kinds of node the rule tries, for a rule without
// a pattern: "kind function_declaration | arrow_function".
func (r *Rule) KindsRead() string {
	var names []string
	for k, ok := range r.kinds {
		if ok {
			names = append(names, r.Lang.kindName(int32(k)))
		}
	}
	sort.Strings(names)
	if len(names) > 6 {
		names = append(names[:6], fmt.Sprintf("… %d more", len(names)-6))
	}
	if len(names) == 0 {
		return "no kind (matches nothing)"
	}
	return "kind " + strings.Join(names, " | ")
}

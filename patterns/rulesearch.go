// This file searches a workspace with a rule: the same walk, language
// choice and literal prefilter as Search, but each file that passes is
// parsed whole (a rule looks at parents and siblings) and matched with
// Rule.FindRule.

package patterns

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// SearchRule finds the matches of a rule under root. opts.Context and
// opts.Selector do not apply (a rule's pattern carries its own).
func SearchRule(ctx context.Context, root string, spec *RuleSpec, opts SearchOptions) (*SearchResult, error) {
	if opts.Context != "" || opts.Selector != "" {
		return nil, fmt.Errorf(`context and selector apply to pattern; in a rule write "pattern": {"context": "...", "selector": "kind"}`)
	}
	var forced *Language
	if opts.Language != "" {
		var err error
		if forced, err = LanguageByName(opts.Language); err != nil {
			return nil, err
		}
	}
	files, where, deps, err := listFiles(root, opts.Path, forced)
	if err != nil {
		return nil, err
	}
	res := &SearchResult{Deps: deps}
	compiled := map[*Language]*Rule{}
	if forced != nil {
		r, err := CompileRule(forced, spec)
		if err != nil {
			return nil, err
		}
		compiled[forced] = r
	} else {
		present := map[*Language]bool{}
		for _, f := range files {
			present[f.lang] = true
		}
		var fails []string
		for _, id := range sortedIDs(present) {
			l, _ := LanguageByName(id)
			r, err := CompileRule(l, spec)
			if err != nil {
				fails = append(fails, l.ID+": "+err.Error())
				res.Skipped = append(res.Skipped, fmt.Sprintf("%s (%d files): %v", id, count(files, func(f searchedFile) bool { return f.lang == l }), err))
				continue
			}
			compiled[l] = r
		}
		if len(present) > 0 && len(compiled) == 0 {
			return nil, fmt.Errorf("the rule compiles in no language found under %s: %s", displayPath(where), strings.Join(fails, " | "))
		}
	}
	ids := make([]string, 0, len(compiled))
	for l := range compiled {
		ids = append(ids, l.ID)
	}
	sort.Strings(ids)
	for _, id := range ids {
		l, _ := LanguageByName(id)
		res.Rules = append(res.Rules, compiled[l])
	}
	kept := files[:0]
	for _, f := range files {
		if compiled[f.lang] != nil {
			kept = append(kept, f)
		}
	}
	files = dropTooLarge(res, kept, opts.MaxFileBytes)
	res.Searched = len(files)
	stopped := func() bool { return ctx.Err() != nil }
	results, partial, err := searchFiles(ctx, files, opts, func(p *parser, f searchedFile, maxBytes int64) *FileMatches {
		return searchFileRule(p, compiled[f.lang], f.abs, f.rel, maxBytes, opts.KeepSource, opts.MaxListed, stopped)
	})
	if err != nil {
		return nil, err
	}
	res.Partial = partial
	for _, fm := range results {
		if fm != nil && fm.Count > 0 {
			res.Files = append(res.Files, *fm)
			res.Total += fm.Count
		}
	}
	return res, nil
}

// searchFileRule reads, filters, parses and matches one file.
func searchFileRule(p *parser, r *Rule, abs, rel string, maxBytes int64, keep bool, listed int, stopped func() bool) *FileMatches {
	src, ok := p.read(abs, maxBytes)
	if !ok {
		return nil
	}
	defer p.trim()
	if !searchable(r.Lang, src, r.literals) {
		return nil
	}
	tree, err := p.parse(r.Lang, src, false)
	if err != nil {
		return nil
	}
	return fileMatches(r.Lang, abs, rel, src, r.findRule(tree, stopped), keep, listed)
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

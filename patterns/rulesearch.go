// This file searches a workspace with a rule: the same walk, language
// choice and literal prefilter as Search, but each file that passes is
// parsed whole (a rule looks at parents and siblings) and matched with
// Rule.FindRule.

package patterns

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
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
	files = kept
	res.Searched = len(files)
	results, partial := searchRuleAll(ctx, files, compiled, opts)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.Partial = partial
	for _, fm := range results {
		if fm != nil && len(fm.Matches) > 0 {
			res.Files = append(res.Files, *fm)
			res.Total += len(fm.Matches)
		}
	}
	return res, nil
}

// searchRuleAll is searchAll for rules: largest files first, one parser a
// worker, stopping at opts.MaxMatches.
func searchRuleAll(ctx context.Context, files []searchedFile, compiled map[*Language]*Rule, opts SearchOptions) ([]*FileMatches, bool) {
	maxBytes := opts.MaxFileBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFileBytes
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]*FileMatches, len(files))
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return files[order[a]].size > files[order[b]].size })
	var next, done, found atomic.Int64
	var progressMu sync.Mutex
	var wg sync.WaitGroup
	for range min(workers, max(len(files), 1)) {
		wg.Go(func() {
			p := newParser()
			defer p.close()
			for {
				if opts.MaxMatches > 0 && found.Load() >= int64(opts.MaxMatches) {
					return
				}
				k := int(next.Add(1) - 1)
				if k >= len(files) || ctx.Err() != nil {
					return
				}
				i := order[k]
				f := files[i]
				results[i] = searchFileRule(p, compiled[f.lang], f.abs, f.rel, maxBytes, opts.KeepSource, func() bool { return ctx.Err() != nil })
				if results[i] != nil {
					found.Add(int64(len(results[i].Matches)))
				}
				if d := done.Add(1); opts.Progress != nil && (d%256 == 0 || int(d) == len(files)) {
					progressMu.Lock()
					opts.Progress(int(d), len(files))
					progressMu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	partial := opts.MaxMatches > 0 && found.Load() >= int64(opts.MaxMatches) && int(next.Load()) < len(files)
	return results, partial
}

// searchFileRule reads, filters, parses and matches one file.
func searchFileRule(p *parser, r *Rule, abs, rel string, maxBytes int64, keep bool, stopped func() bool) *FileMatches {
	src, ok := p.read(abs, maxBytes)
	if !ok {
		return nil
	}
	defer p.trim()
	if bytes.IndexByte(src[:min(len(src), 8000)], 0) >= 0 || !utf8.Valid(src) {
		return nil
	}
	for _, lit := range r.literals {
		if !lit.inCode(r.Lang, src) {
			return nil
		}
	}
	tree, err := p.parse(r.Lang, src, false)
	if err != nil {
		return nil
	}
	spans := r.findRule(tree, stopped)
	if len(spans) == 0 {
		return nil
	}
	fm := &FileMatches{Path: rel, Abs: abs, Lang: r.Lang}
	if keep {
		fm.Src = bytes.Clone(src)
	}
	lines := newLineIndex(src)
	fm.Matches = make([]Found, len(spans))
	for i, s := range spans {
		f := Found{Span: s, From: lines.pos(s.Start), To: lines.pos(s.End), Text: firstLine(src[s.Start:s.End])}
		for _, c := range s.Captures {
			f.Captured = append(f.Captured, NamedText{Name: c.Name, Text: clip(string(src[c.Start:c.End]), 1000)})
		}
		fm.Matches[i] = f
	}
	return fm
}

// Bound lists the metavariables a rule binds outside not, as spelled.
func (r *Rule) Bound() []string { return r.bound }

// CheckRuleTemplate refuses a rewrite template naming a metavariable the
// rule does not bind (outside not, which never binds).
func CheckRuleTemplate(rs []*Rule, tmpl string) error {
	for _, r := range rs {
		has := map[string]bool{}
		for _, b := range r.bound {
			has[strings.TrimLeft(b, "$")] = true
		}
		for i := 0; i < len(tmpl); i++ {
			if tmpl[i] != '$' {
				continue
			}
			j, k := scanMeta(tmpl, i)
			if k == j {
				i = j - 1
				continue
			}
			name, spelled := tmpl[j:k], tmpl[i:k]
			i = k - 1
			if has[name] {
				continue
			}
			binds := "it binds no metavariable"
			if len(r.bound) > 0 {
				binds = "it binds " + strings.Join(r.bound, ", ")
			}
			if r.names[name] {
				return fmt.Errorf("%s is bound only under not in the rule, and not never binds; %s", spelled, binds)
			}
			return fmt.Errorf("%s is not in the rule; %s", spelled, binds)
		}
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

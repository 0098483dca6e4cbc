// This file walks a call or type hierarchy for the hierarchy actions
// (hierarchy.go): breadth-first, each item expanded once, bounded by the
// cap on lines and on requests, and shaped into the answer's lines.

package lspbridge

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-tools/agent-tools/internal/workspace"
)

// walker walks a hierarchy breadth-first: every item is expanded once
// (recursion and diamonds are listed, not walked again), and a level is
// walked only while the cap has room.
type walker struct {
	srv   *server
	h     hierarchy
	root  string
	lc    *lineCache
	nodes []*hierNode // the roots' children, in order
	total int
	sent  int // expansion requests sent
	cutAt int // the first level the cap kept from being walked (0: none)
	notes []string
	seen  map[string]bool // lines already listed: path:line:col name via
	// nested, when set, holds each item's level below, from an answer
	// that nests them (clangd's own type hierarchy): nothing is asked.
	nested map[string][]HierarchyItem
	sup    *Supervisor // remembers the files outside the root it lists (pointed.go)
}

// hierNode is one item found, with its lines and its own children.
type hierNode struct {
	calls    []Call
	children []*hierNode
	item     HierarchyItem
}

// edge is one answer item of a level: the item and where it is called
// (for types: the item's own name).
type edge struct {
	item  HierarchyItem
	uri   string
	sites []Range
}

func itemKey(it HierarchyItem) string {
	return fmt.Sprintf("%s#%d:%d", it.URI, it.SelectionRange.Start.Line, it.SelectionRange.Start.Character)
}

func (w *walker) run(ctx context.Context, roots []HierarchyItem, depth int) error {
	expanded := map[string]bool{}
	type pending struct {
		item HierarchyItem
		into *[]*hierNode
	}
	var frontier []pending
	for _, it := range roots {
		expanded[itemKey(it)] = true
		frontier = append(frontier, pending{it, &w.nodes})
	}
	w.seen = map[string]bool{}
	var paths []string
	defer func() { w.srv.see(paths...); w.sup.remember(w.root, w.srv, paths...) }()
	for level := 1; level <= depth && len(frontier) > 0; level++ {
		if level > 1 && w.total >= callsCap {
			w.notes = append(w.notes, fmt.Sprintf("level %d was not walked: the levels above already fill the cap of %d", level, callsCap))
			w.cutAt = level
			break
		}
		var next []pending
		for i, p := range frontier {
			if w.sent >= hierarchyExpansions {
				w.notes = append(w.notes, fmt.Sprintf("level %d was walked for %d of its %d items only (at most %d requests per answer)", level, i, len(frontier), hierarchyExpansions))
				break
			}
			edges, err := w.expand(ctx, p.item)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if level == 1 {
					return w.rootFailed(err)
				}
				w.notes = append(w.notes, fmt.Sprintf("the %s of %s are missing: %v", w.h.what, p.item.Name, err))
				continue
			}
			for _, e := range edges {
				n := w.node(level, p.item.Name, e, &paths)
				if len(n.calls) == 0 {
					continue
				}
				*p.into = append(*p.into, n)
				w.total += len(n.calls)
				if k := itemKey(e.item); !expanded[k] {
					expanded[k] = true
					next = append(next, pending{e.item, &n.children})
				}
			}
		}
		frontier = next
	}
	return nil
}

// rootFailed is the error of a walk whose first expansion failed: said
// in words when the server does not know the method.
func (w *walker) rootFailed(err error) error {
	if !methodNotFound(err) {
		return err
	}
	also := ""
	if other := map[string]string{"in": "outgoing_calls", "out": "incoming_calls"}[w.h.rel]; other != "" {
		also = " (" + other + " may work)"
	}
	return fmt.Errorf("%s are not supported by %s: it answers %s with \"method not found\"%s", w.h.what, w.srv.describe(), w.h.method, also)
}

// node is edge e of a level's item via as a node with the lines not
// listed yet (none when all were); paths gets the files they are in.
func (w *walker) node(level int, via string, e edge, paths *[]string) *hierNode {
	n := &hierNode{item: e.item}
	for _, site := range e.sites {
		c := w.line(level, via, e, site)
		k := fmt.Sprintf("%s:%d:%d %s %s", c.Path, c.Line, c.Col, c.Name, c.Via)
		if w.seen[k] {
			continue
		}
		w.seen[k] = true
		*paths = append(*paths, uriPath(e.uri), uriPath(e.item.URI))
		n.calls = append(n.calls, c)
	}
	return n
}

// expand asks the server for one level below it, sorted by where the
// lines are.
func (w *walker) expand(ctx context.Context, it HierarchyItem) ([]edge, error) {
	params := HierarchyItemParams{Item: it}
	var edges []edge
	switch {
	case w.nested != nil:
		for _, t := range w.nested[itemKey(it)] {
			edges = append(edges, edge{item: t, uri: t.URI})
		}
	case w.h.rel == "in":
		w.sent++
		var res []CallHierarchyIncomingCall
		if err := w.srv.call(ctx, w.h.method, params, &res); err != nil {
			return nil, err
		}
		for _, c := range res {
			edges = append(edges, edge{item: c.From, uri: c.From.URI, sites: c.FromRanges})
		}
	case w.h.rel == "out":
		w.sent++
		var res []CallHierarchyOutgoingCall
		if err := w.srv.call(ctx, w.h.method, params, &res); err != nil {
			return nil, err
		}
		for _, c := range res {
			edges = append(edges, edge{item: c.To, uri: it.URI, sites: c.FromRanges})
		}
	default:
		w.sent++
		var res []HierarchyItem
		if err := w.srv.call(ctx, w.h.method, params, &res); err != nil {
			return nil, err
		}
		for _, t := range res {
			edges = append(edges, edge{item: t, uri: t.URI})
		}
	}
	for i, e := range edges {
		if len(e.sites) == 0 { // a type, or a call the server gave no site for: the item's name
			edges[i].uri, edges[i].sites = e.item.URI, []Range{e.item.SelectionRange}
		}
		slices.SortFunc(edges[i].sites, func(a, b Range) int {
			return cmp.Or(cmp.Compare(a.Start.Line, b.Start.Line), cmp.Compare(a.Start.Character, b.Start.Character))
		})
	}
	slices.SortStableFunc(edges, func(a, b edge) int {
		return cmp.Or(cmp.Compare(displayPath(w.root, uriPath(a.uri)), displayPath(w.root, uriPath(b.uri))),
			cmp.Compare(a.sites[0].Start.Line, b.sites[0].Start.Line), cmp.Compare(a.sites[0].Start.Character, b.sites[0].Start.Character))
	})
	return edges, nil
}

// line renders one site of e; via is the item of the level above.
func (w *walker) line(level int, via string, e edge, site Range) Call {
	path := uriPath(e.uri)
	src := w.lc.line(path, site.Start.Line)
	def := uriPath(e.item.URI)
	defLine := w.lc.line(def, e.item.SelectionRange.Start.Line)
	return Call{Level: level, Path: displayPath(w.root, path), Line: site.Start.Line + 1, Col: w.srv.enc.column(src, site.Start.Character),
		Name: e.item.Name, Kind: symbolKind(e.item.Kind), Via: via,
		Defined: fmt.Sprintf("%s:%d:%d", displayPath(w.root, def), e.item.SelectionRange.Start.Line+1, w.srv.enc.column(defLine, e.item.SelectionRange.Start.Character)),
		Text:    strings.TrimSpace(src), rel: w.h.rel}
}

// lines flattens the tree in order (each item's lines, then the items
// below it) keeping, when there are more than callsCap, the nearest
// levels first. total is how many lines were found.
func (w *walker) lines() (shown []Call, total int) {
	var all []Call
	var walk func(ns []*hierNode)
	walk = func(ns []*hierNode) {
		for _, n := range ns {
			all = append(all, n.calls...)
			walk(n.children)
		}
	}
	walk(w.nodes)
	if len(all) <= callsCap {
		return all, len(all)
	}
	// Keep the first callsCap in (level, tree order), then list those in
	// tree order: a kept line's parents are on lower levels, so kept too.
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(all[a].Level, all[b].Level) })
	keep := idx[:callsCap]
	slices.Sort(keep)
	for _, i := range keep {
		shown = append(shown, all[i])
	}
	return shown, len(all)
}

// outsideNote says, for a walk over the whole workspace (callers,
// subtypes) from a target outside the root (the standard library, a
// dependency), that the server looked in the workspace: fmt.Sprintf's
// callers are the root's, not the standard library's own.
func (w *walker) outsideNote(target string) {
	if w.h.whole && !workspace.Within(canonical(w.root), target) {
		w.notes = append(w.notes, fmt.Sprintf("%s is outside the root: %s looks for %s in the workspace, not in the rest of the standard library or dependencies", displayPath(w.root, target), w.srv.cfg.Name, w.h.what))
	}
}

// result fills r with the walk's lines, counts and notes.
func (w *walker) result(r *Result, depth int, pending string) *Result {
	h := w.h
	calls, total := w.lines()
	r.Calls, r.Shown, r.Total = calls, len(calls), total
	r.Summary = shownOf(len(calls), total, h.what)
	switch {
	case w.cutAt > 0:
		r.Summary += fmt.Sprintf(" (%d levels asked, %s walked)", depth, levels(w.cutAt-1))
	case depth > 1:
		r.Summary += fmt.Sprintf(" (%d levels)", depth)
	}
	if total == 0 {
		r.Summary = fmt.Sprintf("no %s found (the server answered with none)", h.what)
	}
	var notes []string
	if pending != "" || w.srv.failure() != "" {
		notes = append(notes, incompleteNote(w.srv, pending, h.what))
	}
	if len(calls) < total {
		notes = append(notes, fmt.Sprintf("capped at %d, nearest levels first: %d more not shown", callsCap, total-len(calls)))
	}
	notes = append(notes, w.notes...)
	if len(notes) > 0 {
		r.Incomplete = strings.Join(notes, "; ")
		r.Summary += "; " + r.Incomplete
	}
	return r
}

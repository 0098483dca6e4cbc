// This file defines the lsp tool's hierarchy actions: incoming_calls and
// outgoing_calls (the call hierarchy) and type_hierarchy (supertypes or
// subtypes), aimed by line + symbol like every navigation action and
// walked up to three levels deep.

package lspbridge

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-tools/agent-tools/internal/workspace"
)

// HierarchyItem is a CallHierarchyItem or a TypeHierarchyItem (the two
// have the same shape). Data and Tags are handed back to the server
// untouched: Tags is not read, and clangd 14 sends a deprecated item's as
// [[1]], which a list of numbers would refuse (failing the whole answer).
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#callHierarchyItem
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#typeHierarchyItem
type HierarchyItem struct {
	Name           string          `json:"name"`
	Kind           int             `json:"kind"`
	Tags           json.RawMessage `json:"tags,omitempty"`
	Detail         string          `json:"detail,omitempty"`
	URI            string          `json:"uri"`
	Range          Range           `json:"range"`
	SelectionRange Range           `json:"selectionRange"`
	Data           json.RawMessage `json:"data,omitempty"`
}

// CallHierarchyIncomingCall is one caller: From calls the item at
// FromRanges, which are in From's document.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#callHierarchyIncomingCall
type CallHierarchyIncomingCall struct {
	From       HierarchyItem `json:"from"`
	FromRanges []Range       `json:"fromRanges"`
}

// CallHierarchyOutgoingCall is one callee: the item calls To at
// FromRanges, which are in the item's document.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#callHierarchyOutgoingCall
type CallHierarchyOutgoingCall struct {
	To         HierarchyItem `json:"to"`
	FromRanges []Range       `json:"fromRanges"`
}

// Limits of the hierarchy actions.
const (
	callsCap          = referencesCap // lines listed, nearest levels first
	maxHierarchyDepth = 3
	// hierarchyExpansions bounds the requests one answer sends: a level is
	// not walked past it, and the answer says so.
	hierarchyExpansions = 100
)

// hierarchy describes one hierarchy action.
type hierarchy struct {
	action  string // incoming_calls, …
	feature string // for "… is not supported by": "call hierarchy"
	prepare string // the prepare method
	method  string // the method walking one level
	what    string // what the lines are: "incoming calls"
	rel     string // in, out, super, sub: how a line relates to the line above it
	// whole says the answer needs the server's whole-project index (who
	// calls this, who extends this), so it first waits for indexing as
	// references does.
	whole bool
	cap   func(ServerCapabilities) json.RawMessage
}

var callHierarchies = map[string]hierarchy{
	"incoming_calls": {action: "incoming_calls", feature: "call hierarchy", prepare: "textDocument/prepareCallHierarchy",
		method: "callHierarchy/incomingCalls", what: "incoming calls", rel: "in", whole: true,
		cap: func(c ServerCapabilities) json.RawMessage { return c.CallHierarchyProvider }},
	"outgoing_calls": {action: "outgoing_calls", feature: "call hierarchy", prepare: "textDocument/prepareCallHierarchy",
		method: "callHierarchy/outgoingCalls", what: "outgoing calls", rel: "out",
		cap: func(c ServerCapabilities) json.RawMessage { return c.CallHierarchyProvider }},
}

var typeHierarchies = map[string]hierarchy{
	"supertypes": {action: "type_hierarchy", feature: "type hierarchy", prepare: "textDocument/prepareTypeHierarchy",
		method: "typeHierarchy/supertypes", what: "supertypes", rel: "super",
		cap: func(c ServerCapabilities) json.RawMessage { return c.TypeHierarchyProvider }},
	"subtypes": {action: "type_hierarchy", feature: "type hierarchy", prepare: "textDocument/prepareTypeHierarchy",
		method: "typeHierarchy/subtypes", what: "subtypes", rel: "sub", whole: true,
		cap: func(c ServerCapabilities) json.RawMessage { return c.TypeHierarchyProvider }},
}

// DefaultTypeDirection is type_hierarchy's direction when none is given:
// who extends or implements the type, the question before changing it.
const DefaultTypeDirection = "subtypes"

// Calls runs incoming_calls or outgoing_calls at line + symbol, walking
// depth levels (0 means 1).
func (s *Supervisor) Calls(ctx context.Context, action string, req Request, depth int) (*Result, error) {
	h, ok := callHierarchies[action]
	if !ok {
		return nil, fmt.Errorf("unknown call hierarchy action %q", action)
	}
	return s.walkHierarchy(ctx, h, req, depth)
}

// TypeHierarchy runs type_hierarchy at line + symbol in direction
// (supertypes or subtypes; "" means DefaultTypeDirection), walking depth
// levels (0 means 1).
func (s *Supervisor) TypeHierarchy(ctx context.Context, req Request, direction string, depth int) (*Result, error) {
	if direction == "" {
		direction = DefaultTypeDirection
	}
	h, ok := typeHierarchies[direction]
	if !ok {
		return nil, fmt.Errorf("argument 'direction': want supertypes or subtypes, got %q", direction)
	}
	return s.walkHierarchy(ctx, h, req, depth)
}

func (s *Supervisor) walkHierarchy(ctx context.Context, h hierarchy, req Request, depth int) (*Result, error) {
	if depth == 0 {
		depth = 1
	}
	if depth < 1 || depth > maxHierarchyDepth {
		return nil, fmt.Errorf("argument 'depth': %s walks 1 to %d levels, got %d", h.action, maxHierarchyDepth, depth)
	}
	a, err := s.aim(ctx, req)
	if err != nil {
		return nil, err
	}
	if !supported(h.cap(a.srv.caps)) {
		return nil, fmt.Errorf("%s is not supported by %s", h.feature, a.srv.describe())
	}
	pending := ""
	if h.whole {
		pending = a.srv.waitIndexed(ctx, s.opts.IndexTimeout, req.Progress)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	var roots []HierarchyItem
	if err := a.srv.call(ctx, h.prepare, a.params(), &roots); err != nil {
		if methodNotFound(err) && h.feature == "type hierarchy" {
			// clangd 14 knows only its own form of it.
			return s.legacyTypeHierarchy(ctx, h, a, req, depth, pending)
		}
		if methodNotFound(err) {
			return nil, fmt.Errorf("%s is not supported by %s: it announces %s but answers %s with \"method not found\"",
				h.feature, a.srv.describe(), h.feature, h.prepare)
		}
		if why, ok := refusal(err); ok {
			// gopls: "side is not a function".
			return nil, fmt.Errorf("%s walks from %s; at %s %s says: %s", h.action, h.from(), a.target, a.srv.cfg.Name, why)
		}
		return nil, err
	}
	if len(roots) == 0 && !a.ready {
		return nil, loadingError(a.srv, s.opts)
	}
	r := &Result{Action: h.action, Server: a.srv.cfg.Name, Target: a.target, Aim: a.aimNote}
	if len(roots) == 0 {
		r.Summary = h.noItem(a.target)
		return r, nil
	}
	w := &walker{srv: a.srv, h: h, root: req.Root, lc: &lineCache{srv: a.srv, files: map[string][]string{}}, sup: s}
	if err := w.run(ctx, roots, depth); err != nil {
		return nil, err
	}
	w.outsideNote(a.path)
	if !a.ready {
		w.notes = append(w.notes, loadingNote(a.srv, s.opts, h.what))
	}
	return w.result(r, depth, pending), nil
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

// legacyTypeItem is an item of clangd's own type hierarchy, which older
// clangd (14, Debian bookworm's) answers instead of LSP 3.17's: parents
// and children come nested in the answer, resolved as many levels deep
// as asked.
// https://clangd.llvm.org/extensions#type-hierarchy
type legacyTypeItem struct {
	HierarchyItem
	Parents  []legacyTypeItem `json:"parents,omitempty"`
	Children []legacyTypeItem `json:"children,omitempty"`
}

// legacyTypeHierarchy answers type_hierarchy through clangd's
// textDocument/typeHierarchy (direction 1: parents, 0: children), walked
// like the standard one from the nested answer.
func (s *Supervisor) legacyTypeHierarchy(ctx context.Context, h hierarchy, a *aimed, req Request, depth int, pending string) (*Result, error) {
	dir := 0
	if h.rel == "super" {
		dir = 1
	}
	params := legacyTypeHierarchyParams{TextDocumentPositionParams: a.params(), Resolve: depth, Direction: dir}
	var root *legacyTypeItem
	if err := a.srv.call(ctx, "textDocument/typeHierarchy", params, &root); err != nil {
		if methodNotFound(err) {
			return nil, fmt.Errorf("%s is not supported by %s: it announces %s but knows neither %s nor textDocument/typeHierarchy",
				h.feature, a.srv.describe(), h.feature, h.prepare)
		}
		return nil, err
	}
	r := &Result{Action: h.action, Server: a.srv.cfg.Name, Target: a.target, Aim: a.aimNote}
	if root == nil {
		if !a.ready {
			return nil, loadingError(a.srv, s.opts)
		}
		r.Summary = h.noItem(a.target)
		return r, nil
	}
	below := map[string][]HierarchyItem{}
	var index func(it *legacyTypeItem)
	index = func(it *legacyTypeItem) {
		next := it.Children
		if dir == 1 {
			next = it.Parents
		}
		k := itemKey(it.HierarchyItem)
		if _, done := below[k]; done {
			return
		}
		below[k] = []HierarchyItem{}
		for i := range next {
			below[k] = append(below[k], next[i].HierarchyItem)
			index(&next[i])
		}
	}
	index(root)
	w := &walker{srv: a.srv, h: h, root: req.Root, lc: &lineCache{srv: a.srv, files: map[string][]string{}}, nested: below, sup: s}
	if err := w.run(ctx, []HierarchyItem{root.HierarchyItem}, depth); err != nil {
		return nil, err
	}
	w.outsideNote(a.path)
	if !a.ready {
		w.notes = append(w.notes, loadingNote(a.srv, s.opts, h.what))
	}
	return w.result(r, depth, pending), nil
}

// noItem is the summary when the server has no hierarchy item at target:
// what the walk starts from, and what answers the question instead (a
// macro, a name bound to a function value, a C struct have no item).
func (h hierarchy) noItem(target string) string {
	instead := "for a macro, or a name bound to a function value, references lists its uses"
	if h.feature == "type hierarchy" {
		instead = "a C struct or a type alias has none; references lists a type's uses"
	}
	return fmt.Sprintf("no %s: the server found no %s item at %s (%s walks from %s; %s)", h.what, h.feature, target, h.action, h.from(), instead)
}

// from is what a hierarchy walks from, for messages.
func (h hierarchy) from() string {
	if h.feature == "type hierarchy" {
		return "a type"
	}
	return "a function or method"
}

// refusal extracts the message of a server's error answer (not a hang,
// an exit or a cancellation): the server's own reason for refusing.
func refusal(err error) (string, bool) {
	const mark = "the server answered error "
	msg := err.Error()
	i := strings.Index(msg, mark)
	if i < 0 {
		return "", false
	}
	rest := msg[i+len(mark):]
	if j := strings.Index(rest, ": "); j >= 0 {
		return rest[j+2:], true
	}
	return rest, true
}

// methodNotFound reports whether err is a server's "method not found"
// answer (JSON-RPC -32601), as conn.call words it.
func methodNotFound(err error) bool {
	return err != nil && strings.Contains(err.Error(), "the server answered error -32601")
}

// Call is one line of a hierarchy answer: a call site (incoming_calls,
// outgoing_calls) or a type's declaration (type_hierarchy).
type Call struct {
	Level   int    `json:"level" jsonschema_description:"1 for the symbol's own callers, callees or types; 2 and 3 for the levels beyond"`
	Path    string `json:"path" jsonschema_description:"file of the call site (of the type, for type_hierarchy), relative to the root when inside it"`
	Line    int    `json:"line" jsonschema_description:"1-based line"`
	Col     int    `json:"col" jsonschema_description:"1-based column, in characters"`
	Name    string `json:"name" jsonschema_description:"the caller (incoming_calls), the callee (outgoing_calls) or the type"`
	Kind    string `json:"kind" jsonschema_description:"function, method, class, ..."`
	Via     string `json:"via" jsonschema_description:"the item of the level above this line hangs under (at level 1, the symbol asked about)"`
	Defined string `json:"defined" jsonschema_description:"where the caller, callee or type is declared, as path:line:col"`
	Text    string `json:"text" jsonschema_description:"the source line, trimmed"`
	rel     string // the hierarchy's rel, for String
}

// String is "path:line:col  name  source-line", the name indented two
// spaces per level beyond the first and, there, related to the line above
// (caller → callee, or "(subtype of X)"); a callee's name is followed by
// where it is defined.
func (c Call) String() string {
	label := c.Name
	if c.rel == "super" || c.rel == "sub" {
		label = c.Kind + " " + c.Name
	}
	if c.Level > 1 {
		switch c.rel {
		case "in":
			label = c.Name + " → " + c.Via
		case "out":
			label = c.Via + " → " + c.Name
		case "super":
			label += " (supertype of " + c.Via + ")"
		case "sub":
			label += " (subtype of " + c.Via + ")"
		}
	}
	if c.rel == "out" && c.Defined != "" {
		// Where the callee is, the next place a reader of "what does
		// this call?" goes.
		label += " (" + c.Defined + ")"
	}
	return fmt.Sprintf("%s:%d:%d  %s%s  %s", c.Path, c.Line, c.Col, strings.Repeat("  ", c.Level-1), label, c.Text)
}

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

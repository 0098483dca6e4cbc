// This file defines the lsp tool's hierarchy actions: incoming_calls and
// outgoing_calls (the call hierarchy) and type_hierarchy (supertypes or
// subtypes), aimed by line + symbol like every navigation action and
// walked up to three levels deep.

package lspbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
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

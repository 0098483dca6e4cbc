// This file shapes a document outline for a model: document order, the
// declarations by default, and none of the servers' noise (anonymous
// structs, macro expansions, duplicate entries for one declaration).

package lspbridge

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Outline depths: the default shows top-level declarations and their
// members (two levels); an explicit depth shows the server's tree as it
// is, to at most maxOutlineDepth levels.
const (
	defaultOutlineDepth = 2
	maxOutlineDepth     = 10
)

// Symbol kinds the outline rules look at.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#symbolKind
const (
	kindMethod      = 6
	kindConstructor = 9
	kindFunction    = 12
	kindString      = 15
)

// outlineNode is a DocumentSymbol being shaped, with where its name is.
type outlineNode struct {
	DocumentSymbol
	kids []*outlineNode
}

// hiddenCounts says what the declarations view left out, by reason.
type hiddenCounts struct {
	body      int // parameters and locals inside function and method bodies
	deeper    int // nested deeper than the depth
	anonymous int // anonymous structs, unions, namespaces, callbacks (named children kept)
	noise     int // macro expansions (children kept) and duplicate entries for one declaration
}

func (h hiddenCounts) total() int { return h.body + h.deeper + h.anonymous + h.noise }

// String lists the non-zero counts, e.g. "260 inside function bodies, 18
// deeper than 2 levels".
func (h hiddenCounts) String(depth int) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(h.body, "inside function bodies")
	add(h.deeper, "deeper than "+levels(depth))
	add(h.anonymous, "anonymous")
	add(h.noise, "macro expansions or duplicates")
	return strings.Join(parts, ", ")
}

// shapeOutline orders ds by position at every level and, unless raw,
// keeps the declarations: it drops what is inside function bodies,
// promotes the named children of anonymous entries and macro expansions
// (to the declaration sharing their range when there is one: `typedef
// struct {…} Name;`), merges duplicate entries and cuts at depth levels.
// It returns the nodes in document order with their depths.
func shapeOutline(ds []DocumentSymbol, depth int, raw, clangd bool) ([]DocumentSymbol, []int, hiddenCounts) {
	var h hiddenCounts
	nodes := toNodes(ds)
	if !raw {
		nodes = clean(nodes, clangd, &h)
	}
	var out []DocumentSymbol
	var depths []int
	var walk func(ns []*outlineNode, d int)
	walk = func(ns []*outlineNode, d int) {
		sortNodes(ns)
		for _, n := range ns {
			if d >= depth {
				h.deeper += 1 + countNodes(n.kids)
				continue
			}
			out = append(out, n.DocumentSymbol)
			depths = append(depths, d)
			if !raw && isFunctionKind(n.Kind) {
				h.body += countNodes(n.kids)
				continue
			}
			walk(n.kids, d+1)
		}
	}
	walk(nodes, 0)
	return out, depths, h
}

func toNodes(ds []DocumentSymbol) []*outlineNode {
	out := make([]*outlineNode, 0, len(ds))
	for _, d := range ds {
		n := &outlineNode{DocumentSymbol: d, kids: toNodes(d.Children)}
		n.Children = nil
		out = append(out, n)
	}
	return out
}

func countNodes(ns []*outlineNode) int {
	n := len(ns)
	for _, c := range ns {
		n += countNodes(c.kids)
	}
	return n
}

func isFunctionKind(k int) bool {
	return k == kindFunction || k == kindMethod || k == kindConstructor
}

// start is where a node is in the document: its name for the flat form.
func (n *outlineNode) start() Position {
	if n.Location != nil {
		return n.Location.Range.Start
	}
	return n.Range.Start
}

func (n *outlineNode) end() Position {
	if n.Location != nil {
		return n.Location.Range.End
	}
	return n.Range.End
}

func comparePos(a, b Position) int {
	return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Character, b.Character))
}

// sortNodes puts siblings in document order (typescript-language-server
// answers classes' members and some files alphabetically).
func sortNodes(ns []*outlineNode) {
	slices.SortStableFunc(ns, func(a, b *outlineNode) int { return comparePos(a.start(), b.start()) })
}

// isAnonymous says whether a server named the entry for having no name:
// clangd's "(anonymous struct)", "(anonymous union)", "(anonymous
// namespace)", "(unnamed struct at …)"; typescript-language-server's
// "<function>", "<class>"; an empty name.
func isAnonymous(name string) bool {
	name = strings.TrimSpace(name)
	return name == "" || strings.HasPrefix(name, "(anonymous") || strings.HasPrefix(name, "(unnamed") ||
		strings.HasPrefix(name, "<anonymous") || name == "<function>" || name == "<class>"
}

// isMacroExpansion says whether an entry stands for a macro's expansion,
// not a declaration: clangd lists the fields a macro declares (SUBTREE_BITS
// in tree-sitter's subtree.h) under an entry for the macro, with kind
// String, which no declaration of C or C++ has.
func isMacroExpansion(n *outlineNode, clangd bool) bool {
	return clangd && n.Kind == kindString
}

// clean applies the declaration rules to one level of siblings, then to
// their children.
func clean(ns []*outlineNode, clangd bool, h *hiddenCounts) []*outlineNode {
	// Macro expansions give way to what they declare, at their level.
	for changed := true; changed; {
		changed = false
		var next []*outlineNode
		for _, n := range ns {
			if isMacroExpansion(n, clangd) {
				h.noise++
				next = append(next, n.kids...)
				changed = true
				continue
			}
			next = append(next, n)
		}
		ns = next
	}
	sortNodes(ns)
	// Anonymous entries: their children go to the named declaration whose
	// range holds theirs (the typedef or variable declared with them), or
	// else up to their own level.
	for changed := true; changed; {
		changed = false
		var next []*outlineNode
		for _, n := range ns {
			if !isAnonymous(n.Name) {
				next = append(next, n)
				continue
			}
			h.anonymous++
			changed = true
			if owner := holder(ns, n); owner != nil {
				owner.kids = append(owner.kids, n.kids...)
				continue
			}
			if isFunctionKind(n.Kind) { // an anonymous callback: its children are its locals
				h.body += countNodes(n.kids)
				continue
			}
			next = append(next, n.kids...)
		}
		ns = next
		sortNodes(ns)
	}
	// One declaration listed twice (clangd: `typedef struct T T;`, or an
	// enum and its typedef): keep the first, with both's children.
	var out []*outlineNode
	for _, n := range ns {
		if i := slices.IndexFunc(out, func(o *outlineNode) bool { return o.Name == n.Name && o.start().Line == n.start().Line }); i >= 0 {
			h.noise++
			out[i].kids = append(out[i].kids, n.kids...)
			continue
		}
		out = append(out, n)
	}
	for _, n := range out {
		n.kids = clean(n.kids, clangd, h)
	}
	return out
}

// holder returns the named sibling whose range holds anon's, or nil.
func holder(ns []*outlineNode, anon *outlineNode) *outlineNode {
	for _, o := range ns {
		if o != anon && !isAnonymous(o.Name) && o.Location == nil && anon.Location == nil &&
			comparePos(o.start(), anon.start()) <= 0 && comparePos(anon.end(), o.end()) <= 0 {
			return o
		}
	}
	return nil
}

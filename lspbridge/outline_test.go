package lspbridge

import (
	"fmt"
	"strings"
	"testing"
)

// sym builds a DocumentSymbol spanning lines [from, to] (0-based) from
// column col.
func sym(name string, kind, from, col, to int, kids ...DocumentSymbol) DocumentSymbol {
	r := Range{Start: Position{Line: from, Character: col}, End: Position{Line: to, Character: 80}}
	return DocumentSymbol{Name: name, Kind: kind, Range: r, SelectionRange: r, Children: kids}
}

func shaped(ds []DocumentSymbol, depth int, raw, clangd bool) (string, hiddenCounts) {
	out, depths, h := shapeOutline(ds, depth, raw, clangd)
	var lines []string
	for i, d := range out {
		lines = append(lines, fmt.Sprintf("%s%s", strings.Repeat(".", depths[i]), d.Name))
	}
	return strings.Join(lines, " "), h
}

// TestShapeOutline pins the declaration rules on trees shaped like the
// servers' (the real servers are in reach_test.go).
func TestShapeOutline(t *testing.T) {
	const class, field, fn, method, variable = 5, 8, kindFunction, kindMethod, 13
	cases := []struct {
		name   string
		ds     []DocumentSymbol
		depth  int
		raw    bool
		clangd bool
		want   string
		hidden hiddenCounts
	}{
		{name: "document order at every level (tsserver's alphabetical answer)",
			ds:   []DocumentSymbol{sym("AnonymousSubject", class, 162, 0, 188, sym("next", method, 172, 2, 174), sym("constructor", kindConstructor, 163, 2, 170)), sym("Subject", class, 16, 0, 157)},
			want: "Subject AnonymousSubject .constructor .next"},
		{name: "parameters and locals of functions and methods are hidden",
			ds:     []DocumentSymbol{sym("f", fn, 0, 0, 9, sym("a", variable, 0, 6, 0), sym("g", fn, 2, 4, 4, sym("x", variable, 3, 8, 3))), sym("C", class, 10, 0, 20, sym("m", method, 11, 4, 19, sym("self", variable, 11, 10, 11)))},
			want:   "f C .m",
			hidden: hiddenCounts{body: 4}},
		{name: "deeper than the depth",
			ds:     []DocumentSymbol{sym("A", class, 0, 0, 9, sym("B", class, 1, 2, 8, sym("c", field, 2, 4, 2)))},
			want:   "A .B",
			hidden: hiddenCounts{deeper: 1}},
		{name: "raw: the server's tree to the depth, nothing else hidden",
			ds:  []DocumentSymbol{sym("f", fn, 0, 0, 9, sym("a", variable, 0, 6, 0, sym("b", variable, 0, 7, 0)))},
			raw: true, depth: 2,
			want: "f .a", hidden: hiddenCounts{deeper: 1}},
		{name: "typedef struct {…} Name: the fields go to the typedef",
			ds:     []DocumentSymbol{sym("(anonymous struct)", class, 30, 8, 36, sym("x", field, 31, 2, 31)), sym("Point", class, 30, 0, 36)},
			clangd: true,
			want:   "Point .x", hidden: hiddenCounts{anonymous: 1}},
		{name: "an anonymous union's fields are lifted into the struct",
			ds:     []DocumentSymbol{sym("S", class, 0, 0, 9, sym("(anonymous union)", class, 1, 2, 4, sym("a", field, 2, 4, 2), sym("b", field, 3, 4, 3)), sym("n", field, 5, 2, 5))},
			clangd: true,
			want:   "S .a .b .n", hidden: hiddenCounts{anonymous: 1}},
		{name: "a macro expansion gives way to the fields it declares; duplicates merge",
			ds: []DocumentSymbol{
				sym("T", class, 0, 0, 0), sym("T", class, 0, 0, 0),
				sym("S", class, 2, 0, 9, sym("BITS", kindString, 3, 2, 3, sym("visible", field, 3, 2, 3), sym("named", field, 3, 2, 3)), sym("n", field, 4, 2, 4))},
			clangd: true,
			want:   "T S .visible .named .n", hidden: hiddenCounts{noise: 2}},
		{name: "kind String is a macro expansion only for clangd",
			ds:   []DocumentSymbol{sym("greeting", kindString, 0, 0, 0)},
			want: "greeting"},
		{name: "an anonymous callback's children are its locals",
			ds:     []DocumentSymbol{sym("<function>", fn, 0, 0, 5, sym("x", variable, 1, 2, 1)), sym("after", fn, 6, 0, 7)},
			want:   "after",
			hidden: hiddenCounts{anonymous: 1, body: 1}},
	}
	for _, c := range cases {
		depth := c.depth
		if depth == 0 {
			depth = defaultOutlineDepth
		}
		got, h := shaped(c.ds, depth, c.raw, c.clangd)
		if got != c.want || h != c.hidden {
			t.Errorf("%s:\n got %q, hidden %+v\nwant %q, hidden %+v", c.name, got, h, c.want, c.hidden)
		}
	}
}

// TestRankSymbols: the root's own matches first, best names first, the
// rest counted unless asked for.
func TestRankSymbols(t *testing.T) {
	in := []rankedSym{
		{Sym: Sym{Name: "unicode.Cc"}, library: true},
		{Sym: Sym{Name: "Conn.DisconnectNotify"}},
		{Sym: Sym{Name: "ObjectCodec"}},
		{Sym: Sym{Name: "Codec"}, library: true},
		{Sym: Sym{Name: "codec"}},
		{Sym: Sym{Name: "CodecX"}},
		{Sym: Sym{Name: "Codec"}},
	}
	for i := range in {
		in[i].match = matchRank(in[i].Name, "Codec")
	}
	names := func(ss []Sym) string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return strings.Join(out, " ")
	}
	shown, inRoot, hidden := rankSymbols(append([]rankedSym(nil), in...), false)
	if got := names(shown); got != "Codec codec CodecX ObjectCodec Conn.DisconnectNotify" || inRoot != 5 || hidden != 2 {
		t.Errorf("got %q, %d under the root, %d hidden", got, inRoot, hidden)
	}
	shown, _, hidden = rankSymbols(append([]rankedSym(nil), in...), true)
	if got := names(shown); got != "Codec codec CodecX ObjectCodec Conn.DisconnectNotify Codec unicode.Cc" || hidden != 0 {
		t.Errorf("include_libraries: got %q, %d hidden", got, hidden)
	}
	shown, inRoot, hidden = rankSymbols([]rankedSym{in[0], in[3]}, false)
	if got := names(shown); got != "Codec unicode.Cc" || inRoot != 0 || hidden != 0 {
		t.Errorf("libraries only: got %q, %d, %d", got, inRoot, hidden)
	}
}

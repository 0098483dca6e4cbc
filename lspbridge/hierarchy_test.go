package lspbridge

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// hierarchyCase is one hierarchy request on a shared server and what its
// answer must be: the whole text, or an error matching a pattern.
type hierarchyCase struct {
	name      string
	action    string // incoming_calls, outgoing_calls, type_hierarchy
	file      string
	line      int
	symbol    string
	direction string
	depth     int
	want      string // the whole text of the answer
	wantErr   string // a regexp the error must match
}

func runHierarchyCases(t *testing.T, s *Supervisor, root string, cases []hierarchyCase) {
	t.Helper()
	ctx := testCtx(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := hierarchyCall(ctx, s, root, c)
			if c.wantErr != "" {
				if err == nil || !regexp.MustCompile(c.wantErr).MatchString(err.Error()) {
					t.Fatalf("want an error matching %q, got %v (result %v)", c.wantErr, err, r)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Text(); got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
			if r.Shown != len(r.Calls) {
				t.Errorf("shown %d, but %d calls listed", r.Shown, len(r.Calls))
			}
		})
	}
}

func hierarchyCall(ctx context.Context, s *Supervisor, root string, c hierarchyCase) (*Result, error) {
	req := Request{Root: root, File: c.file, Line: c.line, Symbol: c.symbol}
	if c.action == "type_hierarchy" {
		return s.TypeHierarchy(ctx, req, c.direction, c.depth)
	}
	return s.Calls(ctx, c.action, req, c.depth)
}

// TestHierarchyGopls walks calls and types on one real gopls over
// testdata/calls_go.txtar: callers across three files, two levels
// (deduplicated: Top is a caller of Leaf and of Mid), outgoing calls,
// the cap, recursion, a non-function, and both type directions.
func TestHierarchyGopls(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := fixture(t, "calls_go.txtar")
	s := newSup(t, nil)
	runHierarchyCases(t, s, root, []hierarchyCase{
		{name: "incoming", action: "incoming_calls", file: "leaf.go", line: 4, symbol: "Leaf", want: `incoming_calls: leaf.go:4:6 Leaf
4 of 4 incoming calls shown
mid.go:5:7  Mid  a := Leaf(n)
mid.go:6:9  Mid  return Leaf(a)
shapes.go:9:37  Area  func (s Square) Area() int { return Leaf(s.side) * s.side }
top.go:3:34  Top  func Top() int { return Mid(1) + Leaf(2) }`},
		{name: "incoming depth 2", action: "incoming_calls", file: "leaf.go", line: 4, symbol: "Leaf", depth: 2, want: `incoming_calls: leaf.go:4:6 Leaf
7 of 7 incoming calls shown (2 levels)
mid.go:5:7  Mid  a := Leaf(n)
mid.go:6:9  Mid  return Leaf(a)
top.go:3:25    Top → Mid  func Top() int { return Mid(1) + Leaf(2) }
shapes.go:9:37  Area  func (s Square) Area() int { return Leaf(s.side) * s.side }
top.go:5:40    main → Area  func main() { println(Top(), Square{2}.Area(), pings(), Fact(3)) }
top.go:3:34  Top  func Top() int { return Mid(1) + Leaf(2) }
top.go:5:23    main → Top  func main() { println(Top(), Square{2}.Area(), pings(), Fact(3)) }`},
		{name: "outgoing depth 2", action: "outgoing_calls", file: "top.go", line: 3, symbol: "Top", depth: 2, want: `outgoing_calls: top.go:3:6 Top
4 of 4 outgoing calls shown (2 levels)
top.go:3:25  Mid (mid.go:4:6)  func Top() int { return Mid(1) + Leaf(2) }
mid.go:5:7    Mid → Leaf (leaf.go:4:6)  a := Leaf(n)
mid.go:6:9    Mid → Leaf (leaf.go:4:6)  return Leaf(a)
top.go:3:34  Leaf (leaf.go:4:6)  func Top() int { return Mid(1) + Leaf(2) }`},
		{name: "recursion is listed once", action: "incoming_calls", file: "ping.go", line: 20, symbol: "Fact", depth: 3, want: `incoming_calls: ping.go:20:6 Fact
2 of 2 incoming calls shown (3 levels)
ping.go:24:13  Fact  return n * Fact(n-1)
top.go:5:57  main  func main() { println(Top(), Square{2}.Area(), pings(), Fact(3)) }`},
		{name: "not a function", action: "incoming_calls", file: "shapes.go", line: 7, symbol: "side",
			wantErr: `^incoming_calls walks from a function or method; at shapes.go:7:21 side gopls says: side is not a function$`},
		{name: "subtypes by default", action: "type_hierarchy", file: "shapes.go", line: 4, symbol: "Shape", want: `type_hierarchy: shapes.go:4:6 Shape
1 of 1 subtypes shown
shapes.go:7:6  class Square  type Square struct{ side int }`},
		{name: "supertypes", action: "type_hierarchy", file: "shapes.go", line: 7, symbol: "Square", direction: "supertypes", want: `type_hierarchy: shapes.go:7:6 Square
1 of 1 supertypes shown
shapes.go:4:6  interface Shape  type Shape interface{ Area() int }`},
		{name: "depth above 3", action: "incoming_calls", file: "leaf.go", line: 4, symbol: "Leaf", depth: 4,
			wantErr: `^argument 'depth': incoming_calls walks 1 to 3 levels, got 4$`},
		{name: "unknown direction", action: "type_hierarchy", file: "shapes.go", line: 4, symbol: "Shape", direction: "up",
			wantErr: `^argument 'direction': want supertypes or subtypes, got "up"$`},
	})

	ctx := testCtx(t)
	t.Run("structured", func(t *testing.T) {
		r, err := s.Calls(ctx, "incoming_calls", Request{Root: root, File: "leaf.go", Line: 4, Symbol: "Leaf"}, 2)
		if err != nil {
			t.Fatal(err)
		}
		want := Call{Level: 2, Path: "top.go", Line: 3, Col: 25, Name: "Top", Kind: "function", Via: "Mid", Defined: "top.go:3:6",
			Text: "func Top() int { return Mid(1) + Leaf(2) }", rel: "in"}
		if len(r.Calls) < 3 || r.Calls[2] != want {
			t.Fatalf("calls[2] = %+v, want %+v", r.Calls, want)
		}
		if r.Incomplete != "" {
			t.Errorf("a complete answer says it is not: %q", r.Incomplete)
		}
	})
	t.Run("outside the root", func(t *testing.T) {
		// ToUpper's own callees are in GOROOT: listed with absolute paths
		// and their source lines, read-only.
		r, err := s.Calls(ctx, "outgoing_calls", Request{Root: root, File: "loud.go", Line: 6, Symbol: "Loud"}, 2)
		if err != nil {
			t.Fatal(err)
		}
		// The callee is followed by where it is defined (GOROOT's line
		// numbers move with the Go version).
		mustContain(t, r.Text(), "loud.go:6:45  ToUpper (", "/src/strings/strings.go:", ")  func Loud(s string) string { return strings.ToUpper(s) }")
		outside := 0
		for _, c := range r.Calls {
			if c.Level == 2 {
				if !filepath.IsAbs(c.Path) || !strings.Contains(c.Path, "/strings/") || c.Text == "" || c.Via != "ToUpper" {
					t.Errorf("level-2 call %+v: want an absolute path into the strings package with its source line", c)
				}
				outside++
			}
		}
		if outside == 0 {
			t.Errorf("no callee of strings.ToUpper listed:\n%s", r.Text())
		}
	})
	t.Run("while indexing", func(t *testing.T) {
		// gopls announces work-done progress that does not end (as while
		// it loads a large workspace): the answer comes after the index
		// wait and says it may be incomplete, in text and structure.
		srvs := s.running(root)
		if len(srvs) != 1 {
			t.Fatalf("want the one gopls, got %d servers", len(srvs))
		}
		srv := srvs[0]
		srv.onNotify("$/progress", json.RawMessage(`{"token":"agent-tools-test","value":{"kind":"begin","title":"Indexing"}}`))
		defer srv.onNotify("$/progress", json.RawMessage(`{"token":"agent-tools-test","value":{"kind":"end"}}`))
		saved := s.opts.IndexTimeout
		s.opts.IndexTimeout = 100 * time.Millisecond
		defer func() { s.opts.IndexTimeout = saved }()
		r, err := s.Calls(ctx, "incoming_calls", Request{Root: root, File: "leaf.go", Line: 4, Symbol: "Leaf"}, 1)
		if err != nil {
			t.Fatal(err)
		}
		note := "gopls is still busy (indexing): incoming calls may be incomplete; ask again when it is done"
		if r.Incomplete != note {
			t.Errorf("incomplete = %q, want %q", r.Incomplete, note)
		}
		mustContain(t, r.Text(), "4 of 4 incoming calls shown; "+note)
	})
	t.Run("cap", func(t *testing.T) {
		r, err := s.Calls(ctx, "incoming_calls", Request{Root: root, File: "ping.go", Line: 3, Symbol: "Ping"}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r.Shown != 50 || r.Total != 55 || len(r.Calls) != 50 {
			t.Errorf("shown %d of %d (%d listed), want 50 of 55", r.Shown, r.Total, len(r.Calls))
		}
		mustContain(t, r.Text(), "50 of 55 incoming calls shown; capped at 50, nearest levels first: 5 more not shown",
			"ping.go:6:9  pings  return Ping() + Ping()")
		mustContain(t, r.Incomplete, "capped at 50")
		// A deeper walk stops where the cap is full, and says so.
		r, err = s.Calls(ctx, "incoming_calls", Request{Root: root, File: "ping.go", Line: 3, Symbol: "Ping"}, 3)
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, r.Incomplete, "level 2 was not walked: the levels above already fill the cap of 50")
		mustContain(t, r.Summary, "50 of 55 incoming calls shown (3 levels asked, 1 level walked); ")
	})
}

// TestHierarchyPyright walks calls on one real pyright over
// testdata/calls_python.txtar; pyright has no type hierarchy and says so.
func TestHierarchyPyright(t *testing.T) {
	testutil.Needs(t, "pyright-langserver")
	root := fixture(t, "calls_python.txtar")
	s := newSup(t, nil)
	runHierarchyCases(t, s, root, []hierarchyCase{
		{name: "incoming depth 2", action: "incoming_calls", file: "leaf.py", line: 1, symbol: "leaf", depth: 2, want: `incoming_calls: leaf.py:1:5 leaf
5 of 5 incoming calls shown (2 levels)
mid.py:5:9  mid  a = leaf(n)
mid.py:6:12  mid  return leaf(a)
top.py:6:12    top → mid  return mid(1) + leaf(2)
top.py:6:21  top  return mid(1) + leaf(2)
top.py:10:11    main → top  print(top())`},
		{name: "outgoing depth 2", action: "outgoing_calls", file: "top.py", line: 5, symbol: "top", depth: 2, want: `outgoing_calls: top.py:5:5 top
4 of 4 outgoing calls shown (2 levels)
top.py:6:12  mid (mid.py:4:5)  return mid(1) + leaf(2)
mid.py:5:9    mid → leaf (leaf.py:1:5)  a = leaf(n)
mid.py:6:12    mid → leaf (leaf.py:1:5)  return leaf(a)
top.py:6:21  leaf (leaf.py:1:5)  return mid(1) + leaf(2)`},
		{name: "no type hierarchy", action: "type_hierarchy", file: "top.py", line: 5, symbol: "top",
			wantErr: `^type hierarchy is not supported by pyright \d+\.\d+\.\d+$`},
	})
}

// TestHierarchyTypeScript walks calls on one real
// typescript-language-server over testdata/calls_typescript.txtar; it has
// no type hierarchy and says so.
func TestHierarchyTypeScript(t *testing.T) {
	testutil.Needs(t, "typescript-language-server")
	root := fixture(t, "calls_typescript.txtar")
	// The cases want the answer of a loaded tsserver: the wait for its
	// readiness follows tsserver and gets a loaded machine's bound (at
	// load 11 it had not loaded this three-file project after 10 s).
	s := newSup(t, &Options{ReadyTimeout: indexBudget()})
	runHierarchyCases(t, s, root, []hierarchyCase{
		{name: "incoming depth 2", action: "incoming_calls", file: "leaf.ts", line: 1, symbol: "leaf", depth: 2, want: `incoming_calls: leaf.ts:1:17 leaf
5 of 5 incoming calls shown (2 levels)
mid.ts:4:13  mid  const a = leaf(n);
mid.ts:5:10  mid  return leaf(a);
top.ts:4:40    top → mid  export function top(): number { return mid(1) + leaf(2); }
top.ts:4:49  top  export function top(): number { return mid(1) + leaf(2); }
top.ts:6:44    main → top  export function main(): void { console.log(top()); }`},
		{name: "outgoing depth 2", action: "outgoing_calls", file: "top.ts", line: 4, symbol: "top", depth: 2, want: `outgoing_calls: top.ts:4:17 top
4 of 4 outgoing calls shown (2 levels)
top.ts:4:40  mid (mid.ts:3:17)  export function top(): number { return mid(1) + leaf(2); }
mid.ts:4:13    mid → leaf (leaf.ts:1:17)  const a = leaf(n);
mid.ts:5:10    mid → leaf (leaf.ts:1:17)  return leaf(a);
top.ts:4:49  leaf (leaf.ts:1:17)  export function top(): number { return mid(1) + leaf(2); }`},
		{name: "no type hierarchy", action: "type_hierarchy", file: "shapes.ts", line: 3, symbol: "Square",
			wantErr: `^type hierarchy is not supported by typescript-language-server \d+\.\d+\.\d+$`},
	})
}

// TestHierarchyClangd walks calls and types on one real clangd over
// testdata/calls_cpp.txtar. clangd 14 (Debian bookworm's) has no outgoing
// calls, which it says, and only its own form of type hierarchy, which is
// used instead of LSP 3.17's.
func TestHierarchyClangd(t *testing.T) {
	testutil.Needs(t, "clangd")
	root := fixture(t, "calls_cpp.txtar")
	s := newSup(t, nil)
	ctx := testCtx(t)
	runHierarchyCases(t, s, root, []hierarchyCase{
		{name: "incoming depth 2", action: "incoming_calls", file: "leaf.cpp", line: 3, symbol: "leaf", depth: 2, want: `incoming_calls: leaf.cpp:3:5 leaf
5 of 5 incoming calls shown (2 levels)
mid.cpp:5:11  mid  int a = leaf(n);
mid.cpp:6:10  mid  return leaf(a);
top.cpp:5:20    top → mid  int top() { return mid(1) + leaf(2); }
top.cpp:5:29  top  int top() { return mid(1) + leaf(2); }
top.cpp:7:29    main → top  int main() { Cube c; return top() + c.area(); }`},
		{name: "subtypes depth 2", action: "type_hierarchy", file: "shapes.h", line: 1, symbol: "Shape", depth: 2, want: `type_hierarchy: shapes.h:1:8 Shape
2 of 2 subtypes shown (2 levels)
shapes.h:6:8  struct Square  struct Square : Shape {
shapes.h:11:8    struct Cube (subtype of Square)  struct Cube : Square {};`},
		{name: "supertypes depth 3", action: "type_hierarchy", file: "shapes.h", line: 11, symbol: "Cube", direction: "supertypes", depth: 3, want: `type_hierarchy: shapes.h:11:8 Cube
2 of 2 supertypes shown (3 levels)
shapes.h:6:8  struct Square  struct Square : Shape {
shapes.h:1:8    struct Shape (supertype of Square)  struct Shape {`},
		{name: "not a type", action: "type_hierarchy", file: "top.cpp", line: 5, symbol: "top", want: `type_hierarchy: top.cpp:5:5 top
no subtypes: the server found no type hierarchy item at top.cpp:5:5 top (type_hierarchy walks from a type; a C struct or a type alias has none; references lists a type's uses)`},
	})
	// Outgoing calls: clangd announces call hierarchy, but clangd 14 does
	// not know callHierarchy/outgoingCalls (newer ones do): either a
	// clear refusal or an answer.
	r, err := s.Calls(ctx, "outgoing_calls", Request{Root: root, File: "top.cpp", Line: 5, Symbol: "top"}, 1)
	if err != nil {
		mustContain(t, err.Error(), "outgoing calls are not supported by clangd ", `answers callHierarchy/outgoingCalls with "method not found" (incoming_calls may work)`)
	} else {
		mustContain(t, r.Text(), "top.cpp:5:20  mid  int top()", "top.cpp:5:29  leaf  int top()")
	}
}

// TestHierarchyLines pins the cap's choice (nearest levels first, listed
// in tree order) and the line format, without a server.
func TestHierarchyLines(t *testing.T) {
	mk := func(level int, name, via string, line int) Call {
		return Call{Level: level, Path: "a.go", Line: line, Col: 1, Name: name, Via: via, Text: "x()", rel: "in"}
	}
	var deep []*hierNode
	for i := range callsCap {
		deep = append(deep, &hierNode{calls: []Call{mk(2, "deep", "A", 100+i)}})
	}
	w := &walker{nodes: []*hierNode{
		{calls: []Call{mk(1, "A", "T", 1)}, children: deep},
		{calls: []Call{mk(1, "B", "T", 2)}},
	}}
	shown, total := w.lines()
	if total != callsCap+2 || len(shown) != callsCap {
		t.Fatalf("%d of %d shown, want %d of %d", len(shown), total, callsCap, callsCap+2)
	}
	// Both level-1 lines are kept; A's first 48 children follow A.
	if shown[0].Name != "A" || shown[1].Name != "deep" || shown[len(shown)-1].Name != "B" {
		t.Errorf("order: first %v, second %v, last %v", shown[0], shown[1], shown[len(shown)-1])
	}
	if got, want := shown[1].String(), "a.go:100:1    deep → A  x()"; got != want {
		t.Errorf("level-2 line %q, want %q", got, want)
	}
	sub := Call{Level: 2, Path: "s.h", Line: 3, Col: 8, Name: "Cube", Kind: "struct", Via: "Square", Text: "struct Cube : Square {};", rel: "sub"}
	if got, want := sub.String(), "s.h:3:8    struct Cube (subtype of Square)  struct Cube : Square {};"; got != want {
		t.Errorf("type line %q, want %q", got, want)
	}
}

// TestServerVersion pins how a server's version is found for messages.
func TestServerVersion(t *testing.T) {
	for _, c := range []struct{ info, want string }{
		{`{"GoVersion":"go1.26.8","Path":"golang.org/x/tools/gopls","Main":{"Path":"golang.org/x/tools/gopls","Version":"v0.23.0"}}`, "gopls v0.23.0"},
		{"Debian clangd version 14.0.6 linux+grpc x86_64-pc-linux-gnu", "gopls 14.0.6"},
		{"nightly", "gopls nightly"},
	} {
		s := &server{cfg: &ServerConfig{Name: "gopls", Command: []string{"gopls"}}, info: ServerInfo{Version: c.info}}
		if got := s.describe(); got != c.want {
			t.Errorf("describe with version %q = %q, want %q", c.info, got, c.want)
		}
	}
	s := &server{cfg: &ServerConfig{Name: "x", Command: []string{"/nonexistent/x"}}}
	if got := s.describe(); !strings.HasSuffix(got, "(which reports no version)") {
		t.Errorf("describe without a version = %q", got)
	}
}

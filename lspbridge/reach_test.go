package lspbridge

// Issue 18's answers shaped for a model, on real code and real servers,
// one server per language: workspace symbols in a fresh session (the
// server the root's marker names is started), outlines in document order
// with the declarations only, and definitions outside the root shown with
// their source line.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// symNames lists "depth:kind name" for r's symbols.
func symNames(r *Result) []string {
	var out []string
	for _, s := range r.Symbols {
		out = append(out, fmt.Sprintf("%d:%s %s", s.Depth, s.Kind, s.Name))
	}
	return out
}

// indexOf returns the index of the first of names equal to want, or
// fails.
func indexOf(t *testing.T, names []string, want string) int {
	t.Helper()
	for i, n := range names {
		if n == want {
			return i
		}
	}
	t.Fatalf("%q not in the outline:\n%s", want, strings.Join(names, "\n"))
	return -1
}

// first returns r's first symbol, or fails.
func first(t *testing.T, r *Result) Sym {
	t.Helper()
	if len(r.Symbols) == 0 {
		t.Fatalf("no symbols:\n%s", r.Text())
	}
	return r.Symbols[0]
}

// ranked fails unless r's symbols go from the best match of query to the
// worst.
func ranked(t *testing.T, r *Result, query string) {
	t.Helper()
	for i := 1; i < len(r.Symbols); i++ {
		a, b := r.Symbols[i-1], r.Symbols[i]
		if filepath.IsAbs(a.Path) == filepath.IsAbs(b.Path) && matchRank(a.Name, query) > matchRank(b.Name, query) {
			t.Errorf("%s listed before %s, a better match of %q:\n%s", a.Name, b.Name, query, r.Text())
			return
		}
	}
}

// inDocumentOrder fails unless every level of r's outline ascends by line.
func inDocumentOrder(t *testing.T, r *Result) {
	t.Helper()
	last := map[int]int{} // depth → line of the previous sibling
	for _, s := range r.Symbols {
		if s.Line < last[s.Depth] {
			t.Errorf("%s (line %d) listed after a sibling on line %d:\n%s", s.Name, s.Line, last[s.Depth], r.Text())
		}
		last[s.Depth] = s.Line
		for d := range last {
			if d > s.Depth {
				delete(last, d)
			}
		}
	}
}

// TestReachGopls: workspace symbols for "Codec" in a fresh session on
// sourcegraph/jsonrpc2 start gopls by its go.mod and list the module's
// own matches, best first, the standard library's only on request; a
// definition in GOROOT shows its line.
func TestReachGopls(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := jsonrpc2Tree(t)
	s := newSup(t, nil)
	ctx := testCtx(t)

	r, err := s.Symbols(ctx, Request{Root: root, Query: "Codec"})
	check(t, r, err, "started gopls (for go.mod) for this search", "workspace symbols matching \"Codec\" under the root", "outside the root (standard library, dependencies) hidden: pass include_libraries: true")
	if r.Hidden == 0 {
		t.Errorf("gopls's standard-library fuzzy matches are not counted as hidden:\n%s", r.Text())
	}
	for _, sym := range r.Symbols {
		if filepath.IsAbs(sym.Path) {
			t.Errorf("a match outside the root is listed without include_libraries: %v", sym)
		}
	}
	ranked(t, r, "Codec")
	mustContain(t, r.Text(), "stream.go:79:6  interface ObjectCodec")
	gotLimit := strings.Contains(r.Summary, "gopls returns at most 100 matches and stopped there: refine the query")
	if raw := r.Total + r.Hidden; (raw == 100) != gotLimit {
		t.Errorf("gopls returned %d matches; the limit note is there: %v:\n%s", raw, gotLimit, r.Summary)
	}
	t.Logf("Codec: %d under the root, %d outside hidden", r.Total, r.Hidden)

	lib, err := s.Symbols(ctx, Request{Root: root, Query: "Codec", IncludeLibraries: true})
	check(t, lib, err, "/src/")
	if lib.Hidden != 0 || lib.Total != r.Total+r.Hidden {
		t.Errorf("include_libraries: want all %d listed, got %d (hidden %d)", r.Total+r.Hidden, lib.Total, lib.Hidden)
	}
	for i, sym := range lib.Symbols {
		if i < r.Total && filepath.IsAbs(sym.Path) {
			t.Errorf("library match %v ranked before the workspace's own", sym)
		}
	}

	t.Run("only libraries match", func(t *testing.T) {
		r, err := s.Symbols(ctx, Request{Root: root, Query: "Println"})
		check(t, r, err, "all outside the root (none under it)", "/src/fmt/print.go:", "function Println in fmt")
		if first(t, r).Name != "Println" {
			t.Errorf("want the exact match first:\n%s", r.Text())
		}
	})
	t.Run("outline", func(t *testing.T) {
		r, err := s.Symbols(ctx, Request{Root: root, File: "conn.go"})
		check(t, r, err, "(declarations, 2 levels)", "conn.go:18:6  struct Conn", "conn.go:19:2    field stream")
		inDocumentOrder(t, r)
	})
	t.Run("aim only inside longer names", func(t *testing.T) {
		line := lineOf(t, filepath.Join(root, "conn.go"), "func (c *Conn) DispatchCall(")
		_, err := s.Calls(ctx, "incoming_calls", Request{Root: root, File: "conn.go", Line: line, Symbol: "Call"}, 1)
		want := fmt.Sprintf("`Call` is on line %d only inside longer names (1 at column 24 in DispatchCall, 2 at column 93 in CallOption): pass the whole name, or occurrence (1-based) to pick one; as a name of its own it is on lines ", line)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), strconv.Itoa(lineOf(t, filepath.Join(root, "conn.go"), "func (c *Conn) Call("))) {
			t.Errorf("got %v\nwant %s…", err, want)
		}
	})
	t.Run("definition in GOROOT", func(t *testing.T) {
		line := lineOf(t, filepath.Join(root, "call_opt_test.go"), "fmt.Sprintf(")
		r, err := s.Locations(ctx, "definition", Request{Root: root, File: "call_opt_test.go", Line: line, Symbol: "Sprintf"})
		check(t, r, err, "1 of 1 definitions shown", "/src/fmt/print.go:", "func Sprintf(format string, a ...any) string {")
		// The file gopls pointed to can be read further, not written.
		def := r.Locations[0]
		h, err := s.Hover(ctx, Request{Root: root, File: def.Path, Line: def.Line, Symbol: "Sprintf"})
		check(t, h, err, "Sprintf formats according to a format specifier")
		// Its callers are the workspace's: the answer says the rest of the
		// standard library was not searched.
		c, err := s.Calls(ctx, "incoming_calls", Request{Root: root, File: def.Path, Line: def.Line, Symbol: "Sprintf"}, 1)
		check(t, c, err, "call_opt_test.go:", "/src/fmt/print.go is outside the root: gopls looks for incoming calls in the workspace, not in the rest of the standard library or dependencies")
		mustContain(t, c.Incomplete, "is outside the root")
		d, err := s.Locations(ctx, "definition", Request{Root: root, File: def.Path, Line: def.Line + 1, Symbol: "newPrinter"})
		check(t, d, err, "/src/fmt/print.go:", "func newPrinter() *pp {")
		if _, err := s.Rename(ctx, Request{Root: root, File: def.Path, Line: def.Line, Symbol: "Sprintf"}, "Sprintf2"); err == nil || !strings.Contains(err.Error(), "outside") {
			t.Errorf("a rename in GOROOT: want a refusal, got %v", err)
		}
		other := filepath.Join(filepath.Dir(def.Path), "scan.go")
		if _, err := s.Symbols(ctx, Request{Root: root, File: other}); err == nil || !strings.Contains(err.Error(), "can be read only after a server's answer named it") {
			t.Errorf("a file outside the root no server named: want a refusal, got %v", err)
		}
	})
}

// TestReachCallee: a file outside the root is refused until an answer
// names it — here outgoing_calls naming context.WithCancel, defined in
// GOROOT — and then read from the server that named it.
func TestReachCallee(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := jsonrpc2Tree(t)
	s := newSup(t, nil)
	ctx := testCtx(t)
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	contextGo, _ := filepath.EvalSymlinks(filepath.Join(strings.TrimSpace(string(goroot)), "src", "context", "context.go"))
	if _, err := s.Symbols(ctx, Request{Root: root, File: contextGo}); err == nil || !strings.Contains(err.Error(), "can be read only after a server's answer named it") {
		t.Fatalf("before any answer named it: want a refusal, got %v", err)
	}
	line := lineOf(t, filepath.Join(root, "conn.go"), "func NewConn(")
	calls, err := s.Calls(ctx, "outgoing_calls", Request{Root: root, File: "conn.go", Line: line, Symbol: "NewConn"}, 1)
	check(t, calls, err, "WithCancel")
	o, err := s.Symbols(ctx, Request{Root: root, File: contextGo})
	check(t, o, err, "function WithCancel")
}

// TestReachTypeScript: the rxjs outline of Subject.ts is in document
// order (typescript-language-server answers alphabetically) without
// methods' locals and callbacks; workspace symbols start the server by
// tsconfig.json; Array.from's definition is in TypeScript's lib files.
func TestReachTypeScript(t *testing.T) {
	testutil.Needs(t, "typescript-language-server", "tsc")
	root := rxjsTree(t)
	// A decorated class, as Angular and NestJS code is full of: the
	// server's location starts at the decorator, three lines above.
	writeFile(t, filepath.Join(root, "src/internal/decorated.ts"), `function Component(_: object) { return (c: any) => c; }

/** Doc comment naming DecoratedThing. */
@Component({
  selector: 'DecoratedThing',
})
export class DecoratedThing {
  @Component({})
  handleThing(): void {}
}
`)
	s := newSup(t, nil)
	ctx := testCtx(t)

	// Workspace symbols name the line and column of the name, not of
	// `export` or a decorator: the next call aims with that line.
	r, err := s.Symbols(ctx, Request{Root: root, Query: "AnonymousSubject"})
	check(t, r, err, "started typescript-language-server (for tsconfig.json) for this search", "src/internal/Subject.ts:163:14  class AnonymousSubject")
	if first(t, r).Name != "AnonymousSubject" {
		t.Errorf("want the exact match first:\n%s", r.Text())
	}
	r, err = s.Symbols(ctx, Request{Root: root, Query: "DecoratedThing"})
	check(t, r, err, "src/internal/decorated.ts:7:14  class DecoratedThing")
	r, err = s.Symbols(ctx, Request{Root: root, Query: "handleThing"})
	check(t, r, err, "src/internal/decorated.ts:9:3  method handleThing")

	r, err = s.Symbols(ctx, Request{Root: root, File: "src/internal/Subject.ts"})
	check(t, r, err, "symbols in src/internal/Subject.ts (declarations, 2 levels)", "inside function bodies", "pass depth (1-10)")
	inDocumentOrder(t, r)
	names := symNames(r)
	if indexOf(t, names, "0:class Subject") > indexOf(t, names, "0:class AnonymousSubject") {
		t.Errorf("Subject (line 17) must come before AnonymousSubject (line 163):\n%s", r.Text())
	}
	if indexOf(t, names, "1:property closed") > indexOf(t, names, "1:constructor constructor") {
		t.Errorf("closed (line 18) must come before the constructor (line 41):\n%s", r.Text())
	}
	if text := r.Text(); strings.Contains(text, "callback") || strings.Contains(text, "2:") {
		t.Errorf("locals and callbacks of methods are listed:\n%s", text)
	}
	deep, err := s.Symbols(ctx, Request{Root: root, File: "src/internal/Subject.ts", Depth: 4})
	check(t, deep, err, "errorContext() callback", "(the server's tree, 4 levels)")
	if deep.Total != r.Total+r.Hidden {
		t.Errorf("depth 4 lists %d; the declarations view showed %d and hid %d", deep.Total, r.Total, r.Hidden)
	}
	t.Logf("Subject.ts: %d declarations shown, %d hidden; the server's tree has %d", r.Total, r.Hidden, deep.Total)
	top, err := s.Symbols(ctx, Request{Root: root, File: "src/internal/Subject.ts", Depth: 1})
	check(t, top, err, "(the server's tree, 1 level) shown", "deeper than 1 level)", "src/internal/Subject.ts:17:14  class Subject\n")

	// A function value bound to a name through parentheses has no call
	// hierarchy item in the server; the answer says what to ask instead.
	c, err := s.Calls(ctx, "incoming_calls", Request{Root: root, File: "src/internal/util/isArrayLike.ts", Line: 1, Symbol: "isArrayLike"}, 1)
	check(t, c, err, "no incoming calls: the server found no call hierarchy item at src/internal/util/isArrayLike.ts:1:14 isArrayLike",
		"references lists its uses")

	// On an import line the name in code is aimed at, not the one in the
	// module path: import { isArrayLike } from '../util/isArrayLike'.
	d, err := s.Locations(ctx, "definition", Request{Root: root, File: "src/internal/observable/innerFrom.ts", Line: 1, Symbol: "isArrayLike"})
	check(t, d, err, "definition: src/internal/observable/innerFrom.ts:1:10 isArrayLike", "src/internal/util/isArrayLike.ts:1:14  export const isArrayLike")

	t.Run("definition in TypeScript's lib", func(t *testing.T) {
		line := lineOf(t, filepath.Join(root, "src/internal/Subject.ts"), "Array.from(")
		r, err := s.Locations(ctx, "definition", Request{Root: root, File: "src/internal/Subject.ts", Line: line, Symbol: "from"})
		check(t, r, err, "node_modules/typescript/lib/lib.es", "from<T>(")
		// Its outline can be read: the server pointed there.
		o, err := s.Symbols(ctx, Request{Root: root, File: r.Locations[0].Path})
		check(t, o, err, "interface ArrayConstructor")
		// lib.es5.d.ts's outline is longer than the cap: the answer says
		// how to reach the rest.
		line = lineOf(t, filepath.Join(root, "src/internal/Observable.ts"), "function getPromiseCtor(")
		r, err = s.Locations(ctx, "definition", Request{Root: root, File: "src/internal/Observable.ts", Line: line, Symbol: "PromiseConstructorLike"})
		check(t, r, err, "lib.es5.d.ts:")
		o, err = s.Symbols(ctx, Request{Root: root, File: r.Locations[0].Path})
		if err != nil || o.Shown >= o.Total {
			t.Fatalf("lib.es5.d.ts's outline: want it capped, got %v, %v", o, err)
		}
		mustContain(t, o.Summary, fmt.Sprintf("; entries after line %d are not listed: pass depth 1 for the top level only, or query to find a name", o.Symbols[o.Shown-1].Line))
	})
}

// TestReachPyright: pyright's outline of Debian's tabulate.py (~1,900
// lines) lists its classes, functions and module-level names, not every
// parameter and local; workspace symbols start pyright by pyproject.toml.
func TestReachPyright(t *testing.T) {
	testutil.Needs(t, "pyright-langserver")
	root := tabulateTree(t)
	s := newSup(t, nil)
	ctx := testCtx(t)

	start := time.Now()
	r, err := s.Symbols(ctx, Request{Root: root, Query: "simple_separated_format"})
	t.Logf("started pyright and searched in %s", time.Since(start))
	check(t, r, err, "started pyright (for pyproject.toml) for this search", "tabulate.py:")
	if f := first(t, r); f.Name != "simple_separated_format" || f.Path != "tabulate.py" {
		t.Errorf("want the definition, an exact match, first:\n%s", r.Text())
	}

	r, err = s.Symbols(ctx, Request{Root: root, File: "tabulate.py"})
	check(t, r, err, "(declarations, 2 levels)", "inside function bodies", "tabulate.py:1", "function tabulate", "tabulate.py:1714:7  class JupyterHTMLStr", "tabulate.py:1718:9    method _repr_html_")
	inDocumentOrder(t, r)
	deep, err := s.Symbols(ctx, Request{Root: root, File: "tabulate.py", Depth: maxOutlineDepth})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tabulate.py: %d declarations shown, %d hidden; the server's tree has %d", r.Total, r.Hidden, deep.Total)
	if deep.Total != r.Total+r.Hidden || r.Total*3 > deep.Total {
		t.Errorf("want the declarations to be under a third of the server's %d entries, got %d (+%d hidden)", deep.Total, r.Total, r.Hidden)
	}
	// _pipe_segment_with_colons(align, colwidth): its parameters are
	// children in pyright's tree, not in the declarations.
	names := symNames(r)
	i := indexOf(t, names, "0:function _pipe_segment_with_colons")
	if next := names[i+1]; strings.HasPrefix(next, "1:") {
		t.Errorf("a function's parameters or locals are listed: %q after it", next)
	}
	mustContain(t, strings.Join(symNames(deep), "\n"), "1:variable align")
}

// TestReachClangd: clangd's outline of tree-sitter's subtree.h has no
// anonymous structs or unions (their fields belong to the typedef declared
// with them), no macro expansions and no duplicate entries; workspace
// symbols start clangd by compile_flags.txt; strncmp's definition is in
// the system's string.h.
func TestReachClangd(t *testing.T) {
	testutil.Needs(t, "clangd")
	root := treeSitterTree(t)
	// The search waits for clangd's index: the test's bounds follow a
	// loaded machine's pace (indexBudget).
	s := newSup(t, &Options{IndexTimeout: indexBudget()})
	ctx := indexCtx(t)

	r, err := s.Symbols(ctx, Request{Root: root, Query: "ts_subtree_retain"})
	check(t, r, err, "started clangd (for compile_flags.txt) for this search", "ts_subtree_retain")
	if first(t, r).Name != "ts_subtree_retain" {
		t.Errorf("want the exact match first:\n%s", r.Text())
	}

	r, err = s.Symbols(ctx, Request{Root: root, File: "src/subtree.h"})
	check(t, r, err, "(declarations, 2 levels)", "anonymous", "macro expansions or duplicates")
	inDocumentOrder(t, r)
	text := r.Text()
	if strings.Contains(text, "(anonymous") || strings.Contains(text, "SUBTREE_BITS") {
		t.Errorf("anonymous entries or macro expansions are listed:\n%s", text)
	}
	names := symNames(r)
	for _, c := range []struct{ parent, child string }{
		{"0:class ExternalScannerState", "1:field long_data"}, // through an anonymous struct, then union
		{"0:class SubtreeHeapData", "1:field ref_count"},
		{"0:class SubtreeHeapData", "1:field visible_child_count"}, // in an anonymous struct in an anonymous union
		{"0:class SubtreeInlineData", "1:field visible"},           // declared by the SUBTREE_BITS macro
		{"0:class SubtreeArray", "1:field contents"},               // declared by the Array(T) macro
	} {
		i, j := indexOf(t, names, c.parent), indexOf(t, names, c.child)
		if j < i {
			t.Errorf("%s is not under %s", c.child, c.parent)
		}
	}
	seen := map[string]bool{}
	for _, sym := range r.Symbols {
		k := fmt.Sprintf("%d %s", sym.Line, sym.Name)
		if seen[k] {
			t.Errorf("%s listed twice", k)
		}
		seen[k] = true
	}
	raw, err := s.Symbols(ctx, Request{Root: root, File: "src/subtree.h", Depth: maxOutlineDepth})
	check(t, raw, err, "(anonymous struct)")
	t.Logf("subtree.h: %d declarations shown, %d hidden (%s); the server's tree has %d", r.Total, r.Hidden, r.Summary, raw.Total)

	t.Run("definition in a system header", func(t *testing.T) {
		line := lineOf(t, filepath.Join(root, "src/language.c"), `!strncmp(string, "ERROR"`)
		r, err := s.Locations(ctx, "definition", Request{Root: root, File: "src/language.c", Line: line, Symbol: "strncmp"})
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, r.Text(), "1 of 1 definitions shown", "/usr/include/string.h:", "extern int strncmp (")
		h, err := s.Hover(ctx, Request{Root: root, File: r.Locations[0].Path, Line: r.Locations[0].Line, Symbol: "strncmp"})
		check(t, h, err, "strncmp")
		if !regexp.MustCompile(`string\.h:\d+:\d+  \S`).MatchString(r.Text()) {
			t.Errorf("the location lacks its source line:\n%s", r.Text())
		}
	})
}

// TestWorkspaceSymbolsNoMarker: with no server running and no marker
// under the root, the error names the markers looked for.
func TestWorkspaceSymbolsNoMarker(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "notes.txt"), "x\n")
	s := newSup(t, nil)
	_, err := s.Symbols(testCtx(t), Request{Root: root, Query: "x"})
	if err == nil || !strings.Contains(err.Error(), "no root marker (") || !strings.Contains(err.Error(), "go.mod") {
		t.Fatalf("want an error naming the markers, got %v", err)
	}
	os.Remove(filepath.Join(root, "notes.txt"))
}

// TestWorkspaceSymbolsMonorepo: a root whose Go modules are below it
// (svc/a: jsonrpc2, svc/b: zerolog) starts gopls for the first one only;
// the answer names the project it did not search rather than claim
// there is no match.
func TestWorkspaceSymbolsMonorepo(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := canonical(t.TempDir())
	if err := os.MkdirAll(filepath.Join(root, "svc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(jsonrpc2Tree(t), filepath.Join(root, "svc", "a")); err != nil {
		t.Fatal(err)
	}
	copyTree(t, goModuleDir(t, zerologModule), filepath.Join(root, "svc", "b"), nil)
	// A module among test fixtures is not a project left unsearched.
	os.MkdirAll(filepath.Join(root, "svc", "a", "testdata", "mod"), 0o755)
	writeFile(t, filepath.Join(root, "svc", "a", "testdata", "mod", "go.mod"), "module example.com/fixture\n")
	s := newSup(t, nil)
	r, err := s.Symbols(testCtx(t), Request{Root: root, Query: "NewConsoleWriter"})
	check(t, r, err, "started gopls (for svc/a/go.mod) for this search",
		"not searched: gopls for svc/b (no server runs there yet): pass file (a file of that project) to search it")
	if !strings.Contains(r.Incomplete, "not searched: gopls for svc/b") || strings.Contains(r.Incomplete, "testdata") {
		t.Errorf("the answer is not marked incomplete for svc/b alone: %q", r.Incomplete)
	}
}

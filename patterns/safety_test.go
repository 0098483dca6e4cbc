package patterns

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
	"github.com/agent-tools/agent-tools/rpc"
)

// The safety tests hold ast_edit's two refusals to real code nobody here
// wrote: a rewrite naming a metavariable the pattern does not bind, and a
// rewrite that breaks the syntax of the files it changes.

// realSources copies go/build/build.go from GOROOT, json/encoder.py from
// the Python standard library and TypeScript's lib.es2015.promise.d.ts
// into a temporary root.
func realSources(t *testing.T) string {
	t.Helper()
	goSrc := filepath.Join(gorootSrc(t), "go", "build", "build.go")
	pySrc := filepath.Join(pythonStdlib(t), "json", "encoder.py")
	tsSrc := "/usr/lib/node_modules/typescript/lib/lib.es2015.promise.d.ts"
	testutil.NeedsFunc(t, "TypeScript's lib files (npm install -g typescript)", func() string {
		if _, err := os.Stat(tsSrc); err != nil {
			return err.Error()
		}
		return ""
	})
	root := t.TempDir()
	for name, from := range map[string]string{"build.go": goSrc, "encoder.py": pySrc, "promise.d.ts": tsSrc} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// searchFor searches one file; a TypeScript pattern is read as a type
// (Promise<$T> as an expression is a comparison).
func searchFor(t *testing.T, root, path, lang, pattern string) *SearchResult {
	t.Helper()
	co := CompileOptions{}
	if lang == "typescript" {
		co.Context = "type"
	}
	res, err := Search(context.Background(), root, pattern, SearchOptions{Path: path, Language: lang, KeepSource: true, CompileOptions: co})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total == 0 {
		t.Fatalf("%s: no match for %s", path, pattern)
	}
	return res
}

func TestStageUnboundMetavariable(t *testing.T) {
	root := realSources(t)
	tests := []struct {
		path, lang, pattern, rewrite string
		want                         string // "" stages
	}{
		{"build.go", "go", "fmt.Errorf($A, $B)", "fmt.Errorf($A, $C)", "$C is not in the pattern; it binds $A, $B"},
		{"build.go", "go", "fmt.Errorf($$$A)", "fmt.Errorf($$$B)", "$$$B is not in the pattern; it binds $$$A"},
		{"build.go", "go", "fmt.Errorf($$$A)", "errors.Join($ERR)", "$ERR is not in the pattern; it binds $$$A"},
		{"build.go", "go", "fmt.Errorf($_, $$$)", "fmt.Errorf($_)", "$_ captures nothing (a name starting with _ never does), so the rewrite cannot use it; it binds no metavariable"},
		// substitute places a capture by its name whatever its '$'s: $A
		// places what $$$A captured.
		{"build.go", "go", "fmt.Errorf($$$A)", "errorf($A)", ""},
		{"build.go", "go", "fmt.Errorf($F, $$$REST)", "fmt.Errorf($F, $$$REST, $$)", ""}, // a lone $$ is literal text
		{"encoder.py", "python", "raise ValueError($MSG)", "raise TypeError($MSG, $NAME)", "$NAME is not in the pattern; it binds $MSG"},
		{"promise.d.ts", "typescript", "Promise<$T>", "Awaited<$U>", "$U is not in the pattern; it binds $T"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" → "+tt.rewrite, func(t *testing.T) {
			res := searchFor(t, root, tt.path, tt.lang, tt.pattern)
			s := NewStager()
			st, err := s.Stage(res, tt.rewrite, true)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Stage = %v, want error %q", err, tt.want)
			}
			if st != nil || len(s.edits) != 0 {
				t.Fatalf("refused edit was staged")
			}
		})
	}
}

// TestStageSyntaxErrors: a rewrite that drops a closing bracket is
// refused by default, naming file:line and the node, and staged with
// allowSyntaxErrors; a rewrite that keeps the syntax is staged without
// any.
func TestStageSyntaxErrors(t *testing.T) {
	root := realSources(t)
	tests := []struct {
		path, lang, pattern, broken, fine string
	}{
		{"build.go", "go", "fmt.Errorf($$$A)", "fmt.Errorf($$$A", "errorf($$$A)"},
		{"encoder.py", "python", "raise ValueError($$$A)", "raise ValueError($$$A", "raise TypeError($$$A)"},
		{"promise.d.ts", "typescript", "Promise<$T>", "Promise<$T", "PromiseLike<$T>"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res := searchFor(t, root, tt.path, tt.lang, tt.pattern)
			s := NewStager()
			_, err := s.Stage(res, tt.broken, false)
			var se *SyntaxErrorsError
			if !errors.As(err, &se) {
				t.Fatalf("broken rewrite: err = %v, want a refusal for syntax errors", err)
			}
			if len(s.edits) != 0 {
				t.Fatal("refused edit was staged")
			}
			first := se.Errors[0]
			if first.Path != tt.path || first.Line < 1 || first.Node == "" {
				t.Fatalf("first error %+v", first)
			}
			if !strings.HasPrefix(first.Node, "ERROR") && !strings.HasPrefix(first.Node, "MISSING ") {
				t.Errorf("node %q, want ERROR or MISSING kind", first.Node)
			}
			msg := err.Error()
			if !strings.Contains(msg, "allow_syntax_errors: true") || !strings.Contains(msg, first.String()) {
				t.Errorf("refusal does not name the way out or the error:\n%s", msg)
			}
			// The error follows a replacement: the line it names holds
			// the template's text, and the error is on it or soon after.
			st, err := s.Stage(res, tt.broken, true)
			if err != nil {
				t.Fatalf("allowed: %v", err)
			}
			newLines := strings.Split(string(st.Files[0].newText), "\n")
			if rl := first.RewriteLine; rl > first.Line || first.Line-rl > 5 || !strings.Contains(newLines[rl-1], strings.Fields(tt.broken)[0][:3]) {
				t.Errorf("error %s: line %d is not a rewritten one", first, rl)
			}
			if got := newLines[first.Line-1]; got != first.Text {
				t.Errorf("error text %q, line %d is %q", first.Text, first.Line, got)
			}
			// At most one error per replacement.
			if len(se.Errors) > st.Replacements {
				t.Errorf("%d errors for %d replacements", len(se.Errors), st.Replacements)
			}
			if len(st.SyntaxErrors) != len(se.Errors) {
				t.Errorf("staged with %d syntax errors, refusal listed %d", len(st.SyntaxErrors), len(se.Errors))
			}

			st, err = s.Stage(res, tt.fine, false)
			if err != nil {
				t.Fatalf("a rewrite that keeps the syntax: %v", err)
			}
			if len(st.SyntaxErrors) != 0 {
				t.Errorf("fine rewrite reported %v", st.SyntaxErrors)
			}
		})
	}
}

// TestStageKeepsOldSyntaxErrors: a file that already had a syntax error
// is not blamed on a rewrite beside it, nor on one inside the broken code
// (the old error nodes are carried across the replacements).
func TestStageKeepsOldSyntaxErrors(t *testing.T) {
	for name, src := range map[string]string{
		"beside.go": "package p\n\nfunc f() { g(1) }\n\nfunc broken( {\n}\n\nfunc h() { g(2) }\n",
		"inside.go": "package p\n\nfunc broken( {\n\tg(1)\n}\n\nfunc h() { g(2) }\n",
		"inside.py": "def f(:\n    g(1)\n\ng(2)\n",
	} {
		t.Run(name, func(t *testing.T) {
			root := writeTree(t, map[string]string{name: src})
			res := searchFor(t, root, name, map[bool]string{true: "go", false: "python"}[strings.HasSuffix(name, ".go")], "g($X)")
			st, err := NewStager().Stage(res, "k($X, 0)", false)
			if err != nil {
				t.Fatalf("rewrite of code with an old syntax error refused: %v", err)
			}
			if st.Replacements != 2 || len(st.SyntaxErrors) != 0 {
				t.Errorf("%d replacements, errors reported as new: %v", st.Replacements, st.SyntaxErrors)
			}
		})
	}
}

// TestResolveSaysWhenUnchecked: an accept that no capability reported on
// (lsp not attached, or no server for the files) says the files were not
// checked, rather than saying nothing a model could read as "clean"; one
// that was reported on carries the report instead.
func TestResolveSaysWhenUnchecked(t *testing.T) {
	r := ResolveResult{EditID: "edit_1", Action: "accept", Files: []string{"a.go"}, Replacements: 1}
	if text := r.Text(); !strings.Contains(text, "not checked: no language server reported") {
		t.Errorf("an unchecked accept does not say so:\n%s", text)
	}
	r.AfterWrite = []rpc.WriteReport{{Capability: "lsp", Text: "no new errors or warnings (checked: a.go)"}}
	if text := r.Text(); strings.Contains(text, "not checked") || !strings.Contains(text, "checked: a.go") {
		t.Errorf("a checked accept:\n%s", text)
	}
	r = ResolveResult{EditID: "edit_2", Action: "discard"}
	if text := r.Text(); strings.Contains(text, "checked") {
		t.Errorf("a discard talks of checks:\n%s", text)
	}
}

// TestSearchSaysDepsNotSearched: a search over a tree with node_modules
// directories .gitignore does not leave out finds nothing in them and
// says which were not searched, for a pattern and a rule alike.
func TestSearchSaysDepsNotSearched(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, "-- src/a.js --\nawait f();\n-- node_modules/lib/b.js --\nawait g();\n"+
		"-- pkg/node_modules/x/c.js --\nawait h();\n-- .gitignore --\n/ignored/node_modules/\n-- ignored/node_modules/d.js --\nawait i();\n")
	res, err := Search(context.Background(), dir, "await $X", SearchOptions{Language: "javascript", Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || !slices.Equal(res.Deps, []string{"node_modules", "pkg/node_modules"}) {
		t.Fatalf("total %d, deps %q; want 1 match and node_modules, pkg/node_modules", res.Total, res.Deps)
	}
	spec, err := ParseRule([]byte(`{"pattern": "await $X"}`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rres, err := SearchRule(context.Background(), dir, spec, SearchOptions{Language: "javascript", Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rres.Total != 1 || !slices.Equal(rres.Deps, res.Deps) {
		t.Errorf("rule search: total %d, deps %q", rres.Total, rres.Deps)
	}
	text := GrepResult{Total: 1, Shown: 1, FilesSearched: 1, FilesMatched: 1, NotSearched: res.Deps}.Text()
	if !strings.Contains(text, "not searched: 2 node_modules directories (dependencies): node_modules, pkg/node_modules; pass a path inside one") {
		t.Errorf("text does not say what was not searched:\n%s", text)
	}
}

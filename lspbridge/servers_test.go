package lspbridge

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// check fails the test on err, else wants every string in r's text.
func check(t *testing.T, r interface{ Text() string }, err error, wants ...string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, r.Text(), wants...)
}

// TestPyright drives the lsp actions and a two-file rename against a real
// pyright-langserver.
func TestPyright(t *testing.T) {
	testutil.Needs(t, "pyright-langserver", "pyright")
	root := fixture(t, "python.txtar")
	s := newSup(t, nil)
	ctx := testCtx(t)
	req := func(file string, line int, symbol string) Request {
		return Request{Root: root, File: file, Line: line, Symbol: symbol}
	}
	t.Run("definition", func(t *testing.T) {
		r, err := s.Locations(ctx, "definition", req("main.py", 4, "shout"))
		check(t, r, err, "util.py:11:5  def shout(s: str) -> str:")
	})
	t.Run("type_definition", func(t *testing.T) {
		r, err := s.Locations(ctx, "type_definition", req("main.py", 3, "g"))
		check(t, r, err, "util.py:6:7  class English(Greeter):")
	})
	t.Run("implementation unsupported", func(t *testing.T) {
		_, err := s.Locations(ctx, "implementation", req("util.py", 1, "Greeter"))
		if err == nil || !strings.Contains(err.Error(), "pyright does not support implementation") {
			t.Fatalf("want a clear unsupported error, got %v", err)
		}
	})
	t.Run("references", func(t *testing.T) {
		r, err := s.Locations(ctx, "references", req("util.py", 11, "shout"))
		check(t, r, err, "4 of 4 references shown", "main.py:1:27", "main.py:4:7", "util.py:8:16", "util.py:11:5")
	})
	t.Run("hover", func(t *testing.T) {
		r, err := s.Hover(ctx, req("main.py", 4, "shout"))
		check(t, r, err, "def shout(s: str) -> str", "Upper-case s.")
	})
	t.Run("hover capped", func(t *testing.T) {
		var src strings.Builder
		src.WriteString("def documented() -> None:\n    \"\"\"Does one thing.\n\n")
		for i := 1; i <= 150; i++ {
			fmt.Fprintf(&src, "    Detail %d.\n\n", i)
		}
		src.WriteString("    \"\"\"\n")
		writeFile(t, filepath.Join(root, "long.py"), src.String())
		r, err := s.Hover(ctx, req("long.py", 1, "documented"))
		check(t, r, err, "def documented() -> None", "Does one thing.", "Detail 1.", "more lines)")
		if r == nil {
			return
		}
		if n := strings.Count(r.Hover, "\n") + 1; n > hoverLines+2 || r.HoverMoreLines < 100 || strings.Contains(r.Hover, "Detail 150.") {
			t.Errorf("hover of %d lines, %d more: want it cut at %d lines with the rest counted:\n%s", n, r.HoverMoreLines, hoverLines, r.Hover)
		}
		if want := fmt.Sprintf("… (%d more lines)", r.HoverMoreLines); !strings.HasSuffix(r.Hover, want) {
			t.Errorf("the hover does not end with %q:\n%s", want, r.Hover)
		}
	})
	t.Run("symbols", func(t *testing.T) {
		r, err := s.Symbols(ctx, Request{Root: root, File: "util.py"})
		check(t, r, err, "util.py:1:7  class Greeter", "util.py:2:9    method greet", "util.py:11:5  function shout")
		r, err = s.Symbols(ctx, Request{Root: root, File: "main.py", Query: "English"})
		check(t, r, err, "util.py:6:7  class English")
	})
	t.Run("code_actions", func(t *testing.T) {
		r, err := s.CodeActions(ctx, req("main.py", 4, "shout"))
		check(t, r, err, "code_actions: main.py:4:7 shout")
	})
	t.Run("diagnostics", func(t *testing.T) {
		r, err := s.Diagnostics(ctx, Request{Root: root, File: "bad.py"})
		check(t, r, err, `bad.py:1:10  error  Type "Literal['x']" is not assignable to declared type "int"`)
		r, err = s.Diagnostics(ctx, Request{Root: root, File: "*"})
		check(t, r, err, `bad.py:1:10  error  Type "Literal['x']" is not assignable`, "ran pyright --outputjson in .")
	})
	t.Run("rename", func(t *testing.T) {
		r, err := s.Rename(ctx, req("util.py", 11, "shout"), "yell")
		check(t, r, err, "2 files", "main.py  2 edits", "util.py  2 edits")
		data, _ := os.ReadFile(filepath.Join(root, "main.py"))
		mustContain(t, string(data), "from util import English, yell", `msg = yell("hi")`)
	})
}

// TestTypeScript drives the lsp actions and a two-file rename against a
// real typescript-language-server (with typescript 5.9).
func TestTypeScript(t *testing.T) {
	testutil.Needs(t, "typescript-language-server", "tsc")
	root := fixture(t, "typescript.txtar")
	s := newSup(t, nil)
	ctx := testCtx(t)
	req := func(file string, line int, symbol string) Request {
		return Request{Root: root, File: file, Line: line, Symbol: symbol}
	}
	t.Run("definition", func(t *testing.T) {
		// On an imported name the server may answer the import itself.
		r, err := s.Locations(ctx, "definition", req("main.ts", 4, "shout"))
		check(t, r, err, "1 of 1 definitions shown")
		r, err = s.Locations(ctx, "definition", req("util.ts", 7, "shout"))
		check(t, r, err, "util.ts:2:17  export function shout(s: string): string")
	})
	t.Run("type_definition", func(t *testing.T) {
		r, err := s.Locations(ctx, "type_definition", req("main.ts", 3, "g"))
		check(t, r, err, "util.ts:4:18  export interface Greeter")
	})
	t.Run("implementation", func(t *testing.T) {
		r, err := s.Locations(ctx, "implementation", req("util.ts", 4, "Greeter"))
		check(t, r, err, "util.ts:6:14  export class English implements Greeter")
	})
	t.Run("references", func(t *testing.T) {
		r, err := s.Locations(ctx, "references", req("util.ts", 2, "shout"))
		check(t, r, err, "4 of 4 references shown", "main.ts:1:28", "main.ts:4:13", "util.ts:2:17", "util.ts:7:28")
	})
	t.Run("hover", func(t *testing.T) {
		r, err := s.Hover(ctx, req("main.ts", 4, "shout"))
		check(t, r, err, "shout(s: string): string", "Upper-case s.")
	})
	t.Run("symbols", func(t *testing.T) {
		r, err := s.Symbols(ctx, Request{Root: root, File: "util.ts"})
		check(t, r, err, "util.ts:2:17  function shout", "util.ts:6:14  class English")
		r, err = s.Symbols(ctx, Request{Root: root, File: "main.ts", Query: "English"})
		// At the name, as the outline: the server's location starts at
		// `export`.
		check(t, r, err, "util.ts:6:14  class English")
	})
	t.Run("code_actions", func(t *testing.T) {
		r, err := s.CodeActions(ctx, req("main.ts", 4, "shout"))
		check(t, r, err, "code_actions: main.ts:4:13 shout")
	})
	t.Run("diagnostics", func(t *testing.T) {
		r, err := s.Diagnostics(ctx, Request{Root: root, File: "bad.ts"})
		check(t, r, err, `bad.ts:1:14  error  Type 'string' is not assignable to type 'number'.`)
		r, err = s.Diagnostics(ctx, Request{Root: root, File: "*"})
		check(t, r, err, `bad.ts:1:14  error  Type 'string' is not assignable to type 'number'. [tsc TS2322]`, "ran tsc --noEmit")
	})
	t.Run("rename", func(t *testing.T) {
		r, err := s.Rename(ctx, req("util.ts", 2, "shout"), "yell")
		check(t, r, err, "2 files", "main.ts  2 edits", "util.ts  2 edits")
		data, _ := os.ReadFile(filepath.Join(root, "main.ts"))
		mustContain(t, string(data), `import { English, Greeter, yell } from "./util";`)
	})
}

// TestClangd drives the lsp actions and a two-file rename against a real
// clangd.
func TestClangd(t *testing.T) {
	testutil.Needs(t, "clangd")
	isolateCache(t)
	root := fixture(t, "c.txtar")
	s := newSup(t, nil)
	ctx := testCtx(t)
	req := func(file string, line int, symbol string) Request {
		return Request{Root: root, File: file, Line: line, Symbol: symbol}
	}
	t.Run("definition", func(t *testing.T) {
		// The declaration until clangd's index has util.c, then the
		// definition.
		r, err := s.Locations(ctx, "definition", req("main.c", 5, "shout"))
		check(t, r, err, "1 of 1 definitions shown", "int shout(int x)")
	})
	t.Run("type_definition", func(t *testing.T) {
		r, err := s.Locations(ctx, "type_definition", req("main.c", 4, "p"))
		check(t, r, err, "util.h:5:8  struct point { int x, y; };")
	})
	t.Run("implementation", func(t *testing.T) {
		_, err := s.Locations(ctx, "implementation", req("main.c", 5, "shout"))
		if err != nil {
			t.Fatal(err) // clangd answers (with nothing for C): no error
		}
	})
	t.Run("references", func(t *testing.T) {
		r, err := s.Locations(ctx, "references", req("main.c", 5, "shout"))
		// The generated compilation database lets clangd index util.c too.
		check(t, r, err, "4 of 4 references shown", "main.c:5:10", "main.c:6:9", "util.c:3:5", "util.h:4:5")
	})
	t.Run("hover", func(t *testing.T) {
		r, err := s.Hover(ctx, req("main.c", 5, "shout"))
		check(t, r, err, "shout", "int shout(int x)")
	})
	t.Run("symbols", func(t *testing.T) {
		r, err := s.Symbols(ctx, Request{Root: root, File: "main.c"})
		check(t, r, err, "main.c:3:5  function main")
		r, err = s.Symbols(ctx, Request{Root: root, File: "main.c", Query: "shout"})
		check(t, r, err, "shout")
	})
	t.Run("code_actions", func(t *testing.T) {
		r, err := s.CodeActions(ctx, req("main.c", 5, "shout"))
		check(t, r, err, "code_actions: main.c:5:10 shout")
	})
	t.Run("diagnostics", func(t *testing.T) {
		r, err := s.Diagnostics(ctx, Request{Root: root, File: "bad.c"})
		check(t, r, err, `bad.c:1:24  error  Use of undeclared identifier 'undefined_thing'`)
		r, err = s.Diagnostics(ctx, Request{Root: root, File: "*"})
		check(t, r, err, `bad.c:1:24  error  Use of undeclared identifier 'undefined_thing'`, "ran clangd on the 3 translation units (headers through the files that include them) in .")
	})
	t.Run("rename", func(t *testing.T) {
		// clangd renames across the files it has indexed: the ones open.
		if _, err := s.Diagnostics(ctx, Request{Root: root, File: "util.c"}); err != nil {
			t.Fatal(err)
		}
		r, err := s.Rename(ctx, req("main.c", 5, "shout"), "yell")
		check(t, r, err, "main.c  2 edits", "util.c  1 edits", "util.h  1 edits")
	})
}

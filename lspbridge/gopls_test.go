package lspbridge

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/atomicfile"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestGopls drives every lsp action, diagnostics on write and lsp_rename
// against one real gopls on testdata/go.txtar. The subtests share the
// server and run in order (the rename ones change the files last).
func TestGopls(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := fixture(t, "go.txtar")
	s := newSup(t, nil)
	log := captureLog(s)
	ctx := testCtx(t)
	req := func(file string, line int, symbol string) Request {
		return Request{Root: root, File: file, Line: line, Symbol: symbol}
	}

	t.Run("definition", func(t *testing.T) {
		r, err := s.Locations(ctx, "definition", req("main.go", 7, "Shout"))
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, r.Text(), "definition: main.go:7:9 Shout", "1 of 1 definitions shown", `util.go:4:6  func Shout(s string) string { return s + "!" }`)
	})
	t.Run("type_definition", func(t *testing.T) {
		r, err := s.Locations(ctx, "type_definition", req("main.go", 6, "g"))
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, r.Text(), "util.go:7:6  type Greeter interface{ Greet() string }")
	})
	t.Run("implementation", func(t *testing.T) {
		r, err := s.Locations(ctx, "implementation", req("util.go", 7, "Greeter"))
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, r.Text(), "util.go:10:6  type English struct{}")
	})
	t.Run("references capped", func(t *testing.T) {
		r, err := s.Locations(ctx, "references", req("util.go", 4, "Shout"))
		if err != nil {
			t.Fatal(err)
		}
		if r.Shown != 50 || r.Total != 65 {
			t.Errorf("shown %d of %d, want 50 of 65 (60 in refs.go, 3 in main.go, 1 in util.go, the declaration)", r.Shown, r.Total)
		}
		mustContain(t, r.Text(), "50 of 65 references shown", "main.go:7:9  msg := Shout(\"hi\")")
	})
	t.Run("occurrence", func(t *testing.T) {
		_, err := s.Locations(ctx, "definition", req("main.go", 8, "Shout"))
		if err == nil || !strings.Contains(err.Error(), `"Shout" occurs 2 times on line 8`) {
			t.Fatalf("want an error asking for occurrence, got %v", err)
		}
		r2 := req("main.go", 8, "Shout")
		r2.Occurrence = 2
		r, err := s.Locations(ctx, "definition", r2)
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, r.Text(), "main.go:8:36 Shout", "util.go:4:6")
	})
	t.Run("not on line", func(t *testing.T) {
		_, err := s.Hover(ctx, req("main.go", 5, "Shout"))
		if err == nil || !strings.Contains(err.Error(), "`Shout` is not on line 5; it is on lines 7, 8") {
			t.Fatalf("want the lines holding it named, got %v", err)
		}
	})
	t.Run("aiming", func(t *testing.T) {
		// An expression is refused with the name to pass instead.
		_, err := s.Locations(ctx, "definition", req("main.go", 8, "g.Greet()"))
		if err == nil || !strings.Contains(err.Error(), "`g.Greet()` is an expression, not a name: pass one name on the line, e.g. `Greet`") {
			t.Errorf("expression: got %v", err)
		}
		// Part of a longer name: aimed at that name, and said.
		r, err := s.Locations(ctx, "definition", req("main.go", 7, "Sho"))
		check(t, r, err, "`Sho` is on line 7 only as part of the longer name `Shout`: the answer is for `Shout`", "util.go:4:6  func Shout")
		if r != nil && r.Aim == "" {
			t.Error("the structured result does not carry the aim note")
		}
		// A rename of part of a name is refused.
		before := readAll(t, root)
		if _, err := s.Rename(ctx, req("main.go", 7, "Sho"), "Yell"); err == nil || !strings.Contains(err.Error(), `"Sho" is on line 7 only as part of the longer name "Shout"`) {
			t.Errorf("rename of part of a name: got %v", err)
		}
		if readAll(t, root) != before {
			t.Error("files changed after a refused rename")
		}
		// A missing line says it is required.
		ts := &toolSet{sup: s, root: root}
		if _, err := ts.lsp(ctx, lspArgs{Action: "definition", File: "main.go", Symbol: "Shout"}); err == nil || err.Error() != "argument 'line': line is required for definition: the 1-based line the symbol is on" {
			t.Errorf("no line: got %v", err)
		}
	})
	t.Run("hover", func(t *testing.T) {
		r, err := s.Hover(ctx, req("main.go", 7, "Shout"))
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, r.Text(), "func Shout(s string) string", "Shout upper-cases s.")
	})
	t.Run("symbols query", func(t *testing.T) {
		r, err := s.Symbols(ctx, Request{Root: root, File: "main.go", Query: "Greet"})
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, r.Text(), "util.go:7:6  interface Greeter")
	})
	t.Run("symbols file", func(t *testing.T) {
		r, err := s.Symbols(ctx, Request{Root: root, File: "util.go"})
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, r.Text(), "5 of 5 symbols in util.go (declarations, 2 levels) shown", "util.go:4:6  function Shout", "util.go:7:6  interface Greeter", "util.go:12:16  method (English).Greet")
	})
	t.Run("code_actions", func(t *testing.T) {
		r, err := s.CodeActions(ctx, req("main.go", 7, "Shout"))
		if err != nil {
			t.Fatal(err)
		}
		if r.Total == 0 {
			t.Fatalf("gopls offered no code action at a call:\n%s", r.Text())
		}
		mustContain(t, r.Text(), "code actions shown", "(refactor")
	})
	t.Run("diagnostics file", func(t *testing.T) {
		r, err := s.Diagnostics(ctx, Request{Root: root, File: "bad.go"})
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, r.Text(), `bad.go:3:15  error  cannot use "x" (untyped string constant) as int value in variable declaration [compiler IncompatibleAssign]`)
	})
	t.Run("diagnostics project", func(t *testing.T) {
		r, err := s.Diagnostics(ctx, Request{Root: root, File: "*"})
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, r.Text(), `bad.go:3:15  error  cannot use "x" (untyped string constant) as int value in variable declaration`, "ran go vet ./... in .")
	})
	t.Run("didWrite", func(t *testing.T) { testDidWrite(t, s, root) })
	t.Run("rename rollback", func(t *testing.T) {
		before := readAll(t, root)
		n := 0
		atomicfile.BeforeReplace = func(string) error {
			if n++; n == 2 {
				return errors.New("disk full (injected)")
			}
			return nil
		}
		defer func() { atomicfile.BeforeReplace = nil }()
		_, err := s.Rename(ctx, req("util.go", 4, "Shout"), "Yell")
		if err == nil || !strings.Contains(err.Error(), "already replaced were restored, so nothing was changed") {
			t.Fatalf("want the injected failure, got %v", err)
		}
		if after := readAll(t, root); after != before {
			t.Errorf("files changed after a failed rename")
		}
	})
	t.Run("rename", func(t *testing.T) {
		r, err := s.Rename(ctx, req("main.go", 7, "Shout"), "Yell")
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, r.Text(), "renamed main.go:7:9 Shout → Yell: 66 edits in 3 files", "main.go  3 edits", "refs.go  60 edits", "util.go  3 edits")
		if len(r.Diagnostics) != 0 {
			t.Errorf("a clean rename reported diagnostics: %v", r.Diagnostics)
		}
		data, _ := os.ReadFile(filepath.Join(root, "util.go"))
		mustContain(t, string(data), "func Yell(s string) string")
		if _, err := s.Rename(ctx, req("main.go", 7, "Yell"), "not an ident"); err == nil {
			t.Error("a new_name with spaces was accepted")
		}
	})
	t.Run("crash", func(t *testing.T) {
		srv := s.running(root)[0]
		srv.proc.Signal(syscall.SIGKILL)
		<-srv.proc.Done()
		_, err := s.Locations(ctx, "definition", req("main.go", 7, "Yell"))
		if err == nil || !strings.Contains(err.Error(), "gopls crashed") || !strings.Contains(err.Error(), "next start attempt in") {
			t.Fatalf("the call right after a crash: want the crash reported with the backoff, got %v", err)
		}
		s.mu.Lock()
		for _, e := range s.servers {
			e.retryAt = time.Now() // skip the backoff instead of sleeping
		}
		s.mu.Unlock()
		if _, err := s.Locations(ctx, "definition", req("main.go", 7, "Yell")); err != nil {
			t.Fatalf("after the backoff the server must restart: %v", err)
		}
		st := s.Status(root)[0]
		if st.State != "running" || st.Restarts != 1 || !strings.Contains(st.Reason, "last crash: gopls crashed") {
			t.Errorf("status after a restart: %+v", st)
		}
		waitLog(t, log,
			`"level":"warn","server":"gopls","root":"`+root+`","pid":`,
			`"status":"gopls (pid `, `signal: killed"`, "language server exited on its own",
			`"level":"info","server":"gopls","root":"`+root+`","restarts":1,"after":"gopls crashed (`, "restarting the language server")
		if n := strings.Count(log.String(), "language server started"); n != 2 {
			t.Errorf("%d starts logged, want 2 (the first and the restart):\n%s", n, log.String())
		}
		// A crash longer ago than its backoff: the next call restarts the
		// server and answers, as status promises ("restarts on next use").
		srv = s.running(root)[0]
		srv.proc.Signal(syscall.SIGKILL)
		<-srv.proc.Done()
		for srv.exitAt.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		srv.exitAt.Store(time.Now().Add(-time.Minute).UnixNano())
		if _, err := s.Locations(ctx, "definition", req("main.go", 7, "Yell")); err != nil {
			t.Fatalf("the first call a minute after a crash: want a restart and an answer, got %v", err)
		}
	})
	t.Run("reload", func(t *testing.T) {
		st, err := s.Reload(ctx, root, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(st) != 1 || st[0].State != "running" {
			t.Fatalf("after reload: %+v", st)
		}
		r, err := s.Locations(ctx, "definition", req("main.go", 7, "Yell"))
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, r.Text(), "util.go:4:6  func Yell")
	})
	t.Run("status", func(t *testing.T) {
		st := s.Status(root)
		if st[0].Server != "gopls" || st[0].State != "running" || st[0].Pid == 0 || st[0].Root != "." {
			t.Errorf("gopls status: %+v", st[0])
		}
	})
}

// testDidWrite: an error is reported once; moving it is not new; a second
// identical error is; fixing both reports nothing.
func testDidWrite(t *testing.T, s *Supervisor, root string) {
	ctx := testCtx(t)
	path := filepath.Join(root, "dw.go")
	step := func(content string) *WriteResult {
		t.Helper()
		writeFile(t, path, content)
		r, err := s.DidWrite(ctx, root, []string{"dw.go"})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	const msg = `cannot use "x" (untyped string constant) as int value in variable declaration`
	r := step("package main\n\nfunc dw() int {\n\tvar a int = \"x\"\n\treturn a\n}\n")
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Line != 4 {
		t.Fatalf("type error: want 1 new diagnostic on line 4, got %+v", r)
	}
	mustContain(t, r.Text, "new errors and warnings after this write:", "dw.go:4:14  error  "+msg)

	r = step("package main\n\n// one\n// two\n// three\n// four\nfunc dw() int {\n\tvar a int = \"x\"\n\treturn a\n}\n")
	if len(r.Diagnostics) != 0 || r.Suppressed != 1 {
		t.Fatalf("moved error: want nothing new and 1 suppressed, got %+v", r)
	}
	// Nothing new is not silence: the text says what remains.
	mustContain(t, r.Text, "no new errors or warnings after this write; 1 already there before remain (dw.go:8)")

	r = step("package main\n\n// one\n// two\n// three\n// four\nfunc dw() int {\n\tvar a int = \"x\"\n\tvar b int = \"x\"\n\treturn a + b\n}\n")
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Line != 9 || r.Suppressed != 1 {
		t.Fatalf("second identical error: want 1 new on line 9 and 1 suppressed, got %+v", r)
	}
	mustContain(t, r.Text, "dw.go:9:14  error  "+msg, "1 already there before remain (dw.go:8)")

	r = step("package main\n\nfunc dw() int {\n\treturn 1\n}\n")
	if len(r.Diagnostics) != 0 || r.Text != "" {
		t.Fatalf("fixed: want nothing new, got %+v", r)
	}
	// Every answer above waited for gopls's diagnosis passes to end
	// (TestDiagnosisPassHoldsPublication): that rests on gopls announcing
	// them under the configured title.
	for _, srv := range s.running(root) {
		srv.mu.Lock()
		passes := srv.passes
		srv.mu.Unlock()
		if passes < 4 {
			t.Errorf("%s announced %d diagnosis passes (progress titled %q…) for 4 writes", srv.cfg.Name, passes, srv.cfg.DiagnosisProgress)
		}
	}
}

// readAll concatenates the workspace's files, for before/after checks.
func readAll(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			b.WriteString(p + "\n" + string(data))
		}
		return nil
	})
	return b.String()
}

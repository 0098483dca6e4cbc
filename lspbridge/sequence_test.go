package lspbridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// seqSpec is one language's fixture for the sequence test: a file of real
// code, a symbol to navigate from and a local to rename back and forth.
type seqSpec struct {
	name         string
	tools        []string
	tree         func(*testing.T) string
	file         string // relative to the tree
	navLine      string // a line containing navSymbol
	navSymbol    string
	renameLine   string // the line declaring renameFrom
	renameFrom   string
	renameTo     string
	commentStart string
}

var seqSpecs = []seqSpec{
	{name: "gopls", tools: []string{"gopls", "go"}, tree: jsonrpc2Tree, file: "stream.go",
		navLine: "func NewPlainObjectStream(", navSymbol: "NewPlainObjectStream",
		renameLine: "func NewPlainObjectStream(conn", renameFrom: "conn", renameTo: "rwc", commentStart: "//"},
	{name: "pyright", tools: []string{"pyright-langserver"}, tree: tabulateTree, file: "tabulate.py",
		navLine: "if not _isconvertible(float, string):", navSymbol: "_isconvertible",
		renameLine: "def _isconvertible(conv, string):", renameFrom: "conv", renameTo: "fn", commentStart: "#"},
	{name: "typescript-language-server", tools: []string{"typescript-language-server", "tsc"}, tree: rxjsTree, file: "src/internal/util/identity.ts",
		navLine: "export function identity<T>(x: T): T {", navSymbol: "identity",
		renameLine: "export function identity<T>(x: T): T {", renameFrom: "x", renameTo: "value", commentStart: "//"},
	{name: "clangd", tools: []string{"clangd"}, tree: treeSitterTree, file: "src/length.h",
		navLine: "static inline Length length_add(Length len1, Length len2) {", navSymbol: "length_add",
		renameLine: "static inline Length length_add(Length len1, Length len2) {", renameFrom: "len1", renameTo: "lenA", commentStart: "//"},
}

// seqCallDeadline bounds each call of the sequence test after the first:
// generous, for a loaded machine, where a rename in clangd after an edit
// of a header that every file includes rebuilds each renamed file's AST
// (at load 16 that took over 45 s); a hang runs into it and fails the
// test. The first call, which starts the server and waits for its load
// (pyright's first hover took over 45 s at that load), has indexBudget.
func seqCallDeadline() time.Duration { return 2 * testutil.IntegrationTimeout() }

// TestSequences runs every ordered pair of actions (navigation,
// diagnostics, didWrite of unchanged content, didWrite of an edit, rename,
// status) on one shared real server per language, each call with a
// deadline. It pins problem 1 of issue 12: hover then diagnostics on a
// clean TypeScript file deadlocked every later call.
func TestSequences(t *testing.T) {
	for _, sp := range seqSpecs {
		t.Run(sp.name, func(t *testing.T) {
			testutil.Needs(t, sp.tools...)
			root := sp.tree(t)
			runSequences(t, sp, root)
		})
	}
}

func runSequences(t *testing.T, sp seqSpec, root string) {
	// Shorter waits than the defaults keep the 36 pairs × 4 servers within
	// a couple of minutes; what this test checks is that every call ends
	// in time and the next one works, and an answer cut short by these
	// caps ("not available yet") is a bounded answer too.
	s := newSup(t, &Options{QuietWindow: 500 * time.Millisecond, DiagnosticCap: 1500 * time.Millisecond})
	path := filepath.Join(root, sp.file)
	navLine := lineOf(t, path, sp.navLine)
	renameLine := lineOf(t, path, sp.renameLine)
	current, other := sp.renameFrom, sp.renameTo
	commented := false
	navs := []string{"definition", "hover", "references", "code_actions", "symbols"}
	n := 0
	type action struct {
		name string
		run  func(ctx context.Context) (string, error)
	}
	req := Request{Root: root, File: sp.file, Line: navLine, Symbol: sp.navSymbol}
	actions := []action{
		{"navigation", func(ctx context.Context) (string, error) {
			n++
			switch a := navs[n%len(navs)]; a {
			case "hover":
				r, err := s.Hover(ctx, req)
				return textOf(r, err)
			case "code_actions":
				r, err := s.CodeActions(ctx, req)
				return textOf(r, err)
			case "symbols":
				r, err := s.Symbols(ctx, Request{Root: root, File: sp.file})
				return textOf(r, err)
			default:
				r, err := s.Locations(ctx, a, req)
				return textOf(r, err)
			}
		}},
		{"diagnostics", func(ctx context.Context) (string, error) {
			r, err := s.Diagnostics(ctx, Request{Root: root, File: sp.file})
			return textOf(r, err)
		}},
		{"didWrite unchanged", func(ctx context.Context) (string, error) {
			r, err := s.DidWrite(ctx, root, []string{sp.file})
			if err != nil {
				return "", err
			}
			return r.Text, nil
		}},
		{"didWrite edit", func(ctx context.Context) (string, error) {
			data, err := os.ReadFile(path)
			if err != nil {
				return "", err
			}
			text := string(data)
			comment := sp.commentStart + " agent-tools sequence test\n"
			if commented {
				text = strings.TrimSuffix(text, comment)
			} else {
				text += comment
			}
			commented = !commented
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				return "", err
			}
			r, err := s.DidWrite(ctx, root, []string{sp.file})
			if err != nil {
				return "", err
			}
			return r.Text, nil
		}},
		{"rename", func(ctx context.Context) (string, error) {
			r, err := s.Rename(ctx, Request{Root: root, File: sp.file, Line: renameLine, Symbol: current}, other)
			if err != nil {
				return "", err
			}
			current, other = other, current
			return r.Text(), nil
		}},
		{"status", func(ctx context.Context) (string, error) {
			for _, st := range s.Status(root) {
				if st.Server == sp.name {
					return st.line(), nil
				}
			}
			return "", fmt.Errorf("status does not list %s", sp.name)
		}},
	}
	bound := indexBudget() // for the first call, see seqCallDeadline
	do := func(a action) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), bound)
		defer cancel()
		start := time.Now()
		text, err := a.run(ctx)
		took := time.Since(start)
		if err != nil && errors.Is(err, errNoFreshDiagnostics) && ctx.Err() == nil {
			// A bounded answer, not a hang: a busy server (pyright on
			// 2,000 lines of a loaded machine) that has not published yet.
			text, err = "(bounded) "+err.Error(), nil
		}
		if err != nil {
			t.Fatalf("%s: %v (after %s)", a.name, err, took.Round(time.Millisecond))
		}
		if took > bound {
			t.Fatalf("%s took %s, over its deadline", a.name, took)
		}
		t.Logf("%-20s %6dms  %s", a.name, took.Milliseconds(), firstLine(text))
		bound = seqCallDeadline()
	}
	do(actions[0]) // the server starts and loads
	if i := slices.IndexFunc(builtinServers, func(c ServerConfig) bool { return c.Name == sp.name }); i >= 0 && builtinServers[i].BackgroundIndex {
		// Renames and references wait for clangd's index within the
		// supervisor's budget; a loaded machine needs longer to build it,
		// and this test is about the calls after it, not about its pace.
		awaitIndex(t, s, root)
	}
	for _, a := range actions {
		for _, b := range actions {
			t.Logf("pair: %s → %s", a.name, b.name)
			do(a)
			do(b)
		}
	}
}

func textOf(r *Result, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return r.Text(), nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// TestNoHang stops a real gopls with SIGSTOP (it neither reads nor
// answers) and checks that no call hangs: a call whose context ends
// returns within a second, status answers at once, a call without a
// deadline of its own ends at the request timeout with the server
// stopped, and the next call works on a fresh server. A call cancelled
// while the server is merely busy leaves it usable.
func TestNoHang(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := jsonrpc2Tree(t)
	s := newSup(t, &Options{RequestTimeout: 3 * time.Second})
	log := captureLog(s)
	ctx := testCtx(t)
	req := Request{Root: root, File: "stream.go", Line: lineOf(t, filepath.Join(root, "stream.go"), "func NewPlainObjectStream("), Symbol: "NewPlainObjectStream"}
	if _, err := s.Hover(ctx, req); err != nil {
		t.Fatal(err)
	}
	srv := s.running(root)[0]
	if err := srv.proc.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	state := func() string {
		data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", srv.proc.Pid()))
		f := strings.Fields(string(data))
		if len(f) > 2 {
			return f[2]
		}
		return "?"
	}
	for i := 0; state() != "T" && i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if st := state(); st != "T" {
		t.Fatalf("gopls is in state %s after SIGSTOP, not stopped", st)
	}
	within := func(name string, limit time.Duration, f func(ctx context.Context) error, cancelAfter time.Duration) error {
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, cancelAfter)
		defer cancel()
		start := time.Now()
		err := f(cctx)
		if took := time.Since(start); took > limit {
			t.Errorf("%s returned after %s, want within %s", name, took.Round(time.Millisecond), limit)
		}
		return err
	}
	cancelled := []struct {
		name string
		f    func(ctx context.Context) error
	}{
		{"hover", func(ctx context.Context) error { _, err := s.Hover(ctx, req); return err }},
		{"references", func(ctx context.Context) error { _, err := s.Locations(ctx, "references", req); return err }},
		{"diagnostics", func(ctx context.Context) error {
			_, err := s.Diagnostics(ctx, Request{Root: root, File: "conn.go"})
			return err
		}},
		{"didWrite", func(ctx context.Context) error {
			replaceIn(t, filepath.Join(root, "conn.go"), "package jsonrpc2", "package jsonrpc2 // edited")
			_, err := s.DidWrite(ctx, root, []string{"conn.go"})
			return err
		}},
	}
	for _, c := range cancelled {
		err := within(c.name+" cancelled on a stopped server", 300*time.Millisecond+time.Second, c.f, 300*time.Millisecond)
		if err == nil {
			t.Errorf("%s on a stopped server succeeded? (gopls state now %s)", c.name, state())
		}
	}
	start := time.Now()
	st := s.Status(root)
	if time.Since(start) > time.Second || len(st) == 0 {
		t.Errorf("status took %s with a stopped server", time.Since(start))
	}
	// No deadline of its own: the request timeout ends it and stops the
	// server.
	err := within("hover bounded by the request timeout", 3*time.Second+2*time.Second, func(ctx context.Context) error {
		_, err := s.Hover(ctx, req)
		return err
	}, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("want a request-timeout error, got %v", err)
	}
	srv.proc.Signal(syscall.SIGCONT)
	select {
	case <-srv.proc.Done():
	case <-time.After(testutil.IntegrationTimeout()):
		t.Fatal("the hung server was not stopped")
	}
	r, err := s.Hover(ctx, req)
	check(t, r, err, "NewPlainObjectStream")
	waitLog(t, log, `"level":"warn"`, `"request":"answer textDocument/hover","timeout":3000`, "language server did not answer in time: killing it",
		"language server stopped after it hung", "restarting the language server")

	// Cancelled while busy (not hung): the server stays and answers next.
	pid := s.running(root)[0].proc.Pid()
	within("cancelled references", time.Second+50*time.Millisecond, func(ctx context.Context) error {
		_, err := s.Locations(ctx, "references", req)
		return err
	}, 50*time.Millisecond)
	r, err = s.Hover(ctx, req)
	check(t, r, err, "NewPlainObjectStream")
	if p := s.running(root)[0].proc.Pid(); p != pid {
		t.Errorf("a cancelled call restarted the server (pid %d → %d)", pid, p)
	}
}

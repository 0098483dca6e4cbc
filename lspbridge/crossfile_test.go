package lspbridge

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestCrossFileGo pins problem 2 of issue 12 on gopls: a signature change
// in stream.go breaks callers in conn_test.go (go vet agrees); didWrite of
// stream.go reports them, and diagnostics on conn_test.go reflects the
// write at once, and its undoing (a plain write) too.
func TestCrossFileGo(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := jsonrpc2Tree(t)
	s := newSup(t, nil)
	ctx := testCtx(t)
	stream := filepath.Join(root, "stream.go")
	r, err := s.Diagnostics(ctx, Request{Root: root, File: "conn_test.go"})
	check(t, r, err, "0 errors and warnings in conn_test.go")
	_, err = s.Hover(ctx, Request{Root: root, File: "stream.go", Line: lineOf(t, stream, "func NewPlainObjectStream("), Symbol: "NewPlainObjectStream"})
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(stream)
	replaceIn(t, stream, "func NewPlainObjectStream(conn io.ReadWriteCloser) ObjectStream {", "func NewPlainObjectStream(conn io.ReadWriteCloser, bufSize int) ObjectStream {")
	if out := goVet(t, root); !strings.Contains(out, "conn_test.go") {
		t.Fatalf("the oracle (go vet) should fail in conn_test.go, got:\n%s", out)
	}
	w, err := s.DidWrite(ctx, root, []string{"stream.go"})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, w.Text, "new errors and warnings after this write:", "conn_test.go:", "not enough arguments in call to jsonrpc2.NewPlainObjectStream")
	inCaller := 0
	for _, d := range w.Diagnostics {
		if d.Path == "conn_test.go" {
			inCaller++
		}
	}
	if inCaller == 0 {
		t.Errorf("no new diagnostic in conn_test.go: %+v", w)
	}
	r, err = s.Diagnostics(ctx, Request{Root: root, File: "conn_test.go"})
	check(t, r, err, "conn_test.go:", "not enough arguments")
	if r.Total == 0 {
		t.Errorf("diagnostics on the caller right after the write: stale %q", r.Summary)
	}
	// Undone by a plain write: the caller is clean again at once.
	writeFile(t, stream, string(orig))
	r, err = s.Diagnostics(ctx, Request{Root: root, File: "conn_test.go"})
	check(t, r, err, "0 errors and warnings in conn_test.go")
}

// TestCrossFileC pins problem 2 of issue 12 on clangd, which diagnoses only
// open files: a parameter added to length_add in src/length.h breaks the
// .c files that call it (gcc agrees); didWrite of length.h opens them and
// reports the breaks.
func TestCrossFileC(t *testing.T) {
	testutil.Needs(t, "clangd", "gcc")
	root := treeSitterTree(t)
	// clangd rebuilds each caller's preamble after a header change: seconds
	// each on a loaded machine; the default cap would report them as not
	// checked in time (which is what the text then says).
	s := newSup(t, &Options{DiagnosticCap: 60 * time.Second})
	ctx := testCtx(t)
	length := filepath.Join(root, "src", "length.h")
	_, err := s.Hover(ctx, Request{Root: root, File: "src/length.h", Line: lineOf(t, length, "length_add(Length len1"), Symbol: "length_add"})
	if err != nil {
		t.Fatal(err)
	}
	replaceIn(t, length, "static inline Length length_add(Length len1, Length len2) {", "static inline Length length_add(Length len1, Length len2, int extra) {")
	gcc := exec.Command("gcc", "-fsyntax-only", "-std=c11", "-Iinclude", "-Isrc", "-D_POSIX_C_SOURCE=200112L", "-D_DEFAULT_SOURCE", "src/subtree.c")
	gcc.Dir = root
	if out, err := gcc.CombinedOutput(); err == nil || !strings.Contains(string(out), "length_add") {
		t.Fatalf("the oracle (gcc) should fail on subtree.c, got %v:\n%s", err, out)
	}
	w, err := s.DidWrite(ctx, root, []string{"src/length.h"})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, w.Text, "new errors and warnings after this write:", "Too few arguments to function call", "checked: src/length.h")
	files := map[string]bool{}
	for _, d := range w.Diagnostics {
		if strings.HasSuffix(d.Path, ".c") {
			files[d.Path] = true
		}
	}
	if len(files) < 2 {
		t.Errorf("want new errors in several .c files, got %v:\n%+v", files, w)
	}
}

// TestCrossFileTS pins problem 2 of issue 12 on typescript-language-server,
// which diagnoses only open files: identity in rxjs's util/identity.ts
// made to return a number breaks the operators that pass it where a
// projection to an observable is expected (tsc agrees: mergeAll.ts,
// switchAll.ts, exhaustAll.ts, …). didWrite of identity.ts opens the files
// that use it and reports their new errors, and says how many more files
// mention it than were checked.
func TestCrossFileTS(t *testing.T) {
	testutil.Needs(t, "typescript-language-server", "tsc")
	root := rxjsTree(t)
	// typescript-language-server sends no versions: silence is all that
	// says "unchanged"; on a loaded machine it needs a longer window.
	s := newSup(t, &Options{DiagnosticCap: time.Minute, ReadyTimeout: time.Minute, QuietWindow: 5 * time.Second})
	// Loading rxjs, then the write's waits, each with a minute's bound:
	// at load 8 the whole ran past testCtx's 60 s.
	ctx := indexCtx(t)
	identity := filepath.Join(root, "src", "internal", "util", "identity.ts")
	if _, err := s.Hover(ctx, Request{Root: root, File: "src/internal/util/identity.ts", Line: lineOf(t, identity, "export function identity<T>"), Symbol: "identity"}); err != nil {
		t.Fatal(err)
	}
	replaceIn(t, identity, "export function identity<T>(x: T): T {", "export function identity<T>(x: T): number {")
	w, err := s.DidWrite(ctx, root, []string{"src/internal/util/identity.ts"})
	if err != nil {
		t.Fatal(err)
	}
	others := map[string]bool{}
	for _, d := range w.Diagnostics {
		if d.Path != "src/internal/util/identity.ts" {
			others[d.Path] = true
		}
	}
	if len(others) == 0 {
		t.Errorf("no new error outside identity.ts:\n%s", w.Text)
	}
	mustContain(t, w.Text, "identity.ts", "more files mention identity and were not checked (cap 8", "checked: ")
}

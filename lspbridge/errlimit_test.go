package lspbridge

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestErrorLimitClangd: clang stops after 20 errors by default, and
// clangd then publishes "Too many errors emitted, stopping now" in place of
// the rest. In a file with many errors a new error past the limit was not
// seen, and an old one that moved back under it was called new (the C
// mutation soak, on the tree-sitter runtime: a deleted #include in
// tree_cursor.h, then one in query.c). clangd is started with no error
// limit, so the write lists what gcc lists. A user whose own clangd config
// sets a limit keeps it: the marker is then no error of the write's, and
// the answer says the errors past the limit are not listed.
func TestErrorLimitClangd(t *testing.T) {
	testutil.Needs(t, "clangd")
	testutil.Needs(t, "gcc")
	root := canonical(t.TempDir())
	writeFile(t, filepath.Join(root, "compile_flags.txt"), "-std=c11\n")
	var b strings.Builder
	b.WriteString("int f(void) {\n")
	for i := range 10 {
		fmt.Fprintf(&b, "  int a%d = undeclared%d;\n", i, i)
	}
	b.WriteString("  return 0;\n}\n")
	few := b.String()
	var more strings.Builder
	more.WriteString("int g(void) {\n")
	for i := range 30 {
		fmt.Fprintf(&more, "  int b%d = missing%d;\n", i, i)
	}
	more.WriteString("  return 0;\n}\n")

	write := func(t *testing.T, s *Supervisor, limited bool) {
		ctx := testCtx(t)
		writeFile(t, filepath.Join(root, "many.c"), few)
		r, err := s.Diagnostics(ctx, Request{Root: root, File: "many.c"})
		check(t, r, err, "10 errors and warnings in many.c")
		if strings.Contains(r.Text(), "limit") {
			t.Errorf("under the limit, yet:\n%s", r.Text())
		}
		writeFile(t, filepath.Join(root, "many.c"), few+more.String())
		w, err := s.DidWrite(ctx, root, []string{"many.c"})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range w.Diagnostics {
			if strings.Contains(d.Message, "Too many errors") {
				t.Errorf("clang's error-limit marker reported as an error of the write:\n%s", w.Text)
			}
		}
		mustContain(t, w.Text, "new errors and warnings after this write:", "missing0")
		r, err = s.Diagnostics(ctx, Request{Root: root, File: "many.c"})
		if limited {
			mustContain(t, w.Text, "clangd stopped listing the errors of many.c at its limit")
			check(t, r, err, "clangd stopped listing the errors of many.c at its limit")
			return
		}
		// The reference: gcc, which has no error limit, on the same file.
		out, _ := exec.Command("gcc", "-std=c11", "-fsyntax-only", filepath.Join(root, "many.c")).CombinedOutput()
		want := strings.Count(string(out), ": error: ")
		if want != 40 {
			t.Fatalf("gcc finds %d errors, the test expects 40:\n%s", want, out)
		}
		// The answer shows 20 per file and counts the rest.
		if shown := len(w.Diagnostics); shown+10 != want-10 || !strings.Contains(w.Text, "10 more new diagnostics in many.c not shown") {
			t.Errorf("the write added %d errors (gcc: 10 before, %d after); it showed %d, and not that 10 more are new:\n%s", want-10, want, shown, w.Text)
		}
		if strings.Contains(w.Text, "limit") || strings.Contains(r.Text(), "limit") {
			t.Errorf("no limit is set, yet:\n%s\n%s", w.Text, r.Text())
		}
		check(t, r, err, fmt.Sprintf("%d errors and warnings in many.c", want))
	}
	t.Run("no limit", func(t *testing.T) { write(t, newSup(t, nil), false) })
	t.Run("the user's limit", func(t *testing.T) {
		cfg := t.TempDir()
		if err := os.MkdirAll(filepath.Join(cfg, "clangd"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(cfg, "clangd", "config.yaml"), "CompileFlags:\n  Add: [-ferror-limit=20]\n")
		t.Setenv("XDG_CONFIG_HOME", cfg)
		write(t, newSup(t, nil), true)
	})
}

// TestIncludedHeaderNote: clangd reports a header's errors in the file
// that includes it, the first one only ("In included file: …" at the
// #include). The answer says the header's other errors are not listed:
// here bad.h has two, and the second never shows.
func TestIncludedHeaderNote(t *testing.T) {
	testutil.Needs(t, "clangd")
	root := canonical(t.TempDir())
	writeFile(t, filepath.Join(root, "compile_flags.txt"), "-std=c11\n")
	writeFile(t, filepath.Join(root, "bad.h"), "int one = missing_one;\nint two = missing_two;\n")
	writeFile(t, filepath.Join(root, "main.c"), "#include \"bad.h\"\n\nint main(void) { return one + two; }\n")
	s := newSup(t, nil)
	r, err := s.Diagnostics(testCtx(t), Request{Root: root, File: "main.c"})
	check(t, r, err, "In included file", "clangd shows only the first error of each header main.c includes")
	if strings.Contains(r.Text(), "missing_two") {
		t.Logf("this clangd lists a header's second error too:\n%s", r.Text())
	}
}

// TestHeaderOnItsOwnNote: a header no translation unit includes is
// compiled on its own, so a type every includer would define first is
// unknown there; the answer says so. A header that main.c includes after
// <stddef.h> is checked as main.c compiles it: no error and no such note.
func TestHeaderOnItsOwnNote(t *testing.T) {
	testutil.Needs(t, "clangd")
	root := canonical(t.TempDir())
	writeFile(t, filepath.Join(root, "compile_flags.txt"), "-std=c11\n")
	writeFile(t, filepath.Join(root, "orphan.h"), "static size_t count;\n")
	writeFile(t, filepath.Join(root, "uses.h"), "static size_t count;\n")
	writeFile(t, filepath.Join(root, "main.c"), "#include <stddef.h>\n#include \"uses.h\"\n\nint main(void) { return (int)count; }\n")
	s := newSup(t, nil)
	r, err := s.Diagnostics(testCtx(t), Request{Root: root, File: "orphan.h"})
	check(t, r, err, "size_t", "clangd compiles the header orphan.h on its own")
	for _, f := range []string{"uses.h", "main.c"} {
		r, err = s.Diagnostics(testCtx(t), Request{Root: root, File: f})
		if err != nil {
			t.Fatal(err)
		}
		if text := r.Text(); strings.Contains(text, "on its own") || strings.Contains(text, "size_t") {
			t.Errorf("%s, which compiles where it is included, got:\n%s", f, text)
		}
	}
}

// TestHeaderInContext: an #if branch that only the includers take
// (CLOCK_MONOTONIC, defined by <time.h> after _POSIX_C_SOURCE, as in
// go-tree-sitter's clock.h) holds an error in a function body, which
// clangd sees neither in the header on its own nor through its includer's
// preamble (gcc, compiling main.c, does). Checked as main.c compiles it,
// the error is listed at its line in the header; a write that fixes it
// leaves nothing, and one that breaks it again reports it as new. The
// unit compiled for it never shows up elsewhere: not in references, not
// in a later write's answer.
func TestHeaderInContext(t *testing.T) {
	testutil.Needs(t, "clangd", "gcc")
	root := canonical(t.TempDir())
	broken := "#ifndef CLOCK_H\n#define CLOCK_H\n#include <time.h>\n#ifdef CLOCK_MONOTONIC\nstatic int now(void) { return resultq; }\n#endif\n#endif\n"
	fixed := strings.Replace(broken, "resultq", "0", 1)
	os.MkdirAll(filepath.Join(root, "include"), 0o755)
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	writeFile(t, filepath.Join(root, "compile_flags.txt"), "-std=c11\n-Iinclude\n")
	writeFile(t, filepath.Join(root, "include", "clock.h"), broken)
	writeFile(t, filepath.Join(root, "include", "plain.h"), "#ifndef PLAIN_H\n#define PLAIN_H\n#include \"clock.h\"\nstatic int plain(void) { return 1 + now(); }\n#endif\n")
	writeFile(t, filepath.Join(root, "src", "main.c"), "#define _POSIX_C_SOURCE 200809L\n#include \"clock.h\"\n#include \"plain.h\"\n\nint main(void) { return now() + plain(); }\n")
	// The reference: gcc compiling main.c sees the error in clock.h.
	gcc := exec.Command("gcc", "-fsyntax-only", "-std=c11", "-Iinclude", "src/main.c")
	gcc.Dir = root
	if out, err := gcc.CombinedOutput(); err == nil || !strings.Contains(string(out), "clock.h:5") {
		t.Fatalf("gcc should find the error at clock.h:5, got %v:\n%s", err, out)
	}
	commitAll(t, root)
	s := newSup(t, nil)
	r, err := s.Diagnostics(testCtx(t), Request{Root: root, File: "include/clock.h"})
	check(t, r, err, "include/clock.h:5", "resultq", "clangd checked the header include/clock.h as src/main.c compiles it")
	// plain.h includes clock.h quoted from its own directory: the unit,
	// beside main.c, finds it all the same, and now() is declared there.
	r, err = s.Diagnostics(testCtx(t), Request{Root: root, File: "include/plain.h"})
	if err != nil {
		t.Fatal(err)
	}
	if text := r.Text(); text != "" && !strings.Contains(text, "0 errors") || strings.Contains(text, "on its own") {
		t.Errorf("plain.h, which compiles where it is included, got:\n%s", text)
	}

	writeFile(t, filepath.Join(root, "include", "clock.h"), fixed)
	w, err := s.DidWrite(testCtx(t), root, []string{"include/clock.h"})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Diagnostics) > 0 || strings.Contains(w.Text, "resultq") {
		t.Errorf("the fix left something:\n%s", w.Text)
	}
	writeFile(t, filepath.Join(root, "include", "clock.h"), strings.Replace(broken, "resultq", "ticksq", 1))
	w, err = s.DidWrite(testCtx(t), root, []string{"include/clock.h"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(w.Diagnostics, func(d Diag) bool {
		return d.Path == "include/clock.h" && d.Line == 5 && strings.Contains(d.Text, "ticksq")
	}) {
		t.Errorf("the new error at clock.h:5 is missing:\n%s", w.Text)
	}
	for _, text := range []string{w.Text, fmt.Sprint(w.Checked, w.Remaining)} {
		if strings.Contains(text, contextPrefix) {
			t.Errorf("the unsaved unit shows in the answer:\n%s", text)
		}
	}
	refs, err := s.Locations(testCtx(t), "references", Request{Root: root, File: "src/main.c", Line: 5, Symbol: "now"})
	if err != nil {
		t.Fatal(err)
	}
	if text := refs.Text(); strings.Contains(text, contextPrefix) || !strings.Contains(text, "src/main.c:5") {
		t.Errorf("references of now:\n%s", text)
	}
}

// TestHeaderGuardDefinedBefore: where the includer's earlier headers
// already included the header in a way the search did not follow, its
// text would be skipped under its guard and prove nothing; it is then
// checked on its own (its error shows, and the answer says how it was
// checked).
func TestHeaderGuardDefinedBefore(t *testing.T) {
	testutil.Needs(t, "clangd")
	root := canonical(t.TempDir())
	writeFile(t, filepath.Join(root, "compile_flags.txt"), "-std=c11\n")
	writeFile(t, filepath.Join(root, "a.h"), "#ifndef A_H\n#define A_H\nstatic int a(void) { return missingq; }\n#endif\n")
	// b.h includes it inside an #if, which the search for includers does
	// not follow: main.c's own #include is taken, and b.h's was first.
	writeFile(t, filepath.Join(root, "b.h"), "#ifndef B_H\n#define B_H\n#ifdef WITH_A\n#include \"a.h\"\n#endif\n#endif\n")
	writeFile(t, filepath.Join(root, "main.c"), "#define WITH_A 1\n#include \"b.h\"\n#include \"a.h\"\nint main(void) { return a(); }\n")
	s := newSup(t, nil)
	r, err := s.Diagnostics(testCtx(t), Request{Root: root, File: "a.h"})
	check(t, r, err, "a.h:3", "missingq", "clangd compiles the header a.h on its own")
	if strings.Contains(r.Text(), "as main.c compiles it") {
		t.Errorf("a.h was not compiled where main.c includes it, but the answer says so:\n%s", r.Text())
	}
}

// TestHeaderThroughHeader: a header that no translation unit includes
// directly (go-tree-sitter's unicode/utf8.h, which only unicode.h
// includes, after <stdint.h>) is checked as a unit compiles it through the
// header between: no error there, where on its own int8_t is unknown; a
// new error in it is reported.
func TestHeaderThroughHeader(t *testing.T) {
	testutil.Needs(t, "clangd")
	root := canonical(t.TempDir())
	os.MkdirAll(filepath.Join(root, "unicode"), 0o755)
	writeFile(t, filepath.Join(root, "compile_flags.txt"), "-std=c11\n")
	writeFile(t, filepath.Join(root, "unicode", "utf8.h"), "static int8_t lead(int8_t c) { return c; }\n")
	writeFile(t, filepath.Join(root, "unicode.h"), "#ifndef UNICODE_H\n#define UNICODE_H\n#include <stdint.h>\n#include \"unicode/utf8.h\"\n#endif\n")
	writeFile(t, filepath.Join(root, "lexer.c"), "#include \"unicode.h\"\nint main(void) { return lead(1); }\n")
	commitAll(t, root)
	s := newSup(t, nil)
	r, err := s.Diagnostics(testCtx(t), Request{Root: root, File: "unicode/utf8.h"})
	if err != nil {
		t.Fatal(err)
	}
	if text := r.Text(); strings.Contains(text, "int8_t") || strings.Contains(text, "on its own") {
		t.Errorf("utf8.h, which compiles where it is included, got:\n%s", text)
	}
	writeFile(t, filepath.Join(root, "unicode", "utf8.h"), "static int8_t lead(int8_t c) { return cq; }\n")
	w, err := s.DidWrite(testCtx(t), root, []string{"unicode/utf8.h"})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Diagnostics) != 1 || w.Diagnostics[0].Path != "unicode/utf8.h" || !strings.Contains(w.Diagnostics[0].Message, "cq") || !strings.Contains(w.Text, "as lexer.c through unicode.h compiles it") {
		t.Errorf("want the one new error in utf8.h, checked through unicode.h:\n%s", w.Text)
	}
}

// TestHeaderIncludesItself: a header whose #include <endian.h> finds
// itself through an include directory (go-tree-sitter's
// portable/endian.h) is, to clangd compiling it as its main file, "main
// file cannot be included recursively"; gcc takes it once, under its
// guard, and says nothing. The answer has no such error, nor a
// "#pragma once in main file".
func TestHeaderIncludesItself(t *testing.T) {
	testutil.Needs(t, "clangd")
	root := canonical(t.TempDir())
	os.MkdirAll(filepath.Join(root, "portable"), 0o755)
	writeFile(t, filepath.Join(root, "compile_flags.txt"), "-std=c11\n-Iportable\n")
	writeFile(t, filepath.Join(root, "portable", "endian.h"), "#ifndef ENDIAN_H\n#define ENDIAN_H\n#include <endian.h>\nint e;\n#endif\n")
	writeFile(t, filepath.Join(root, "portable", "once.h"), "#pragma once\nint o;\n")
	s := newSup(t, nil)
	for _, f := range []string{"portable/endian.h", "portable/once.h"} {
		r, err := s.Diagnostics(testCtx(t), Request{Root: root, File: f})
		if err != nil {
			t.Fatal(err)
		}
		if text := r.Text(); !strings.Contains(text, "0 errors and warnings") {
			t.Errorf("%s got:\n%s", f, text)
		}
	}
}

func TestContextUnit(t *testing.T) {
	dir := t.TempDir()
	near := filepath.Join(dir, "near.h")
	writeFile(t, near, "")
	inc := &includer{path: "/r/src/main.c", chain: []link{{"/r/src/main.c", "#define X 1\n#include <stdio.h>\n#include \"h.h\"\nint main(void);\n", 2}}}
	unit, start := contextUnit(inc, filepath.Join(dir, "h.h"), "#ifndef H_H\n#define H_H\n#include \"near.h\"\n#include \"far.h\"\nint h;\n#endif")
	want := "#define X 1\n#include <stdio.h>\n#ifdef H_H\n#error " + guardMarker + "\n#endif\n#ifndef H_H\n#define H_H\n#include \"" + near + "\"\n#include \"far.h\"\nint h;\n#endif\n"
	if unit != want || start != 5 {
		t.Errorf("contextUnit = %d, %q\nwant 5, %q", start, unit, want)
	}
	// Through a guarded header: its lines up to its #include, its guard
	// probed, and closed after the header.
	mid := filepath.Join(dir, "mid.h")
	inc.chain = append(inc.chain, link{mid, "#ifndef MID_H\n#define MID_H\n#include \"near.h\"\n#include \"h.h\"\n#endif\n", 3})
	inc.chain[0].line = 2
	unit, start = contextUnit(inc, filepath.Join(dir, "h.h"), "int h;\n")
	want = "#define X 1\n#include <stdio.h>\n#ifdef MID_H\n#error " + guardMarker + "\n#endif\n#ifndef MID_H\n#define MID_H\n#include \"" + near + "\"\nint h;\n\n#endif\n"
	if unit != want || start != 8 {
		t.Errorf("contextUnit through mid.h = %d, %q\nwant 8, %q", start, unit, want)
	}
	for src, g := range map[string]string{
		"#ifndef A_H\n#define A_H\n":                     "A_H",
		"/* c */\n// d\n#  ifndef A_H\n# define A_H 1\n": "A_H",
		"#ifndef A_H\n#define B_H\n":                     "",
		"#pragma once\n":                                 "",
		"int x;\n#ifndef A_H\n#define A_H\n":             "",
	} {
		if got := guardOf(src); got != g {
			t.Errorf("guardOf(%q) = %q, want %q", src, got, g)
		}
	}
}

func TestHasConditionalCode(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want bool
	}{
		{"int a;\n", false},
		{"#ifndef A_H\n#define A_H\nint a;\n#endif\n", false},
		{"#ifndef A_H\n#  define A_H 1\n#endif\n", false},
		{"#ifndef A_H\n#define B_H\n#endif\n", true},
		{"#ifndef A_H\n#define A_H\n#ifdef _WIN32\nint w;\n#endif\n#endif\n", true},
		{"#if defined(X)\nint x;\n#endif\n", true},
		{"  #  ifdef X\n#endif\n", true},
		{"#pragma once\n#include <a.h>\n", false},
	} {
		if got := hasConditionalCode(tt.src); got != tt.want {
			t.Errorf("hasConditionalCode(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

// TestHeaderFirstIncluded: main.c includes lang.h, which includes
// tree.h, before its own #include "tree.h" (as go-tree-sitter's parser.c
// gets subtree.h through language.h); tree.h is checked where main.c
// really compiles it, through lang.h, not skipped under its guard at the
// later #include. Its error, which needs what main.c defines first, is
// listed, and the answer says it was checked through lang.h.
func TestHeaderFirstIncluded(t *testing.T) {
	testutil.Needs(t, "clangd")
	root := canonical(t.TempDir())
	writeFile(t, filepath.Join(root, "compile_flags.txt"), "-std=c11\n")
	writeFile(t, filepath.Join(root, "tree.h"), "#ifndef TREE_H\n#define TREE_H\n#ifdef WANT_TREE\nstatic int tree(void) { return leafq; }\n#endif\n#endif\n")
	writeFile(t, filepath.Join(root, "lang.h"), "#ifndef LANG_H\n#define LANG_H\n#include \"tree.h\"\n#endif\n")
	writeFile(t, filepath.Join(root, "main.c"), "#define WANT_TREE 1\n#include \"lang.h\"\n#include \"tree.h\"\nint main(void) { return tree(); }\n")
	s := newSup(t, nil)
	r, err := s.Diagnostics(testCtx(t), Request{Root: root, File: "tree.h"})
	check(t, r, err, "tree.h:4", "leafq", "as main.c through lang.h compiles it")
}

package lspbridge

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestErrorLimitClangd: past its error limit clangd publishes clang's
// "Too many errors emitted, stopping now" in place of the rest. A write
// that crossed the limit had it reported as a new error of the write's
// (the C mutation soak, on the tree-sitter runtime: a deleted #include in
// array.h). It is no error in the code: it is left out of the list, and
// the answer says the errors past the limit are not listed.
func TestErrorLimitClangd(t *testing.T) {
	testutil.Needs(t, "clangd")
	root := canonical(t.TempDir())
	writeFile(t, filepath.Join(root, "compile_flags.txt"), "-std=c11\n")
	var b strings.Builder
	b.WriteString("int f(void) {\n")
	for i := range 10 {
		fmt.Fprintf(&b, "  int a%d = undeclared%d;\n", i, i)
	}
	b.WriteString("  return 0;\n}\n")
	few := b.String()
	writeFile(t, filepath.Join(root, "many.c"), few)
	s := newSup(t, nil)
	ctx := testCtx(t)
	r, err := s.Diagnostics(ctx, Request{Root: root, File: "many.c"})
	check(t, r, err, "10 errors and warnings in many.c")
	if strings.Contains(r.Text(), "limit") {
		t.Errorf("under the limit, yet:\n%s", r.Text())
	}

	var more strings.Builder
	more.WriteString("int g(void) {\n")
	for i := range 30 {
		fmt.Fprintf(&more, "  int b%d = missing%d;\n", i, i)
	}
	more.WriteString("  return 0;\n}\n")
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
	mustContain(t, w.Text, "new errors and warnings after this write:", "missing0", "clangd stopped listing the errors of many.c at its limit")
	r, err = s.Diagnostics(ctx, Request{Root: root, File: "many.c"})
	check(t, r, err, "clangd stopped listing the errors of many.c at its limit")
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

// TestHeaderOnItsOwnNote: clangd compiles a header on its own, so a type
// that every includer defines first is unknown there. The header's answer
// says so; its includer's, which is what the build compiles, has no
// error and no such note.
func TestHeaderOnItsOwnNote(t *testing.T) {
	testutil.Needs(t, "clangd")
	root := canonical(t.TempDir())
	writeFile(t, filepath.Join(root, "compile_flags.txt"), "-std=c11\n")
	writeFile(t, filepath.Join(root, "uses.h"), "static size_t count;\n")
	writeFile(t, filepath.Join(root, "main.c"), "#include <stddef.h>\n#include \"uses.h\"\n\nint main(void) { return (int)count; }\n")
	s := newSup(t, nil)
	r, err := s.Diagnostics(testCtx(t), Request{Root: root, File: "uses.h"})
	check(t, r, err, "size_t", "clangd compiles the header uses.h on its own")
	r, err = s.Diagnostics(testCtx(t), Request{Root: root, File: "main.c"})
	if err != nil {
		t.Fatal(err)
	}
	if text := r.Text(); strings.Contains(text, "on its own") || strings.Contains(text, "size_t") {
		t.Errorf("main.c, which compiles, got:\n%s", text)
	}
}

// TestHeaderBranchesNote: a header's #if branch that only its includers
// take (CLOCK_MONOTONIC, defined by <time.h> after _POSIX_C_SOURCE, as in
// go-tree-sitter's clock.h) holds an error clangd cannot see in the
// header on its own (nor, in a function body, through its includer: gcc
// sees it there, clangd 14 does not); the header's answer says its
// branches were not all checked. A header with only its include guard
// gets no such note.
func TestHeaderBranchesNote(t *testing.T) {
	testutil.Needs(t, "clangd")
	root := canonical(t.TempDir())
	writeFile(t, filepath.Join(root, "compile_flags.txt"), "-std=c11\n")
	writeFile(t, filepath.Join(root, "clock.h"), "#ifndef CLOCK_H\n#define CLOCK_H\n#include <time.h>\n#ifdef CLOCK_MONOTONIC\nstatic int now(void) { return resultq; }\n#endif\n#endif\n")
	writeFile(t, filepath.Join(root, "plain.h"), "#ifndef PLAIN_H\n#define PLAIN_H\nstatic int plain(void) { return 1; }\n#endif\n")
	writeFile(t, filepath.Join(root, "main.c"), "#define _POSIX_C_SOURCE 200809L\n#include \"clock.h\"\n#include \"plain.h\"\n\nint main(void) { return now() + plain(); }\n")
	s := newSup(t, nil)
	r, err := s.Diagnostics(testCtx(t), Request{Root: root, File: "clock.h"})
	check(t, r, err, "code that its #if branches leave out on its own may be taken where it is included, and is not checked")
	r, err = s.Diagnostics(testCtx(t), Request{Root: root, File: "plain.h"})
	if err != nil {
		t.Fatal(err)
	}
	if text := r.Text(); strings.Contains(text, "on its own") {
		t.Errorf("plain.h, with only its include guard, got:\n%s", text)
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

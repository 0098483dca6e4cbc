package lspbridge

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// gccOn runs gcc -fsyntax-only, with root's compile_flags.txt, on file
// (relative to root) and returns what it says.
func gccOn(t *testing.T, root, file string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "compile_flags.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("gcc", append(append([]string{"-fsyntax-only", "-fmax-errors=0"}, strings.Fields(string(data))...), file)...)
	cmd.Dir = root
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// unityOpts are the C mutation test's options: clangd rebuilds each
// includer's preamble after a header changed, seconds each when loaded.
var unityOpts = &Options{DiagnosticCap: 30 * time.Second}

// TestUnityBuildConflict: go-tree-sitter's lib.c includes every .c file.
// Renaming the declaration of ts_subtree_new_error_node in subtree.h
// leaves parser.c calling an undeclared function (implicitly int), and
// subtree.c, after it in lib.c, then defines it: gcc compiling lib.c
// reports conflicting types at subtree.c:518, which neither .c has on its
// own and clangd does not see through lib.c (its preamble skips function
// bodies). The write compiles lib.c whole and reports it at subtree.c;
// the revert reports nothing new.
func TestUnityBuildConflict(t *testing.T) {
	testutil.Needs(t, "clangd", "gcc")
	root := treeSitterTree(t)
	header := filepath.Join(root, "src", "subtree.h")
	orig, err := os.ReadFile(header)
	if err != nil {
		t.Fatal(err)
	}
	commitAll(t, root)
	replaceIn(t, header, "Subtree ts_subtree_new_error_node(", "Subtree ts_subtree_new_error_nodeZq(")
	if out := gccOn(t, root, "src/lib.c"); !strings.Contains(out, "subtree.c:518:9: error: conflicting types for") {
		t.Fatalf("gcc on lib.c should report conflicting types at subtree.c:518:\n%s", out)
	}
	if out := gccOn(t, root, "src/subtree.c"); strings.Contains(out, "conflicting types") {
		t.Fatalf("gcc on subtree.c alone reports the conflict too: the test means one only lib.c has:\n%s", out)
	}
	s := newSup(t, unityOpts)
	start := time.Now()
	w, err := s.DidWrite(testCtx(t), root, []string{"src/subtree.h"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the write took %s:\n%s", time.Since(start).Round(time.Millisecond), w.Text)
	if !slices.ContainsFunc(w.Diagnostics, func(d Diag) bool {
		return d.Severity == "error" && strings.Contains(d.Message, "onflicting types for 'ts_subtree_new_error_node'") &&
			(d.Path == "src/subtree.c" || strings.Contains(d.Message, "subtree.c:518"))
	}) {
		t.Errorf("the conflicting types at subtree.c:518 are missing:\n%s", w.Text)
	}
	mustContain(t, w.Text, "src/lib.c compiled whole with src/subtree.h", "as src/lib.c through src/get_changed_ranges.c")
	if strings.Contains(w.Text, contextPrefix) {
		t.Errorf("the unsaved unit shows in the answer:\n%s", w.Text)
	}

	writeFile(t, header, string(orig))
	w, err = s.DidWrite(testCtx(t), root, []string{"src/subtree.h"})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Diagnostics) > 0 || strings.Contains(w.Text, "combined compile") {
		t.Errorf("the revert left something:\n%s", w.Text)
	}
}

// TestUnitySignature: a parameter added to ts_lexer_delete's definition
// in lexer.c, as the C mutation test's "change the signature" does. gcc
// reports conflicting types in lexer.c, which lexer.c's own check lists,
// and, compiling lib.c only, "too few arguments" at parser.c's call: gcc
// goes on with the definition's type. clang keeps the declaration's, so
// that call is no error to clangd however it is compiled; the write
// compiles lib.c whole with the new lexer.c and lists what clangd finds.
func TestUnitySignature(t *testing.T) {
	testutil.Needs(t, "clangd", "gcc")
	root := treeSitterTree(t)
	lexer := filepath.Join(root, "src", "lexer.c")
	orig, err := os.ReadFile(lexer)
	if err != nil {
		t.Fatal(err)
	}
	commitAll(t, root)
	replaceIn(t, lexer, "void ts_lexer_delete(Lexer *self) {", "void ts_lexer_delete(int zq, Lexer *self) {")
	out := gccOn(t, root, "src/lib.c")
	if !strings.Contains(out, "parser.c:1972:3: error: too few arguments to function") || strings.Contains(gccOn(t, root, "src/parser.c"), "too few arguments") {
		t.Fatalf("gcc should report too few arguments at parser.c:1972 compiling lib.c, not parser.c:\n%s", out)
	}
	s := newSup(t, unityOpts)
	start := time.Now()
	w, err := s.DidWrite(testCtx(t), root, []string{"src/lexer.c"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the write took %s:\n%s", time.Since(start).Round(time.Millisecond), w.Text)
	if !slices.ContainsFunc(w.Diagnostics, func(d Diag) bool {
		return d.Path == "src/lexer.c" && d.Line == 384 && strings.Contains(d.Message, "onflicting types for 'ts_lexer_delete'")
	}) {
		t.Errorf("the conflicting types at lexer.c:384 are missing:\n%s", w.Text)
	}
	if !slices.Contains(w.Checked, "src/lib.c compiled whole with src/lexer.c (a unity build)") {
		t.Errorf("lib.c was not compiled whole with the new lexer.c:\n%s", w.Text)
	}
	if slices.ContainsFunc(w.Diagnostics, func(d Diag) bool { return strings.Contains(d.Message, "parser.c") || d.Path == "src/parser.c" }) {
		t.Logf("clangd now reports parser.c's call too: the limit in this test's comment is gone")
	}

	writeFile(t, lexer, string(orig))
	w, err = s.DidWrite(testCtx(t), root, []string{"src/lexer.c"})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Diagnostics) > 0 || strings.Contains(w.Text, "combined compile") {
		t.Errorf("the revert left something:\n%s", w.Text)
	}
}

// TestUnityText: the unity check's text is a declaration (clangd's
// preamble ends there), then the unit with the files on the way copied
// in place of their #include, each header's guard probed, the written
// file's text innermost, and the unit's other sources copied whole; each
// line maps back to its file and line.
func TestUnityText(t *testing.T) {
	dir := canonical(t.TempDir())
	os.MkdirAll(filepath.Join(dir, "src", "inc"), 0o755)
	lib := filepath.Join(dir, "src", "lib.c")
	a := filepath.Join(dir, "src", "a.c")
	mid := filepath.Join(dir, "src", "inc", "mid.h")
	f := filepath.Join(dir, "src", "inc", "f.h")
	b := filepath.Join(dir, "src", "b.c")
	near := filepath.Join(dir, "src", "inc", "near.h")
	writeFile(t, near, "")
	u := &unityUnit{includer{path: lib, chain: []link{
		{lib, "#include \"./a.c\"\n#include \"./b.c\"\n", 0},
		{a, "#include <stdio.h>\n#include \"inc/mid.h\"\nint a(void) { return f(); }\n", 1},
		{mid, "#ifndef MID_H\n#define MID_H\n#include \"near.h\"\n#include \"f.h\"\n#endif\n", 3},
	}}, map[int]link{1: {b, "#include \"inc/f.h\"\nint b(void) { return f(); }\n", 0}}}
	text, origins := unityText(u, f, "int f(void);")
	want := unityPreamble + "\n" +
		"#include <stdio.h>\n" +
		"#ifdef MID_H\n#error " + guardMarker + "\n#endif\n" +
		"#ifndef MID_H\n#define MID_H\n#include \"" + near + "\"\n" +
		"int f(void);\n" +
		"#endif\n\n" +
		"int a(void) { return f(); }\n\n" +
		"#include \"inc/f.h\"\nint b(void) { return f(); }\n\n\n"
	if text != want {
		t.Errorf("unityText:\n%s\nwant:\n%s", text, want)
	}
	wantOrigins := []lineOrigin{
		{}, {a, 0}, {}, {}, {}, {mid, 0}, {mid, 1}, {mid, 2}, {f, 0}, {mid, 4}, {mid, 5}, {a, 2}, {a, 3}, {b, 0}, {b, 1}, {b, 2}, {lib, 2},
	}
	if !slices.Equal(origins, wantOrigins) {
		t.Errorf("line map:\n%v\nwant:\n%v", origins, wantOrigins)
	}
	if n := strings.Count(text, "\n"); n != len(origins) {
		t.Errorf("%d lines, %d origins", n, len(origins))
	}
	// clang names a type declared in the unit by the unit's path, and a
	// note there by its base name: both are the files the lines are from.
	vp := filepath.Join(dir, "src", contextPrefix+"unity1-after.lib.c")
	msg := "No member named 'stack' in 'struct (unnamed at " + vp + ":9:9)'\n\n" + filepath.Base(vp) + ":12:3: note: here; " + filepath.Base(vp) + ":1:1"
	if got, want := unitPlaces(msg, vp, lib, origins), "No member named 'stack' in 'struct (unnamed at "+f+":1:9)'\n\n"+a+":3:3: note: here; "+lib+":1:1"; got != want {
		t.Errorf("unitPlaces:\n%s\nwant:\n%s", got, want)
	}

	// The way down from each unity unit, as the preprocessor takes it:
	// lib.c reaches f.h first through a.c and mid.h (b.c's own #include
	// comes after, under the guard); main.c includes no source file.
	writeFile(t, lib, u.chain[0].text)
	writeFile(t, a, u.chain[1].text)
	writeFile(t, mid, u.chain[2].text)
	writeFile(t, f, "#ifndef F_H\n#define F_H\nint f(void);\n#endif\n")
	writeFile(t, b, u.sources[1].text)
	writeFile(t, filepath.Join(dir, "src", "main.c"), "#include \"inc/f.h\"\nint main(void) { return f(); }\n")
	var cfg *ServerConfig
	for i := range builtinServers {
		if builtinServers[i].Name == "clangd" {
			cfg = &builtinServers[i]
		}
	}
	srv := &server{root: dir, cfg: cfg}
	units, more := srv.unityUnitsOf(t.Context(), f, 2)
	if len(units) != 1 || more != 0 || units[0].via(dir) != "src/lib.c through src/a.c through src/inc/mid.h" {
		t.Fatalf("unityUnitsOf(f.h) = %v, %d", units, more)
	}
	if got := []int{units[0].chain[0].line, units[0].chain[1].line, units[0].chain[2].line}; !slices.Equal(got, []int{0, 1, 3}) {
		t.Errorf("the #include lines on the way: %v", got)
	}
	if len(units[0].sources) != 1 || units[0].sources[1].path != b {
		t.Errorf("the other sources: %v", units[0].sources)
	}
	units, _ = srv.unityUnitsOf(t.Context(), b, 2)
	if len(units) != 1 || len(units[0].chain) != 1 || units[0].chain[0].line != 1 || len(units[0].sources) != 1 || units[0].sources[0].path != a {
		t.Errorf("unityUnitsOf(b.c) = %v", units)
	}
	if units, more := srv.unityUnitsOf(t.Context(), f, 0); len(units) != 0 || more != 1 {
		t.Errorf("unityUnitsOf(f.h, 0) = %v, %d; want none and 1 more", units, more)
	}
	// A header included once by #pragma once cannot be copied in: a later
	// #include of it would compile it again.
	if got := onceOnTheWay(units[0], b, "int b;\n"); got != "" {
		t.Errorf("onceOnTheWay(b.c) = %q", got)
	}
	if got := onceOnTheWay(units[0], f, "#pragma once\nint f(void);\n"); got != f {
		t.Errorf("onceOnTheWay(f.h with #pragma once) = %q", got)
	}
	os.Remove(lib)
	if units, _ := srv.unityUnitsOf(t.Context(), f, 2); len(units) != 0 {
		t.Errorf("without lib.c, unity units: %v", units)
	}
}

package patterns

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/rpc"
)

// descriptionChars sums a tool's description and every description in
// its input schema: what each request of an agent CLI pays for it.
func descriptionChars(t *testing.T, tool *rpc.Tool) int {
	t.Helper()
	var schema any
	if err := json.Unmarshal(tool.InputSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	n := len([]rune(tool.Spec().Description))
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "description" {
					n += len([]rune(s))
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(schema)
	return n
}

// The descriptions of the three tools stay within their budgets, and each
// still shows an example call.
func TestDescriptionBudgets(t *testing.T) {
	e := &engine{root: t.TempDir(), stager: NewStager()}
	for _, c := range []struct {
		tool  *rpc.Tool
		limit int
	}{{e.grepTool(), 1100}, {e.editTool(), 900}, {e.resolveTool(), 350}} {
		n := descriptionChars(t, c.tool)
		t.Logf("%s: %d characters of description", c.tool.Spec().Name, n)
		if n > c.limit {
			t.Errorf("%s: descriptions total %d characters, want at most %d", c.tool.Spec().Name, n, c.limit)
		}
		if !strings.Contains(c.tool.Spec().Description, "{\"") {
			t.Errorf("%s: the description has no example call: %s", c.tool.Spec().Name, c.tool.Spec().Description)
		}
	}
}

// callText calls tool with args and returns its text, failing on isError.
func callText(t *testing.T, tool *rpc.Tool, args string) string {
	t.Helper()
	res, err := tool.Call(context.Background(), json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s %s: no content", tool.Spec().Name, args)
	}
	if res.IsError {
		t.Fatalf("%s %s: %s", tool.Spec().Name, args, res.Content[0].Text)
	}
	return res.Content[0].Text
}

// manyCalls writes files holding n calls of g in all.
func manyCalls(t *testing.T, dir string, files, perFile int) {
	t.Helper()
	for i := range files {
		var b strings.Builder
		b.WriteString("package p\n\nfunc f() {\n")
		for j := range perFile {
			fmt.Fprintf(&b, "\tg(%d, \"a somewhat long argument to make the listing line longer\")\n", j)
		}
		b.WriteString("}\n")
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A search with over 1,000 matches puts its count and advice in the first
// lines and its text stays within the output budget, saying how many
// matches it did not list; the same for ast_edit's diff and resolve's
// file list.
func TestLongAnswersStartWithTheSummary(t *testing.T) {
	dir := t.TempDir()
	manyCalls(t, dir, 60, 20) // 1,200 calls
	e := &engine{root: dir, stager: NewStager()}
	budget := rpc.OutputBudget(context.Background())

	text := callText(t, e.grepTool(), `{"pattern": "g($A, $B)", "language": "go", "max_results": 1000}`)
	head := strings.Join(strings.SplitN(text, "\n", 3)[:2], "\n")
	if !strings.Contains(head, "1000 of 1200 matches shown (60 files matched, 60 searched); raise max_results or narrow path") {
		t.Errorf("the first two lines lack the count and advice:\n%s", head)
	}
	if len(text) > budget {
		t.Errorf("text is %d bytes, over the budget of %d", len(text), budget)
	}
	listed := strings.Count(text, ".go:")
	last := text[strings.LastIndex(text, "\n")+1:]
	want := fmt.Sprintf("… %d more matches not listed here (text budget %d bytes)", 1000-listed, budget)
	if listed == 0 || listed >= 1000 || !strings.HasPrefix(last, want) {
		t.Errorf("listed %d matches; last line %q, want it to start %q", listed, last, want)
	}

	text = callText(t, e.editTool(), `{"pattern": "g($A, $B)", "rewrite": "h($B, $A)", "language": "go"}`)
	if !strings.HasPrefix(text, `(proposed) 1200 replacements in 60 files; nothing is written yet: call resolve with edit_id "edit_1"`) {
		t.Errorf("ast_edit does not start with its summary and next step:\n%.300s", text)
	}
	if len(text) > budget || !strings.Contains(text, "… diff stops here (text budget") || !strings.Contains(text, "the diff below is capped at 300 lines") {
		t.Errorf("ast_edit text: %d bytes (budget %d), want the diff cut and said so:\n%s", len(text), budget, text[max(0, len(text)-400):])
	}

	// Short lines: the 300-line cap comes before the budget, and the
	// diff's end says so.
	short := t.TempDir()
	for i := range 30 {
		if err := os.WriteFile(filepath.Join(short, fmt.Sprintf("s%02d.go", i)), []byte("package p\n\nfunc f() {\n"+strings.Repeat("\tg(1, 2)\n", 40)+"}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	se := &engine{root: short, stager: NewStager()}
	text = callText(t, se.editTool(), `{"pattern": "g($A, $B)", "rewrite": "h($B, $A)", "language": "go"}`)
	if len(text) > budget || !strings.HasSuffix(text, "… diff preview capped at 300 lines; run ast_edit with a narrower path to review the rest") {
		t.Errorf("ast_edit with a diff over 300 short lines: %d bytes, ending:\n%s", len(text), text[max(0, len(text)-300):])
	}

	text = callText(t, e.resolveTool(), `{"edit_id": "edit_1", "action": "accept"}`)
	lines := strings.Split(text, "\n")
	if lines[0] != "accepted edit_1: wrote 60 files (1200 replacements)" || !strings.HasPrefix(lines[1], "not checked: no language server reported") {
		t.Errorf("resolve does not start with its summary and warning:\n%s", text)
	}
	if strings.Count(text, ".go") != 60 {
		t.Errorf("resolve lists %d files, want 60:\n%s", strings.Count(text, ".go"), text)
	}
}

// A file over max_file_bytes is named as not searched, with how to
// include it, not counted as searched.
func TestTooLargeFileIsNamed(t *testing.T) {
	dir := t.TempDir()
	big := "package p\n\nvar s = `" + strings.Repeat("x", 5000) + "`\n\nfunc f() { g(1) }\n"
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "small.go"), []byte("package p\n\nfunc h() { g(2) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &engine{root: dir, cfg: Config{MaxFileBytes: 4096}, stager: NewStager()}
	for _, args := range []string{`{"pattern": "g($A)", "language": "go"}`, `{"pattern": "g($A)", "path": "big.go"}`, `{"rule": {"pattern": "g($A)"}, "language": "go"}`} {
		text := callText(t, e.grepTool(), args)
		if !strings.Contains(text, fmt.Sprintf("not searched: 1 file over max_file_bytes (4096): big.go (%d bytes); raise max_file_bytes", len(big))) {
			t.Errorf("ast_grep %s does not name big.go as not searched:\n%s", args, text)
		}
		if strings.Contains(text, "big.go:") {
			t.Errorf("ast_grep %s listed a match in big.go:\n%s", args, text)
		}
	}
	res, err := e.grepTool().Call(context.Background(), json.RawMessage(`{"pattern": "g($A)", "language": "go"}`))
	if err != nil {
		t.Fatal(err)
	}
	// Structured content may become opt-in at the rpc layer: then only
	// the text, checked above, carries it.
	if len(res.StructuredContent) > 0 {
		var out GrepResult
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(out.NotSearched, []string{"big.go"}) || len(out.TooLarge) != 1 || out.FilesSearched != 1 {
			t.Errorf("structured: notSearched %v, tooLarge %v, filesSearched %d; want big.go named and 1 file searched", out.NotSearched, out.TooLarge, out.FilesSearched)
		}
	}
	text := callText(t, e.grepTool(), `{"pattern": "g($A)", "path": "big.go"}`)
	if !strings.Contains(text, "0 matches in 0 files searched") {
		t.Errorf("a too-large file alone is counted as searched:\n%s", text)
	}
	text = callText(t, e.editTool(), `{"pattern": "g($A)", "rewrite": "k($A)", "language": "go"}`)
	if !strings.Contains(text, "not searched, so not rewritten: 1 file over max_file_bytes: big.go") {
		t.Errorf("ast_edit does not say big.go was left out:\n%s", text)
	}
}

// A file that is not UTF-8 text (an old header's Latin-1 © in a comment:
// X11's Xge.h) but holds the pattern's words is named as not searched and
// not counted as searched: tree-sitter does not read it, and a bare "0
// matches in 1 file searched" said it had no #include. One without the
// words is passed over quietly, as it can hold no match.
func TestNotTextFileIsNamed(t *testing.T) {
	dir := t.TempDir()
	latin1 := "/* Copyright \xa9 2007 */\n#include <X11/Xlib.h>\nint f(void);\n"
	if err := os.WriteFile(filepath.Join(dir, "xge.h"), []byte(latin1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.h"), []byte("/* \xe9t\xe9 */\nint g(void);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok.c"), []byte("#include <stdio.h>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &engine{root: dir, stager: NewStager()}
	text := callText(t, e.grepTool(), `{"pattern": "#include $H", "language": "c"}`)
	for _, want := range []string{"1 match in 1 file (2 searched)", "not searched: 1 file not UTF-8 text", ": xge.h; matches there may be missing"} {
		if !strings.Contains(text, want) {
			t.Errorf("ast_grep: want %q in:\n%s", want, text)
		}
	}
	if strings.Contains(text, "other.h") {
		t.Errorf("a file without the pattern's words is named:\n%s", text)
	}
	text = callText(t, e.editTool(), `{"pattern": "#include $H", "rewrite": "#include <x.h>", "language": "c"}`)
	if !strings.Contains(text, "not searched, so not rewritten: 1 file not UTF-8 text") {
		t.Errorf("ast_edit does not say xge.h was left out:\n%s", text)
	}
	text = callText(t, e.grepTool(), `{"pattern": "#include $H", "path": "xge.h"}`)
	if !strings.Contains(text, "0 matches in 0 files searched") {
		t.Errorf("a file not searched alone is counted as searched:\n%s", text)
	}
}

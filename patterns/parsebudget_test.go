package patterns

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestParseStopsOnGrammarLoop: tree-sitter-dart never finishes a file
// holding a top-level declaration without its ';' (found by the generated
// differential suite, seed 5, in a real Dart file's fragment). The parse
// is stopped at its budget and says why, instead of hanging the search
// that asked for it; the same declaration with its ';' still parses.
func TestParseStopsOnGrammarLoop(t *testing.T) {
	l, err := LanguageByName("dart")
	if err != nil {
		t.Fatal(err)
	}
	testutil.NeedsFunc(t, "the dart grammar (built with -tags dart, as the Makefile does)", func() string { _, why := l.Available(); return why })
	defer func(d time.Duration) { parseBudgetBase = d }(parseBudgetBase)
	parseBudgetBase = 300 * time.Millisecond
	pr := newParser()
	defer pr.close()
	if _, err := pr.parse(l, []byte("List<T> list = Collections.emptyList<T>();\n"), true); err != nil {
		t.Fatalf("the complete declaration: %v", err)
	}
	_, err = pr.parse(l, []byte("List<T> list = Collections.emptyList<T>()\n"), true)
	if !errors.Is(err, ErrParseTimeout) {
		t.Fatalf("the declaration without ';': got %v, want the parse stopped", err)
	}
	t.Log(err)
	// The parser is usable afterwards.
	if _, err := pr.parse(l, []byte("void main() {}\n"), true); err != nil {
		t.Fatalf("after a stopped parse: %v", err)
	}
}

// TestUnparsedFileIsNamed: a file whose parse was stopped is not left out
// in silence. ast_grep finds the match in the file that parses and names
// the other as not searched, with why; ast_edit does the same, and its
// error for no match says so too.
func TestUnparsedFileIsNamed(t *testing.T) {
	l, err := LanguageByName("dart")
	if err != nil {
		t.Fatal(err)
	}
	testutil.NeedsFunc(t, "the dart grammar (built with -tags dart, as the Makefile does)", func() string { _, why := l.Available(); return why })
	dir := writeTree(t, map[string]string{
		"lib/good.dart":  "void main() {\n  print(1);\n}\n",
		"lib/loops.dart": "void f() {\n  print(2);\n}\nList<T> list = Collections.emptyList<T>()\n",
	})
	e := &engine{root: dir, stager: NewStager()}
	text := callText(t, e.grepTool(), `{"pattern": "print($A)", "language": "dart"}`)
	for _, want := range []string{"lib/good.dart:2", "not searched: 1 file the grammar could not finish parsing (parse stopped: the dart grammar", "lib/loops.dart; matches there may be missing"} {
		if !strings.Contains(text, want) {
			t.Errorf("ast_grep's answer lacks %q:\n%s", want, text)
		}
	}
	text = callText(t, e.editTool(), `{"pattern": "print($A)", "rewrite": "log($A)", "language": "dart"}`)
	if !strings.Contains(text, "not searched, so not rewritten: 1 file the grammar could not finish parsing") || !strings.Contains(text, "lib/loops.dart") {
		t.Errorf("ast_edit's answer does not name the file it could not parse:\n%s", text)
	}
	res, err := e.editTool().Call(context.Background(), json.RawMessage(`{"pattern": "print(List)", "rewrite": "log(List)", "language": "dart"}`))
	if err == nil && res != nil && res.IsError && len(res.Content) > 0 {
		err = errors.New(res.Content[0].Text)
	}
	if err == nil || !strings.Contains(err.Error(), "1 file not searched, its grammar could not finish parsing it (lib/loops.dart)") {
		t.Errorf("ast_edit with no match: %v", err)
	}
}

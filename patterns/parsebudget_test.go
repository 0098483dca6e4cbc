package patterns

import (
	"errors"
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

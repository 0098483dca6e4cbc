package lspbridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestUseName pins the names a dependents search looks for: the one a
// caller writes, whatever qualification the server's outline gives.
func TestUseName(t *testing.T) {
	for _, c := range []struct{ outline, want string }{
		{"(*Command).NonInheritedFlags", "NonInheritedFlags"}, // gopls, pointer receiver
		{"(Config).String", "String"},                         // gopls, value receiver
		{"Serve", "Serve"},
		{"Config::load", "load"},     // clangd, C++ member
		{"ns::Config::load", "load"}, // nested
		{"length_add(Length, Length)", "length_add"},
		{"Vec<T>", "Vec"},
		{"impl Display for Token", ""}, // rust-analyzer: not a name anyone writes
		{"impl Token", ""},
		{"__init__", "__init__"},
		{"$scope", "$scope"},
		{"größe", "größe"},
		{"()", ""},
	} {
		if got := useName(c.outline); got != c.want {
			t.Errorf("useName(%q) = %q, want %q", c.outline, got, c.want)
		}
	}
}

// TestCrossFileGoMethod pins issue 24's Go method miss on a real module:
// gopls names a method "(*Conn).DisconnectNotify" in its outline, and the
// dependents search looked for that string, so callers of a changed method
// in other files were never checked. A parameter added to the method
// breaks conn_test.go (go vet agrees) and jsonrpc2_test.go; didWrite of
// conn.go must report the breaks there.
func TestCrossFileGoMethod(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := jsonrpc2Tree(t)
	s := newSup(t, nil)
	ctx := testCtx(t)
	conn := filepath.Join(root, "conn.go")
	if _, err := s.Hover(ctx, Request{Root: root, File: "conn.go", Line: lineOf(t, conn, "func (c *Conn) DisconnectNotify()"), Symbol: "DisconnectNotify"}); err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(conn)
	replaceIn(t, conn, "func (c *Conn) DisconnectNotify() <-chan struct{} {", "func (c *Conn) DisconnectNotify(n int) <-chan struct{} {")
	if vet := goVet(t, root); !strings.Contains(vet, "conn_test.go") {
		t.Fatalf("the oracle (go vet) should fail in conn_test.go, got:\n%s", vet)
	}
	w, err := s.DidWrite(ctx, root, []string{"conn.go"})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, w.Text, "new errors and warnings after this write:", "conn_test.go:", "not enough arguments in call to")
	callers := map[string]bool{}
	for _, d := range w.Diagnostics {
		callers[d.Path] = true
	}
	if !callers["conn_test.go"] {
		t.Errorf("no new error reported in conn_test.go, which calls the changed method:\n%s", w.Text)
	}
	// Undone: nothing new, and the callers' errors are gone.
	writeFile(t, conn, string(orig))
	w, err = s.DidWrite(ctx, root, []string{"conn.go"})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Diagnostics) != 0 {
		t.Errorf("after the undo, didWrite still reports new errors:\n%s", w.Text)
	}
}

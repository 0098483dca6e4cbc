package lspbridge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRegistry(t *testing.T) {
	d := func(line int, msg, text string) Diag {
		return Diag{Path: "a.go", Line: line, Severity: "error", Code: "X", Message: msg, Text: text}
	}
	steps := []struct {
		name           string
		diags          []Diag
		wantFresh      []int
		wantSuppressed int
	}{
		{"first error is new", []Diag{d(4, "bad", "var a = 1")}, []int{0}, 0},
		{"moved is not new", []Diag{d(8, "bad", "var a = 1")}, nil, 1},
		{"whitespace in message ignored", []Diag{d(8, "bad ", "var a = 1")}, nil, 1},
		{"second copy is new, the added line picked", []Diag{d(3, "bad", "var b = 1"), d(8, "bad", "var a = 1")}, []int{0}, 1},
		{"fixed: nothing", nil, nil, 0},
		{"back again: new", []Diag{d(8, "bad", "var a = 1")}, []int{0}, 0},
	}
	r := newRegistry()
	for _, st := range steps {
		fresh, suppressed := r.observe("/w/a.go", st.diags)
		if diff := cmp.Diff(st.wantFresh, fresh); diff != "" || suppressed != st.wantSuppressed {
			t.Errorf("%s: fresh (-want +got)\n%s suppressed %d, want %d", st.name, diff, suppressed, st.wantSuppressed)
		}
	}
}

// TestKeyMessage: pyright's partly inferred types print by evaluation
// order; the registry keys such messages alike, and only those. The
// messages are pyright's own, from Debian's gast.
func TestKeyMessage(t *testing.T) {
	same := [][2]string{
		{`Argument of type "Any | list[Unknown]" cannot be assigned to parameter "elts" of type "list[expr]" in function "__init__"`,
			`Argument of type "Any | list[Any | list[Unknown] | Unknown] | Unknown" cannot be assigned to parameter "elts" of type "list[expr]" in function "__init__"`},
		{`No overloads for "__init__" match the provided arguments Argument types: (Unknown | list[Unknown | list[Unknown]], Unknown | list[Unknown | list[Unknown]])`,
			`No overloads for "__init__" match the provided arguments Argument types: (Unknown | list[Unknown | list[Unknown | list[Unknown]]], Unknown | list[Unknown | list[Unknown | list[Unknown]]])`},
		// TypeScript's suggestion comes and goes with the names in scope.
		{`Cannot find name 'lastColq'.`, `Cannot find name 'lastColq'. Did you mean 'lastCol'?`},
		{`Property 'lenght' does not exist on type 'string'. Did you mean 'length'?`, `Property 'lenght' does not exist on type 'string'.`},
		// clang stops suggesting after enough corrections in a file.
		{"Use of undeclared identifier 'subtreeq'; did you mean 'subtree'? (fix available)\n\nquery.c:3568:13: note: 'subtree' declared here",
			"Use of undeclared identifier 'subtreeq'"},
		// The note's line moves with an edit above it.
		{"Conflicting types for 'f'\n\na.c:1:5: note: previous declaration is here", "Conflicting types for 'f'\n\na.c:3:5: note: previous declaration is here"},
		// A note in another file has its path on a line of its own, and
		// the path's spelling depends on how that file was included.
		{"Conflicting types for 'f'\n\n/r/src/lexer.h:41:6:\nnote: previous declaration is here", "Conflicting types for 'f'\n\n/r/src/./lexer.h:41:6:\nnote: previous declaration is here"},
		{"In included file: conflicting types for 'f'\n\n/r/src/./subtree.c:518:9:\nnote: error occurred here", "In included file: conflicting types for 'f'"},
		{"Unknown type name 'TSTreeCursor'; did you mean 'TreeCursor'? (fix available)\n\n.agent-tools-header-context.after.tree_cursor.h.c:30:3: note: 'TreeCursor' declared here",
			"Unknown type name 'TSTreeCursor'"},
		// gopls names the view that found a message when the host's did
		// not (yet): the same finding.
		{"avoid using reflect.DeepEqual with errors [aix,ppc64]", "avoid using reflect.DeepEqual with errors"},
		{"undefined: readPlatformMachineID [windows]", "undefined: readPlatformMachineID"},
		{"x declared and not used [arm64]", "x declared and not used"},
	}
	for _, c := range same {
		if a, b := keyMessage(c[0]), keyMessage(c[1]); a != b {
			t.Errorf("keyed apart:\n%s\n%s", a, b)
		}
	}
	differ := [][2]string{
		// The parameter differs: another error.
		{`Argument of type "Any | list[Unknown]" cannot be assigned to parameter "elts" of type "list[expr]"`,
			`Argument of type "Any | list[Unknown]" cannot be assigned to parameter "ctx" of type "list[expr]"`},
		// No Unknown: the types are the message.
		{`Type "int" is not assignable to declared type "str"`, `Type "bytes" is not assignable to declared type "str"`},
		{`"foo" is not defined`, `"bar" is not defined`},
		{`Cannot find name 'a'. Did you mean 'b'?`, `Cannot find name 'c'. Did you mean 'b'?`},
		{"Use of undeclared identifier 'a'; did you mean 'b'?", "Use of undeclared identifier 'c'; did you mean 'b'?"},
		// A message's own lines are kept: only clangd's notes go.
		{"Argument of type \"int\"\n  is not assignable to \"str\"", "Argument of type \"int\"\n  is not assignable to \"bytes\""},
		// A closing bracket that names no Go build is the message's.
		{"Property 'x' does not exist on type 'y[linker]'", "Property 'x' does not exist on type 'y'"},
		{"missing key [name]", "missing key"},
	}
	for _, c := range differ {
		if keyMessage(c[0]) == keyMessage(c[1]) {
			t.Errorf("keyed alike: %q and %q", c[0], c[1])
		}
	}
	if m := `"x" is possibly unbound (see f(y))`; keyMessage(m) != m {
		t.Errorf("a message without Unknown changed: %q", keyMessage(m))
	}
}

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

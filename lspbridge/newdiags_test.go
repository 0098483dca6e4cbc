package lspbridge

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

func gitCommitAll(t *testing.T, root string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fixture"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
}

func diagLines(ds []Diag) []int {
	var out []int
	for _, d := range ds {
		out = append(out, d.Line)
	}
	return out
}

// TestDiagnosticsSinceGopls pins item 6 of issue 24 for one file: since
// head lists only what the committed content did not have (its old
// errors are not listed), nearest the changed lines first, capped per
// file with the cut ones named; the server is left with the current
// content; since last compares with the previous answer; a file with no
// committed version says all are listed as new.
func TestDiagnosticsSinceGopls(t *testing.T) {
	testutil.Needs(t, "gopls", "go", "git")
	root := canonical(t.TempDir())
	var b strings.Builder
	b.WriteString("package m\n\nfunc old1() { var a int }\n\nfunc old2() { var b int }\n")
	for i := 6; i <= 40; i++ {
		switch i {
		case 8:
			b.WriteString("var x1 = helper()\n")
		case 30:
			b.WriteString("var x2 = helper()\n")
		case 33:
			b.WriteString("func helper() int { return 1 }\n")
		case 38:
			b.WriteString("var x3 = helper()\n")
		default:
			b.WriteString("\n")
		}
	}
	committedText := b.String()
	testutil.WriteTree(t, root, "-- go.mod --\nmodule example.com/m\n\ngo 1.22\n-- a.go --\n"+committedText)
	gitCommitAll(t, root)
	// helper renamed at line 33: its three callers break; the old errors stay.
	path := filepath.Join(root, "a.go")
	writeFile(t, path, strings.Replace(committedText, "func helper()", "func helpers()", 1))
	s := newSup(t, &Options{PerFileCap: 2})
	ctx := testCtx(t)

	r, err := s.Diagnostics(ctx, Request{Root: root, File: "a.go", Since: "head"})
	if err != nil {
		t.Fatal(err)
	}
	text := r.Text()
	// Nearest line 33 first: 30 (3 away), 38 (5), then 8 (25), which the cap cuts.
	if got := diagLines(r.Diagnostics); !slices.Equal(got, []int{30, 38}) || r.Total != 3 || r.Old != 2 {
		t.Errorf("since head: lines %v, total %d, old %d; want [30 38], 3 new, 2 old:\n%s", got, r.Total, r.Old, text)
	}
	mustContain(t, text, "3 new errors and warnings in a.go since git HEAD (2 there before not listed; nearest the 1 changed lines first)",
		"a.go: 1 more new not shown (cap 2 per file), at lines 8", "undefined: helper")
	if strings.Contains(text, "declared and not used") {
		t.Errorf("an error already at HEAD is listed as new:\n%s", text)
	}

	// The server answers for the current content afterwards.
	r, err = s.Diagnostics(ctx, Request{Root: root, File: "a.go"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Total != 5 {
		t.Errorf("plain diagnostics after since head: %d, want 5 (2 old, 3 new):\n%s", r.Total, r.Text())
	}

	// since last: the previous answer (the plain one) had all five.
	r, err = s.Diagnostics(ctx, Request{Root: root, File: "a.go", Since: "last"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Total != 0 || r.Old != 5 {
		t.Errorf("since last with nothing changed: %d new, %d old; want 0 and 5:\n%s", r.Total, r.Old, r.Text())
	}
	writeFile(t, path, strings.Replace(committedText, "func helper()", "func helpers()", 1)+"\nfunc later() { var c int }\n")
	r, err = s.Diagnostics(ctx, Request{Root: root, File: "a.go", Since: "last"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Diagnostics) != 1 || !strings.Contains(r.Diagnostics[0].Message, "declared and not used: c") {
		t.Errorf("since last after adding one error: want that one alone:\n%s", r.Text())
	}

	writeFile(t, filepath.Join(root, "new.go"), "package m\n\nfunc fresh() { var d int }\n")
	r, err = s.Diagnostics(ctx, Request{Root: root, File: "new.go", Since: "head"})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, r.Text(), "1 errors and warnings in new.go, all listed as new: no git HEAD to compare with (it is not committed")

	if _, err := s.Diagnostics(ctx, Request{Root: root, File: "*", Since: "head"}); err == nil || !strings.Contains(err.Error(), "since last") {
		t.Errorf(`"*" with since head: want a refusal pointing to since last, got %v`, err)
	}
}

// TestProjectDiagnosticsImporters pins the rest of item 6: go vet skips a
// package that imports a broken one, so b's call broken by a's change was
// never reported; now gopls diagnoses the importers too. vet's printf
// finding and gopls's are one entry, and since last lists what is new
// since the previous "*" answer.
func TestProjectDiagnosticsImporters(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := canonical(t.TempDir())
	testutil.WriteTree(t, root, `
-- go.mod --
module example.com/m

go 1.22
-- a/a.go --
package a

func F(x int) int { return x }

func G() { var unused int }
-- b/b.go --
package b

import "example.com/m/a"

func H() int { return a.F("s") }
-- c/c.go --
package c

import "fmt"

// é: a non-ASCII line before the finding.
func P() { fmt.Printf("é %d\n", "s") }
`)
	s := newSup(t, nil)
	ctx := testCtx(t)
	r, err := s.Diagnostics(ctx, Request{Root: root, File: "*", Since: "last"})
	if err != nil {
		t.Fatal(err)
	}
	text := r.Text()
	mustContain(t, text, "all listed as new: no earlier \"*\" answer", "and of those that import them (b)",
		`b/b.go:5:27  error  cannot use "s" (untyped string constant) as int value in argument to a.F`)
	for _, m := range []string{"declared and not used: unused", "fmt.Printf format %d has arg"} {
		if n := strings.Count(text, m); n != 1 {
			t.Errorf("%q listed %d times, want once:\n%s", m, n, text)
		}
	}
	writeFile(t, filepath.Join(root, "b", "b.go"), "package b\n\nimport \"example.com/m/a\"\n\nfunc H() int { return a.F(\"s\") }\n\nfunc I() { var k int }\n")
	r, err = s.Diagnostics(ctx, Request{Root: root, File: "*", Since: "last"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Diagnostics) != 1 || r.Old != 3 || !strings.Contains(r.Diagnostics[0].Message, "declared and not used: k") {
		t.Errorf("since last after one new error in b: want it alone and 3 old, got %d old:\n%s", r.Old, r.Text())
	}
}

func TestMergeDuplicates(t *testing.T) {
	vet := Diag{Path: "c/c.go", Line: 6, Col: 13, Severity: "error", Message: "fmt.Printf format %d has arg \"s\" of wrong type string"}
	gopls := Diag{Path: "c/c.go", Line: 6, Col: 12, Severity: "warning", Source: "printf", Code: "default", Message: "fmt.Printf format %d has arg \"s\" of wrong type string"}
	other := Diag{Path: "c/c.go", Line: 7, Col: 1, Severity: "error", Message: "fmt.Printf format %d has arg \"s\" of wrong type string"}
	got := mergeDuplicates([]Diag{vet, other}, []Diag{gopls})
	want := []Diag{{Path: "c/c.go", Line: 6, Col: 12, Severity: "error", Source: "printf", Code: "default", Message: gopls.Message}, other}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	a, b := gopls, gopls
	b.Source = "compiler"
	if got := mergeDuplicates([]Diag{a, b}); len(got) != 1 || got[0].Source != "printf+compiler" {
		t.Errorf("two sources: got %+v", got)
	}
}

// TestMergeKeepsRepeats pins the class of ws-ts1's "115 of 115" where tsc
// printed 117: two identical errors on one line, at different columns,
// are two, from one checker and when another reporter saw only one of
// them (go vet stops at a package's first type error; gopls reports
// both).
func TestMergeKeepsRepeats(t *testing.T) {
	p1 := Diag{Path: "w.test.ts", Line: 63, Col: 33, Severity: "error", Code: "TS7006", Source: "tsc", Message: "Parameter 'p' implicitly has an 'any' type."}
	p2 := p1
	p2.Col = 57
	tests := []struct {
		name   string
		groups [][]Diag
		want   int
	}{
		{"one checker", [][]Diag{{p1, p2}}, 2},
		{"the first of two in an earlier group", [][]Diag{{p1}, {p1, p2}}, 2},
		{"both in both groups", [][]Diag{{p1, p2}, {p1, p2}}, 2},
		{"two in the earlier group, one later", [][]Diag{{p1, p2}, {p2}}, 2},
		{"three groups", [][]Diag{{p1}, {p1}, {p1, p2}}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := mergeDuplicates(tc.groups...); len(got) != tc.want {
				t.Errorf("got %d entries, want %d: %+v", len(got), tc.want, got)
			}
		})
	}
}

func TestChangedLineSet(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           []int
	}{
		{"one line", "a\nb\nc\n", "a\nB\nc\n", []int{2}},
		{"insert", "a\nc\n", "a\nb\nc\n", []int{2}},
		{"moved only", "a\nb\nc\nd\n", "a\nc\nb\nd\n", nil},
		{"deleted", "a\nb\nc\n", "a\nc\n", []int{2}},
		{"two places", "a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n", []int{1, 5}},
		{"same", "a\n", "a\n", nil},
	} {
		if got := changedLineSet(tc.old, tc.new); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

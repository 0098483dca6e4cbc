package lspbridge

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/atomicfile"
)

func TestApplyEdits(t *testing.T) {
	text := "func Shout() {}\nx := Shout() + Shout()\n"
	edits := []TextEdit{
		{Range: Range{Start: Position{1, 15}, End: Position{1, 20}}, NewText: "Yell"},
		{Range: Range{Start: Position{0, 5}, End: Position{0, 10}}, NewText: "Yell"},
		{Range: Range{Start: Position{1, 5}, End: Position{1, 10}}, NewText: "Yell"},
	}
	got, err := applyEdits(text, edits, utf16Enc)
	if err != nil {
		t.Fatal(err)
	}
	if want := "func Yell() {}\nx := Yell() + Yell()\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	overlap := []TextEdit{edits[1], {Range: Range{Start: Position{0, 6}, End: Position{0, 8}}, NewText: "z"}}
	if _, err := applyEdits(text, overlap, utf16Enc); err == nil {
		t.Error("overlapping edits were accepted")
	}
}

// TestWriteChangesRollsBack: when the second file cannot be replaced, the
// first gets its old content back, no temp file is left, and the error
// says nothing was changed.
func TestWriteChangesRollsBack(t *testing.T) {
	dir := t.TempDir()
	var changes []fileChange
	for _, n := range []string{"a.go", "b.go", "c.go"} {
		p := filepath.Join(dir, n)
		writeFile(t, p, "old "+n)
		changes = append(changes, fileChange{path: p, old: "old " + n, new: "new " + n, mode: 0o644, edits: 1})
	}
	calls := 0
	atomicfile.BeforeReplace = func(string) error {
		if calls++; calls == 2 {
			return errors.New("injected")
		}
		return nil
	}
	defer func() { atomicfile.BeforeReplace = nil }()
	err := writeChanges(changes)
	if err == nil {
		t.Fatal("writeChanges succeeded despite the injected failure")
	}
	if msg := err.Error(); !strings.Contains(msg, "b.go: injected") || !strings.Contains(msg, "nothing was changed") {
		t.Errorf("error %q does not name b.go and say nothing was changed", msg)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("temp files left behind: %v", entries)
	}
	for _, c := range changes {
		data, _ := os.ReadFile(c.path)
		if string(data) != c.old {
			t.Errorf("%s: got %q, want %q", c.path, data, c.old)
		}
	}
}

// TestMissedReferences checks the rename guard of issue 12 problem 5: a
// reference inside the root that no edit covers is reported (a clangd
// rename of length_add computed from the open files only edited length.h
// and left the .c files calling it); references outside the root are not
// the rename's business.
func TestMissedReferences(t *testing.T) {
	root := "/w"
	ref := func(path string, line, char int) Location {
		return Location{URI: fileURI(path), Range: Range{Start: Position{Line: line, Character: char}, End: Position{Line: line, Character: char + 10}}}
	}
	edit := func(line, char int) Range {
		return Range{Start: Position{Line: line, Character: char}, End: Position{Line: line, Character: char + 10}}
	}
	locs := []Location{ref("/w/src/length.h", 24, 21), ref("/w/src/subtree.c", 99, 4), ref("/w/src/node.c", 9, 12), ref("/usr/include/x.h", 1, 1)}
	changes := []fileChange{{path: "/w/src/length.h", ranges: []Range{edit(24, 21)}}, {path: "/w/src/node.c", ranges: []Range{edit(9, 10)}}}
	missed, files := missedReferences(root, locs, changes)
	if len(missed) != 1 || missed[0] != "src/subtree.c:100" {
		t.Errorf("missed = %q, want [src/subtree.c:100]", missed)
	}
	if len(files) != 3 {
		t.Errorf("files with references inside the root: %d, want 3", len(files))
	}
	changes = append(changes, fileChange{path: "/w/src/subtree.c", ranges: []Range{edit(99, 4)}})
	if missed, _ := missedReferences(root, locs, changes); len(missed) != 0 {
		t.Errorf("every reference is edited, yet missed = %q", missed)
	}
}

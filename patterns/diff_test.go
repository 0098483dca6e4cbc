package patterns

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// diffCase is one generated edit of one file.
type diffCase struct {
	name     string
	src, new []byte
	reps     []Replacement
}

// genDiffCases makes n edits of generated files: LF or CRLF endings, with
// or without a final newline, and replacements that delete lines
// (the last one too), join lines, split them, insert at either end and
// empty the file.
func genDiffCases(n int) []diffCase {
	rng := rand.New(rand.NewPCG(7, 11))
	words := []string{"alpha", "beta()", "\tgamma := 1", "", "}", "func f() {", "// note", "x = y + z"}
	var out []diffCase
	for len(out) < n {
		eol := "\n"
		if rng.IntN(4) == 0 {
			eol = "\r\n"
		}
		var b strings.Builder
		lines := rng.IntN(12)
		for i := range lines {
			b.WriteString(words[rng.IntN(len(words))])
			if i < lines-1 || rng.IntN(3) > 0 {
				b.WriteString(eol)
			}
		}
		src := []byte(b.String())
		// Replacements at sorted, non-overlapping byte ranges; an end may
		// fall on a line break (joining lines) or at the end of the file.
		var reps []Replacement
		pos := 0
		for pos <= len(src) && rng.IntN(3) > 0 {
			start := pos + rng.IntN(len(src)-pos+1)
			end := start + rng.IntN(min(len(src)-start, 12)+1)
			if eol == "\r\n" {
				// Keep CRLF pairs whole, as a rewrite of whole nodes does.
				for start > 0 && start < len(src) && src[start-1] == '\r' {
					start--
				}
				for end > start && end < len(src) && src[end-1] == '\r' {
					end++
				}
			}
			text := []string{"", "", "NEW", "a" + eol + "b", eol, "q" + eol}[rng.IntN(6)]
			reps = append(reps, Replacement{Start: uint32(start), End: uint32(end), Text: text})
			pos = end + 1
		}
		var nb bytes.Buffer
		at := 0
		for _, r := range reps {
			nb.Write(src[at:r.Start])
			nb.WriteString(r.Text)
			at = int(r.End)
		}
		nb.Write(src[at:])
		if bytes.Equal(nb.Bytes(), src) {
			continue
		}
		out = append(out, diffCase{name: fmt.Sprintf("f%03d.txt", len(out)), src: src, new: nb.Bytes(), reps: reps})
	}
	return out
}

// TestDiffRoundTrip holds the diff preview to patch(1): for every generated
// edit, applying the preview with `patch -p1` to the original file gives
// exactly the staged content. Named edge cases come first.
func TestDiffRoundTrip(t *testing.T) {
	testutil.Needs(t, "patch")
	cases := []diffCase{
		{name: "delete-last-line.txt", src: []byte("a\nb\nc\n"), reps: []Replacement{{Start: 4, End: 6}}},
		{name: "delete-last-line-no-eol.txt", src: []byte("a\nb\nc"), reps: []Replacement{{Start: 3, End: 5}}},
		{name: "join-lines.txt", src: []byte("a\nb\nc\n"), reps: []Replacement{{Start: 1, End: 2, Text: " "}}},
		{name: "add-final-newline.txt", src: []byte("a\nb"), reps: []Replacement{{Start: 3, End: 3, Text: "\n"}}},
		{name: "drop-final-newline.txt", src: []byte("a\nb\n"), reps: []Replacement{{Start: 3, End: 4}}},
		{name: "empty-the-file.txt", src: []byte("a\nb\n"), reps: []Replacement{{Start: 0, End: 4}}},
		{name: "fill-empty-file.txt", src: []byte(""), reps: []Replacement{{Start: 0, End: 0, Text: "x\n"}}},
		{name: "crlf.txt", src: []byte("a\r\nb\r\nc\r\n"), reps: []Replacement{{Start: 3, End: 4, Text: "B"}}},
		{name: "split-line.txt", src: []byte("one two\n"), reps: []Replacement{{Start: 3, End: 4, Text: "\n"}}},
	}
	for i := range cases {
		c := &cases[i]
		var nb bytes.Buffer
		at := uint32(0)
		for _, r := range c.reps {
			nb.Write(c.src[at:r.Start])
			nb.WriteString(r.Text)
			at = r.End
		}
		nb.Write(c.src[at:])
		c.new = nb.Bytes()
	}
	cases = append(cases, genDiffCases(240)...)

	dir := t.TempDir()
	var all bytes.Buffer
	for _, c := range cases {
		if err := os.WriteFile(filepath.Join(dir, c.name), c.src, 0o644); err != nil {
			t.Fatal(err)
		}
		all.WriteString(unifiedDiff(c.name, c.src, c.new))
	}
	cmd := exec.Command("patch", "-p1", "--binary", "--batch", "--no-backup-if-mismatch", "--silent")
	cmd.Dir, cmd.Stdin = dir, &all
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("patch: %v\n%s", err, out)
	}
	failed := 0
	for _, c := range cases {
		got, err := os.ReadFile(filepath.Join(dir, c.name))
		if err != nil || !bytes.Equal(got, c.new) {
			if failed++; failed <= 5 {
				t.Errorf("%s: patched content %q, want %q\nsource %q\ndiff:\n%s", c.name, got, c.new, c.src, unifiedDiff(c.name, c.src, c.new))
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d round trips failed", failed, len(cases))
	}
	t.Logf("%d edits round-tripped through patch -p1", len(cases))
}

package lspbridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/corpus"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestRenameThroughAnExportAlias: typescript-language-server renames an
// exported function with overloads by writing an alias in the file that
// re-exports it (`export { joinZr as join }`), so that importers keep
// `join`; it sends that edit once per signature. Both were refused: the
// repeated edit as "overlapping edits", and the importers' references,
// which keep `join` on purpose, as "would keep the old name, which would
// break the build" — and a second rename, whose references run through
// the alias, likewise. Found by the TypeScript mutation soak on
// tailwind-merge's twJoin (seed 1796693118025519954). The renames are
// made, the answer names the uses the alias keeps, and the TypeScript
// compiler finds nothing wrong after each.
func TestRenameThroughAnExportAlias(t *testing.T) {
	testutil.Needs(t, "typescript-language-server", "tsc", "node")
	root := canonical(t.TempDir())
	writeFile(t, filepath.Join(root, "tsconfig.json"), corpus.TSConfig)
	if err := os.Mkdir(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "src", "lib.ts"), "export function join(...parts: string[]): string\nexport function join() {\n    return Array.from(arguments).join(\" \")\n}\n")
	writeFile(t, filepath.Join(root, "src", "index.ts"), "export { join } from './lib'\n")
	use := "import { join } from './index'\nexport const x = join('a', 'b')\n"
	writeFile(t, filepath.Join(root, "src", "use.ts"), use)
	commitAll(t, root)
	if fs := tscCheck(t, root); len(fs) != 0 {
		t.Fatalf("the fixture does not compile: %v", fs)
	}
	s := newSup(t, &Options{Identifiers: grammarIdentifiers})
	ctx := testCtx(t)
	for i, c := range []struct{ old, new, export string }{
		{"join", "joinZr", "export { joinZr as join } from './lib'\n"},
		// The references of joinZr now run through the alias.
		{"joinZr", "joinZrZr", "export { joinZrZr as join } from './lib'\n"},
	} {
		r, err := s.Rename(ctx, Request{Root: root, File: "src/lib.ts", Line: 2, Symbol: c.old}, c.new)
		if err != nil {
			t.Fatalf("rename %d (%s → %s): %v", i+1, c.old, c.new, err)
		}
		data, _ := os.ReadFile(filepath.Join(root, "src", "index.ts"))
		if string(data) != c.export {
			t.Errorf("rename %d: index.ts is %q, want %q", i+1, data, c.export)
		}
		if data, _ := os.ReadFile(filepath.Join(root, "src", "use.ts")); string(data) != use {
			t.Errorf("rename %d changed use.ts, which the alias keeps: %q", i+1, data)
		}
		if fs := tscCheck(t, root); len(fs) != 0 {
			t.Errorf("rename %d: the compiler finds %v", i+1, fs)
		}
		if len(r.Diagnostics) != 0 {
			t.Errorf("rename %d reports new diagnostics: %v", i+1, r.Diagnostics)
		}
		if i == 0 {
			text := r.Text()
			if !slices.Equal(r.Kept, []string{"src/use.ts:1", "src/use.ts:2"}) || !strings.Contains(text, "kept the old name join through an alias (src/index.ts:1  joinZr as join)") {
				t.Errorf("rename %d: kept %v; the answer does not name the alias and the uses it keeps:\n%s", i+1, r.Kept, text)
			}
			// Claude Code and Codex show the model the structured
			// result, not the text: it carries the uses and the note.
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if js := string(data); !strings.Contains(js, `"kept":["src/use.ts:1","src/use.ts:2"]`) || !strings.Contains(js, "kept the old name join through an alias") {
				t.Errorf("rename %d: the structured result lacks the kept uses or the note: %s", i+1, js)
			}
		}
	}
}

// TestWithoutRepeats: an edit sent twice is applied once; insertions at
// one place stay, as LSP orders them.
func TestWithoutRepeats(t *testing.T) {
	at := func(line, from, to int, text string) TextEdit {
		return TextEdit{Range: Range{Start: Position{Line: line, Character: from}, End: Position{Line: line, Character: to}}, NewText: text}
	}
	edits := []TextEdit{at(0, 9, 13, "joinZr"), at(0, 9, 13, "joinZr"), at(1, 0, 0, "// a\n"), at(1, 0, 0, "// a\n")}
	got, err := applyEdits("export { join } from './lib'\nx\n", withoutRepeats(edits), utf16Enc)
	if want := "export { joinZr } from './lib'\n// a\n// a\nx\n"; err != nil || got != want {
		t.Errorf("got %q (%v), want %q", got, err, want)
	}
	// Two different texts for one range still overlap.
	if _, err := applyEdits("export { join } from './lib'\n", withoutRepeats([]TextEdit{at(0, 9, 13, "a"), at(0, 9, 13, "b")}), utf16Enc); err == nil {
		t.Errorf("two edits of one range with different texts were applied")
	}
}

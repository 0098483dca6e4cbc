package patterns

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
	"github.com/google/go-cmp/cmp"
)

// TestIdentifierUses: identifiers are found as properties, fields,
// parameters and keywords too, never inside strings or comments, and a
// file no grammar reads says so.
func TestIdentifierUses(t *testing.T) {
	tests := []struct {
		name, file, src, word string
		want                  []Position
		ok                    bool
	}{
		{"python mixin call", "a.py", "class A:\n    def peek_token(self):\n        return self.peek_token()  # peek_token\n\nx = \"peek_token\"\nf(peek_token=1)\n", "peek_token",
			[]Position{{2, 9}, {3, 21}, {6, 3}}, true},
		{"javascript properties", "a.js", "const o = {peek: 1};\no.peek(); // peek\nlet {peek: q} = o;\nclass C { peek() { return this.peek } }\nconst s = 'peek';\n", "peek",
			[]Position{{1, 12}, {2, 3}, {3, 6}, {4, 11}, {4, 32}}, true},
		{"go field and method", "a.go", "package a\ntype T struct{ Name string }\nfunc (t T) Get() string { return t.Name + \"Name\" }\n", "Name",
			[]Position{{2, 16}, {3, 36}}, true},
		{"part of a longer name", "b.py", "peek_tokens = 1\n", "peek_token", nil, true},
		{"no grammar", "a.unknownext", "peek", "peek", nil, false},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.file)
			if err := os.WriteFile(p, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			if l := LanguageForPath(p); l != nil {
				testutil.NeedsFunc(t, "the "+l.ID+" grammar built in", func() string {
					if avail, why := l.Available(); !avail {
						return "not built in: " + why
					}
					return ""
				})
			}
			got, ok, err := IdentifierUses(t.Context(), p, tc.word)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.ok {
				t.Errorf("ok = %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("uses (-want +got):\n%s", diff)
			}
		})
	}
}

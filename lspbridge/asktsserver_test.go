package lspbridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/corpus"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestTSDiagnosticsAskedNotAwaited: typescript-language-server's answers
// do not rest on silence. It sends no versions and nothing for a file
// that stays clean, so a wait on its pushes ended in a quiet window, which
// a loaded machine outlasts: the answer then said "taken as unchanged"
// and missed the caller's new error (the TypeScript mutation soak needed
// a 5 s window at load 8). Its diagnostics are asked of tsserver
// (typescript.tsserverRequest), so even with a window of 1 ms the write's
// answer has the break in the caller; with waiting, the same window
// misses it (the control: the server debounces its checks by 200 ms or
// more, so no push can come within 1 ms).
func TestTSDiagnosticsAskedNotAwaited(t *testing.T) {
	testutil.Needs(t, "typescript-language-server")
	for _, ask := range []bool{true, false} {
		root := canonical(t.TempDir())
		writeFile(t, filepath.Join(root, "tsconfig.json"), corpus.TSConfig)
		if err := os.Mkdir(filepath.Join(root, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		lib := filepath.Join(root, "src", "lib.ts")
		writeFile(t, lib, "export function f(a: number): number {\n    return a;\n}\n")
		writeFile(t, filepath.Join(root, "src", "use.ts"), "import { f } from './lib';\nexport const x = f(1);\n")
		servers := []ServerConfig{}
		for _, c := range builtinServers {
			if c.Name == "typescript-language-server" {
				c.AskTSServer = ask
				servers = append(servers, c)
			}
		}
		s := newSup(t, &Options{Servers: servers, QuietWindow: time.Millisecond})
		ctx := testCtx(t)
		for _, f := range []string{"src/lib.ts", "src/use.ts"} {
			if _, err := s.Diagnostics(ctx, Request{Root: root, File: f}); err != nil {
				t.Fatal(err)
			}
		}
		writeFile(t, lib, "export function f(a: number, b: number): number {\n    return a + b;\n}\n")
		w, err := s.DidWrite(ctx, root, []string{"src/lib.ts"})
		if err != nil {
			t.Fatal(err)
		}
		found := strings.Contains(w.Text, "src/use.ts:2") && strings.Contains(w.Text, "Expected 2 arguments, but got 1.")
		switch {
		case ask && (!found || strings.Contains(w.Text, "taken as unchanged")):
			t.Errorf("asked of tsserver, the answer misses the caller's break or rests on silence:\n%s", w.Text)
		case !ask && found && !strings.Contains(w.Text, "taken as unchanged"):
			t.Errorf("waiting on pushes with a 1 ms window found the break without a caveat; the control no longer shows what asking changes:\n%s", w.Text)
		}
	}
}

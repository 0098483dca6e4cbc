package lspbridge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

func TestMain(m *testing.M) {
	proc.RunReaperIfAsked()
	os.Exit(m.Run())
}

// fixture writes a txtar workspace from testdata into a temp dir and
// returns its canonical path.
func fixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testutil.WriteTree(t, dir, string(data))
	return canonical(dir)
}

// newSup returns a supervisor closed at the end of the test.
func newSup(t *testing.T, opts *Options) *Supervisor {
	t.Helper()
	s := NewSupervisor(opts, nil)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testutil.IntegrationTimeout())
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("closing the supervisor: %v", err)
		}
	})
	return s
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testutil.IntegrationTimeout())
	t.Cleanup(cancel)
	return ctx
}

// indexBudget bounds a test's wait for a server's background index
// (clangd over the tree-sitter runtime). The wait follows the server's own
// progress and ends when it does; the bound is for a machine loaded many
// times over (at load 8, clangd's index took more than the 60 s of
// testCtx, and the tests that need a finished index failed).
func indexBudget() time.Duration { return 5 * testutil.IntegrationTimeout() }

// indexCtx is testCtx for a test that waits for a background index.
func indexCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), indexBudget()+testutil.IntegrationTimeout())
	t.Cleanup(cancel)
	return ctx
}

// awaitIndex waits until every server running for root has no loading or
// indexing progress open, following the servers' progress, and fails the
// test when indexBudget passes first.
func awaitIndex(t *testing.T, s *Supervisor, root string) {
	t.Helper()
	for _, srv := range s.running(root) {
		if open := srv.waitIndexed(indexCtx(t), indexBudget(), nil); open != "" {
			t.Fatalf("%s was still %s after %s", srv.cfg.Name, open, indexBudget())
		}
	}
}

// mustContain fails unless text contains every want.
func mustContain(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("want %q in:\n%s", w, text)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// captureLog makes s log into the returned buffer; call it before any
// server starts.
func captureLog(s *Supervisor) *testutil.LogBuffer {
	b := &testutil.LogBuffer{}
	s.log = b.Logger()
	return b
}

// waitLog waits (generously: some lines are written when a process is
// reaped) until the log holds every want, and fails naming the missing.
func waitLog(t *testing.T, b *testutil.LogBuffer, wants ...string) {
	t.Helper()
	var missing []string
	if !testutil.Poll(10*time.Second, func() bool {
		missing = nil
		text := b.String()
		for _, w := range wants {
			if !strings.Contains(text, w) {
				missing = append(missing, w)
			}
		}
		return len(missing) == 0
	}) {
		t.Errorf("the supervisor's log lacks %q:\n%s", missing, b.String())
	}
}

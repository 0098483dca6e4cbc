package lspbridge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	s := NewSupervisor(opts)
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

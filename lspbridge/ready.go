// This file holds a server's readiness: whether it is still loading or
// busy, the wait until it is ready to answer for a file, and the wait
// until its index is complete (references, renames, workspace symbols).

package lspbridge

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// loading reports whether the server is still loading: no diagnostics
// published yet and work-done progress still open (or never seen).
func (s *server) loading() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.published && (len(s.progress) > 0 || !s.progressed)
}

// waitReady waits, up to budget, until the server has published
// diagnostics for path (or for anything, when path is "") or has ended all
// the work-done progress it began: the readiness signals of gopls,
// pyright, clangd and typescript-language-server (which publishes nothing
// for a clean file). gopls ends its progress before it has type-checked,
// but it holds navigation requests until then. It reports whether the
// server is ready.
func (s *server) waitReady(ctx context.Context, path string, budget time.Duration) bool {
	if s.pullsNow() {
		return s.pulledReady(ctx, path, budget)
	}
	t := time.NewTimer(budget)
	defer t.Stop()
	for {
		s.mu.Lock()
		ready := s.published && path == "" || s.diags[path] != nil || s.progressed && len(s.progress) == 0
		ch := s.changed
		s.mu.Unlock()
		if ready {
			return true
		}
		select {
		case <-ch:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		case <-s.proc.Done():
			return false
		}
	}
}

// busy reports whether the server has work-done progress open (analysing,
// indexing).
func (s *server) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.progress) > 0
}

// indexGrace is how long after its first file is opened a server that
// indexes in the background (clangd) may take to announce it: until then
// "no progress" does not mean "indexed".
const indexGrace = 3 * time.Second

// waitIndexed waits, up to budget, until the server has no work-done
// progress open (loading, indexing): references, implementations,
// renames and workspace symbols are complete only then. report is told
// once what is awaited. It returns the titles of the progress still open
// when the budget ran out, "" when the server is done.
func (s *server) waitIndexed(ctx context.Context, budget time.Duration, report func(string)) string {
	t := time.NewTimer(budget)
	defer t.Stop()
	told := false
	// Work a caller waits for is no background work: threads the server
	// put at idle priority are lifted while the wait lasts (starve.go).
	lift := time.NewTicker(liftEvery)
	defer lift.Stop()
	lifting := true // at the start and at each tick, not at every progress message
	for {
		if lifting {
			s.liftIdle()
			lifting = false
		}
		s.mu.Lock()
		var open []string
		for _, title := range s.progress {
			if s.diagnosisTitle(title) {
				continue // diagnostics, not the index: navigation need not wait for them
			}
			if title == "" {
				title = "working"
			}
			open = append(open, strings.ToLower(title))
		}
		announced := s.begun || !s.cfg.BackgroundIndex || !s.firstOpen.IsZero() && time.Since(s.firstOpen) > indexGrace
		ch := s.changed
		s.mu.Unlock()
		slices.Sort(open)
		open = slices.Compact(open)
		if len(open) == 0 && announced {
			return ""
		}
		if len(open) == 0 {
			open = []string{"starting its index"}
		}
		if !told && report != nil {
			report(fmt.Sprintf("waiting for %s: %s", s.cfg.Name, strings.Join(open, ", ")))
			told = true
		}
		var grace <-chan time.Time
		if !announced {
			grace = time.After(100 * time.Millisecond)
		}
		select {
		case <-ch:
		case <-grace:
		case <-lift.C:
			lifting = true
		case <-t.C:
			return strings.Join(open, ", ")
		case <-ctx.Done():
			return strings.Join(open, ", ")
		case <-s.proc.Done():
			return "exited"
		}
	}
}

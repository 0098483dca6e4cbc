// This file keeps, for diagnostics on write, the errors and warnings this
// session's answers named as new, per file, until a later check no longer
// finds them. Each later write checks those files again (when the same
// server handles them), so that its "remaining" covers every file an
// earlier answer sent the model to, not only the files this write's own
// search found: gopls does not republish a file whose diagnostics did not
// change, so a file still broken by an earlier write was left out.

package lspbridge

import (
	"fmt"
	"os"
	"slices"
	"sync"
)

// reportedCap is how many files still holding reported errors are checked
// again per write; the others are named as not checked.
const reportedCap = 8

// reported maps a file to the keys (with counts) of the diagnostics that
// answers named as new in it and that the last check of it still found.
type reported struct {
	mu     sync.Mutex // guards byPath
	byPath map[string]map[diagKey]int
}

// update records a check of path whose errors and warnings are ds, of
// which those at fresh are new. It returns which of ds an earlier answer
// named as new: those still there, listed first among the remaining.
func (r *reported) update(path string, ds []Diag, fresh []int) (earlier []bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	budget := map[diagKey]int{}
	for k, n := range r.byPath[path] {
		budget[k] = n
	}
	now := map[diagKey]int{}
	earlier = make([]bool, len(ds))
	for i, d := range ds {
		k := diagKeyOf(path, d)
		switch {
		case slices.Contains(fresh, i):
			now[k]++
		case budget[k] > 0:
			budget[k]--
			now[k]++
			earlier[i] = true
		}
	}
	if len(now) == 0 {
		delete(r.byPath, path)
		return earlier
	}
	if r.byPath == nil {
		r.byPath = map[string]map[diagKey]int{}
	}
	r.byPath[path] = now
	return earlier
}

// files returns the files that still hold reported diagnostics, sorted.
func (r *reported) files() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for p := range r.byPath {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// forget drops path (deleted).
func (r *reported) forget(path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byPath, path)
}

// addReported adds as dependents the files where earlier answers named
// errors that the last check still found, when a server of this write
// handles them and they are neither written nor dependents already: they
// are diagnosed before and after the change like the other dependents,
// so that what is still there is listed as remaining and what the write
// fixed is gone. Past reportedCap they are named as not checked.
func (w *writeRun) addReported() {
	n := 0
	for _, path := range w.s.reported.files() {
		if w.byPath[path] != nil {
			continue
		}
		srv := w.serverFor(path)
		if srv == nil {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			w.s.reported.forget(path)
			continue
		}
		if n++; n > reportedCap {
			w.wc.skipped = append(w.wc.skipped, fmt.Sprintf("%s: an earlier answer named errors in it; not checked again (at most %d such files per write): lsp diagnostics on it gives its errors", displayPath(w.root, path), reportedCap))
			continue
		}
		t := &checkTarget{srv: srv, path: path, opened: srv.doc(path) == nil}
		w.byPath[path] = t
		w.deps = append(w.deps, t)
	}
}

// serverFor returns the server of a written file that also handles path
// (same server, same project root), or nil.
func (w *writeRun) serverFor(path string) *server {
	cfg, err := w.s.configFor(path)
	if err != nil {
		return nil
	}
	for _, c := range w.written {
		srv := c.t.srv
		if srv.cfg.Name == cfg.Name && findRoot(cfg, canonical(w.root), path) == srv.root {
			return srv
		}
	}
	return nil
}

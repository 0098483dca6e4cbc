// This file defines diagnostics on write: after the harness wrote files,
// each is synced and saved through its server and only the diagnostics
// that are new for this run are returned (agent-tools/didWrite).

package lspbridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// WriteResult is the answer to agent-tools/didWrite.
type WriteResult struct {
	Diagnostics []Diag   `json:"diagnostics" jsonschema_description:"the newly introduced errors and warnings, errors first"`
	Suppressed  int      `json:"suppressed" jsonschema_description:"diagnostics present but already reported earlier in this run"`
	Skipped     []string `json:"skipped,omitempty" jsonschema_description:"files not checked, with the reason"`
	Text        string   `json:"text" jsonschema_description:"what the harness appends to its write result; empty when nothing is new"`
}

// fileOutcome is the result of one written file.
type fileOutcome struct {
	fresh      []Diag
	more       int // new ones beyond the per-file cap
	suppressed int
	skipped    string
}

// DidWrite syncs each written path with its language server, waits
// (bounded) for the diagnostics of the new content and returns those not
// reported before in this run. Files no server handles are skipped.
func (s *Supervisor) DidWrite(ctx context.Context, root string, paths []string) (*WriteResult, error) {
	if len(paths) == 0 {
		return nil, errors.New("didWrite needs paths: the files that were written")
	}
	outs := s.didWriteFiles(ctx, root, paths)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &WriteResult{Diagnostics: []Diag{}}
	var more []string
	for i, o := range outs {
		res.Diagnostics = append(res.Diagnostics, o.fresh...)
		res.Suppressed += o.suppressed
		if o.skipped != "" {
			res.Skipped = append(res.Skipped, paths[i]+": "+o.skipped)
		}
		if o.more > 0 {
			more = append(more, fmt.Sprintf("%d more new diagnostics in %s not shown", o.more, paths[i]))
		}
	}
	sortDiags(res.Diagnostics)
	res.Text = writeText(res, more)
	return res, nil
}

func writeText(res *WriteResult, more []string) string {
	if len(res.Diagnostics) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "new diagnostics after this write:\n")
	for _, d := range res.Diagnostics {
		b.WriteString(d.String() + "\n")
	}
	for _, m := range more {
		b.WriteString(m + "\n")
	}
	if res.Suppressed > 0 {
		fmt.Fprintf(&b, "%d already-reported diagnostics suppressed\n", res.Suppressed)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// pendingWrite is one written file, synced and waiting for diagnostics.
type pendingWrite struct {
	srv   *server
	path  string
	sr    syncResult
	limit time.Duration
	diags []Diagnostic
	err   error
}

// didWriteFiles syncs every written file first and only then waits for
// diagnostics. Files written together often depend on each other (a
// rename, an apply_patch): had each been synced and awaited on its own,
// the server could publish for the first one before it saw the second,
// and a transient "undefined" would be reported as new. After the waits,
// each file's latest publication is what counts, so a server's republish
// after the later syncs wins.
func (s *Supervisor) didWriteFiles(ctx context.Context, root string, paths []string) []fileOutcome {
	outs := make([]fileOutcome, len(paths))
	pending := make([]*pendingWrite, len(paths))
	for i, p := range paths {
		pending[i], outs[i].skipped = s.syncWritten(ctx, root, p)
	}
	var wg sync.WaitGroup
	for _, pw := range pending {
		if pw != nil {
			wg.Go(func() { pw.diags, pw.err = pw.srv.diagnostics(ctx, pw.path, pw.sr, pw.limit) })
		}
	}
	wg.Wait()
	for i, pw := range pending {
		if pw == nil {
			continue
		}
		if pw.err != nil {
			outs[i].skipped = pw.err.Error()
			continue
		}
		if latest, ok := pw.srv.latestDiagnostics(pw.path, pw.sr); ok {
			pw.diags = latest
		}
		outs[i] = s.observe(root, pw)
	}
	return outs
}

// syncWritten resolves and syncs one written file. It returns nil and the
// reason when the file is skipped.
func (s *Supervisor) syncWritten(ctx context.Context, root, p string) (*pendingWrite, string) {
	path, err := resolvePath(root, p)
	if err != nil {
		return nil, err.Error()
	}
	if _, err := s.configFor(path); err != nil {
		return nil, "no language server handles this file type"
	}
	if _, err := os.Stat(path); err != nil {
		s.forget(ctx, root, path)
		return nil, "deleted"
	}
	srv, sr, limit, err := s.syncFile(ctx, root, path)
	if err != nil {
		return nil, err.Error()
	}
	return &pendingWrite{srv: srv, path: path, sr: sr, limit: limit}, ""
}

// observe passes a file's diagnostics through the run's registry and
// keeps the new ones, up to the per-file cap.
func (s *Supervisor) observe(root string, pw *pendingWrite) fileOutcome {
	ds := convertDiags(root, pw.srv.enc, pw.path, pw.sr.text, pw.diags)
	ds, _ = errorsAndWarnings(ds)
	idx, suppressed := s.reg.observe(pw.path, ds)
	o := fileOutcome{suppressed: suppressed}
	for _, i := range idx {
		if len(o.fresh) < s.opts.PerFileCap {
			o.fresh = append(o.fresh, ds[i])
		} else {
			o.more++
		}
	}
	return o
}

// forget closes a deleted file in its server and drops its registry
// entries.
func (s *Supervisor) forget(ctx context.Context, root, path string) {
	s.reg.mu.Lock()
	delete(s.reg.seen, path)
	s.reg.mu.Unlock()
	for _, srv := range s.running(root) {
		srv.closeDoc(ctx, path)
	}
}

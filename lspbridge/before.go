// This file reads what was there before a write, for diagnostics on
// write and rename: a file's old text (the open document, else git HEAD)
// and the settled diagnostics of the version a server has.

package lspbridge

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
)

// textBefore returns the content the server had for path before the
// write: the open document's text, else the committed version (git HEAD),
// which is then opened so that the server diagnoses it.
func (s *Supervisor) textBefore(ctx context.Context, srv *server, path string) (old string, known bool, problem string) {
	if d := srv.doc(path); d != nil {
		return d.text, true, ""
	}
	old, ok, problem := committed(ctx, path)
	if !ok {
		return "", false, problem
	}
	if _, err := srv.syncText(ctx, path, old, stamp{size: -1}, false); err != nil {
		return "", false, err.Error()
	}
	return old, true, ""
}

// committed returns path's content at git HEAD, if it is tracked.
//
// problem says why git could not tell, when it was not simply untracked
// or outside a repository (a timeout on a loaded machine, a broken git).
func committed(ctx context.Context, path string) (text string, ok bool, problem string) {
	if _, err := proc.LookPath("git"); err != nil {
		return "", false, ""
	}
	res, err := proc.Output(ctx, proc.Spec{Name: "git show", Path: "git", Args: []string{"show", "HEAD:./" + filepath.Base(path)}, Dir: filepath.Dir(path)},
		gitShowTimeout, 0)
	switch e, ended := errors.AsType[*proc.Ended](err); {
	case err == nil && !res.StdoutCut:
		return string(res.Stdout), true, ""
	case err == nil:
		return "", false, "its committed version is over 16 MiB"
	case ended && e.Code == 128 && untracked(res.Stderr):
		return "", false, "" // not tracked, or not a repository: nothing to compare with
	default:
		why := proc.Describe(err)
		if tail := strings.TrimSpace(res.Stderr); tail != "" {
			why += ": " + tail
		}
		return "", false, "git show HEAD:" + filepath.Base(path) + ": " + why
	}
}

// untracked reports whether git show's complaint means there is simply no
// committed version: outside a repository, a repository without commits,
// or a file not in HEAD.
func untracked(stderr string) bool {
	for _, m := range []string{"not a git repository", "does not exist", "exists on disk, but not in", "invalid object name", "unknown revision"} {
		if strings.Contains(stderr, m) {
			return true
		}
	}
	return false
}

// gitShowTimeout bounds reading a committed version; generous, since a
// loaded machine can keep git waiting for seconds and the answer is worth
// it (without it the file's errors all count as new).
const gitShowTimeout = 20 * time.Second

// settledDiagnostics returns the diagnostics of the version the server
// has for path (waiting, bounded, when they are not published yet).
func (s *Supervisor) settledDiagnostics(ctx context.Context, srv *server, path string) ([]Diagnostic, error) {
	d := srv.doc(path)
	if d == nil {
		return nil, errors.New("not open")
	}
	srv.mu.Lock()
	seen := srv.diags[path] != nil
	srv.mu.Unlock()
	limit := s.opts.DiagnosticCap
	if !seen {
		limit = max(limit, s.opts.ReadyTimeout)
	}
	sr := syncResult{version: d.version, text: d.text}
	ds, state, err := srv.diagnosticsSilent(ctx, path, sr, limit)
	if err == nil && state == unsettled {
		return ds, errBaseUnsettled
	}
	return ds, err
}

// errBaseUnsettled is settledDiagnostics' way to say the server was still
// publishing when the wait ended: the diagnostics are what it had sent.
var errBaseUnsettled = errors.New("unsettled")

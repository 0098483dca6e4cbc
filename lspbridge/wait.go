// This file holds the wait for a file's diagnostics after a sync
// (diagnosticsSilent, its one entry point) and what the answer rests on:
// a settled publication, an unversioned server's silence, or a wait cut
// while the server was still publishing. Pulled diagnostics are pull.go's.

package lspbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// errNoFreshDiagnostics is returned when the server published nothing for
// the new version within the cap.
var errNoFreshDiagnostics = errors.New("diagnostics not available yet")

// waitState says what a diagnostics answer rests on.
type waitState int

const (
	settled   waitState = iota // a publication for the version, and the settle window after it
	silent                     // an unversioned server published nothing for the version within its quiet window
	unsettled                  // the limit came while the server was still publishing for the version
)

// diagnosticsSilent is the one wait for a file's diagnostics: every
// caller that needs the diagnostics of the version sync sent calls it.
// They are pulled when the server offers pull diagnostics, else they are
// the publication already there when the content did not change, else
// the first matching push (same version; from a server that sends no
// version, any later push) plus what follows within the settle window,
// bounded by limit.
//
// A server without versions that stays silent (typescript-language-server
// does not republish unchanged diagnostics, and publishes nothing for a
// clean file it just opened) is taken to mean "unchanged" once it is ready
// and quiet for the quiet window after the version was sent: the state
// says so (silent), or that the limit came while the server was still
// publishing (unsettled). With an error the state is settled.
func (s *server) diagnosticsSilent(ctx context.Context, path string, sr syncResult, limit time.Duration) ([]Diagnostic, waitState, error) {
	if ds, ok, err := s.pullDiagnostics(ctx, path, sr.version, limit); ok || err != nil {
		return ds, settled, err
	}
	fenced := false
	if s.announcesPasses() {
		// The fence is bounded by limit too: behind a slow request in
		// the server's queue it could otherwise outlast it by far. Cut,
		// the wait goes on unfenced, with settle windows.
		fctx, cancel := context.WithTimeout(ctx, limit)
		err := s.fence(fctx, path)
		cut := fctx.Err() != nil && ctx.Err() == nil
		cancel()
		if err != nil && !cut {
			return nil, settled, err
		}
		fenced = err == nil
	}
	var sentAt time.Time
	s.mu.Lock()
	if d := s.docs[path]; d != nil {
		sentAt = d.sentAt
	}
	p := s.diags[path]
	diagnosing := s.diagnosingLocked()
	s.mu.Unlock()
	if !sr.changed {
		if p != nil && (p.version == nil || *p.version == sr.version) && !diagnosing {
			return p.diags, settled, nil
		}
		// Nothing published for this version yet, or a diagnosis pass
		// still open that may publish for it again: wait below.
		sr.seq = 0
	}
	w := &pushWait{s: s, path: path, sr: sr, sentAt: sentAt, fenced: fenced}
	return w.run(ctx, limit)
}

// pushWait is one wait for a file's pushed diagnostics after a sync: the
// timers it arms as publications arrive and the server goes quiet.
type pushWait struct {
	s         *server
	path      string
	sr        syncResult
	sentAt    time.Time // when the version was sent
	lastSeq   uint64    // the last fresh publication seen; 0 while none
	versioned bool      // it carried the version
	// fenced says every pass the changes sent before the wait started
	// has begun (see fence): once none is open, nothing more is coming.
	fenced  bool
	settleC <-chan time.Time // the settle window after a fresh publication
	quietC  <-chan time.Time // the quiet window of a ready unversioned server
	wakeC   <-chan time.Time // the end of an unversioned server's ready budget
}

// run waits until the publication settles, an unversioned server stays
// quiet, limit passes with no publication for any file, BusyCap passes,
// ctx ends or the server exits. A server that published during the last
// limit is at work, maybe on this file next: the wait follows it.
func (w *pushWait) run(ctx context.Context, limit time.Duration) ([]Diagnostic, waitState, error) {
	start := time.Now()
	mark := w.s.lastPublishNow()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		changed := w.arm()
		select {
		case <-changed:
		case <-w.wakeC:
		case <-w.settleC:
			return w.latest(), settled, nil
		case <-w.quietC:
			if w.lastSeq == 0 {
				return w.latest(), silent, nil
			}
		case <-deadline.C:
			if last, left := w.s.lastPublishNow(), w.s.opts.BusyCap-time.Since(start); last.After(mark) && left > 0 {
				mark = last
				deadline.Reset(min(limit, left))
				continue
			}
			return w.timedOut(time.Since(start).Round(time.Second))
		case <-ctx.Done():
			return nil, settled, ctx.Err()
		case <-w.s.proc.Done():
			return nil, settled, w.s.exitErr()
		}
	}
}

// arm reads the server's state and arms the timers it calls for. It
// returns the channel closed at the server's next change.
func (w *pushWait) arm() <-chan struct{} {
	s := w.s
	s.mu.Lock()
	p := s.diags[w.path]
	changed := s.changed
	unversioned := s.unversionedLocked()
	// Silence means "clean" only from a server that is done loading: one
	// that has published, or ended its progress and had the ready budget
	// to load (a fresh typescript-language-server ends its progress long
	// before it has checked the file).
	loaded := s.progressed && len(s.progress) == 0
	ready := s.published || loaded && time.Since(s.started) > s.opts.ReadyTimeout
	lastPublish := s.lastPublish
	diagnosing := s.diagnosingLocked()
	s.mu.Unlock()
	if unversioned && loaded && !ready && w.wakeC == nil {
		w.wakeC = time.After(time.Until(s.started.Add(s.opts.ReadyTimeout)) + time.Millisecond)
	}
	if p != nil && p.seq > w.sr.seq && (p.version == nil || *p.version == w.sr.version) && p.seq != w.lastSeq {
		w.lastSeq = p.seq
		w.settleC = nil // a new publication starts the window again
		w.versioned = p.version != nil
	}
	switch {
	case w.lastSeq == 0:
	case diagnosing:
		// A pass the server announced is still open: what it published
		// for the version may not be its last word on it.
		w.settleC = nil
	case w.settleC == nil:
		settle := s.opts.SettleWindow
		if w.fenced {
			settle = 0 // every pass for what was sent has ended
		} else if s.cfg.Republishes {
			settle = s.opts.QuietWindow // a second publication may follow for this version
		} else if w.versioned {
			settle = s.opts.VersionedSettle // the version already proves freshness
		}
		w.settleC = time.After(settle)
	}
	if unversioned && ready && w.lastSeq == 0 {
		// Quiet since the version was sent or the server's last
		// publication for any file, whichever is later: a file opened a
		// while ago and never published for is clean, but a server still
		// publishing for other files is still at work.
		since := lastPublish
		if w.sentAt.After(since) {
			since = w.sentAt
		}
		w.quietC = time.After(max(0, s.opts.QuietWindow-time.Since(since)))
	}
	return changed
}

// lastPublishNow is when the server's last publication (any file)
// arrived.
func (s *server) lastPublishNow() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastPublish
}

// latest is the file's latest publication.
func (w *pushWait) latest() []Diagnostic {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	if p := w.s.diags[w.path]; p != nil {
		return p.diags
	}
	return nil
}

// timedOut is the answer at the limit: what was published if something
// fresh was (unsettled when more may follow), else errNoFreshDiagnostics.
func (w *pushWait) timedOut(limit time.Duration) ([]Diagnostic, waitState, error) {
	if w.lastSeq != 0 {
		// Published for the version, but the limit came within the settle
		// window: a server that publishes in steps (syntax, then
		// semantics) may not have sent its last.
		if w.s.cfg.Republishes || w.s.unversionedNow() || w.s.diagnosingNow() {
			return w.latest(), unsettled, nil
		}
		return w.latest(), settled, nil
	}
	s := w.s
	hint := ""
	if s.busy() {
		hint = " (it is still analysing; ask again later)"
	}
	return nil, settled, fmt.Errorf("%w: %s published nothing for %s (version %d) within %s%s", errNoFreshDiagnostics, s.cfg.Name, displayPath(s.root, w.path), w.sr.version, limit, hint)
}

// fence returns once the server has taken in every notification sent
// before it: it answers a request only after handling those (LSP servers
// handle document synchronization in order; gopls queues each message
// behind the one before). A server that announces its diagnosis passes
// has by then announced the pass of each change sent, so a wait after
// the fence that finds no pass open has seen that pass's publications.
// The request, folding ranges of an open file, is one that only parses.
// An error the server answers with is still an answer; only the caller's
// context, the server's exit or a hang end the wait otherwise.
func (s *server) fence(ctx context.Context, path string) error {
	var out json.RawMessage
	params := map[string]any{"textDocument": TextDocumentIdentifier{URI: fileURI(path)}}
	err := s.call(ctx, "textDocument/foldingRange", params, &out)
	var rpcErr *jsonrpc2.Error
	if err == nil || errors.As(err, &rpcErr) {
		return nil
	}
	return err
}

// diagnosingLocked reports whether a diagnosis pass the server announced
// (ServerConfig.DiagnosisProgress) is open. s.mu is held.
func (s *server) diagnosingLocked() bool {
	for _, title := range s.progress {
		if s.diagnosisTitle(title) {
			return true
		}
	}
	return false
}

// announcesPasses says the server announces its diagnosis passes: it is
// configured to (ServerConfig.DiagnosisProgress) and has begun one. A
// gopls whose initialization options leave verboseWorkDoneProgress out
// announces none, and its waits keep the settle windows.
func (s *server) announcesPasses() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.DiagnosisProgress != "" && s.passes > 0
}

// diagnosisTitle says a work-done progress title announces a diagnosis
// pass (ServerConfig.DiagnosisProgress).
func (s *server) diagnosisTitle(title string) bool {
	return s.cfg.DiagnosisProgress != "" && strings.HasPrefix(title, s.cfg.DiagnosisProgress)
}

// diagnosingNow is diagnosingLocked for a caller without s.mu.
func (s *server) diagnosingNow() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.diagnosingLocked()
}

// latestDiagnostics returns the file's most recent publication when it is
// for the version sr sent (or the server sends no versions) and newer than
// the sync; ok is false otherwise (pulled diagnostics, or nothing newer).
// It does not wait: after diagnosticsSilent answered, it picks up what the
// server published since (didWrite, which waits for many files at once).
func (s *server) latestDiagnostics(path string, sr syncResult) ([]Diagnostic, bool) {
	if s.pullsNow() {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.diags[path]
	if p == nil || p.seq <= sr.seq || (p.version != nil && *p.version != sr.version) {
		return nil, false
	}
	return p.diags, true
}

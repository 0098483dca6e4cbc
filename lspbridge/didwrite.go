// This file defines diagnostics on write: after the harness wrote files,
// each is synced and saved through its server and only the diagnostics
// the write introduced are returned (agent-tools/didWrite), wherever they
// are: in the written files and in the files that use what changed.
//
// New means: not there before the write. The "before" (the baseline) is
// the server's diagnostics for the content it had before the write: the
// last version it was sent when the file was open, else the file's
// committed version (git HEAD), opened first and diagnosed, else nothing
// (a file never seen and not committed: its errors are all new, and the
// text says so). Files that use the changed symbols (found by name, see
// dependents) are opened before the change, diagnosed against the old
// content, and sent again as a new version after it, so that every server
// (also those that only diagnose open files, or do not republish
// dependents) answers for them with the change applied.

package lspbridge

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-tools/agent-tools/internal/workspace"
)

// WriteResult is the answer to agent-tools/didWrite.
type WriteResult struct {
	Diagnostics []Diag   `json:"diagnostics" jsonschema_description:"the errors and warnings the write introduced, in the written files and in files that use what changed; errors first"`
	Suppressed  int      `json:"suppressed" jsonschema_description:"errors and warnings present but not new (there before the write)"`
	Remaining   []Diag   `json:"remaining,omitempty" jsonschema_description:"those, up to 10"`
	Checked     []string `json:"checked,omitempty" jsonschema_description:"the files whose diagnostics were read after the write: the written ones and their likely dependents"`
	Skipped     []string `json:"skipped,omitempty" jsonschema_description:"files not checked, with the reason"`
	Notes       []string `json:"notes,omitempty" jsonschema_description:"what the answer may miss, and why"`
	Text        string   `json:"text" jsonschema_description:"what the harness appends to its write result; empty only when nothing is new, nothing remains and nothing was left unchecked"`
}

const (
	dependentsCap    = 8       // files that use the changed symbols, checked per write
	dependentsWalk   = 5000    // files read looking for them
	dependentMaxSize = 1 << 20 // larger files (generated, vendored) are not read
	remainingShown   = 10
)

// checkTarget is one file whose diagnostics a write may change.
type checkTarget struct {
	srv       *server
	path      string
	written   bool           // written by the agent (else a dependent)
	opened    bool           // a dependent first opened for this write
	names     *regexp.Regexp // a dependent: the changed names it uses
	baseKnown bool           // its diagnostics before the write are known (and observed)
	oldKnown  bool           // a written file: its content before the write is known
	sr        syncResult
	limit     time.Duration
	diags     []Diagnostic
	state     waitState // what the answer rests on
	err       error
	hdr       *headerCheck  // a written header checked as an includer compiles it
	unity     []*unityCheck // a written file checked as the unity builds that include it compile it
}

// headerCheck is a written header's check through an includer (see
// headerctx.go): its content before (compiled when its target has a
// baseline) and after, compiled the same way.
type headerCheck struct {
	inc           *includer
	old           string
	before, after []Diagnostic
	ok            bool // both compiled (after only, without a baseline)
	state         waitState
}

// writeCheck is the outcome of checking a set of written files.
type writeCheck struct {
	fresh, remaining []Diag
	// earlier are the remaining ones an earlier answer named as new:
	// listed first.
	earlier          []Diag
	suppressed       int
	checked, skipped []string
	notes            []string
	more             []string
}

// DidWrite syncs each written path with its language server, waits
// (bounded) for the diagnostics of the new content and of the files that
// use what changed, and returns what the write introduced. Files no server
// handles are skipped.
func (s *Supervisor) DidWrite(ctx context.Context, root string, paths []string) (*WriteResult, error) {
	if len(paths) == 0 {
		return nil, errors.New("didWrite needs paths: the files that were written")
	}
	wc := s.checkWrite(ctx, root, paths)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &WriteResult{Diagnostics: wc.fresh, Suppressed: wc.suppressed, Checked: wc.checked, Skipped: wc.skipped, Notes: wc.notes}
	res.Remaining = wc.remaining[:min(len(wc.remaining), remainingShown)]
	res.Text = wc.text("this write")
	return res, nil
}

// text is the result for a model; what is "this write" or "the rename".
// It is empty only when there is nothing worth saying: nothing new,
// nothing remaining, nothing skipped, nothing incomplete.
func (wc *writeCheck) text(what string) string {
	var b strings.Builder
	if len(wc.fresh) > 0 {
		fmt.Fprintf(&b, "new errors and warnings after %s:\n", what)
		for _, d := range wc.fresh {
			b.WriteString(d.String() + "\n")
		}
		for _, m := range wc.more {
			b.WriteString(m + "\n")
		}
	}
	if len(wc.fresh) == 0 && len(wc.checked) > 0 && (len(wc.remaining) > 0 || len(wc.skipped) > 0 || len(wc.notes) > 0) {
		// Said in words whenever there is more to say: a note alone
		// ("only files that mention … were checked") reads as a warning.
		fmt.Fprintf(&b, "no new errors or warnings after %s", what)
		if len(wc.remaining) > 0 {
			b.WriteString("; ")
		} else {
			b.WriteString("\n")
		}
	}
	if len(wc.remaining) > 0 {
		var at []string
		for _, d := range wc.remaining[:min(3, len(wc.remaining))] {
			at = append(at, fmt.Sprintf("%s:%d", d.Path, d.Line))
		}
		if len(wc.remaining) > 3 {
			at = append(at, "…")
		}
		fmt.Fprintf(&b, "%d already there before remain (%s)\n", len(wc.remaining), strings.Join(at, ", "))
	}
	for _, sk := range wc.skipped {
		fmt.Fprintf(&b, "not checked: %s\n", sk)
	}
	for _, n := range wc.notes {
		b.WriteString(n + "\n")
	}
	if b.Len() > 0 && len(wc.checked) > 0 {
		fmt.Fprintf(&b, "checked: %s\n", strings.Join(wc.checked, ", "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// checkWrite runs diagnostics on write for paths (already written to
// disk): the baselines first, while the servers still have the old
// content, then the change, then what the servers publish for it.
func (s *Supervisor) checkWrite(ctx context.Context, root string, paths []string) *writeCheck {
	w := &writeRun{s: s, ctx: ctx, root: root, wc: &writeCheck{}, byPath: map[string]*checkTarget{}}
	for _, p := range paths {
		w.addWritten(p)
	}
	w.addDependents()
	w.snapshotPublications()
	w.sendChange()
	w.collect()
	w.observeOthers()
	wc := w.wc
	if wc.fresh == nil {
		wc.fresh = []Diag{}
	}
	sortDiags(wc.fresh)
	sortDiags(wc.earlier)
	sortDiags(wc.remaining)
	wc.remaining = append(wc.earlier, wc.remaining...)
	wc.earlier = nil
	return wc
}

// writeRun is one run of checkWrite: the files it checks and what it
// learnt so far.
type writeRun struct {
	mu      sync.Mutex // guards wc.notes while dependents are read in parallel
	s       *Supervisor
	ctx     context.Context
	root    string
	wc      *writeCheck
	written []*writtenFile // in the order given
	deps    []*checkTarget // files that use what changed
	byPath  map[string]*checkTarget
	// before is each server's last publication per file before the
	// change: the baseline of files that are neither written nor
	// dependents but that the server republishes (gopls does).
	before map[*server]map[string]*published
	// cleanUnseen holds the servers that, when the write began, had
	// ended a diagnosis pass over their whole workspace and were in no
	// other (ServerConfig.DiagnosesWorkspace): a file they had never
	// published for had no findings then.
	cleanUnseen map[*server]bool
	// changed matches the names of what the written files changed (nil
	// when no names are known): an error in a file first published during
	// the wait is the write's only when it names one of them.
	changed *regexp.Regexp
	// unityChecks counts the unity units compiled for this write (see
	// unity.go): at most unityPerWrite.
	unityChecks int
}

// writtenFile is a written file: its target and its content before (as
// the server had it) and after the write.
type writtenFile struct {
	t        *checkTarget
	old, new string
	st       stamp
}

// addWritten takes one written path: it is resolved, its server found,
// and its diagnostics before the write recorded as its baseline; a path
// that cannot be checked is added to the skipped list with the reason.
func (w *writeRun) addWritten(p string) {
	s, ctx, root, wc := w.s, w.ctx, w.root, w.wc
	path, err := resolvePath(root, p)
	if err != nil {
		wc.skipped = append(wc.skipped, p+": "+err.Error())
		return
	}
	if _, err := s.configFor(path); err != nil {
		wc.skipped = append(wc.skipped, p+": no language server handles this file type")
		return
	}
	if w.byPath[path] != nil {
		return
	}
	text, st, err := readStamped(path)
	if err != nil {
		s.forget(ctx, root, path)
		wc.skipped = append(wc.skipped, p+": deleted")
		return
	}
	srv, err := s.serverAsIs(ctx, root, path)
	if err != nil {
		wc.skipped = append(wc.skipped, p+": "+err.Error())
		return
	}
	t := &checkTarget{srv: srv, path: path, written: true}
	old, known, problem := s.textBefore(ctx, srv, path)
	t.oldKnown = known
	if known {
		ds, err := s.settledDiagnostics(ctx, srv, path)
		if err != nil && !errors.Is(err, errBaseUnsettled) {
			problem = "the server did not diagnose the version before the write: " + err.Error()
		}
		if err == nil || errors.Is(err, errBaseUnsettled) {
			s.reg.baseline(path, convertDiags(root, srv.enc, path, old, ds))
			t.baseKnown = true
		}
		if errors.Is(err, errBaseUnsettled) {
			w.noteBase(path, err) // (no before at all is said below)
		}
	}
	switch {
	case !t.baseKnown && known:
		// The content before is known, so the files that use what
		// changed are still checked; only this file's own old errors
		// cannot be told from new ones.
		wc.notes = append(wc.notes, fmt.Sprintf("%s: %s; all its own errors count as new", displayPath(root, path), problem))
	case !t.baseKnown:
		why := "no earlier version known"
		if problem != "" {
			why = "no earlier version: " + problem
		}
		wc.notes = append(wc.notes, fmt.Sprintf("%s: first check of this file (%s): all its errors count as new, and the files that use it were not checked (commit it, or let the server see it before writing, for a comparison)", displayPath(root, path), why))
	}
	if inc := srv.headerIncluder(ctx, path); inc != nil {
		t.hdr = &headerCheck{inc: inc, old: old}
	}
	w.addUnityChecks(t, old, text)
	w.byPath[path] = t
	w.written = append(w.written, &writtenFile{t, old, text, st})
}

// noteBase says that path's diagnostics before the write could not be
// read in full (err says why): some of its old errors may be listed as
// new.
func (w *writeRun) noteBase(path string, err error) {
	why := "the server was still publishing for it when the wait ended"
	if !errors.Is(err, errBaseUnsettled) {
		why = err.Error()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.wc.notes = append(w.wc.notes, fmt.Sprintf("%s: its diagnostics before the write were not read in full (%s): an old error may be listed as new", displayPath(w.root, path), why))
}

// snapshotPublications records, for each server involved, its last
// publication per file before the change.
func (w *writeRun) snapshotPublications() {
	w.before = map[*server]map[string]*published{}
	w.cleanUnseen = map[*server]bool{}
	for _, c := range w.written {
		if srv := c.t.srv; w.before[srv] == nil {
			w.before[srv] = srv.publications()
			w.cleanUnseen[srv] = srv.cfg.DiagnosesWorkspace && srv.announcesPasses() && !srv.diagnosingNow()
		}
	}
}

// sendChange tells the servers about the change: the written files first
// (all of them, so that files written together are seen together), then
// the other files changed on disk, then the dependents again as new
// versions.
func (w *writeRun) sendChange() {
	opts, ctx := &w.s.opts, w.ctx
	for _, c := range w.written {
		c.t.srv.mu.Lock()
		seen := c.t.srv.diags[c.t.path] != nil
		c.t.srv.mu.Unlock()
		c.t.sr, c.t.err = c.t.srv.syncText(ctx, c.t.path, c.new, c.st, false)
		c.t.limit = opts.DiagnosticCap
		if !seen {
			c.t.limit = max(c.t.limit, opts.ReadyTimeout)
		}
	}
	for srv := range w.before {
		srv.refresh(ctx)
	}
	for _, t := range w.deps {
		text, st, err := readStamped(t.path)
		if err != nil {
			t.err = err
			continue
		}
		t.sr, t.err = t.srv.syncText(ctx, t.path, text, st, true)
		t.limit = opts.DiagnosticCap
	}
}

// collect waits (in parallel, each bounded) for the diagnostics of the
// written files and the dependents after the change, and adds what is new
// to the result.
func (w *writeRun) collect() {
	s, root, wc := w.s, w.root, w.wc
	all := make([]*checkTarget, 0, len(w.written)+len(w.deps))
	for _, c := range w.written {
		all = append(all, c.t)
	}
	all = append(all, w.deps...)
	s.parallel(all, func(t *checkTarget) {
		// A unity build's compiles need nothing of the file's own answer:
		// they run while it is awaited.
		unity, synced := make(chan struct{}), t.err == nil
		go func() {
			defer close(unity)
			for _, u := range t.unity {
				if !synced {
					break
				}
				u.run(w.ctx, root, t)
			}
		}()
		if t.err == nil {
			t.diags, t.state, t.err = t.srv.diagnosticsSilent(w.ctx, t.path, t.sr, t.limit)
		}
		if t.err == nil && t.hdr != nil {
			t.hdr.run(w.ctx, t)
		}
		<-unity
	})
	w.noteSilence(all)
	for _, t := range all {
		if t.err != nil {
			wc.skipped = append(wc.skipped, displayPath(root, t.path)+": "+t.err.Error())
			continue
		}
		if latest, ok := t.srv.latestDiagnostics(t.path, t.sr); ok {
			t.diags = latest
		}
		headerSaid := headerNote(t.srv, root, t.path, t.sr.text, t.diags)
		if h := t.hdr; h != nil && h.ok {
			if t.baseKnown {
				s.reg.baseline(t.path, convertDiags(root, t.srv.enc, t.path, h.old, h.before))
			}
			t.diags, headerSaid = h.after, ""
			if ds, _ := errorsAndWarnings(convertDiags(root, t.srv.enc, t.path, t.sr.text, h.after)); len(ds) > 0 {
				headerSaid = contextNote(t.srv, root, t.path, h.inc)
			}
			if h.state == unsettled {
				wc.notes = append(wc.notes, fmt.Sprintf("%s was still publishing for %s, compiled as %s includes it, when the wait ended (%s): its new errors may be incomplete", t.srv.cfg.Name, displayPath(root, t.path), displayPath(root, h.inc.path), t.limit))
			}
		}
		wc.checked = append(wc.checked, displayPath(root, t.path))
		var blame func(Diag) bool
		if t.opened && t.srv.cfg.DiskIncludes {
			// A dependent opened for this write was diagnosed before the
			// change against what the server had of the written file, but
			// a server may read included files from disk (clangd's
			// preambles do), where the change already is: an error on a
			// line that uses a changed name is the write's, whatever that
			// baseline said. (Other servers read the written file as they
			// were sent it, so the baseline holds: with tsserver, blaming
			// made an old error on an import line naming the function
			// that changed new.)
			blame = func(d Diag) bool { return t.names != nil && t.names.MatchString(d.Text) }
		}
		for _, more := range []string{errorLimitNote(t.srv, root, t.path, t.diags), includedNote(t.srv, root, t.path, t.diags), headerSaid} {
			if more != "" {
				wc.notes = append(wc.notes, more)
			}
		}
		s.observeInto(wc, root, t.path, convertDiags(root, t.srv.enc, t.path, t.sr.text, t.diags), blame, nil)
	}
	// After every file's own: what a unity build adds is listed only where
	// those did not list it already.
	for _, t := range all {
		w.addUnity(t)
	}
}

// noteSilence says which answers rest on an unversioned server's silence,
// and which were cut while the server was still publishing.
func (w *writeRun) noteSilence(all []*checkTarget) {
	var quiet, cut []string
	for _, t := range all {
		if t.err != nil {
			continue
		}
		switch t.state {
		case silent:
			quiet = append(quiet, displayPath(w.root, t.path))
		case unsettled:
			cut = append(cut, displayPath(w.root, t.path))
		}
	}
	if len(all) == 0 {
		return
	}
	srv := all[0].srv
	if len(quiet) > 0 {
		w.wc.notes = append(w.wc.notes, fmt.Sprintf("%s publishes without versions and published nothing new for %s within its quiet window (%s): taken as unchanged",
			srv.cfg.Name, strings.Join(quiet, ", "), w.s.opts.QuietWindow))
	}
	if len(cut) > 0 {
		w.wc.notes = append(w.wc.notes, fmt.Sprintf("%s was still publishing for %s when the wait ended (%s with no publication, or %s in all): their new errors may be incomplete; lsp diagnostics on them later gives the settled answer",
			srv.cfg.Name, strings.Join(cut, ", "), w.s.opts.DiagnosticCap, w.s.opts.BusyCap))
	}
}

// observeOthers adds what the servers published during the wait for
// files neither written nor dependents (gopls republishes affected
// packages); their last publication before the change is their baseline.
func (w *writeRun) observeOthers() {
	s, root := w.s, w.root
	for srv, pubs := range w.before {
		for path, p := range srv.publications() {
			if w.byPath[path] != nil || !workspace.Within(canonical(root), path) {
				continue
			}
			text, _ := srv.textOf(path)
			ds := convertDiags(root, srv.enc, path, text, p.diags)
			if old := pubs[path]; old != nil && old.seq == p.seq {
				continue
			} else if old != nil {
				before := convertDiags(root, srv.enc, path, text, old.diags)
				s.reg.returning(path, text, before)
				s.reg.baseline(path, before)
			} else if !s.reg.known(path) && w.cleanUnseen[srv] && !slices.ContainsFunc(ds, fromOtherView) {
				// Never published for, after a pass over the whole
				// workspace: the file had no findings (an external test
				// package of gopls's that a syntax error elsewhere
				// breaks: every error there is the write's).
				s.reg.baseline(path, nil)
			} else if !s.reg.known(path) {
				// First published during this wait (pyright checking a
				// file it had not looked at, gopls a package it had not
				// loaded): there is no before to compare with, and the
				// file's old errors are not the write's. Only an error
				// that names what the write changed is counted as new.
				var kept []Diag
				for _, d := range ds {
					if w.changed == nil || !w.changed.MatchString(d.Text) {
						kept = append(kept, d)
					}
				}
				s.reg.baseline(path, kept)
				if len(kept) > 0 {
					w.wc.notes = append(w.wc.notes, fmt.Sprintf("%s: first diagnosed during this write, with nothing earlier to compare: only errors naming what changed count as new", displayPath(root, path)))
				}
			}
			s.observeInto(w.wc, root, path, ds, nil, s.reg.returning(path, text, ds))
		}
	}
}

// fromOtherView says gopls found d in a view of another build than the
// host's (a file the write opened that the host's build leaves out): that
// view had not diagnosed anything before, so its findings have no
// baseline.
func fromOtherView(d Diag) bool { return goViewRe.MatchString(d.Message) }

// observeInto passes a file's diagnostics through the registry and adds
// the new ones (up to the per-file cap) and the remaining ones to wc.
// back, when not nil, names new warnings that the file showed before at
// the same text (registry.returning): they stay new, as the checker has
// them, and a note says they are back.
func (s *Supervisor) observeInto(wc *writeCheck, root, path string, ds []Diag, blame, back func(Diag) bool) {
	ds, _ = errorsAndWarnings(ds)
	idx, _ := s.reg.observe(path, ds)
	if back != nil {
		var lines []string
		for _, i := range idx {
			if back(ds[i]) {
				lines = append(lines, strconv.Itoa(ds[i].Line))
			}
		}
		if len(lines) > 0 {
			wc.notes = append(wc.notes, fmt.Sprintf("%s:%s: new since the last check, but back: the file showed the same with this same text earlier in this session (gopls reports its analyzers' findings only while a package type-checks, so mending a package brings them back)",
				displayPath(root, path), strings.Join(lines, ",")))
		}
	}
	if blame != nil {
		for i, d := range ds {
			if blame(d) && !slices.Contains(idx, i) {
				idx = append(idx, i)
			}
		}
		slices.Sort(idx)
	}
	earlier := s.reported.update(path, ds, idx)
	isNew := make([]bool, len(ds))
	shown, more := 0, 0
	for _, i := range idx {
		isNew[i] = true
		if shown < s.opts.PerFileCap {
			wc.fresh = append(wc.fresh, ds[i])
			shown++
		} else {
			more++
		}
	}
	if more > 0 {
		wc.more = append(wc.more, fmt.Sprintf("%d more new diagnostics in %s not shown", more, displayPath(root, path)))
	}
	for i, d := range ds {
		switch {
		case isNew[i]:
		case earlier[i]:
			wc.earlier = append(wc.earlier, d)
			wc.suppressed++
		default:
			wc.remaining = append(wc.remaining, d)
			wc.suppressed++
		}
	}
}

// parallel runs f on every target concurrently and waits.
func (s *Supervisor) parallel(ts []*checkTarget, f func(*checkTarget)) {
	var wg sync.WaitGroup
	for _, t := range ts {
		wg.Go(func() { f(t) })
	}
	wg.Wait()
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

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
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
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
}

// writeCheck is the outcome of checking a set of written files.
type writeCheck struct {
	fresh, remaining []Diag
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
	if len(wc.remaining) > 0 {
		if len(wc.fresh) == 0 {
			fmt.Fprintf(&b, "no new errors or warnings after %s; ", what)
		}
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
	sortDiags(wc.remaining)
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
	// changed matches the names of what the written files changed (nil
	// when no names are known): an error in a file first published during
	// the wait is the write's only when it names one of them.
	changed *regexp.Regexp
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
	w.byPath[path] = t
	w.written = append(w.written, &writtenFile{t, old, text, st})
}

// addDependents finds the files that use what changed and opens (and
// diagnoses) them while the server still has the old content: that is
// their baseline.
func (w *writeRun) addDependents() {
	s, ctx := w.s, w.ctx
	for _, c := range w.written {
		if !c.t.oldKnown || c.old == c.new {
			continue
		}
		names := s.changedNames(ctx, c.t.srv, c.t.path, c.old, c.new)
		if len(names) > 0 {
			w.changed = namesPattern(w.changed, names)
		}
		// The files that import this one (Python's modules, TS's relative
		// imports, C's headers) depend on it too, whatever changed: a
		// deleted import or a typo changes what its names' types are for
		// them (pyright infers through modules). They come after the files
		// that use a changed name. Go imports packages, not files, and
		// gopls republishes a package's files.
		imports := importPattern(c.t.srv.cfg.languageID(c.t.path), c.t.path)
		if len(names) == 0 && imports == nil {
			continue
		}
		found, more, _ := dependents(ctx, c.t.srv, c.t.path, names, imports, w.byPath)
		if more > 0 {
			what, also := strings.Join(names, ", "), ""
			if imports != nil && what == "" {
				what = "import " + filepath.Base(c.t.path)
			} else if imports != nil {
				also = "; files that import " + filepath.Base(c.t.path) + " included"
			}
			w.wc.notes = append(w.wc.notes, fmt.Sprintf("%d more files mention %s and were not checked (cap %d%s)", more, what, dependentsCap, also))
		}
		re := blamePattern(names, imports, c.t.srv.cfg.DiskIncludes)
		for _, d := range found {
			t := &checkTarget{srv: c.t.srv, path: d, names: re, opened: c.t.srv.doc(d) == nil}
			w.byPath[d] = t
			w.deps = append(w.deps, t)
		}
	}
	w.baselineDependents()
}

// blamePattern matches the lines of a dependent whose errors are the
// write's whatever its baseline said (see collect): the lines naming what
// changed, and on a server reading includes from disk the line including
// the written file (a header's deleted #include breaks its includers
// there, and their before already saw it). It is nil when none are.
func blamePattern(names []string, imports *regexp.Regexp, diskIncludes bool) *regexp.Regexp {
	var blames []string
	if len(names) > 0 {
		blames = append(blames, namesPattern(nil, names).String())
	}
	if imports != nil && diskIncludes {
		blames = append(blames, imports.String())
	}
	if len(blames) == 0 {
		return nil
	}
	return regexp.MustCompile(strings.Join(blames, "|"))
}

// baselineDependents opens the dependents and records their diagnostics
// before the change as their baselines, in parallel.
func (w *writeRun) baselineDependents() {
	s, ctx := w.s, w.ctx
	s.parallel(w.deps, func(t *checkTarget) {
		if _, err := t.srv.sync(ctx, t.path); err != nil {
			return
		}
		ds, err := s.settledDiagnostics(ctx, t.srv, t.path)
		if err == nil || errors.Is(err, errBaseUnsettled) {
			text, _ := t.srv.textOf(t.path)
			s.reg.baseline(t.path, convertDiags(w.root, t.srv.enc, t.path, text, ds))
			t.baseKnown = true
		}
		if err != nil {
			w.noteBase(t.path, err)
		}
	})
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
	for _, c := range w.written {
		if w.before[c.t.srv] == nil {
			w.before[c.t.srv] = c.t.srv.publications()
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
		if t.err == nil {
			t.diags, t.state, t.err = t.srv.diagnosticsSilent(w.ctx, t.path, t.sr, t.limit)
		}
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
		s.observeInto(wc, root, t.path, convertDiags(root, t.srv.enc, t.path, t.sr.text, t.diags), blame)
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
		w.wc.notes = append(w.wc.notes, fmt.Sprintf("%s was still publishing for %s when the wait ended (%s): their new errors may be incomplete; lsp diagnostics on them later gives the settled answer",
			srv.cfg.Name, strings.Join(cut, ", "), w.s.opts.DiagnosticCap))
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
				s.reg.baseline(path, convertDiags(root, srv.enc, path, text, old.diags))
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
			s.observeInto(w.wc, root, path, ds, nil)
		}
	}
}

// observeInto passes a file's diagnostics through the registry and adds
// the new ones (up to the per-file cap) and the remaining ones to wc.
func (s *Supervisor) observeInto(wc *writeCheck, root, path string, ds []Diag, blame func(Diag) bool) {
	ds, _ = errorsAndWarnings(ds)
	idx, _ := s.reg.observe(path, ds)
	if blame != nil {
		for i, d := range ds {
			if blame(d) && !slices.Contains(idx, i) {
				idx = append(idx, i)
			}
		}
		slices.Sort(idx)
	}
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
		if !isNew[i] {
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

// changedNames returns the names of the symbols (from the server's
// outline of the old content) whose lines the change touches: what other
// files may use and the change may break.
func (s *Supervisor) changedNames(ctx context.Context, srv *server, path, old, new string) []string {
	if !supported(srv.caps.DocumentSymbolProvider) {
		return nil
	}
	from, to := changedLines(old, new)
	var raw []DocumentSymbol
	if err := srv.call(ctx, "textDocument/documentSymbol", DocumentSymbolParams{TextDocument: TextDocumentIdentifier{URI: fileURI(path)}}, &raw); err != nil {
		return nil
	}
	var names []string
	var walk func(ds []DocumentSymbol, depth int, inType bool, parent string)
	walk = func(ds []DocumentSymbol, depth int, inType bool, parent string) {
		for _, d := range ds {
			r := d.Range
			if r.End.Line < from || r.Start.Line > to {
				continue
			}
			// Top-level symbols and the members of a type: what other
			// files can use. The children of a function or a variable
			// (parameters, locals: pyright lists them) are not, and
			// searching for them (url, val, entry) opens half the tree.
			// A type whose change lies wholly inside its members changed
			// only those: its own name (Cache, for a method of it renamed)
			// would blame every old error on a line that mentions the type.
			own := depth == 0 || inType
			if own && isContainer(d.Kind) && insideChildren(d.Children, from, to) {
				own = false
			}
			if own {
				n := useName(d.Name)
				if inType && isConstructorName(n) {
					// Callers of a constructor write its type's name:
					// Client(cfg), new Client(cfg).
					n = useName(parent)
				}
				if len(n) > 1 && !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
			if depth < 1 {
				walk(d.Children, depth+1, isContainer(d.Kind), d.Name)
			}
		}
	}
	walk(raw, 0, false, "")
	return names
}

// isConstructorName reports whether a member named n is its type's
// constructor in a language whose callers do not write that name: Python's
// __init__ and __new__, JavaScript's and TypeScript's constructor.
func isConstructorName(n string) bool {
	return n == "__init__" || n == "__new__" || n == "constructor"
}

// insideChildren reports whether every line from..to lies inside one of
// children's ranges.
func insideChildren(children []DocumentSymbol, from, to int) bool {
	for l := from; l <= to; l++ {
		in := false
		for _, c := range children {
			if c.Range.Start.Line <= l && l <= c.Range.End.Line {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	return true
}

// isContainer reports whether a symbol of kind k holds members that other
// files use by name: types, modules, namespaces (not functions, whose
// children are parameters and locals).
func isContainer(k int) bool {
	switch symbolKind(k) {
	case "module", "namespace", "package", "class", "interface", "enum", "struct", "object":
		return true
	}
	return false
}

// useName is the name callers write for an outline entry: gopls names a
// method "(*Command).Flags" and a C++ server "Config::load", but a caller
// writes cmd.Flags() or cfg.load(); rust-analyzer's "impl Display for T"
// has no such name at all. It returns the last identifier of the entry's
// name, or "" when the name has none.
func useName(name string) string {
	if i := strings.IndexAny(name, "(<["); i > 0 && !strings.HasPrefix(name, "(") {
		name = name[:i] // foo(int), Vec<T>: the name before its signature
	}
	end := len(name)
	for end > 0 && !isIdentByte(name[end-1]) {
		end--
	}
	start := end
	for start > 0 && isIdentByte(name[start-1]) {
		start--
	}
	if strings.HasPrefix(name, "impl ") || strings.Contains(name[:start], " for ") {
		return ""
	}
	return name[start:end]
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// changedLines returns the 0-based line range of old that new replaced
// (common prefix and suffix lines removed).
func changedLines(old, new string) (from, to int) {
	a, b := splitLines(old), splitLines(new)
	for from < len(a) && from < len(b) && a[from] == b[from] {
		from++
	}
	ea, eb := len(a)-1, len(b)-1
	for ea >= from && eb >= from && a[ea] == b[eb] {
		ea--
		eb--
	}
	return from, max(ea, from)
}

// namesPattern adds names to re, a whole-word pattern of names.
func namesPattern(re *regexp.Regexp, names []string) *regexp.Regexp {
	quoted := make([]string, 0, len(names)+1)
	if re != nil {
		quoted = append(quoted, re.String())
	}
	for _, n := range names {
		quoted = append(quoted, `\b`+regexp.QuoteMeta(n)+`\b`)
	}
	return regexp.MustCompile(strings.Join(quoted, "|"))
}

// importPattern matches a line that imports the file at path, for the
// languages that import files (nil for others: Go imports packages).
func importPattern(lang, path string) *regexp.Regexp {
	base := filepath.Base(path)
	stem := regexp.QuoteMeta(strings.TrimSuffix(base, filepath.Ext(base)))
	switch {
	case lang == "python":
		if stem == "__init__" {
			stem = regexp.QuoteMeta(filepath.Base(filepath.Dir(path)))
		}
		return regexp.MustCompile(`(?m)^\s*(?:from\s+[\w.]*\b` + stem + `\b|import\s+[\w., ]*\b` + stem + `\b)|^\s*from\s+\.+\s+import\s+[\w, ()]*\b` + stem + `\b`)
	case strings.HasPrefix(lang, "typescript") || strings.HasPrefix(lang, "javascript"):
		return regexp.MustCompile(`['"][^'"\n]*/` + stem + `(?:\.[cm]?[jt]sx?)?['"]`)
	case lang == "c" || lang == "cpp":
		return regexp.MustCompile(`(?m)^\s*#\s*include\s*["<][^">\n]*\b` + regexp.QuoteMeta(base) + `[">]`)
	}
	return nil
}

// dependents returns up to dependentsCap files of srv's root, handled by
// srv, that mention any of names as a whole word, most mentions first,
// then those that import path (imports, when not nil); not path itself,
// nor the files in skip. more is how many others do.
func dependents(ctx context.Context, srv *server, path string, names []string, imports *regexp.Regexp, skip map[string]*checkTarget) (found []string, more int, re *regexp.Regexp) {
	if len(names) > 0 {
		re = namesPattern(nil, names)
	}
	type hit struct {
		path string
		n    int
	}
	var hits, importers []hit
	walked := 0
	filepath.WalkDir(srv.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != srv.root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if p == path || skip[p] != nil || srv.cfg.languageID(p) == "" {
			return nil
		}
		walked++
		if walked > dependentsWalk || ctx.Err() != nil {
			return filepath.SkipAll
		}
		if fi, err := d.Info(); err != nil || fi.Size() > dependentMaxSize {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		if re != nil {
			if n := len(re.FindAllIndex(data, -1)); n > 0 {
				hits = append(hits, hit{p, n})
				return nil
			}
		}
		if imports != nil && imports.Match(data) {
			importers = append(importers, hit{p, 0})
		}
		return nil
	})
	slices.SortStableFunc(hits, func(a, b hit) int { return b.n - a.n })
	hits = append(hits, importers...)
	for i, h := range hits {
		if i < dependentsCap {
			found = append(found, h.path)
		}
	}
	return found, max(0, len(hits)-dependentsCap), re
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

// This file defines lsp_rename: prepareRename, rename, and applying the
// server's WorkspaceEdit transactionally (all files or none).

package lspbridge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/agent-tools/agent-tools/internal/atomicfile"
	"github.com/agent-tools/agent-tools/internal/workspace"
)

// identifier is what new_name must look like: letters, digits, _ and $,
// not starting with a digit.
var identifier = regexp.MustCompile(`^[\p{L}_$][\p{L}\p{N}_$]*$`)

// RenamedFile is one file a rename changed.
type RenamedFile struct {
	Path  string `json:"path" jsonschema_description:"file, relative to the root"`
	Edits int    `json:"edits" jsonschema_description:"how many edits were applied to it"`
}

// RenameResult is lsp_rename's answer.
type RenameResult struct {
	Server      string        `json:"server" jsonschema_description:"the language server that computed the rename"`
	Target      string        `json:"target" jsonschema_description:"what line+symbol resolved to"`
	NewName     string        `json:"new_name" jsonschema_description:"the new name"`
	Warning     string        `json:"warning,omitempty" jsonschema_description:"with ignore_textual: the uses of the old name a word search found that keep it (see textual)"`
	Files       []RenamedFile `json:"files" jsonschema_description:"the files changed, with edit counts"`
	Edits       int           `json:"edits" jsonschema_description:"total edits applied"`
	Diagnostics []Diag        `json:"diagnostics" jsonschema_description:"errors and warnings that are new after the rename, in the renamed files and in files that use them"`
	Suppressed  int           `json:"suppressed" jsonschema_description:"errors and warnings present but there before the rename"`
	Remaining   []Diag        `json:"remaining,omitempty" jsonschema_description:"those, up to 10"`
	Checked     []string      `json:"checked,omitempty" jsonschema_description:"the files whose diagnostics were read after the rename"`
	Skipped     []string      `json:"skipped,omitempty" jsonschema_description:"files not checked, with the reason"`
	Notes       []string      `json:"notes,omitempty" jsonschema_description:"what the answer may miss, and why"`
	Textual     []string      `json:"textual,omitempty" jsonschema_description:"with ignore_textual: uses of the old name a word search found in files the rename did not touch, which keep it (path:line)"`
	Kept        []string      `json:"kept,omitempty" jsonschema_description:"references the server left with the old name on purpose, because its edits keep that name through an alias (export { new as old }): path:line"`
	kept        *keptName
	check       *writeCheck
	textual     *textualCheck
}

// Text is the result for a model.
func (r *RenameResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "renamed %s → %s: %d edits in %d files\n", r.Target, r.NewName, r.Edits, len(r.Files))
	if r.Warning != "" {
		fmt.Fprintf(&b, "warning: %s:\n%s\n", r.Warning, r.textual.places(textualShown))
	}
	if tc := r.textual; tc != nil && tc.partial != "" {
		b.WriteString(tc.partial + "\n")
	}
	for _, f := range r.Files {
		fmt.Fprintf(&b, "%s  %d edits\n", f.Path, f.Edits)
	}
	if r.kept != nil {
		b.WriteString("note: " + r.kept.String() + "\n")
	}
	if r.check != nil {
		b.WriteString(r.check.text("the rename"))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Rename renames the symbol at req's line + symbol to newName across the
// project, applying every file's edits or none.
func (s *Supervisor) Rename(ctx context.Context, req Request, newName string) (*RenameResult, error) {
	if !identifier.MatchString(newName) {
		return nil, fmt.Errorf("argument 'new_name': %q is not an identifier (letters, digits, _ or $, not starting with a digit)", newName)
	}
	if _, err := resolvePath(req.Root, req.File); err != nil {
		return nil, err // outside the root: never written, even where a server pointed
	}
	a, err := s.aim(ctx, req)
	if err != nil {
		return nil, err
	}
	if a.inside != "" {
		return nil, fmt.Errorf("cannot rename %s: %q is on line %d only as part of the longer name %q; pass the whole name if that is the one to rename; nothing was changed", a.target, req.Symbol, req.Line, a.inside)
	}
	srv := a.srv
	if err := s.renameReady(ctx, a, req); err != nil {
		return nil, err
	}
	var we *WorkspaceEdit
	params := RenameParams{TextDocumentPositionParams: a.params(), NewName: newName}
	if err := srv.call(ctx, "textDocument/rename", params, &we); err != nil {
		return nil, fmt.Errorf("renaming %s: %w", a.target, err)
	}
	if we == nil || len(we.Changes)+len(we.DocumentChanges) == 0 {
		return nil, fmt.Errorf("renaming %s: %s returned no edits; nothing was changed", a.target, srv.cfg.Name)
	}
	changes, err := planEdits(srv, canonical(req.Root), we)
	if err != nil {
		return nil, fmt.Errorf("renaming %s: %w; nothing was changed", a.target, err)
	}
	kept, err := s.coversReferences(ctx, a, changes, req.Root)
	if err != nil {
		return nil, fmt.Errorf("renaming %s: %w; nothing was changed", a.target, err)
	}
	var textual *textualCheck
	if !s.renameIsLocal(ctx, srv, changes) {
		textual = s.textualUses(ctx, srv, req.Root, a.name, changes)
		textual.dropKnown(kept)
		if len(textual.uses) > 0 && !req.IgnoreTextual {
			return nil, textualRefusal(srv, a, changes, textual)
		}
	}
	s.openRenamed(ctx, srv, changes)
	if err := writeChanges(changes); err != nil {
		return nil, fmt.Errorf("renaming %s: %w", a.target, err)
	}
	res := s.renamed(ctx, req, a, newName, changes, textual)
	if kept != nil {
		res.Kept = kept.uses
		res.kept = kept
		res.Notes = append(res.Notes, kept.String())
	}
	return res, nil
}

// renameReady says why srv cannot rename what a aims at now (nil when
// it can): no rename support, nothing renameable there, a failure, or an
// index still loading (a rename computed from a partial index changes
// part of the uses).
func (s *Supervisor) renameReady(ctx context.Context, a *aimed, req Request) error {
	srv := a.srv
	if !supported(srv.caps.RenameProvider) {
		return fmt.Errorf("%s does not support rename", srv.cfg.Name)
	}
	if srv.caps.prepareRenameSupported() {
		var prep json.RawMessage
		if err := srv.call(ctx, "textDocument/prepareRename", a.params(), &prep); err != nil {
			return fmt.Errorf("cannot rename %s: %w", a.target, err)
		}
		if p := strings.TrimSpace(string(prep)); p == "" || p == "null" {
			if !a.ready {
				return loadingError(srv, s.opts)
			}
			return fmt.Errorf("cannot rename %s: %s says there is nothing renameable there", a.target, srv.cfg.Name)
		}
	}
	// A rename computed from a partial index changes part of the uses.
	pending := srv.waitIndexed(ctx, s.opts.IndexTimeout, req.Progress)
	if failed := srv.failure(); failed != "" && ctx.Err() == nil {
		return fmt.Errorf("cannot rename %s: %s says it failed (%s), so its rename could miss uses; nothing was changed. Fix what it names (lsp status shows the server's state), then try again",
			a.target, srv.cfg.Name, failed)
	}
	if pending != "" {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("cannot rename %s yet: %s is still busy (%s) after %s, so its rename could miss uses; nothing was changed, try again when it is done%s",
			a.target, srv.cfg.Name, pending, s.opts.IndexTimeout, starvedNote(srv))
	}
	return nil
}

// openRenamed opens the files a rename changes that srv has not opened
// yet, while they are unchanged: their diagnostics before the rename are
// its baseline.
func (s *Supervisor) openRenamed(ctx context.Context, srv *server, changes []fileChange) {
	var unopened []*checkTarget
	for _, c := range changes {
		if srv.doc(c.path) == nil {
			unopened = append(unopened, &checkTarget{srv: srv, path: c.path})
		}
	}
	s.parallel(unopened, func(t *checkTarget) {
		if _, err := srv.sync(ctx, t.path); err == nil {
			s.settledDiagnostics(ctx, srv, t.path)
		}
	})
}

// renamed is the answer for a rename written to disk: the files and
// edits, the textual uses left, and what the rename broke (every touched
// file synced and checked).
func (s *Supervisor) renamed(ctx context.Context, req Request, a *aimed, newName string, changes []fileChange, textual *textualCheck) *RenameResult {
	srv := a.srv
	res := &RenameResult{Server: srv.cfg.Name, Target: a.target, NewName: newName, Diagnostics: []Diag{}}
	if textual != nil {
		res.textual = textual
		if len(textual.uses) > 0 {
			res.Warning = textual.summary() + "; they keep the old name (ignore_textual was set)"
		}
		for _, u := range textual.uses {
			res.Textual = append(res.Textual, fmt.Sprintf("%s:%d", u.path, u.line))
		}
		if textual.partial != "" {
			res.Notes = append(res.Notes, textual.partial)
		}
	}
	paths := make([]string, len(changes))
	for i, c := range changes {
		paths[i] = c.path
		res.Files = append(res.Files, RenamedFile{Path: displayPath(req.Root, c.path), Edits: c.edits})
		res.Edits += c.edits
	}
	// Sync every touched file and report what the rename broke.
	wc := s.checkWrite(ctx, req.Root, paths)
	res.check = wc
	res.Diagnostics, res.Suppressed, res.Checked, res.Skipped = wc.fresh, wc.suppressed, wc.checked, wc.skipped
	res.Notes = append(res.Notes, wc.notes...)
	res.Remaining = wc.remaining[:min(len(wc.remaining), remainingShown)]
	return res
}

// textualRefusal is the error of a rename refused because a word search
// found uses of the old name in files the server's edits leave.
func textualRefusal(srv *server, a *aimed, changes []fileChange, tc *textualCheck) error {
	edits := 0
	for _, c := range changes {
		edits += c.edits
	}
	msg := fmt.Sprintf("cannot rename %s: %s's rename changes %s in %s, but %s. Uses the server cannot see (a mixin's method called through self, a dynamic attribute) would keep the old name and break at run time; nothing was changed.\n%s\n"+
		"If they are other symbols that share the name, call again with ignore_textual: true; if they are this one, do that and then rename them too (ast_edit, or edit them).",
		a.target, srv.cfg.Name, count(edits, "place"), count(len(changes), "file"), tc.summary(), tc.places(textualShown))
	if tc.partial != "" {
		msg += " (" + tc.partial + ")"
	}
	return errors.New(msg)
}

// coversReferences refuses a rename that would leave some of the symbol's
// known references unchanged (clangd renames only in the files it has
// indexed): every reference inside the root must lie in an edit. Where
// the server's edits keep the old name through an alias on purpose
// (typescript-language-server writes `export { joinZr as join }`, so that
// importers of join need no change), the references left are no break:
// they are returned, for the answer to name.
func (s *Supervisor) coversReferences(ctx context.Context, a *aimed, changes []fileChange, runRoot string) (*keptName, error) {
	srv := a.srv
	if !supported(srv.caps.ReferencesProvider) {
		return nil, nil
	}
	var raw json.RawMessage
	params := ReferenceParams{TextDocumentPositionParams: a.params(), Context: ReferenceContext{IncludeDeclaration: true}}
	if err := srv.call(ctx, "textDocument/references", params, &raw); err != nil {
		return nil, nil // the rename itself answered; references are only a check
	}
	locs, err := parseLocations(raw)
	if err != nil {
		return nil, nil
	}
	root := canonical(srv.root)
	// A reference that is another name than the symbol's is a use
	// through an alias (`join` after `export { joinZr as join }`): the
	// rename has nothing to change there. (A range that is no name at
	// all, `ns::foo`, still counts.)
	lines := map[string][]string{} // each file read once
	locs = slices.DeleteFunc(locs, func(l Location) bool {
		p := uriPath(l.URI)
		if _, ok := lines[p]; !ok {
			lines[p] = srv.linesBefore(p, changes)
		}
		t, ok := srv.rangeText(lines[p], l.Range)
		return ok && t != a.name && identifier.MatchString(t)
	})
	missed, files := missedReferences(root, locs, changes)
	if len(missed) == 0 {
		return nil, nil
	}
	if aliases := aliasesKeeping(runRoot, a.name, changes); len(aliases) > 0 {
		// Named from the run's root, as the word search names its uses.
		uses, _ := missedReferences(canonical(runRoot), locs, changes)
		return &keptName{name: a.name, aliases: aliases, uses: uses}, nil
	}
	edits := 0
	for _, c := range changes {
		edits += c.edits
	}
	shown := missed[:min(5, len(missed))]
	return nil, fmt.Errorf("%s's rename would change %d places in %d files, but it knows %d references in %d files; %d would keep the old name (%s%s), which would break the build: refused",
		srv.cfg.Name, edits, len(changes), len(locs), len(files), len(missed), strings.Join(shown, ", "), map[bool]string{true: ", …"}[len(missed) > 5])
}

// keptName is what a rename leaves with the old name on purpose: the
// server's edits write an alias that keeps it, and the references that go
// through the alias keep it too.
type keptName struct {
	name    string
	aliases []string // path:line  the edit's text
	uses    []string // path:line of the references left
}

func (k *keptName) String() string {
	return fmt.Sprintf("the server kept the old name %s through an alias (%s), so %s that go through it keep %s and need no change: %s; to rename them too, rename the alias",
		k.name, strings.Join(k.aliases[:min(3, len(k.aliases))], "; "), count(len(k.uses), "use"), k.name, strings.Join(k.uses[:min(5, len(k.uses))], ", ")+map[bool]string{true: ", …"}[len(k.uses) > 5])
}

// aliasesKeeping lists the edits of changes whose text writes name (as a
// word) beside another: an alias that keeps the old name (`joinZr as
// join`, `join: joinZr`).
func aliasesKeeping(root, name string, changes []fileChange) []string {
	word := regexp.MustCompile(`(^|[^\p{L}\p{N}_$])` + regexp.QuoteMeta(name) + `($|[^\p{L}\p{N}_$])`)
	var out []string
	for _, c := range changes {
		for i, t := range c.texts {
			if word.MatchString(t) {
				out = append(out, fmt.Sprintf("%s:%d  %s", displayPath(root, c.path), c.ranges[i].Start.Line+1, t))
			}
		}
	}
	return out
}

// missedReferences returns the references inside root (as path:line) that
// no edit of changes covers, and the files holding references there.
func missedReferences(root string, locs []Location, changes []fileChange) (missed []string, files map[string]bool) {
	edited := map[string][]Range{}
	for _, c := range changes {
		edited[c.path] = c.ranges
	}
	files = map[string]bool{}
	for _, l := range locs {
		p := uriPath(l.URI)
		if !workspace.Within(root, p) {
			continue
		}
		files[p] = true
		hit := false
		for _, r := range edited[p] {
			if !before(l.Range.Start, r.Start) && !before(r.End, l.Range.Start) {
				hit = true
				break
			}
		}
		if !hit {
			missed = append(missed, fmt.Sprintf("%s:%d", displayPath(root, p), l.Range.Start.Line+1))
		}
	}
	return missed, files
}

func before(a, b Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}

// fileChange is one file's new content, computed before anything is
// written.
type fileChange struct {
	path     string
	old, new string
	mode     os.FileMode
	edits    int
	ranges   []Range  // where the edits apply, in the old content
	texts    []string // what each writes there
}

// planEdits checks a WorkspaceEdit (paths inside root, versions matching
// what the server was told, no resource operations) and computes every
// file's new content in memory.
func planEdits(srv *server, root string, we *WorkspaceEdit) ([]fileChange, error) {
	byPath := map[string][]TextEdit{}
	for uri, edits := range we.Changes {
		p := uriPath(uri)
		byPath[p] = append(byPath[p], edits...)
	}
	for _, dc := range we.DocumentChanges {
		if dc.Kind != "" {
			return nil, fmt.Errorf("the server's edit includes a file operation (%s %s%s), which lsp_rename does not apply", dc.Kind, dc.URI, dc.OldURI)
		}
		p := uriPath(dc.TextDocument.URI)
		if v := dc.TextDocument.Version; v != nil && *v > 0 {
			d := srv.doc(p)
			if d == nil || d.version != *v {
				return nil, fmt.Errorf("the edit for %s is for version %d, which is not the version the server was sent", displayPath(root, p), *v)
			}
		}
		byPath[p] = append(byPath[p], dc.Edits...)
	}
	var out []fileChange
	for p, edits := range byPath {
		if !workspace.Within(root, p) {
			return nil, fmt.Errorf("the edit touches %s, outside the root", p)
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", displayPath(root, p), err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if t, _ := srv.textOf(p); t != string(data) {
			return nil, fmt.Errorf("%s changed on disk since the server saw it: sync it (agent-tools/didWrite) and retry", displayPath(root, p))
		}
		edits = withoutRepeats(edits)
		text, err := applyEdits(string(data), edits, srv.enc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", displayPath(root, p), err)
		}
		ranges, texts := make([]Range, len(edits)), make([]string, len(edits))
		for i, e := range edits {
			ranges[i], texts[i] = e.Range, e.NewText
		}
		out = append(out, fileChange{path: p, old: string(data), new: text, mode: st.Mode().Perm(), edits: len(edits), ranges: ranges, texts: texts})
	}
	slices.SortFunc(out, func(a, b fileChange) int { return cmp.Compare(a.path, b.path) })
	return out, nil
}

// linesBefore is the file at path as the server has it (its content
// before changes), in lines with their terminators; nil when it cannot be
// read.
func (s *server) linesBefore(path string, changes []fileChange) []string {
	for _, c := range changes {
		if c.path == path {
			return splitLinesKeep(c.old)
		}
	}
	text, err := s.textOf(path)
	if err != nil {
		return nil
	}
	return splitLinesKeep(text)
}

// rangeText is the text of r, a range within one line, in lines
// (linesBefore); ok is false when it is not there.
func (s *server) rangeText(lines []string, r Range) (string, bool) {
	if r.Start.Line != r.End.Line || r.Start.Line >= len(lines) {
		return "", false
	}
	line := strings.TrimRight(lines[r.Start.Line], "\r\n")
	from, to := s.enc.byteOffset(line, r.Start.Character), s.enc.byteOffset(line, r.End.Character)
	if from > to || to > len(line) {
		return "", false
	}
	return line[from:to], true
}

// withoutRepeats drops an edit that repeats an earlier one exactly, the
// same range and text (an insertion aside, which LSP lets repeat): one
// change sent twice, not two that overlap. typescript-language-server
// sends the export specifier of a function with overloads once per
// signature (tailwind-merge's `export { twJoin … }`, a TypeScript
// mutation test draw).
func withoutRepeats(edits []TextEdit) []TextEdit {
	var out []TextEdit
	for _, e := range edits {
		if e.Range.Start != e.Range.End && slices.Contains(out, e) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// applyEdits applies non-overlapping text edits to text.
func applyEdits(text string, edits []TextEdit, enc encoding) (string, error) {
	lines := splitLinesKeep(text)
	offset := func(p Position) (int, error) {
		if p.Line > len(lines) || p.Line < 0 {
			return 0, fmt.Errorf("edit position line %d is outside the file", p.Line+1)
		}
		base := 0
		for _, l := range lines[:p.Line] {
			base += len(l)
		}
		if p.Line == len(lines) {
			return base, nil
		}
		content := strings.TrimRight(lines[p.Line], "\r\n")
		return base + enc.byteOffset(content, p.Character), nil
	}
	type span struct {
		start, end int
		text       string
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		s, err := offset(e.Range.Start)
		if err != nil {
			return "", err
		}
		en, err := offset(e.Range.End)
		if err != nil {
			return "", err
		}
		if en < s {
			return "", errors.New("an edit ends before it starts")
		}
		spans = append(spans, span{s, en, e.NewText})
	}
	slices.SortStableFunc(spans, func(a, b span) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end)) })
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.start < last {
			return "", errors.New("the server sent overlapping edits")
		}
		b.WriteString(text[last:sp.start])
		b.WriteString(sp.text)
		last = sp.end
	}
	b.WriteString(text[last:])
	return b.String(), nil
}

// splitLinesKeep splits text after each "\n", keeping the terminators.
func splitLinesKeep(text string) []string {
	return strings.SplitAfter(text, "\n")
}

// writeChanges writes every change or none (internal/atomicfile): if a
// file cannot be written, the ones already replaced get their old content
// back and the error says so.
func writeChanges(changes []fileChange) error {
	out := make([]atomicfile.Change, len(changes))
	for i, c := range changes {
		out[i] = atomicfile.Change{Path: c.path, Old: []byte(c.old), New: []byte(c.new), Mode: c.mode}
	}
	return atomicfile.WriteAll(out)
}

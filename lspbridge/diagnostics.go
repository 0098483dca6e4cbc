// This file defines the lsp tool's diagnostics action for one file: sync
// it and wait for the diagnostics of that version.

package lspbridge

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// convertDiags turns a server's diagnostics for path (whose text the
// server has) into results.
func convertDiags(root string, enc encoding, path, text string, ds []Diagnostic) []Diag {
	lines := splitLines(text)
	out := make([]Diag, 0, len(ds))
	for _, d := range ds {
		if isErrorLimit(d) {
			continue // not an error in the code: errorLimitNote says what it means
		}
		if isHeader(path) && mainFileArtifact(d) {
			continue
		}
		line := ""
		if d.Range.Start.Line < len(lines) {
			line = lines[d.Range.Start.Line]
		}
		out = append(out, Diag{Path: displayPath(root, path), Line: d.Range.Start.Line + 1, Col: enc.column(line, d.Range.Start.Character),
			Severity: severityName(d.Severity), Code: codeString(d.Code), Source: d.Source, Message: d.Message, Text: strings.TrimSpace(line)})
	}
	sortDiags(out)
	return out
}

// mainFileArtifact reports what clang says of a header only because it
// compiles the header as its main file, as clangd does with an open one:
// "#pragma once in main file", and "main file cannot be included
// recursively" where a header's #include <endian.h> finds itself through
// an include directory (go-tree-sitter's portable/endian.h, under -I
// src/portable; gcc, compiling the .c files, takes it once and is silent).
// Neither is an error of the code.
func mainFileArtifact(d Diagnostic) bool {
	switch codeString(d.Code) {
	case "pp_pragma_once_in_main_file", "pp_including_mainfile_in_preamble":
		return true
	}
	return d.Message == "#pragma once in main file"
}

// isErrorLimit reports whether d is clang's "Too many errors emitted,
// stopping now" (fatal_too_many_errors), which clangd publishes in place
// of the errors past its limit (20 a file by default).
func isErrorLimit(d Diagnostic) bool { return codeString(d.Code) == "fatal_too_many_errors" }

// errorLimitNote says, when the server stopped listing path's errors at
// its limit, that the ones past it are missing from the answer ("" when
// it did not). A write that crosses the limit turns that marker on, and it
// is no error of the write's: it is left out of the list and said here.
func errorLimitNote(srv *server, root, path string, ds []Diagnostic) string {
	if !slices.ContainsFunc(ds, isErrorLimit) {
		return ""
	}
	return fmt.Sprintf("%s stopped listing the errors of %s at its limit (clang's \"too many errors\"): the errors past it are not listed, and new ones among them may be missing", srv.cfg.Name, displayPath(root, path))
}

// includedNote says, when the server reported errors of headers path
// includes the way clangd does — the first error of each header only, as
// "In included file: …" at its #include — that the headers' other errors
// are not listed ("" when there is none).
func includedNote(srv *server, root, path string, ds []Diagnostic) string {
	if !slices.ContainsFunc(ds, func(d Diagnostic) bool { return strings.HasPrefix(d.Message, "In included file") }) {
		return ""
	}
	return fmt.Sprintf("%s shows only the first error of each header %s includes (\"In included file\", at the #include): the headers' other errors are not listed, and new ones there may be missing", srv.cfg.Name, displayPath(root, path))
}

// headerNote says, when a server that compiles translation units (one
// that reads included files from disk, as clangd does) checks a header,
// what compiling it on its own leaves unsure ("" for other files, and for
// a header with no error and no #if but its include guard): its errors
// may be defined away by what every real includer puts before it, and
// code its #if branches leave out on its own may be taken where it is
// included, and is not checked, not even through its includers, whose
// answers leave out errors in a header's function bodies (clangd 14 reads
// the headers at the top of a file without them; gcc sees them).
// In go-tree-sitter's sources, restoring a deleted #include in
// unicode/utf8.h made clangd list 5 errors there that gcc, compiling the
// .c files, never sees; and a typo in clock.h's `#elif
// defined(CLOCK_MONOTONIC)` branch, which its includers take, was
// invisible to clangd.
func headerNote(srv *server, root, path, text string, ds []Diagnostic) string {
	switch filepath.Ext(path) {
	case ".h", ".hh", ".hpp", ".hxx":
	default:
		return ""
	}
	if !srv.cfg.DiskIncludes {
		return ""
	}
	var unsure []string
	if slices.ContainsFunc(ds, func(d Diagnostic) bool { return d.Severity == 1 }) {
		unsure = append(unsure, "an error there may not occur where it is included")
	}
	if hasConditionalCode(text) {
		// Nor do its includers' answers make up for it: clangd reads the
		// headers at the top of a file without their function bodies.
		unsure = append(unsure, "code that its #if branches leave out on its own may be taken where it is included, and is not checked (the answers for the files that include it do not show errors inside its function bodies either)")
	}
	if len(unsure) == 0 {
		return ""
	}
	return fmt.Sprintf("%s compiles the header %s on its own, not after what the files that include it put before it: %s; a compiler run over a source file that includes it shows what the build sees",
		srv.cfg.Name, displayPath(root, path), strings.Join(unsure, "; "))
}

// conditionalRe matches a line of C's #if, #ifdef, #ifndef or #elif.
var conditionalRe = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef)\b`)

// hasConditionalCode reports C source with a conditional directive other
// than its include guard (see guardOf).
func hasConditionalCode(text string) bool {
	switch len(conditionalRe.FindAllStringIndex(text, 2)) {
	case 0:
		return false
	case 1:
		return guardOf(text) == ""
	}
	return true
}

// errorsAndWarnings keeps severities error and warning; it returns how
// many others it dropped.
func errorsAndWarnings(ds []Diag) ([]Diag, int) {
	var out []Diag
	for _, d := range ds {
		if d.Severity == "error" || d.Severity == "warning" {
			out = append(out, d)
		}
	}
	return out, len(ds) - len(out)
}

// fileDiagnostics syncs path with its server and returns the diagnostics
// of the version it sent.
func (s *Supervisor) fileDiagnostics(ctx context.Context, root, path string) (*server, []Diag, error) {
	srv, ds, _, err := s.fileDiagnosticsState(ctx, root, path)
	return srv, ds, err
}

// fileDiagnosticsState is fileDiagnostics that also says what the answer
// rests on, in words ("" when the server settled).
func (s *Supervisor) fileDiagnosticsState(ctx context.Context, root, path string) (*server, []Diag, string, error) {
	srv, sr, limit, err := s.syncFile(ctx, root, path)
	if err != nil {
		return srv, nil, "", err
	}
	ds, state, err := srv.diagnosticsSilent(ctx, path, sr, limit)
	if err != nil {
		return srv, nil, "", err
	}
	headerSaid := headerNote(srv, root, path, sr.text, ds)
	if inc := srv.headerIncluder(ctx, path); inc != nil {
		if cds, cstate, ok, err := srv.headerInContext(ctx, inc, path, sr.text, "now", limit); err == nil && ok {
			ds, state, headerSaid = cds, max(state, cstate), ""
			if shown, _ := errorsAndWarnings(convertDiags(root, srv.enc, path, sr.text, cds)); len(shown) > 0 {
				headerSaid = contextNote(srv, root, path, inc)
			}
		}
	}
	note := ""
	switch state {
	case silent:
		note = fmt.Sprintf("%s sends no versions and published nothing for this content within %s: taken as unchanged since its last answer; if it is still checking (a big project, a loaded machine), ask again", srv.cfg.Name, s.opts.QuietWindow)
	case unsettled:
		note = fmt.Sprintf("%s was still publishing for this content when the wait ended (%s): the list may be incomplete; ask again for the settled answer", srv.cfg.Name, limit)
	}
	if failed := srv.failure(); failed != "" {
		note = strings.TrimPrefix(note+"; ", "; ") + fmt.Sprintf("%s says it failed (%s): what it checks may be incomplete", srv.cfg.Name, failed)
	}
	for _, more := range []string{errorLimitNote(srv, root, path, ds), includedNote(srv, root, path, ds), headerSaid} {
		if more != "" {
			note = strings.TrimPrefix(note+"; ", "; ") + more
		}
	}
	return srv, convertDiags(root, srv.enc, path, sr.text, ds), note, nil
}

// syncFile syncs path with its server and returns how long to wait for
// its diagnostics: a server that has not published anything for the file
// yet gets the ready budget, others the diagnostics cap.
func (s *Supervisor) syncFile(ctx context.Context, root, path string) (*server, syncResult, time.Duration, error) {
	srv, err := s.serverFor(ctx, root, path)
	if err != nil {
		return nil, syncResult{}, 0, err
	}
	srv.mu.Lock()
	seen := srv.diags[path] != nil
	srv.mu.Unlock()
	sr, err := srv.sync(ctx, path)
	if err != nil {
		return srv, syncResult{}, 0, err
	}
	if !sr.changed && srv.outdated(path) {
		// Other files changed since this version was sent (a write to a
		// file it uses): what was published for it may predate that. A new
		// version makes the server answer for the current state of all.
		if sr, err = srv.syncText(ctx, path, sr.text, srv.doc(path).stamp, true); err != nil {
			return srv, syncResult{}, 0, err
		}
	}
	limit := s.opts.DiagnosticCap
	if !seen {
		limit = max(limit, s.opts.ReadyTimeout)
	}
	return srv, sr, limit, nil
}

// Diagnostics returns a file's errors and warnings, fresh for its current
// content; file "*" runs the project checkers instead. req.Since lists
// only the new ones (newdiags.go).
func (s *Supervisor) Diagnostics(ctx context.Context, req Request) (*Result, error) {
	if req.Since != "" && req.Since != "head" && req.Since != "last" {
		return nil, fmt.Errorf("argument 'since': want head or last, got %q", req.Since)
	}
	if req.File == "*" {
		return s.rootDiagnostics(ctx, req)
	}
	return s.oneFileDiagnostics(ctx, req)
}

// rootDiagnostics is Diagnostics for "*": the whole root, or what is new
// since the previous "*" answer.
func (s *Supervisor) rootDiagnostics(ctx context.Context, req Request) (*Result, error) {
	if req.Since == "head" {
		return nil, errors.New(`argument 'since': head compares one file with its committed content; for "*" use since last (this session's previous "*" answer), or name a file`)
	}
	r, err := s.projectDiagnostics(ctx, req.Root)
	if err != nil || req.Since == "" {
		if err == nil {
			s.answers.swap("*", &answer{diags: r.all})
		}
		return r, err
	}
	s.projectNewOnly(r)
	return r, nil
}

// oneFileDiagnostics is Diagnostics for one file: its errors and
// warnings, or what is new since git HEAD or the previous answer.
func (s *Supervisor) oneFileDiagnostics(ctx context.Context, req Request) (*Result, error) {
	path, err := existingFile(req.Root, req.File)
	if err != nil {
		return nil, err
	}
	var base []Diag
	var baseText, why string
	baseKnown := false
	if req.Since == "head" {
		srv, err := s.serverFor(ctx, req.Root, path)
		if err != nil {
			return nil, err
		}
		base, baseText, baseKnown, why = s.headBaseline(ctx, srv, req.Root, path)
	}
	srv, ds, note, err := s.fileDiagnosticsState(ctx, req.Root, path)
	if err != nil {
		return nil, err
	}
	ds, dropped := errorsAndWarnings(ds)
	cur, _ := srv.textOf(path)
	prev := s.answers.swap(path, &answer{diags: ds, text: cur})
	shown := displayPath(req.Root, path)
	r := &Result{Action: "diagnostics", Server: srv.cfg.Name, Diagnostics: ds, Shown: len(ds), Total: len(ds)}
	r.Summary = fmt.Sprintf("%d errors and warnings in %s", len(ds), shown)
	switch req.Since {
	case "last":
		if prev != nil {
			base, baseText, baseKnown = prev.diags, prev.text, true
		} else {
			why = "the first diagnostics answer for it in this session"
		}
		fallthrough
	case "head":
		if why == "same" {
			base, baseText, why = ds, cur, ""
		}
		s.newOnly(r, req.Since, shown, base, baseText, cur, baseKnown, why)
	}
	if dropped > 0 {
		r.Summary += fmt.Sprintf(" (%d infos and hints not shown)", dropped)
	}
	if note != "" {
		r.Summary += "; " + note
	}
	return r, nil
}

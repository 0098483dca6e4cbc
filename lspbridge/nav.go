// This file defines the lsp tool's navigation actions: definition,
// type_definition, implementation, references, hover and code_actions,
// all addressed by line + symbol.

package lspbridge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Request is an lsp action's arguments, with the run's root.
type Request struct {
	Root       string // the run's root (absolute)
	File       string // as the agent gave it
	Line       int    // 1-based
	Symbol     string
	Occurrence int // 1-based; 0 = the only one
	Query      string
	// Depth is an outline's nesting levels (0: the declarations view).
	Depth int
	// IncludeLibraries lists workspace symbols outside the root too.
	IncludeLibraries bool
	// IgnoreTextual makes lsp_rename apply the server's edits although a
	// word search finds uses of the old name in files it does not touch.
	IgnoreTextual bool
	// Since makes diagnostics list only what is new: "head" (against the
	// file at git HEAD) or "last" (against this session's previous
	// answer); "" lists everything.
	Since string
	// Progress, when set, is told what a long wait is waiting for (the
	// tool adapter turns it into MCP progress notifications).
	Progress func(message string)
}

// whole says whether an action's answer needs the server's whole-project
// knowledge (its index), and so waits for its loading and indexing.
var whole = map[string]bool{"references": true, "implementation": true}

// incompleteNote is the text for an answer given while the server still
// loads or indexes.
func incompleteNote(srv *server, pending, what string) string {
	if failed := srv.failure(); failed != "" && pending == "" {
		return fmt.Sprintf("%s says it failed (%s): %s may be incomplete", srv.cfg.Name, failed, what)
	}
	return fmt.Sprintf("%s is still busy (%s): %s may be incomplete; ask again when it is done%s", srv.cfg.Name, pending, what, starvedNote(srv))
}

// Caps of list results.
const (
	referencesCap       = 50
	workspaceSymbolsCap = 100
	documentSymbolsCap  = 200
)

// errStillLoading is the answer instead of an empty list while a server
// has not finished loading.
var errStillLoading = errors.New("server still loading")

// aimed is a request resolved to a server and a position.
type aimed struct {
	srv     *server
	path    string
	pos     Position
	target  string // path:line:col symbol
	inside  string // the longer name the symbol was found in, if only part of one
	name    string // the symbol's text at pos
	aimNote string // says so, for the result
	ready   bool
}

// aim opens the file in its server, resolves line+symbol and waits
// (bounded) for the server to be ready.
func (s *Supervisor) aim(ctx context.Context, req Request) (*aimed, error) {
	path, srv, err := s.fileServer(ctx, req)
	if err != nil {
		return nil, err
	}
	sr, err := srv.sync(ctx, path)
	if err != nil {
		return nil, err
	}
	tgt, err := locate(sr.text, req.Line, req.Symbol, req.Occurrence)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", displayPath(req.Root, path), err)
	}
	line := splitLines(sr.text)[tgt.Line]
	a := &aimed{srv: srv, path: path, pos: Position{Line: tgt.Line, Character: srv.enc.character(line, tgt.StartByte)}, name: line[tgt.StartByte:tgt.EndByte]}
	a.target = fmt.Sprintf("%s:%d:%d %s", displayPath(req.Root, path), req.Line, runeCol(line, tgt.StartByte), line[tgt.StartByte:tgt.EndByte])
	if tgt.Inside != "" {
		a.inside = tgt.Inside
		a.aimNote = fmt.Sprintf("`%s` is on line %d only as part of the longer name `%s`: the answer is for `%s`", line[tgt.StartByte:tgt.EndByte], req.Line, tgt.Inside, tgt.Inside)
	}
	a.ready = srv.waitReady(ctx, path, s.opts.ReadyTimeout)
	return a, ctx.Err()
}

func runeCol(line string, byteOff int) int { return len([]rune(line[:byteOff])) + 1 }

// existingFile resolves an agent's path and checks that it is a file.
func existingFile(root, p string) (string, error) {
	path, err := resolvePath(root, p)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("argument 'file': %s does not exist", p)
	}
	if st.IsDir() {
		return "", fmt.Errorf("argument 'file': %s is a directory, want a file", p)
	}
	return path, nil
}

func (a *aimed) params() TextDocumentPositionParams {
	return TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: fileURI(a.path)}, Position: a.pos}
}

// locationMethods maps navigation actions to LSP methods.
var locationMethods = map[string]struct {
	method string
	cap    func(ServerCapabilities) json.RawMessage
	what   string
}{
	"definition":      {"textDocument/definition", func(c ServerCapabilities) json.RawMessage { return c.DefinitionProvider }, "definitions"},
	"type_definition": {"textDocument/typeDefinition", func(c ServerCapabilities) json.RawMessage { return c.TypeDefinitionProvider }, "type definitions"},
	"implementation":  {"textDocument/implementation", func(c ServerCapabilities) json.RawMessage { return c.ImplementationProvider }, "implementations"},
	"references":      {"textDocument/references", func(c ServerCapabilities) json.RawMessage { return c.ReferencesProvider }, "references"},
}

// Locations runs definition, type_definition, implementation or
// references.
func (s *Supervisor) Locations(ctx context.Context, action string, req Request) (*Result, error) {
	m, ok := locationMethods[action]
	if !ok {
		return nil, fmt.Errorf("unknown location action %q", action)
	}
	a, err := s.aim(ctx, req)
	if err != nil {
		return nil, err
	}
	if !supported(m.cap(a.srv.caps)) {
		return nil, fmt.Errorf("%s does not support %s", a.srv.cfg.Name, action)
	}
	var params any = a.params()
	if action == "references" {
		params = ReferenceParams{TextDocumentPositionParams: a.params(), Context: ReferenceContext{IncludeDeclaration: true}}
	}
	pending := ""
	if whole[action] {
		pending = a.srv.waitIndexed(ctx, s.opts.IndexTimeout, req.Progress)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	var raw json.RawMessage
	if err := a.srv.call(ctx, m.method, params, &raw); err != nil {
		return nil, err
	}
	locs, err := parseLocations(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.method, err)
	}
	if len(locs) == 0 && !a.ready {
		return nil, loadingError(a.srv, s.opts)
	}
	out := s.renderLocations(req.Root, a.srv, locs)
	total := len(out)
	limit := len(out)
	if action == "references" {
		limit = min(limit, referencesCap)
	}
	r := &Result{Action: action, Server: a.srv.cfg.Name, Target: a.target, Aim: a.aimNote, Locations: out[:limit], Shown: limit, Total: total}
	r.Summary = shownOf(limit, total, m.what)
	if total == 0 {
		r.Summary = fmt.Sprintf("no %s found (the server answered with none)", m.what)
	}
	if pending != "" || a.srv.failure() != "" {
		r.Incomplete = incompleteNote(a.srv, pending, m.what)
	}
	if !a.ready {
		r.Incomplete = strings.TrimPrefix(r.Incomplete+"; ", "; ") + loadingNote(a.srv, s.opts, m.what)
	}
	if r.Incomplete != "" {
		r.Summary += "; " + r.Incomplete
	}
	return r, nil
}

// loadingNote says an answer came while the server was still loading the
// project: typescript-language-server, asked for a definition before it
// had read the project, answered with the import line itself (found by
// internal/lspdiff on zod).
func loadingNote(srv *server, opts Options, what string) string {
	return fmt.Sprintf("%s had not finished loading %s after %s when it answered: %s may be wrong or incomplete; ask again in a few seconds",
		srv.cfg.Name, displayRoot(srv.root, srv.root), opts.ReadyTimeout, what)
}

func loadingError(srv *server, opts Options) error {
	return fmt.Errorf("%w: %s has not finished loading %s after %s; try again in a few seconds (an empty answer now would be meaningless)",
		errStillLoading, srv.cfg.Name, displayRoot(srv.root, srv.root), opts.ReadyTimeout)
}

// parseLocations decodes Location | Location[] | LocationLink[] | null.
func parseLocations(raw json.RawMessage) ([]Location, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil
	}
	if strings.HasPrefix(s, "{") {
		var l Location
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, err
		}
		return []Location{l}, nil
	}
	var items []struct {
		Location
		LocationLink
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	out := make([]Location, 0, len(items))
	for _, l := range items {
		if l.TargetURI != "" {
			out = append(out, Location{URI: l.TargetURI, Range: l.TargetSelectionRange})
		} else {
			out = append(out, l.Location)
		}
	}
	// Not a header's unsaved unit (headerctx.go), open for a moment.
	return slices.DeleteFunc(out, func(l Location) bool { return isContextFile(uriPath(l.URI)) }), nil
}

// lineCache reads source lines for rendering positions.
type lineCache struct {
	srv   *server
	files map[string][]string
}

func (c *lineCache) line(path string, n int) string {
	lines, ok := c.files[path]
	if !ok {
		text, err := c.srv.textOf(path)
		if err == nil {
			lines = splitLines(text)
		}
		c.files[path] = lines
	}
	if n >= 0 && n < len(lines) {
		return lines[n]
	}
	return ""
}

// renderLocations makes 1-based, root-relative, sorted locations with
// their source lines.
func (s *Supervisor) renderLocations(root string, srv *server, locs []Location) []Loc {
	lc := &lineCache{srv: srv, files: map[string][]string{}}
	out := make([]Loc, 0, len(locs))
	var paths []string
	defer func() { srv.see(paths...); s.remember(root, srv, paths...) }()
	for _, l := range locs {
		path := uriPath(l.URI)
		paths = append(paths, path)
		line := lc.line(path, l.Range.Start.Line)
		out = append(out, Loc{Path: displayPath(root, path), Line: l.Range.Start.Line + 1,
			Col: srv.enc.column(line, l.Range.Start.Character), Text: strings.TrimSpace(line)})
	}
	slices.SortFunc(out, func(a, b Loc) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	return slices.CompactFunc(out, func(a, b Loc) bool { return a.Path == b.Path && a.Line == b.Line && a.Col == b.Col })
}

// Hover returns the hover text at line + symbol, as markdown.
func (s *Supervisor) Hover(ctx context.Context, req Request) (*Result, error) {
	a, err := s.aim(ctx, req)
	if err != nil {
		return nil, err
	}
	if !supported(a.srv.caps.HoverProvider) {
		return nil, fmt.Errorf("%s does not support hover", a.srv.cfg.Name)
	}
	var h *Hover
	if err := a.srv.call(ctx, "textDocument/hover", a.params(), &h); err != nil {
		return nil, err
	}
	text := ""
	if h != nil {
		text = markdown(h.Contents)
	}
	if text == "" && !a.ready {
		return nil, loadingError(a.srv, s.opts)
	}
	text, more := capHover(text)
	r := &Result{Action: "hover", Server: a.srv.cfg.Name, Target: a.target, Aim: a.aimNote, Hover: text, HoverMoreLines: more, Shown: 1, Total: 1}
	if text == "" {
		r.Summary, r.Shown, r.Total = "no hover information (the server answered with none)", 0, 0
	}
	if !a.ready {
		r.Incomplete = loadingNote(a.srv, s.opts, "the hover")
		r.Summary = strings.TrimPrefix(r.Summary+"; ", "; ") + r.Incomplete
	}
	return r, nil
}

// hoverLines caps a hover's text: a long docstring is cut after it.
const hoverLines = 40

// capHover keeps the first hoverLines lines of a hover, closes a code
// block the cut leaves open, and ends with "… (N more lines)"; more is N.
func capHover(text string) (capped string, more int) {
	lines := strings.Split(text, "\n")
	if len(lines) <= hoverLines {
		return text, 0
	}
	kept, more := lines[:hoverLines], len(lines)-hoverLines
	fences := 0
	for _, l := range kept {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fences++
		}
	}
	if fences%2 == 1 {
		kept = append(kept, "```")
	}
	return strings.Join(kept, "\n") + fmt.Sprintf("\n… (%d more lines)", more), more
}

// markdown renders MarkupContent | MarkedString | MarkedString[].
func markdown(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var mc struct {
		Kind     string `json:"kind"`
		Language string `json:"language"`
		Value    string `json:"value"`
	}
	if json.Unmarshal(raw, &mc) == nil && mc.Value != "" {
		if mc.Language != "" {
			return "```" + mc.Language + "\n" + strings.TrimSpace(mc.Value) + "\n```"
		}
		return strings.TrimSpace(mc.Value)
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		var parts []string
		for _, p := range arr {
			if t := markdown(p); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// CodeActions lists the code actions offered at line + symbol; nothing is
// applied.
func (s *Supervisor) CodeActions(ctx context.Context, req Request) (*Result, error) {
	a, err := s.aim(ctx, req)
	if err != nil {
		return nil, err
	}
	if !supported(a.srv.caps.CodeActionProvider) {
		return nil, fmt.Errorf("%s does not support code actions", a.srv.cfg.Name)
	}
	// Quick fixes are offered for the diagnostics sent along: wait
	// (bounded) for the line's diagnostics of the current version first.
	var current []Diagnostic
	if d := a.srv.doc(a.path); d != nil {
		current, _ = s.settledDiagnostics(ctx, a.srv, a.path)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var onLine []Diagnostic
	{
		for _, d := range current {
			if d.Range.Start.Line <= a.pos.Line && a.pos.Line <= d.Range.End.Line {
				onLine = append(onLine, d)
			}
		}
	}
	if onLine == nil {
		onLine = []Diagnostic{}
	}
	params := CodeActionParams{
		TextDocument: a.params().TextDocument,
		Range:        Range{Start: a.pos, End: a.pos},
		Context:      CodeActionContext{Diagnostics: onLine, TriggerKind: 1},
	}
	var acts []CodeAction
	if err := a.srv.call(ctx, "textDocument/codeAction", params, &acts); err != nil {
		return nil, err
	}
	r := &Result{Action: "code_actions", Server: a.srv.cfg.Name, Target: a.target, Aim: a.aimNote, Shown: len(acts), Total: len(acts)}
	for _, c := range acts {
		r.CodeActions = append(r.CodeActions, Action{Title: c.Title, Kind: c.Kind})
	}
	r.Summary = shownOf(len(acts), len(acts), "code actions")
	if len(acts) == 0 {
		r.Summary = "no code actions offered here"
	}
	return r, nil
}

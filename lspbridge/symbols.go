// This file defines the lsp tool's symbols action: workspace symbols for a
// query, or a document's outline for a file.

package lspbridge

import (
	"context"
	"errors"
	"fmt"

	"github.com/agent-tools/agent-tools/internal/workspace"
)

// Symbols searches the workspace for req.Query (cap 100; see wsymbols.go)
// or, without a query, lists req.File's outline (cap 200) at the
// symbols' names (selectionRange), shaped as outline.go says: the
// declarations to two levels, or with req.Depth the server's tree to that
// depth.
func (s *Supervisor) Symbols(ctx context.Context, req Request) (*Result, error) {
	if req.Query == "" && req.File == "" {
		return nil, errors.New("symbols needs 'query' (workspace search) or 'file' (that file's outline)")
	}
	if req.Query != "" {
		return s.workspaceSymbols(ctx, req)
	}
	return s.fileOutline(ctx, req)
}

// fileOutline is Symbols for a file: the server's document symbols shaped
// into an outline (see outline.go).
func (s *Supervisor) fileOutline(ctx context.Context, req Request) (*Result, error) {
	if req.Depth < 0 || req.Depth > maxOutlineDepth {
		return nil, fmt.Errorf("argument 'depth': want 1 to %d levels, got %d (leave it out for the declarations, %d levels)", maxOutlineDepth, req.Depth, defaultOutlineDepth)
	}
	path, srv, err := s.fileServer(ctx, req)
	if err != nil {
		return nil, err
	}
	if !supported(srv.caps.DocumentSymbolProvider) {
		return nil, fmt.Errorf("%s does not support document symbols", srv.cfg.Name)
	}
	if _, err := srv.sync(ctx, path); err != nil {
		return nil, err
	}
	ready := srv.waitReady(ctx, path, s.opts.ReadyTimeout)
	var tree []DocumentSymbol
	if err := srv.call(ctx, "textDocument/documentSymbol", DocumentSymbolParams{TextDocument: TextDocumentIdentifier{URI: fileURI(path)}}, &tree); err != nil {
		return nil, err
	}
	if len(tree) == 0 && !ready {
		return nil, loadingError(srv, s.opts)
	}
	depth, raw := defaultOutlineDepth, req.Depth > 0
	if raw {
		depth = req.Depth
	}
	shaped, depths, hidden := shapeOutline(tree, depth, raw, srv.cfg.Name == "clangd")
	lc := &lineCache{srv: srv, files: map[string][]string{}}
	all := make([]Sym, 0, len(shaped))
	for i, d := range shaped {
		p, r := path, d.SelectionRange
		if d.Location != nil { // flat SymbolInformation
			p, r = uriPath(d.Location.URI), d.Location.Range
		}
		line := lc.line(p, r.Start.Line)
		all = append(all, Sym{Name: d.Name, Kind: symbolKind(d.Kind), Path: displayPath(req.Root, p),
			Line: r.Start.Line + 1, Col: srv.enc.column(line, r.Start.Character), Depth: depths[i]})
	}
	return outlineResult(srv.cfg.Name, req.Root, path, all, depth, raw, hidden), nil
}

// outlineResult is the answer for a file's outline of depth levels (raw:
// the server's own tree), saying what was hidden and how to see what the
// cap left out.
func outlineResult(server, root, path string, all []Sym, depth int, raw bool, hidden hiddenCounts) *Result {
	what := "symbols in " + displayPath(root, path)
	if !raw {
		what += " (declarations, " + levels(depth) + ")"
	} else {
		what += " (the server's tree, " + levels(depth) + ")"
	}
	res := symbolResult(server, all, documentSymbolsCap, what)
	if n := hidden.total(); n > 0 {
		res.Hidden = n
		how := fmt.Sprintf("pass depth (1-%d) for the server's own tree to that depth, these included", maxOutlineDepth)
		if raw {
			how = fmt.Sprintf("pass a larger depth (up to %d) to see them", maxOutlineDepth)
		}
		res.Summary += fmt.Sprintf("; %d hidden (%s): %s", n, hidden.String(depth), how)
	}
	if res.Shown < res.Total {
		// Nothing pages an outline: say how to reach what is past the cap.
		how := "pass depth 1 for the top level only, or query to find a name"
		if raw && depth == 1 {
			how = "pass query to find a name"
		}
		res.Summary += fmt.Sprintf("; entries after line %d are not listed: %s", all[res.Shown-1].Line, how)
	}
	return res
}

func symbolResult(server string, all []Sym, limit int, what string) *Result {
	shown := min(len(all), limit)
	r := &Result{Action: "symbols", Server: server, Symbols: all[:shown], Shown: shown, Total: len(all), Summary: shownOf(shown, len(all), what)}
	if len(all) == 0 {
		r.Summary = "no " + what
	}
	return r
}

// running lists the live servers whose root is inside runRoot.
func (s *Supervisor) running(runRoot string) []*server {
	runRoot = canonical(runRoot)
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*server
	for k, e := range s.servers {
		if e.srv != nil && !e.srv.exited() && workspace.Within(runRoot, k.root) {
			out = append(out, e.srv)
		}
	}
	return out
}

// levels is "1 level" or "N levels".
func levels(n int) string {
	if n == 1 {
		return "1 level"
	}
	return fmt.Sprintf("%d levels", n)
}

// This file defines the lsp tool's symbols action: workspace symbols for a
// query, or a document's outline for a file.

package lspbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agent-tools/agent-tools/internal/workspace"
)

// Symbols searches the workspace for req.Query (cap 100) or, without a
// query, lists req.File's symbols (cap 200) at their names
// (selectionRange).
func (s *Supervisor) Symbols(ctx context.Context, req Request) (*Result, error) {
	if req.Query == "" && req.File == "" {
		return nil, errors.New("symbols needs 'query' (workspace search) or 'file' (that file's outline)")
	}
	if req.Query != "" {
		return s.workspaceSymbols(ctx, req)
	}
	path, err := existingFile(req.Root, req.File)
	if err != nil {
		return nil, err
	}
	srv, err := s.serverFor(ctx, req.Root, path)
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
	var raw []DocumentSymbol
	if err := srv.call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": TextDocumentIdentifier{URI: fileURI(path)}}, &raw); err != nil {
		return nil, err
	}
	if len(raw) == 0 && !ready {
		return nil, loadingError(srv, s.opts)
	}
	lc := &lineCache{srv: srv, files: map[string][]string{}}
	var all []Sym
	var walk func(ds []DocumentSymbol, depth int)
	walk = func(ds []DocumentSymbol, depth int) {
		for _, d := range ds {
			p, r := path, d.SelectionRange
			if d.Location != nil { // flat SymbolInformation
				p, r = uriPath(d.Location.URI), d.Location.Range
			}
			line := lc.line(p, r.Start.Line)
			all = append(all, Sym{Name: d.Name, Kind: symbolKind(d.Kind), Path: displayPath(req.Root, p),
				Line: r.Start.Line + 1, Col: srv.enc.column(line, r.Start.Character), Depth: depth})
			walk(d.Children, depth+1)
		}
	}
	walk(raw, 0)
	return symbolResult(srv.cfg.Name, all, documentSymbolsCap, "symbols in "+displayPath(req.Root, path)), nil
}

func symbolResult(server string, all []Sym, limit int, what string) *Result {
	shown := min(len(all), limit)
	r := &Result{Action: "symbols", Server: server, Symbols: all[:shown], Shown: shown, Total: len(all), Summary: shownOf(shown, len(all), what)}
	if len(all) == 0 {
		r.Summary = "no " + what
	}
	return r
}

// workspaceSymbols asks the file's server (or, without a file, every
// running server of the root) for symbols matching the query.
func (s *Supervisor) workspaceSymbols(ctx context.Context, req Request) (*Result, error) {
	var srvs []*server
	if req.File != "" {
		path, err := existingFile(req.Root, req.File)
		if err != nil {
			return nil, err
		}
		srv, err := s.serverFor(ctx, req.Root, path)
		if err != nil {
			return nil, err
		}
		if _, err := srv.sync(ctx, path); err != nil {
			return nil, err
		}
		srv.waitReady(ctx, path, s.opts.ReadyTimeout)
		srvs = append(srvs, srv)
	} else {
		srvs = s.running(req.Root)
		if len(srvs) == 0 {
			return nil, errors.New("no language server runs for this root yet: pass 'file' (any file of the project) so that its server is started and asked")
		}
		for _, srv := range srvs {
			if err := srv.refresh(ctx); err != nil {
				return nil, err
			}
		}
	}
	var all []Sym
	var names, pending []string
	for _, srv := range srvs {
		if !supported(srv.caps.WorkspaceSymbolProvider) {
			continue
		}
		if p := srv.waitIndexed(ctx, s.opts.IndexTimeout, req.Progress); p != "" {
			pending = append(pending, incompleteNote(srv, p, "workspace symbols"))
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		names = append(names, srv.cfg.Name)
		var raw json.RawMessage
		if err := srv.call(ctx, "workspace/symbol", map[string]string{"query": req.Query}, &raw); err != nil {
			return nil, err
		}
		var infos []SymbolInformation
		json.Unmarshal(raw, &infos)
		lc := &lineCache{srv: srv, files: map[string][]string{}}
		for _, in := range infos {
			p := uriPath(in.Location.URI)
			col := in.Location.Range.Start.Character + 1
			if _, err := os.Stat(p); err == nil {
				col = srv.enc.column(lc.line(p, in.Location.Range.Start.Line), in.Location.Range.Start.Character)
			}
			all = append(all, Sym{Name: in.Name, Kind: symbolKind(in.Kind), Path: displayPath(req.Root, p),
				Line: in.Location.Range.Start.Line + 1, Col: col, Container: in.ContainerName})
		}
	}
	if len(names) == 0 {
		return nil, errors.New("no running server supports workspace symbols")
	}
	r := symbolResult(strings.Join(names, ","), all, workspaceSymbolsCap, fmt.Sprintf("workspace symbols matching %q", req.Query))
	if len(pending) > 0 {
		r.Incomplete = strings.Join(pending, "; ")
		r.Summary += "; " + r.Incomplete
	}
	return r, nil
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

package lspbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// Pulled diagnostics (textDocument/diagnostic). A server that offers them
// answers for the content it has, once it has checked it: the answer is
// the settled one, with no quiet window to wait out. pyright offers them
// only by dynamic registration, and only to a client that declares it can
// take one; it then stops pushing diagnostics altogether.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#textDocument_pullDiagnostics

// clientCapabilities is what we tell this server we support: the shared
// set, plus dynamic registration of pulled diagnostics for a server
// configured to pull (told only to it, so that no other server changes
// how it publishes).
func (s *server) clientCapabilities() map[string]any {
	if !s.cfg.PullDiagnostics {
		return clientCapabilities
	}
	caps := maps.Clone(clientCapabilities)
	td := maps.Clone(caps["textDocument"].(map[string]any))
	td["diagnostic"] = map[string]any{"dynamicRegistration": true}
	caps["textDocument"] = td
	return caps
}

// onRegistration notes a registration of textDocument/diagnostic.
// pyright registers one at start and replaces it when its configuration
// arrives (a new registration, then the old one withdrawn); once it has
// registered it does not push again for its lifetime, so withdrawals are
// not tracked.
func (s *server) onRegistration(params json.RawMessage) {
	var p struct {
		Registrations []struct{ Method string } `json:"registrations"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range p.Registrations {
		if r.Method == "textDocument/diagnostic" && !s.pullSeen {
			s.pullSeen = true
			s.broadcastLocked()
		}
	}
}

// pullsNow reports whether diagnostics are pulled from this server: it
// offers them statically, or registered them. Once registered, pyright
// does not push again for its lifetime, so a registration withdrawn in
// passing (while it replaces one) does not turn pulling off.
func (s *server) pullsNow() bool {
	if supported(s.caps.DiagnosticProvider) || s.asksTSServer() {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pullSeen
}

// awaitPullRegistration waits, within ctx (the initialize budget), for a
// server configured to pull to register textDocument/diagnostic. pyright
// does so at once after initialized; a diagnostics wait begun before the
// registration arrived would wait for pushes that never come. It reports
// whether the registration came (an older pyright does not pull, and
// pushes instead).
func (s *server) awaitPullRegistration(ctx context.Context) bool {
	for {
		s.mu.Lock()
		seen, ch := s.pullSeen, s.changed
		s.mu.Unlock()
		if seen {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		case <-s.proc.Done():
			return false
		}
	}
}

// pullDiagnostics asks a server that offers pulled diagnostics for path's
// as of version, bounded by limit; ok is false when it does not offer
// them (the caller then waits for a push). The answer is recorded as the
// file's publication for version, so that what reads publications (a
// dependent's "before", readiness) sees it.
func (s *server) pullDiagnostics(ctx context.Context, path string, version int32, limit time.Duration) (ds []Diagnostic, ok bool, err error) {
	if !s.pullsNow() {
		return nil, false, nil
	}
	// The answer comes when the server has checked the file: its own
	// work, not silence, so it gets the ready budget where the caller's
	// limit is shorter.
	// A server's first answer also pays for its loading (pyright: the
	// standard library's stubs, the imports): the index budget.
	s.mu.Lock()
	first := !s.published
	s.mu.Unlock()
	limit = max(limit, s.opts.ReadyTimeout)
	if first {
		limit = max(limit, s.opts.IndexTimeout)
	}
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var rep DocumentDiagnosticReport
	if s.asksTSServer() {
		rep.Items, err = s.askTSServer(pctx, path)
		rep.Kind = "full"
		if errors.Is(err, errTSServerRefused) {
			// tsserver answered but would not check the file (a file
			// it has in no project): its pushes are the answer.
			s.log.Warn().Err(err).Msg("tsserver did not give diagnostics on request: waiting for its pushes instead")
			return nil, false, nil
		}
	} else {
		err = s.call(pctx, "textDocument/diagnostic", DocumentDiagnosticParams{TextDocument: TextDocumentIdentifier{URI: fileURI(path)}}, &rep)
	}
	switch {
	case err == nil && rep.Kind == "full":
		s.recordPull(path, version, rep.Items)
		return rep.Items, true, nil
	case err == nil:
		// "unchanged": we send no previousResultId, so this is not
		// expected; what we recorded last is the answer.
		s.mu.Lock()
		defer s.mu.Unlock()
		if p := s.diags[path]; p != nil {
			return p.diags, true, nil
		}
		return nil, true, nil
	case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return nil, true, fmt.Errorf("%w: %s had not finished checking %s within %s (it answers once it has checked the file; ask again later)",
			errNoFreshDiagnostics, s.cfg.Name, displayPath(s.root, path), limit)
	}
	return nil, true, err
}

// recordPull stores a pulled answer as path's publication for version.
func (s *server) recordPull(path string, version int32, ds []Diagnostic) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seq := uint64(1)
	if prev := s.diags[path]; prev != nil {
		seq = prev.seq + 1
	}
	v := version
	s.diags[path] = &published{version: &v, seq: seq, diags: ds}
	s.published = true
	s.lastPublish = time.Now()
	s.broadcastLocked()
}

// pulledReady is waitReady for a server whose diagnostics are pulled: it
// publishes nothing to wait for, but its answer for path comes once it
// has loaded the workspace and checked the file (pyright, started for a
// workspace symbol search, answered "no symbols" half a second in, before
// it had read the project's files).
func (s *server) pulledReady(ctx context.Context, path string, budget time.Duration) bool {
	d := s.doc(path)
	if d == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.published
	}
	s.mu.Lock()
	p := s.diags[path]
	s.mu.Unlock()
	if p != nil && p.version != nil && *p.version == d.version {
		return true
	}
	_, _, err := s.pullDiagnostics(ctx, path, d.version, budget)
	return err == nil
}

// Diagnostics asked of tsserver. typescript-language-server pushes
// diagnostics without versions and publishes nothing when a file's stay
// empty, so a wait on its pushes ends only in silence: a quiet window
// that a loaded machine or a big project outlasts ("taken as unchanged").
// It also offers the command typescript.tsserverRequest, which hands a
// request to tsserver as it is: the syntactic, semantic and suggestion
// diagnostics of a file, computed on request for the content tsserver
// has, are the answer for that content, as a pulled report is. Each is
// converted as typescript-language-server converts the ones it pushes, so
// the two compare.
// https://github.com/microsoft/TypeScript/blob/main/src/server/protocol.ts (SemanticDiagnosticsSyncRequest)

// tsserverRequest is the command that passes a request to tsserver.
const tsserverRequest = "typescript.tsserverRequest"

// asksTSServer says the server's diagnostics are asked of tsserver
// (ServerConfig.AskTSServer and the command offered).
func (s *server) asksTSServer() bool {
	return s.cfg.AskTSServer && s.caps.executes(tsserverRequest)
}

// errTSServerRefused is tsserver's answer without success to a request.
var errTSServerRefused = errors.New("tsserver refused the request")

// tsDiagnostic is tsserver's protocol.Diagnostic.
type tsDiagnostic struct {
	Start, End struct{ Line, Offset int }
	Text       string
	Code       json.RawMessage
	Category   string
	Source     string
}

// askTSServer asks tsserver for path's diagnostics of the three kinds it
// pushes.
func (s *server) askTSServer(ctx context.Context, path string) ([]Diagnostic, error) {
	out := []Diagnostic{}
	for _, command := range []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync", "suggestionDiagnosticsSync"} {
		var rep struct {
			Success bool
			Message string
			Body    []tsDiagnostic
		}
		params := ExecuteCommandParams{Command: tsserverRequest, Arguments: []any{command, map[string]any{"file": path}}}
		if err := s.call(ctx, "workspace/executeCommand", params, &rep); err != nil {
			var rpcErr *jsonrpc2.Error
			if errors.As(err, &rpcErr) {
				return nil, fmt.Errorf("%w: %s on %s: %v", errTSServerRefused, command, displayPath(s.root, path), err)
			}
			return nil, err
		}
		if !rep.Success {
			return nil, fmt.Errorf("%w: %s on %s: %s", errTSServerRefused, command, displayPath(s.root, path), rep.Message)
		}
		for _, d := range rep.Body {
			severity := 1 // "error", and what typescript-language-server does not name
			switch d.Category {
			case "warning":
				severity = 2
			case "suggestion":
				severity = 4
			}
			source := d.Source
			if source == "" {
				source = "typescript"
			}
			out = append(out, Diagnostic{
				Range:    Range{Start: Position{Line: d.Start.Line - 1, Character: d.Start.Offset - 1}, End: Position{Line: d.End.Line - 1, Character: d.End.Offset - 1}},
				Severity: severity, Code: d.Code, Source: source, Message: d.Text,
			})
		}
	}
	return out, nil
}

// This file holds what a server sends us unasked: its requests
// (workspace/configuration, capability registrations, ...), answered on a
// goroutine each, and its notifications (publishDiagnostics, $/progress),
// recorded under the server's mutex on the read loop.

package lspbridge

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// onRequest answers the server's requests. Unknown ones get "method not
// found", which servers tolerate.
func (s *server) onRequest(_ context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "workspace/configuration":
		return s.configuration(params), nil
	case "client/registerCapability":
		s.onRegistration(params)
		return nil, nil
	case "client/unregisterCapability", "window/workDoneProgress/create",
		"window/showMessageRequest", "workspace/diagnostic/refresh", "workspace/codeLens/refresh",
		"workspace/semanticTokens/refresh", "workspace/inlayHint/refresh", "workspace/inlineValue/refresh":
		return nil, nil
	case "workspace/workspaceFolders":
		return s.folders(), nil
	case "workspace/applyEdit":
		return ApplyWorkspaceEditResult{Applied: false, FailureReason: "agent-tools applies edits only through lsp_rename"}, nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "agent-tools does not serve " + method}
}

// configuration answers workspace/configuration from cfg.Settings.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#workspace_configuration
func (s *server) configuration(params json.RawMessage) []any {
	var p struct {
		Items []struct {
			Section string `json:"section"`
		} `json:"items"`
	}
	json.Unmarshal(params, &p)
	var settings map[string]any
	json.Unmarshal(s.cfg.Settings, &settings)
	out := make([]any, len(p.Items))
	for i, it := range p.Items {
		var v any = settings
		for _, part := range strings.Split(it.Section, ".") {
			m, ok := v.(map[string]any)
			if !ok || part == "" {
				if part != "" {
					v = nil
				}
				break
			}
			v = m[part]
		}
		out[i] = v
	}
	return out
}

// onNotify records what the server publishes. It runs on the read loop and
// only takes mu.
func (s *server) onNotify(method string, params json.RawMessage) {
	switch method {
	case "textDocument/publishDiagnostics":
		var p PublishDiagnosticsParams
		if json.Unmarshal(params, &p) == nil {
			s.onPublish(p)
		}
	case "$/progress":
		var p ProgressParams
		if json.Unmarshal(params, &p) == nil {
			s.onProgress(p)
		}
	}
}

// onPublish records a publication of a file's diagnostics.
func (s *server) onPublish(p PublishDiagnosticsParams) {
	path := uriPath(p.URI)
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.Version == nil && s.clearing[path] > 0 {
		// The publication for a file we closed (pyright sends an empty
		// one after didClose, also when we reopen at once; gopls its
		// errors on disk, without a version, and at load after the
		// reopen): not an answer for what is open now. Only servers
		// with versions are sent a close and open in a row.
		s.clearing[path]--
		return
	}
	if p.Version == nil && isContextFile(path) {
		return // a header's unsaved unit, closed (see compileUnsaved)
	}
	prev := s.diags[path]
	seq := uint64(1)
	if prev != nil {
		seq = prev.seq + 1
	}
	s.diags[path] = &published{version: p.Version, seq: seq, diags: p.Diagnostics}
	s.published = true
	s.lastPublish = time.Now()
	s.learnVersionsLocked(path, p.Version)
	s.broadcastLocked()
}

// onProgress records the begin, report or end of work-done progress.
func (s *server) onProgress(p ProgressParams) {
	tok := string(p.Token)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch p.Value.Kind {
	case "begin":
		s.begun = true
		if failureTitle(p.Value.Title) {
			// Not work under way but a failure shown as progress
			// (gopls: "Error loading workspace", open until fixed):
			// waits for the index end on it, saying why.
			s.failed[tok] = strings.TrimSpace(p.Value.Title + ": " + p.Value.Message)
			s.progressed = true
			break
		}
		s.progress[tok] = p.Value.Title
		if s.diagnosisTitle(p.Value.Title) {
			s.passes++
		}
	case "report":
		if _, ok := s.failed[tok]; ok && p.Value.Message != "" {
			s.failed[tok] = strings.SplitN(s.failed[tok], ":", 2)[0] + ": " + p.Value.Message
		}
	case "end":
		delete(s.progress, tok)
		delete(s.failed, tok)
		s.progressed = true
	}
	s.broadcastLocked()
}

// failureTitle reports whether a work-done progress title announces a
// failure rather than work (gopls's "Error loading workspace").
func failureTitle(title string) bool {
	t := strings.ToLower(title)
	return strings.HasPrefix(t, "error") || strings.Contains(t, "failed")
}

// failure is what the server's open failure progress says ("" when none).
func (s *server) failure() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []string
	for _, f := range s.failed {
		all = append(all, f)
	}
	slices.Sort(all)
	return strings.Join(all, "; ")
}

func (s *server) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// publications returns a copy of the latest publication per file.
func (s *server) publications() map[string]*published {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]*published, len(s.diags))
	for p, d := range s.diags {
		if isContextFile(p) {
			continue
		}
		out[p] = d
	}
	return out
}

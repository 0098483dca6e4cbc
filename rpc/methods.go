// This file defines the MCP method table and the lifecycle methods.

package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/sourcegraph/jsonrpc2"
)

// The initialize-based MCP revisions, newest first. The stateless one,
// [Stateless], is served per request (see stateless.go): ask_user reaches
// the person there through multi round-trip results instead of
// elicitation/create.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

type methodFlags uint

const (
	beforeInit methodFlags = 1 << iota // allowed before initialize
	async                              // runs on its own goroutine, cancellable
)

type methodInfo struct {
	flags  methodFlags
	call   func(s *Session, ctx context.Context, params json.RawMessage) (any, error)
	notify func(s *Session, ctx context.Context, params json.RawMessage) error
}

// methods is every method we serve. Anything else is -32601.
var methods = map[string]methodInfo{
	"initialize":                {flags: beforeInit, call: (*Session).initialize},
	"server/discover":           {flags: beforeInit, call: (*Session).discover},
	"subscriptions/listen":      {flags: async, call: (*Session).listen},
	"tasks/get":                 {call: (*Session).tasksGet},
	"tasks/update":              {call: (*Session).tasksUpdate},
	"tasks/cancel":              {call: (*Session).tasksCancel},
	"ping":                      {flags: beforeInit, call: (*Session).ping},
	"tools/list":                {call: (*Session).toolsList},
	"tools/call":                {flags: async, call: (*Session).toolsCall},
	"agent-tools/setMode":       {call: (*Session).setMode},
	"notifications/initialized": {notify: (*Session).initializedNote},
	"notifications/cancelled":   {notify: (*Session).cancelledNote},
}

type initializeParams struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    clientCapabilities `json:"capabilities"`
	ClientInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
}

type clientCapabilities struct {
	Elicitation  json.RawMessage            `json:"elicitation,omitempty"`
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	Extensions   map[string]json.RawMessage `json:"extensions,omitempty"` // 2026-07-28
}

// modeOptions are the options a client may pass in
// capabilities.experimental["agent-tools"].
type modeOptions struct {
	Surface        *string `json:"surface"`
	Vibe           *bool   `json:"vibe"`
	ConversationID *string `json:"conversationId"`
	Root           *string `json:"root"`
	CallTool       bool    `json:"callTool"`
	Structured     *bool   `json:"structured"`
	MaxOutputBytes *int    `json:"maxOutputBytes"`
}

type clientInfo struct {
	name, version string
	elicitation   bool
	callTool      bool
	tasks         bool // the Tasks extension, declared in a stateless request
}

const optionsKey = "agent-tools"

func (s *Session) initialize(ctx context.Context, raw json.RawMessage) (any, error) {
	p, err := decodeParams[initializeParams](raw, "initialize")
	if err != nil {
		return nil, err
	}
	if p.ProtocolVersion == "" {
		return nil, fmt.Errorf("%w: initialize needs protocolVersion", ErrInvalidParams)
	}
	var opts modeOptions
	if o, ok := p.Capabilities.Experimental[optionsKey]; ok {
		if err := json.Unmarshal(o, &opts); err != nil {
			return nil, fmt.Errorf("%w: capabilities.experimental[%q]: %v", ErrInvalidParams, optionsKey, err)
		}
	}
	s.mu.Lock()
	if s.initialized {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: initialize was already called", ErrInvalidRequest)
	}
	mode, err := applyOptions(s.mode, opts)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}

	s.mu.Lock()
	s.mode = mode
	s.version = negotiate(p.ProtocolVersion)
	s.client = clientInfo{
		name:        p.ClientInfo.Name,
		version:     p.ClientInfo.Version,
		elicitation: declared(p.Capabilities.Elicitation),
		callTool:    opts.CallTool,
	}
	s.initialized = true
	s.shown = toolNames(s.srv.reg.Visible(s.visibilityLocked()))
	version := s.version
	s.mu.Unlock()
	s.log.Info().Str("client", p.ClientInfo.Name).Str("protocol", version).Str("surface", string(mode.Surface)).
		Bool("structured", mode.Structured).Int("maxOutputBytes", mode.OutputBudget()).Msg("initialized")
	return s.initializeResult(version), nil
}

// negotiate echoes the client's revision when we speak it, else offers the
// newest we have (the client then decides whether to go on).
func negotiate(v string) string {
	if slices.Contains(protocolVersions, v) {
		return v
	}
	return protocolVersions[0]
}

func applyOptions(m Mode, o modeOptions) (Mode, error) {
	const where = `capabilities.experimental["agent-tools"]`
	if o.Surface != nil {
		sf, err := ParseSurface(*o.Surface)
		if err != nil {
			return m, fmt.Errorf("%w: %s.surface: %v", ErrInvalidParams, where, err)
		}
		m.Surface = sf
	}
	if o.Vibe != nil {
		m.Vibe = *o.Vibe
	}
	if o.ConversationID != nil {
		m.Conversation = *o.ConversationID
	}
	if o.Root != nil {
		root, err := checkRoot(*o.Root)
		if err != nil {
			return m, fmt.Errorf("%w: %s.root: %v", ErrInvalidParams, where, err)
		}
		m.Root = root
	}
	if o.Structured != nil {
		m.Structured = *o.Structured
	}
	if o.MaxOutputBytes != nil {
		m.MaxOutputBytes = *o.MaxOutputBytes
		if m.MaxOutputBytes <= 0 {
			m.MaxOutputBytes = -1 // 0 asks for no budget here, not the default
		}
	}
	return m, nil
}

// checkRoot makes a root absolute and checks that it is a directory.
func checkRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", abs)
	}
	return abs, nil
}

func (s *Session) initializeResult(version string) map[string]any {
	res := map[string]any{
		"protocolVersion": version,
		"capabilities":    s.capabilities(),
		"serverInfo":      s.serverInfo(),
	}
	return res
}

// capabilities are the server's, the same under every revision.
func (s *Session) capabilities() map[string]any {
	return map[string]any{
		"tools": map[string]any{"listChanged": true},
		"experimental": map[string]any{
			optionsKey: map[string]any{"setMode": true},
		},
	}
}

func (s *Session) serverInfo() map[string]any {
	return map[string]any{"name": s.srv.opts.Name, "version": s.srv.opts.Version}
}

func (s *Session) initializedNote(context.Context, json.RawMessage) error {
	return nil
}

func (s *Session) ping(context.Context, json.RawMessage) (any, error) {
	return struct{}{}, nil
}

type cancelledParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason"`
}

func (s *Session) cancelledNote(_ context.Context, raw json.RawMessage) error {
	p, err := decodeParams[cancelledParams](raw, "notifications/cancelled")
	if err != nil {
		return err
	}
	var id jsonrpc2.ID
	if err := json.Unmarshal(p.RequestID, &id); err != nil {
		return fmt.Errorf("notifications/cancelled: requestId: %w", err)
	}
	if !s.cancelCall(id) {
		// Normal: the call may have finished before the notice arrived.
		s.log.Debug().Str("id", id.String()).Msg("cancel for a request not in flight")
	}
	return nil
}

type setModeParams struct {
	Surface *string         `json:"surface"`
	Vibe    *bool           `json:"vibe"`
	Meta    json.RawMessage `json:"_meta"` // a stateless request's, or a progressToken
}

// setMode changes the surface or vibe mode of the session, then sends
// list_changed if the visible tools changed.
func (s *Session) setMode(_ context.Context, raw json.RawMessage) (any, error) {
	p, err := decodeStrictParams[setModeParams](raw, "agent-tools/setMode takes {surface?, vibe?}")
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	m := s.mode
	if p.Surface != nil {
		sf, err := ParseSurface(*p.Surface)
		if err != nil {
			s.mu.Unlock()
			return nil, fmt.Errorf("%w: surface: %v", ErrInvalidParams, err)
		}
		m.Surface = sf
	}
	if p.Vibe != nil {
		m.Vibe = *p.Vibe
	}
	s.mode = m
	s.mu.Unlock()
	s.log.Info().Str("surface", string(m.Surface)).Bool("vibe", m.Vibe).Msg("mode set")
	s.listChanged()
	return struct{}{}, nil
}

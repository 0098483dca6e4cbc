// This file defines the stateless MCP revision, 2026-07-28: a request
// whose _meta names the revision carries the client's capabilities itself
// and is served without initialize; server/discover answers what
// initialize answered before.

package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Stateless is the MCP revision without initialize: every request names
// it, and the client's capabilities, in its _meta.
const Stateless = "2026-07-28"

// The _meta keys of the stateless revision.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// ErrUnsupportedVersion answers a request whose _meta names a revision we
// do not serve per request; its data lists the ones we do.
var ErrUnsupportedVersion = &WireError{-32022, "unsupported protocol version"}

// versionError is ErrUnsupportedVersion with the data the revision asks
// for: {supported, requested}.
type versionError struct{ requested string }

func (e versionError) Error() string {
	return fmt.Sprintf("%s: %q (this server takes %s in _meta; older clients send initialize)", ErrUnsupportedVersion.Message, e.requested, Stateless)
}

func (e versionError) Is(target error) bool { return target == ErrUnsupportedVersion }

func (e versionError) data() any {
	return map[string]any{"supported": []string{Stateless}, "requested": e.requested}
}

// view is what one stateless request says of its client: the revision,
// its capabilities, and the session mode its options make of the
// session's own.
type view struct {
	version string
	client  clientInfo
	opts    modeOptions // the client's experimental["agent-tools"] options
	mode    Mode
}

type viewKey struct{}

func viewFrom(ctx context.Context) *view {
	v, _ := ctx.Value(viewKey{}).(*view)
	return v
}

// requestMeta is the part of a stateless request's _meta we read.
type requestMeta struct {
	Meta struct {
		Version      *string            `json:"io.modelcontextprotocol/protocolVersion"`
		Capabilities clientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
		ClientInfo   struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"io.modelcontextprotocol/clientInfo"`
	} `json:"_meta"`
}

var metaVersionKey = []byte(`"` + metaProtocolVersion + `"`)

// statelessView reads the _meta of a request's params. It returns nil,
// nil for a request of the older revisions (no protocolVersion there):
// those keep the session's state as initialize set it. The cheap byte
// test keeps the older revisions' requests from being decoded twice.
func (s *Session) statelessView(raw json.RawMessage) (*view, error) {
	if !bytes.Contains(raw, metaVersionKey) {
		return nil, nil
	}
	var p requestMeta
	if err := json.Unmarshal(raw, &p); err != nil || p.Meta.Version == nil {
		return nil, nil // not where _meta would have it: the method decides
	}
	if *p.Meta.Version != Stateless {
		return nil, versionError{requested: *p.Meta.Version}
	}
	caps := p.Meta.Capabilities
	var opts modeOptions
	if o, ok := caps.Experimental[optionsKey]; ok {
		if err := json.Unmarshal(o, &opts); err != nil {
			return nil, fmt.Errorf("%w: _meta[%q].experimental[%q]: %v", ErrInvalidParams, metaClientCapabilities, optionsKey, err)
		}
	}
	v := &view{
		version: Stateless,
		opts:    opts,
		client: clientInfo{
			name:        p.Meta.ClientInfo.Name,
			version:     p.Meta.ClientInfo.Version,
			elicitation: declared(caps.Elicitation),
			callTool:    opts.CallTool,
			tasks:       declared(caps.Extensions[tasksExtension]),
		},
	}
	s.mu.Lock()
	mode, err := applyOptions(s.mode, opts)
	if err == nil {
		v.mode = mode
		s.latest = v
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return v, nil
}

func declared(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// refresh recomputes v's mode from the session's current one (after a
// setMode), keeping the request's own options. Call with s.mu held.
func (v *view) refreshLocked(s *Session) {
	if m, err := applyOptions(s.mode, v.opts); err == nil {
		v.mode = m
	}
}

func (v *view) visibility() Visibility {
	return Visibility{Surface: v.mode.Surface, Vibe: v.mode.Vibe, Elicitation: v.client.elicitation}
}

// state is what a request is served under: the revision, the mode and the
// client's capabilities, from its own _meta (stateless) or from the
// session's initialize.
type state struct {
	version string
	mode    Mode
	client  clientInfo
	vis     Visibility
}

func (st state) stateless() bool { return st.version == Stateless }

// stateFor returns the state the request ctx belongs to is served under.
func (s *Session) stateFor(ctx context.Context) state {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := viewFrom(ctx); v != nil {
		v.refreshLocked(s)
		return state{version: v.version, mode: v.mode, client: v.client, vis: v.visibility()}
	}
	return state{version: s.version, mode: s.mode, client: s.client, vis: s.visibilityLocked()}
}

// discover answers server/discover: the revisions we speak, our
// capabilities and who we are. A session already initialized with an
// older revision keeps that revision's answer (-32601), byte for byte.
func (s *Session) discover(ctx context.Context, _ json.RawMessage) (any, error) {
	s.mu.Lock()
	legacy := s.initialized
	s.mu.Unlock()
	if legacy && viewFrom(ctx) == nil {
		return nil, notImplemented("server/discover")
	}
	return discoverResult{
		ResultType:        "complete",
		SupportedVersions: append([]string{Stateless}, protocolVersions...),
		Capabilities:      s.statelessCapabilities(),
		Meta:              map[string]any{metaServerInfo: s.serverInfo()},
		CacheScope:        "private",
	}, nil
}

// statelessCapabilities are [Session.capabilities] plus what only the
// stateless revision has: the Tasks extension.
func (s *Session) statelessCapabilities() map[string]any {
	caps := s.capabilities()
	caps["extensions"] = map[string]any{tasksExtension: map[string]any{}}
	return caps
}

type discoverResult struct {
	ResultType        string         `json:"resultType"`
	SupportedVersions []string       `json:"supportedVersions"`
	Capabilities      map[string]any `json:"capabilities"`
	Meta              map[string]any `json:"_meta"`
	// The capabilities do not change while we run, but the tools they
	// lead to do (setMode, vibe): 0 says "do not cache", private says
	// "this process only".
	TTLMs      int    `json:"ttlMs"`
	CacheScope string `json:"cacheScope"`
}

// withResultType adds "resultType":"complete" to a stateless answer that
// does not say its type itself: the revision requires it on every result.
func withResultType(res any) (any, error) {
	if m, ok := res.(map[string]any); ok {
		if _, typed := m["resultType"]; typed {
			return res, nil
		}
	}
	data, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	if len(data) < 2 || data[0] != '{' || bytes.HasPrefix(data, []byte(`{"resultType"`)) {
		return json.RawMessage(data), nil
	}
	out := make([]byte, 0, len(data)+26)
	out = append(out, `{"resultType":"complete"`...)
	if string(data) != "{}" {
		out = append(out, ',')
	}
	out = append(out, data[1:]...)
	return json.RawMessage(out), nil
}

// errorData is the code and data of a wire error that has data.
func errorData(err error) (int64, any, bool) {
	var ve versionError
	if errors.As(err, &ve) {
		return ErrUnsupportedVersion.Code, ve.data(), true
	}
	var me missingCapability
	if errors.As(err, &me) {
		return ErrMissingCapability.Code, me.data(), true
	}
	return 0, nil, false
}

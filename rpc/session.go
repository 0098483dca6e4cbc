// This file defines a session: the state of one client connection, and
// what tool handlers may ask of it (server→client requests, progress).

package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"
)

// Session is one client connection.
//
// Goroutines: jsonrpc2's read loop calls [Session.Handle]; notifications
// and quick lifecycle requests run inline there, each tools/call runs on
// its own goroutine (tracked in inflight and wg). Server→client calls made
// by tools wait on their own goroutine; jsonrpc2 routes the responses from
// the read loop, so a waiting tool never blocks reading.
type Session struct {
	srv     *Server
	conn    atomic.Pointer[jsonrpc2.Conn] // set before the first message is handled
	stream  *lineStream                   // the conn's stream, for replies written in one pass; may be nil
	log     zerolog.Logger
	connCtx context.Context // parent of every call's context
	nextID  atomic.Uint64   // ids of our requests to the client
	wg      sync.WaitGroup  // running tools/call handlers

	mu          sync.Mutex // guards the fields below
	initialized bool
	closing     bool
	version     string // negotiated protocol version
	mode        Mode
	client      clientInfo
	inflight    map[jsonrpc2.ID]*inflightCall
	shown       []string // tool names last listed, to detect list changes
	latest      *view    // the last stateless request's view, for the getters below
	listeners   map[jsonrpc2.ID]*listener
	usedStates  map[string]int64 // nonces of requestStates already answered, with their expiry
	tasks       map[string]*task // long calls running as tasks, by id
	taskSeq     int
}

type inflightCall struct {
	cancel    context.CancelFunc
	cancelled bool // by the client: send no response
}

func newSession(srv *Server, ctx context.Context) *Session {
	return &Session{
		srv:        srv,
		log:        srv.log,
		connCtx:    context.WithoutCancel(ctx),
		mode:       srv.opts.Mode,
		inflight:   map[jsonrpc2.ID]*inflightCall{},
		listeners:  map[jsonrpc2.ID]*listener{},
		usedStates: map[string]int64{},
		tasks:      map[string]*task{},
	}
}

// Mode returns the session's current options. For a client of the
// stateless revision (no initialize), they are the session's as its last
// request's options make them; [ModeOf] gives a request's own.
func (s *Session) Mode() Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.currentLocked().mode
}

// ProtocolVersion returns the negotiated MCP revision ([Stateless] for a
// client that sends it per request; "" before either).
func (s *Session) ProtocolVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.currentLocked().version
}

// CanElicit reports whether the client declared the elicitation
// capability (in initialize, or in its last stateless request).
func (s *Session) CanElicit() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.currentLocked().client.elicitation
}

// CanCallTools reports whether the client serves agent-tools/callTool.
func (s *Session) CanCallTools() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.currentLocked().client.callTool
}

// currentLocked is the session's state outside any one request: what
// initialize set, or for a stateless client what its last request said.
func (s *Session) currentLocked() state {
	if !s.initialized && s.latest != nil {
		v := *s.latest
		v.refreshLocked(s)
		return state{version: v.version, mode: v.mode, client: v.client, vis: v.visibility()}
	}
	return state{version: s.version, mode: s.mode, client: s.client, vis: s.visibilityLocked()}
}

// ModeOf returns the options of the request ctx belongs to: its own
// _meta's under the stateless revision, else the session's.
func ModeOf(ctx context.Context) Mode {
	if s := SessionFrom(ctx); s != nil {
		return s.stateFor(ctx).mode
	}
	return Mode{}
}

// Revision returns the MCP revision the request ctx belongs to is served
// under ("" outside a session).
func Revision(ctx context.Context) string {
	if s := SessionFrom(ctx); s != nil {
		return s.stateFor(ctx).version
	}
	return ""
}

// CanElicit reports whether the client of the request ctx belongs to can
// show a question to a person (it declared elicitation, in initialize or
// in this request's _meta).
func CanElicit(ctx context.Context) bool {
	if s := SessionFrom(ctx); s != nil {
		return s.stateFor(ctx).client.elicitation
	}
	return false
}

func (s *Session) visibilityLocked() Visibility {
	return Visibility{Surface: s.mode.Surface, Vibe: s.mode.Vibe, Elicitation: s.client.elicitation}
}

// Handle implements jsonrpc2.Handler. It never blocks: see [Session].
func (s *Session) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	s.conn.Store(conn) // jsonrpc2 may call Handle before NewConn has returned
	m, known := methods[req.Method]
	if !known {
		m, known = s.extensionMethod(req.Method)
	}
	if req.Notif {
		if known && m.notify != nil {
			s.runNotification(ctx, req, m)
		} else {
			s.log.Debug().Str("method", req.Method).Msg("ignored notification")
		}
		return
	}
	if !known || m.call == nil {
		s.replyErr(req, notImplemented(req.Method))
		return
	}
	base := s.connCtx
	v, err := s.statelessView(params(req))
	if v != nil && req.Method == "initialize" {
		v = nil // initialize is the older revisions' own
	}
	if err == nil {
		err = s.checkRequest(m, v != nil)
	}
	if v != nil {
		base = context.WithValue(base, viewKey{}, v)
	}
	if err == nil && req.Method == "subscriptions/listen" {
		err = s.openListen(base, req)
	}
	if err != nil {
		s.replyErr(req, err)
		return
	}
	if m.flags&async != 0 {
		s.startCall(base, req, m)
		return
	}
	res, err := s.invoke(base, req, m)
	s.reply(base, req, res, err)
}

// extensionMethod wraps a capability's method (see [Registry.HandleMethod])
// as a cancellable request.
func (s *Session) extensionMethod(name string) (methodInfo, bool) {
	h, ok := s.srv.reg.method(name)
	if !ok {
		return methodInfo{}, false
	}
	return methodInfo{flags: async, call: func(s *Session, ctx context.Context, params json.RawMessage) (any, error) {
		// A progressToken gets the heartbeat of a tools/call (a didWrite
		// may wait for a language server), and ReportProgress works.
		var p struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		if json.Unmarshal(params, &p) == nil && len(p.Meta.ProgressToken) > 0 && string(p.Meta.ProgressToken) != "null" {
			c := &call{sess: s, budget: s.stateFor(ctx).mode.OutputBudget()}
			ctx = context.WithValue(ctx, callKey{}, c)
			c.startProgress(ctx, p.Meta.ProgressToken, s.srv.opts.ProgressInterval)
			defer c.finish()
		}
		return h(ctx, params)
	}}, true
}

// checkRequest gates a request on the session state. A stateless request
// needs no initialize.
func (s *Session) checkRequest(m methodInfo, stateless bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closing:
		return fmt.Errorf("%w: shutting down", ErrServerClosing)
	case !s.initialized && !stateless && m.flags&beforeInit == 0:
		return fmt.Errorf("%w: the session is not initialized: send initialize first", ErrInvalidRequest)
	}
	return nil
}

func (s *Session) runNotification(ctx context.Context, req *jsonrpc2.Request, m methodInfo) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error().Str("method", req.Method).Interface("panic", r).Bytes("stack", debug.Stack()).Msg("notification handler panicked")
		}
	}()
	if err := m.notify(s, ctx, params(req)); err != nil {
		s.log.Warn().Err(err).Str("method", req.Method).Msg("notification failed")
	}
}

// startCall runs a request on its own goroutine with a context that
// notifications/cancelled cancels; a cancelled call gets no response.
func (s *Session) startCall(base context.Context, req *jsonrpc2.Request, m methodInfo) {
	ctx, cancel := context.WithCancel(base)
	c := &inflightCall{cancel: cancel}
	s.mu.Lock()
	if _, dup := s.inflight[req.ID]; dup {
		s.mu.Unlock()
		cancel()
		s.replyErr(req, fmt.Errorf("%w: id %s is already in use by a request in flight", ErrInvalidRequest, req.ID))
		return
	}
	s.inflight[req.ID] = c
	s.wg.Add(1)
	s.mu.Unlock()

	go func() {
		defer s.wg.Done()
		defer cancel()
		res, err := s.invoke(ctx, req, m)
		s.mu.Lock()
		delete(s.inflight, req.ID)
		cancelled := c.cancelled
		s.mu.Unlock()
		if cancelled {
			s.log.Debug().Str("id", req.ID.String()).Msg("call cancelled by the client: no response")
			return
		}
		s.reply(ctx, req, res, err)
	}()
}

// invoke runs a request handler, turning a panic into an internal error.
func (s *Session) invoke(ctx context.Context, req *jsonrpc2.Request, m methodInfo) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error().Str("method", req.Method).Interface("panic", r).Bytes("stack", debug.Stack()).Msg("request handler panicked")
			res, err = nil, fmt.Errorf("%w: %s panicked: %v", ErrInternal, req.Method, r)
		}
	}()
	ctx = context.WithValue(ctx, sessionKey{}, s)
	ctx = context.WithValue(ctx, requestIDKey{}, req.ID)
	return m.call(s, ctx, params(req))
}

func params(req *jsonrpc2.Request) json.RawMessage {
	if req.Params == nil {
		return nil
	}
	return *req.Params
}

func (s *Session) reply(ctx context.Context, req *jsonrpc2.Request, res any, err error) {
	if err == nil && viewFrom(ctx) != nil {
		res, err = withResultType(res)
	}
	if err != nil {
		s.replyErr(req, err)
		return
	}
	if s.stream != nil {
		// jsonrpc2's Reply marshals the result, then re-encodes it
		// inside the response and again inside its message wrapper: a
		// large answer (50 locations, ast_grep matches) was compacted
		// three times over. The same bytes, in the same field order,
		// are written here in one pass.
		if err := s.stream.writeResponse(req.ID, res); err != nil {
			s.log.Debug().Err(err).Msg("reply not sent")
		}
		return
	}
	if err := s.conn.Load().Reply(s.connCtx, req.ID, res); err != nil {
		s.log.Debug().Err(err).Msg("reply not sent")
	}
}

func (s *Session) replyErr(req *jsonrpc2.Request, err error) {
	if err := s.conn.Load().ReplyWithError(s.connCtx, req.ID, toWire(err)); err != nil {
		s.log.Debug().Err(err).Msg("error reply not sent")
	}
}

// cancelCall marks an in-flight call as cancelled by the client.
func (s *Session) cancelCall(id jsonrpc2.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.inflight[id]
	if ok {
		c.cancelled = true
		c.cancel()
	}
	delete(s.listeners, id) // a cancelled listen stream gets nothing more
	return ok
}

// shutdown cancels every in-flight call and waits (bounded) for them.
func (s *Session) shutdown() {
	s.mu.Lock()
	s.closing = true
	for _, c := range s.inflight {
		c.cancel()
	}
	s.shutdownTasksLocked()
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(drainTimeout):
		s.log.Warn().Msg("in-flight calls did not return after cancellation")
	}
}

// listChanged sends notifications/tools/list_changed if the tools this
// session shows differ from those it last showed: to an initialized
// session on its own, and on each subscriptions/listen stream of a
// stateless client that asked for it.
func (s *Session) listChanged() {
	s.listenersChanged()
	s.mu.Lock()
	if !s.initialized {
		s.mu.Unlock()
		return
	}
	names := toolNames(s.srv.reg.Visible(s.visibilityLocked()))
	changed := !slices.Equal(names, s.shown)
	s.shown = names
	s.mu.Unlock()
	if changed {
		s.Notify(s.connCtx, "notifications/tools/list_changed", nil)
	}
}

func (s *Session) registryChanged() { s.listChanged() }

func toolNames(ts []*Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.spec.Name
	}
	return out
}

// Notify sends a notification to the client.
func (s *Session) Notify(ctx context.Context, method string, params any) error {
	if params == nil {
		params = struct{}{}
	}
	return s.conn.Load().Notify(ctx, method, params)
}

// Call sends a request to the client and waits for its answer. When ctx is
// done first, the client is told with notifications/cancelled and Call
// returns ctx.Err(). An error answer matches the Err* sentinels by code.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	id := jsonrpc2.ID{Num: s.nextID.Add(1)}
	w, err := s.conn.Load().DispatchCall(ctx, method, params, jsonrpc2.PickID(id))
	if err != nil {
		return fmt.Errorf("sending %s: %w", method, err)
	}
	if err := w.Wait(ctx, result); err != nil {
		if ctx.Err() != nil {
			s.Notify(context.WithoutCancel(ctx), "notifications/cancelled", map[string]any{
				"requestId": id.Num, "reason": context.Cause(ctx).Error(),
			})
			return ctx.Err()
		}
		return fromWire(err)
	}
	return nil
}

type sessionKey struct{}

// Root is the workspace root of the request ctx belongs to (the --root
// flag, or the root its initialize or its own _meta chose), else
// fallback: the one way every tool finds the root a call works in.
func Root(ctx context.Context, fallback string) string {
	if s := SessionFrom(ctx); s != nil {
		if r := s.stateFor(ctx).mode.Root; r != "" {
			return r
		}
	}
	return fallback
}

type requestIDKey struct{}

// SessionFrom returns the session of the request ctx belongs to, or nil.
func SessionFrom(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// This file defines subscriptions/listen, the stateless revision's way to
// receive change notifications: a request the server holds open and
// sends the notifications the client asked for on.

package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/sourcegraph/jsonrpc2"
)

// listener is one open subscriptions/listen request that asked for
// tools/list_changed.
type listener struct {
	id    jsonrpc2.ID
	view  *view    // the listen request's own, for what its client is shown
	shown []string // tool names it was last shown
}

type listenParams struct {
	Notifications *struct {
		ToolsListChanged bool `json:"toolsListChanged"`
	} `json:"notifications"`
}

// subscriptions are what a listen stream carries; we have tools only.
type subscriptions struct {
	ToolsListChanged bool `json:"toolsListChanged,omitempty"`
}

// openListen starts serving subscriptions/listen, in the read loop so
// that a request the client sends after it finds the stream open: it
// registers the listener and acknowledges what it will send
// (tools/list_changed is all we have). The request then runs as
// [Session.listen].
func (s *Session) openListen(ctx context.Context, req *jsonrpc2.Request) error {
	v := viewFrom(ctx)
	if v == nil {
		return fmt.Errorf("%w: subscriptions/listen belongs to the %s revision: name it in _meta[%q]", ErrInvalidRequest, Stateless, metaProtocolVersion)
	}
	p, err := decodeParams[listenParams](params(req), "subscriptions/listen")
	if err != nil || p.Notifications == nil {
		return fmt.Errorf("%w: subscriptions/listen needs {notifications: {toolsListChanged?}}", ErrInvalidParams)
	}
	agreed := subscriptions{ToolsListChanged: p.Notifications.ToolsListChanged}
	s.mu.Lock()
	_, dup := s.inflight[req.ID]
	_, dupListen := s.listeners[req.ID]
	s.mu.Unlock()
	if dup || dupListen {
		return fmt.Errorf("%w: id %s is already in use by a request in flight", ErrInvalidRequest, req.ID)
	}
	if agreed.ToolsListChanged {
		s.mu.Lock()
		v.refreshLocked(s)
		s.listeners[req.ID] = &listener{id: req.ID, view: v, shown: toolNames(s.srv.reg.Visible(v.visibility()))}
		s.mu.Unlock()
	}
	ack := map[string]any{"notifications": agreed, "_meta": map[string]any{metaSubscriptionID: req.ID}}
	if err := s.Notify(ctx, "notifications/subscriptions/acknowledged", ack); err != nil {
		s.log.Debug().Err(err).Msg("subscription acknowledgement not sent")
	}
	return nil
}

// listen holds a subscriptions/listen request open until the client
// cancels it (no answer then) or the server shuts down (the answer says
// the stream ended). A request that subscribed to nothing ends at once.
func (s *Session) listen(ctx context.Context, _ json.RawMessage) (any, error) {
	id, _ := ctx.Value(requestIDKey{}).(jsonrpc2.ID)
	s.mu.Lock()
	_, open := s.listeners[id]
	s.mu.Unlock()
	if open {
		<-ctx.Done()
		s.mu.Lock()
		delete(s.listeners, id)
		s.mu.Unlock()
	}
	return map[string]any{"resultType": "complete", "_meta": map[string]any{metaSubscriptionID: id}}, nil
}

// listenersChanged sends tools/list_changed on every listen stream whose
// client now sees other tools than it was last shown.
func (s *Session) listenersChanged() {
	type note struct{ id jsonrpc2.ID }
	var notes []note
	s.mu.Lock()
	for _, l := range s.listeners {
		l.view.refreshLocked(s)
		names := toolNames(s.srv.reg.Visible(l.view.visibility()))
		if !slices.Equal(names, l.shown) {
			l.shown = names
			notes = append(notes, note{l.id})
		}
	}
	s.mu.Unlock()
	for _, n := range notes {
		params := map[string]any{"_meta": map[string]any{metaSubscriptionID: n.id}}
		if err := s.Notify(s.connCtx, "notifications/tools/list_changed", params); err != nil {
			s.log.Debug().Err(err).Msg("list_changed not sent")
		}
	}
}

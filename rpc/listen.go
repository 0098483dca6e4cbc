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

// listen serves subscriptions/listen. It acknowledges what it will send
// (tools/list_changed is all we have), then holds the request open until
// the client cancels it (no answer then) or the server shuts down (the
// answer says the stream ended).
func (s *Session) listen(ctx context.Context, raw json.RawMessage) (any, error) {
	v := viewFrom(ctx)
	if v == nil {
		return nil, fmt.Errorf("%w: subscriptions/listen belongs to the %s revision: name it in _meta[%q]", ErrInvalidRequest, Stateless, metaProtocolVersion)
	}
	var p listenParams
	if err := json.Unmarshal(orEmpty(raw), &p); err != nil || p.Notifications == nil {
		return nil, fmt.Errorf("%w: subscriptions/listen needs {notifications: {toolsListChanged?}}", ErrInvalidParams)
	}
	id, _ := ctx.Value(requestIDKey{}).(jsonrpc2.ID)
	meta := map[string]any{metaSubscriptionID: id}
	agreed := subscriptions{ToolsListChanged: p.Notifications.ToolsListChanged}
	if agreed.ToolsListChanged {
		s.mu.Lock()
		v.refreshLocked(s)
		s.listeners[id] = &listener{id: id, view: v, shown: toolNames(s.srv.reg.Visible(v.visibility()))}
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.listeners, id)
			s.mu.Unlock()
		}()
	}
	ack := map[string]any{"notifications": agreed, "_meta": meta}
	if err := s.Notify(ctx, "notifications/subscriptions/acknowledged", ack); err != nil {
		return nil, fmt.Errorf("%w: acknowledging the subscription: %v", ErrInternal, err)
	}
	if agreed.ToolsListChanged {
		<-ctx.Done() // cancelled by the client, or the server shuts down
	}
	return map[string]any{"resultType": "complete", "_meta": meta}, nil
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

// This file defines the server→client requests that tools use: asking the
// person (elicitation/create) and calling the harness's own tools
// (agent-tools/callTool).

package rpc

import (
	"context"
	"encoding/json"
	"errors"
)

// ErrNoElicitation is returned by Elicit when the client cannot show a
// question to a person.
var ErrNoElicitation = errors.New("the client did not declare the elicitation capability: no person can be asked")

// ErrNoCallTool is returned by CallClientTool when the client did not offer
// agent-tools/callTool.
var ErrNoCallTool = errors.New(`the client did not declare experimental["agent-tools"].callTool: its tools cannot be called from here`)

// ElicitRequest is the params of elicitation/create (form mode).
type ElicitRequest struct {
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// ElicitResult is the client's answer: Action is "accept", "decline" or
// "cancel"; Content is set on accept.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Elicit asks the person through the client. It blocks until the answer,
// an error from the client, or ctx is done (the client is then told the
// request was cancelled).
//
// Inside a tools/call of the stateless revision nothing is sent: the
// first time, Elicit returns an error and the call is answered
// input_required with the question; when the client calls again with the
// answer (and the requestState verifies), the tool runs again and Elicit
// returns that answer, or [ErrInputExpired] after the question's deadline
// (ctx's, or an hour).
func (s *Session) Elicit(ctx context.Context, req ElicitRequest) (*ElicitResult, error) {
	st := s.stateFor(ctx)
	if !st.client.elicitation {
		return nil, ErrNoElicitation
	}
	if st.stateless() {
		c := callFrom(ctx)
		if c == nil || c.trip == nil {
			return nil, errors.New("under the stateless revision a question can be asked only from a tools/call")
		}
		return c.trip.elicit(ctx, req)
	}
	var res ElicitResult
	if err := s.Call(ctx, "elicitation/create", req, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// CallClientTool calls one of the harness's tools (with its guardrails and
// approval) through agent-tools/callTool.
func (s *Session) CallClientTool(ctx context.Context, name string, args json.RawMessage) (*CallToolResult, error) {
	if !s.CanCallTools() {
		return nil, ErrNoCallTool
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var res CallToolResult
	params := map[string]any{"name": name, "arguments": args}
	if err := s.Call(ctx, "agent-tools/callTool", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

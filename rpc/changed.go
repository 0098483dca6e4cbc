// This file defines the before-call hooks: what a capability has to say,
// at the start of any tool call, about what happened since the last one
// (files changed on disk by the harness's own edit tool, a shell, git).

package rpc

import (
	"context"
	"encoding/json"
)

// BeforeCallFunc runs before every tool call, whatever its tool, with the
// call's context, the session's root, and the tool and arguments called. Its text, when not empty, is
// added to the call's answer as a text block of its own after the tool's
// content: agent CLIs send no agent-tools/didWrite, so the first answer
// after a change is where its consequences can reach the model.
type BeforeCallFunc func(ctx context.Context, root, tool string, args json.RawMessage) string

// BeforeCall registers f to run before every tool call.
func (r *Registry) BeforeCall(f BeforeCallFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.beforeCall = append(r.beforeCall, f)
}

// runBeforeCall runs the registered hooks and returns their texts.
func (s *Session) runBeforeCall(ctx context.Context, tool string, args json.RawMessage) []Content {
	r := s.srv.reg
	r.mu.Lock()
	hooks := r.beforeCall
	r.mu.Unlock()
	if len(hooks) == 0 {
		return nil
	}
	root := s.Mode().Root
	var out []Content
	for _, f := range hooks {
		if text := f(ctx, root, tool, args); text != "" {
			out = append(out, TextContent(text))
		}
	}
	return out
}

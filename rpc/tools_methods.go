// This file defines tools/list and tools/call.

package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

func (s *Session) toolsList(ctx context.Context, _ json.RawMessage) (any, error) {
	st := s.stateFor(ctx)
	withOutput := st.version != "2025-03-26" && st.mode.Structured
	tools := s.srv.reg.Visible(st.vis)
	infos := make([]toolInfo, len(tools))
	for i, t := range tools {
		infos[i] = t.info(withOutput)
	}
	if st.stateless() {
		// The list changes with setMode and vibe: not to be cached.
		return map[string]any{"tools": infos, "ttlMs": 0, "cacheScope": "private"}, nil
	}
	return map[string]any{"tools": infos}, nil
}

type callParams struct {
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
	// A stateless retry after an input_required answer.
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	RequestState   string                     `json:"requestState"`
}

// toolsCall runs one tool. A name no tool has is a protocol error
// (-32602) listing the tools there are; a tool the session hides, and
// everything a tool reports, bad arguments included, is an isError result
// the model can read.
func (s *Session) toolsCall(ctx context.Context, raw json.RawMessage) (any, error) {
	p, err := decodeParams[callParams](raw, "tools/call")
	if err != nil {
		return nil, err
	}
	if p.Name == nil || *p.Name == "" {
		return nil, fmt.Errorf("%w: tools/call needs a tool name in \"name\"", ErrInvalidParams)
	}
	st := s.stateFor(ctx)
	vis := st.vis
	c := &call{sess: s, structured: st.mode.Structured && st.version != "2025-03-26", budget: st.mode.OutputBudget()}
	start := time.Now()
	t, ok := s.srv.reg.lookupAny(*p.Name)
	if !ok {
		s.log.Debug().Str("tool", *p.Name).Msg("tools/call of an unknown tool")
		return nil, fmt.Errorf("%w: unknown tool %q (available tools: %s)", ErrInvalidParams, *p.Name, s.available(vis))
	}
	if why := vis.hiddenBy(t.spec); why != shown {
		res := ErrorResult(hiddenText(t.spec, why, vis) + "\nAvailable tools: " + s.available(vis) + ".")
		s.logCall(t.spec.Name, start, res, nil)
		return res, nil
	}
	if st.stateless() {
		trip, err := s.verifyRetry(t.spec.Name, p.Arguments, p.RequestState, p.InputResponses)
		if err != nil {
			return nil, err
		}
		c.trip = trip
	}
	if st.stateless() && st.client.tasks && t.spec.Long {
		return s.callAsTask(ctx, t, p, c, start)
	}
	ctx = context.WithValue(ctx, callKey{}, c)
	if tok := p.Meta.ProgressToken; len(tok) > 0 && string(tok) != "null" {
		c.startProgress(ctx, tok, s.srv.opts.ProgressInterval)
		defer c.finish()
	}
	return s.runTool(ctx, t, p, c, start)
}

// runTool runs the tool of a tools/call and shapes its answer: the
// input_required answer of a stateless call still waiting for its
// question, else the result as the session asked for it (structured or
// not, within the output budget), with what the before-call hooks said.
func (s *Session) runTool(ctx context.Context, t *Tool, p callParams, c *call, start time.Time) (any, error) {
	var before []Content
	if t.spec.Requires&RequiresElicitation == 0 {
		// Not for ask_user: its answer may be an input_required one that
		// carries no content, and a report made now would be lost; it
		// waits for the next call instead.
		before = s.runBeforeCall(ctx, t.spec.Name, p.Arguments)
	}
	res, err := s.callTool(ctx, t, p.Arguments)
	s.logCall(t.spec.Name, start, res, err)
	if err != nil {
		return nil, err
	}
	if c.trip != nil {
		ir, err := c.trip.result(s.srv, t.spec.Name, p.Arguments)
		if err != nil {
			return nil, fmt.Errorf("%w: signing the requestState: %v", ErrInternal, err)
		}
		if ir != nil {
			return ir, nil // what the tool made of the missing answer is not shown
		}
	}
	if len(before) > 0 {
		res.Content = append(slices.Clip(res.Content), before...)
	}
	if !c.structured {
		res.StructuredContent = nil // a pass-through result may carry it
	}
	cutResult(res, c.budget)
	return res, nil
}

// logCall is the one debug line per tool call: tool, duration, isError.
func (s *Session) logCall(tool string, start time.Time, res *CallToolResult, err error) {
	ev := s.log.Debug()
	if ev == nil {
		return
	}
	ev = ev.Str("tool", tool).Dur("duration", time.Since(start))
	if err != nil {
		ev.Err(err).Msg("tools/call")
		return
	}
	ev.Bool("isError", res.IsError).Msg("tools/call")
}

// available names the tools the session shows, for answers to a call of a
// tool it does not show.
func (s *Session) available(vis Visibility) string {
	names := toolNames(s.srv.reg.Visible(vis))
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// hiddenText says why a tool the session hides cannot be called.
func hiddenText(sp Spec, why hideCause, vis Visibility) string {
	switch why {
	case hiddenByTier:
		does := "changes files"
		if sp.Tier == TierExec {
			does = "runs code or controls processes"
		}
		return fmt.Sprintf("%s is not available on the %q surface: it %s (%s tier), and this surface allows read-tier tools only. Do not call it again unless the harness leaves this mode.",
			sp.Name, string(vis.Surface), does, sp.Tier)
	case hiddenByVibe:
		return fmt.Sprintf("%s is not available: vibe mode is off in this session (the harness turns it on with serve --vibe or agent-tools/setMode {\"vibe\": true}).", sp.Name)
	case hiddenByElicitation:
		return fmt.Sprintf("%s is not available: this client cannot show a question to a person (it did not declare the elicitation capability). Go on with a stated assumption instead of asking.", sp.Name)
	}
	return sp.Name + " is not available in this session."
}

// callTool runs the handler; a panic becomes an error result so that the
// server keeps serving.
func (s *Session) callTool(ctx context.Context, t *Tool, args json.RawMessage) (res *CallToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error().Str("tool", t.spec.Name).Interface("panic", r).Bytes("stack", debug.Stack()).Msg("tool panicked")
			res, err = ErrorResult(fmt.Sprintf("internal error: tool %s failed unexpectedly (%v); the server is still running and the details are in its log", t.spec.Name, r)), nil
		}
	}()
	return t.Call(ctx, args)
}

// This file defines tools/list and tools/call.

package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
)

func (s *Session) toolsList(context.Context, json.RawMessage) (any, error) {
	s.mu.Lock()
	vis := s.visibilityLocked()
	withOutput := s.version != "2025-03-26"
	s.mu.Unlock()
	tools := s.srv.reg.Visible(vis)
	infos := make([]toolInfo, len(tools))
	for i, t := range tools {
		infos[i] = t.info(withOutput)
	}
	return map[string]any{"tools": infos}, nil
}

type callParams struct {
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

// toolsCall runs one tool. An unknown or hidden tool is a protocol error
// (-32602); everything the tool reports, bad arguments included, is an
// isError result the model can read.
func (s *Session) toolsCall(ctx context.Context, raw json.RawMessage) (any, error) {
	var p callParams
	if err := json.Unmarshal(orEmpty(raw), &p); err != nil {
		return nil, fmt.Errorf("%w: tools/call: %v", ErrInvalidParams, err)
	}
	if p.Name == nil || *p.Name == "" {
		return nil, fmt.Errorf("%w: tools/call needs a tool name in \"name\"", ErrInvalidParams)
	}
	t, ok := s.srv.reg.Lookup(*p.Name, s.visibility())
	if !ok {
		return nil, fmt.Errorf("%w: unknown tool %q", ErrInvalidParams, *p.Name)
	}
	if tok := p.Meta.ProgressToken; len(tok) > 0 && string(tok) != "null" {
		ctx = context.WithValue(ctx, progressKey{}, tok)
	}
	res, err := s.callTool(ctx, t, p.Arguments)
	if err != nil {
		return nil, err
	}
	if s.ProtocolVersion() == "2025-03-26" {
		res.StructuredContent = nil
	}
	return res, nil
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

type progressKey struct{}

// ReportProgress sends notifications/progress for the call ctx belongs to,
// if the client gave a progressToken; otherwise it does nothing. total may
// be 0 when unknown.
func ReportProgress(ctx context.Context, progress, total float64, message string) {
	s := SessionFrom(ctx)
	tok, _ := ctx.Value(progressKey{}).(json.RawMessage)
	if s == nil || tok == nil {
		return
	}
	p := map[string]any{"progressToken": tok, "progress": progress}
	if total > 0 {
		p["total"] = total
	}
	if message != "" {
		p["message"] = message
	}
	s.Notify(ctx, "notifications/progress", p)
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// This file speaks the Anthropic Messages API (Claude Code).

package scriptedmodel

import (
	"encoding/json"
	"net/http"
)

func anthropicMessage(id string, content []any, stop string) map[string]any {
	return map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": "scripted",
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1},
	}
}

// anthropicTurn streams one assistant message: message_start, a block per
// tool call (tool_use, its arguments as one input_json_delta) or one text
// block, message_delta with the stop reason, message_stop.
func (s *Server) anthropicTurn(w http.ResponseWriter, turn, rep int, t Turn) {
	startSSE(w)
	id := "msg_helper"
	if turn >= 0 {
		id = callID(turn, rep, 0)
	}
	start := anthropicMessage(id, []any{}, "")
	start["stop_reason"] = nil
	sse(w, "message_start", map[string]any{"type": "message_start", "message": start})
	stop := "end_turn"
	if len(t.Calls) == 0 {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": t.Text}})
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	} else {
		stop = "tool_use"
		for i, c := range t.Calls {
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": callID(turn, rep, i), "name": callName(Anthropic, c), "input": map[string]any{}}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(args(c))}})
			sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		}
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 1}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

type anthropicRequest struct {
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (s *Server) anthropicTools(body []byte) ([]Tool, error) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []Tool
	for _, t := range req.Tools {
		if name, ok := ourName(Anthropic, t.Name); ok {
			out = append(out, Tool{Name: name, ModelName: t.Name, Description: t.Description, Schema: t.InputSchema})
		}
	}
	return out, nil
}

// anthropicResults finds tool_result blocks in the user messages.
func (s *Server) anthropicResults(body []byte, found map[string]Result) error {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	for _, m := range req.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			IsError   bool            `json:"is_error"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue // a plain string message
		}
		for _, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			r := Result{ID: b.ToolUseID, IsError: b.IsError, Raw: b.Content}
			var text string
			if json.Unmarshal(b.Content, &text) == nil {
				r.Text = []string{text}
			} else {
				var parts []struct {
					Type   string `json:"type"`
					Text   string `json:"text"`
					Source struct {
						MediaType string `json:"media_type"`
						Data      string `json:"data"`
					} `json:"source"`
				}
				json.Unmarshal(b.Content, &parts)
				for _, p := range parts {
					switch p.Type {
					case "text":
						r.Text = append(r.Text, p.Text)
					case "image":
						r.Images = append(r.Images, Image{MIMEType: p.Source.MediaType, Data: p.Source.Data})
					}
				}
			}
			found[r.ID] = r
		}
	}
	return nil
}

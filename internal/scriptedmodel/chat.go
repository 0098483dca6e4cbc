// This file speaks OpenAI-style chat completions (opencode).

package scriptedmodel

import (
	"encoding/json"
	"net/http"
)

func chatChunk(delta map[string]any, finish any) map[string]any {
	return map[string]any{
		"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0, "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
	}
}

// chatTurn streams one completion: a chunk with the tool calls (or the
// text), a chunk with the finish reason and usage, then [DONE].
func (s *Server) chatTurn(w http.ResponseWriter, turn, rep int, t Turn) {
	startSSE(w)
	finish := "stop"
	if len(t.Calls) == 0 {
		sse(w, "", chatChunk(map[string]any{"role": "assistant", "content": t.Text}, nil))
	} else {
		finish = "tool_calls"
		var calls []any
		for i, c := range t.Calls {
			calls = append(calls, map[string]any{"index": i, "id": callID(turn, rep, i), "type": "function",
				"function": map[string]any{"name": callName(Chat, c), "arguments": string(args(c))}})
		}
		sse(w, "", chatChunk(map[string]any{"role": "assistant", "content": nil, "tool_calls": calls}, nil))
	}
	last := chatChunk(map[string]any{}, finish)
	last["usage"] = map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
	sse(w, "", last)
	sse(w, "", "[DONE]")
}

func (s *Server) chatTools(body []byte) ([]Tool, error) {
	var req struct {
		Tools []struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []Tool
	for _, t := range req.Tools {
		if name, ok := ourName(Chat, t.Function.Name); ok {
			out = append(out, Tool{Name: name, ModelName: t.Function.Name, Description: t.Function.Description, Schema: t.Function.Parameters})
		}
	}
	return out, nil
}

type chatPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// chatResults finds role "tool" messages; an image the CLI could not put
// in a tool message may follow it in a user message, which is counted as
// part of the result before it.
func (s *Server) chatResults(body []byte, found map[string]Result) error {
	var req struct {
		Messages []struct {
			Role       string          `json:"role"`
			ToolCallID string          `json:"tool_call_id"`
			Content    json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	var cur *Result
	for _, m := range req.Messages {
		switch m.Role {
		case "tool":
			r := Result{ID: m.ToolCallID, Raw: m.Content}
			r.Text, r.Images = chatContent(m.Content)
			found[r.ID] = r
			cur = &r
		case "user":
			if cur != nil {
				text, imgs := chatContent(m.Content)
				if len(imgs) > 0 {
					cur.Images = append(cur.Images, imgs...)
					cur.Text = append(cur.Text, text...)
					found[cur.ID] = *cur
				}
			}
			cur = nil
		default:
			cur = nil
		}
	}
	return nil
}

func chatContent(raw json.RawMessage) ([]string, []Image) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []string{text}, nil
	}
	var parts []chatPart
	json.Unmarshal(raw, &parts)
	var texts []string
	var imgs []Image
	for _, p := range parts {
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
		case "image_url":
			imgs = append(imgs, dataURLImage(p.ImageURL.URL))
		}
	}
	return texts, imgs
}

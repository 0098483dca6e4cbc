// This file speaks the OpenAI Responses API (Codex).

package scriptedmodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

// responsesTurn streams one response: response.created, an output item per
// tool call (a function_call in our namespace) or one assistant message,
// response.completed.
func (s *Server) responsesTurn(w http.ResponseWriter, turn, rep int, t Turn) {
	startSSE(w)
	id := "resp_helper"
	if turn >= 0 {
		id = "resp_" + callID(turn, rep, 0)
	}
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	var items []any
	if len(t.Calls) == 0 {
		items = append(items, map[string]any{"type": "message", "role": "assistant", "id": "msg_" + id,
			"content": []any{map[string]any{"type": "output_text", "text": t.Text}}})
	}
	for i, c := range t.Calls {
		item := map[string]any{"type": "function_call", "id": "fc_" + callID(turn, rep, i),
			"namespace": CodexNamespace, "name": c.Tool, "call_id": callID(turn, rep, i), "arguments": string(args(c))}
		if c.Native {
			delete(item, "namespace") // Codex's own tools are top-level functions
		}
		items = append(items, item)
	}
	for i, it := range items {
		sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": id, "usage": map[string]any{"input_tokens": 1, "input_tokens_details": nil, "output_tokens": 1,
			"output_tokens_details": nil, "total_tokens": 2}}})
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Tools       []responsesTool `json:"tools"`
}

func (s *Server) responsesTools(body []byte) ([]Tool, error) {
	var req struct {
		Tools []responsesTool `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []Tool
	for _, ns := range req.Tools {
		if ns.Name != CodexNamespace {
			continue
		}
		for _, t := range ns.Tools {
			out = append(out, Tool{Name: t.Name, ModelName: CodexNamespace + "." + t.Name, Description: t.Description, Schema: t.Parameters})
		}
	}
	return out, nil
}

// responsesResults finds function_call_output items in the input.
func (s *Server) responsesResults(body []byte, found map[string]Result) error {
	var req struct {
		Input []struct {
			Type   string          `json:"type"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	for _, it := range req.Input {
		if it.Type != "function_call_output" {
			continue
		}
		r := Result{ID: it.CallID, Raw: it.Output}
		var text string
		if json.Unmarshal(it.Output, &text) == nil {
			r.Text = []string{text}
		} else {
			var parts []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL string `json:"image_url"`
			}
			json.Unmarshal(it.Output, &parts)
			for _, p := range parts {
				switch p.Type {
				case "input_text", "output_text", "text":
					r.Text = append(r.Text, p.Text)
				case "input_image":
					r.Images = append(r.Images, dataURLImage(p.ImageURL))
				}
			}
		}
		found[r.ID] = r
	}
	return nil
}

// dataURLImage splits data:MIME;base64,DATA.
func dataURLImage(u string) Image {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return Image{Data: u}
	}
	mime, data, _ := strings.Cut(rest, ",")
	return Image{MIMEType: strings.TrimSuffix(mime, ";base64"), Data: data}
}

// This file speaks the Gemini API (Gemini CLI).

package scriptedmodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

func geminiResponse(parts []any) map[string]any {
	return map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		"modelVersion":  "scripted",
	}
}

// geminiTurn streams one candidate as a single data event: functionCall
// parts for the tool calls, or one text part.
func (s *Server) geminiTurn(w http.ResponseWriter, turn, rep int, t Turn) {
	var parts []any
	if len(t.Calls) == 0 {
		parts = append(parts, map[string]any{"text": t.Text})
	}
	for i, c := range t.Calls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{
			"id": callID(turn, rep, i), "name": callName(Gemini, c), "args": args(c)}})
	}
	startSSE(w)
	sse(w, "", geminiResponse(parts))
}

// geminiHelper answers countTokens, and generate calls outside the agent
// loop: a JSON value fitting generationConfig's schema when one is asked
// for, else a short text.
func (s *Server) geminiHelper(w http.ResponseWriter, path string, body []byte) {
	if strings.Contains(path, ":countTokens") {
		writeJSON(w, map[string]any{"totalTokens": 100})
		return
	}
	var req struct {
		GenerationConfig struct {
			ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
			ResponseSchema     json.RawMessage `json:"responseSchema"`
		} `json:"generationConfig"`
	}
	json.Unmarshal(body, &req)
	text := "ok"
	schema := req.GenerationConfig.ResponseJSONSchema
	if len(schema) == 0 {
		schema = req.GenerationConfig.ResponseSchema
	}
	if len(schema) > 0 {
		var sch any
		json.Unmarshal(schema, &sch)
		b, _ := json.Marshal(fill(sch))
		text = string(b)
	}
	resp := geminiResponse([]any{map[string]any{"text": text}})
	if strings.Contains(path, ":streamGenerateContent") {
		startSSE(w)
		sse(w, "", resp)
		return
	}
	writeJSON(w, resp)
}

// fill makes a value that fits a JSON schema: required properties filled,
// the first enum value, empty strings and zero numbers. Where Gemini CLI
// asks who speaks next, the first enum value it offers is "user", which
// ends the turn.
func fill(schema any) any {
	m, _ := schema.(map[string]any)
	if m == nil {
		return nil
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	typ, _ := m["type"].(string)
	if typ == "" {
		if ts, ok := m["type"].([]any); ok && len(ts) > 0 {
			typ, _ = ts[0].(string)
		}
	}
	switch strings.ToLower(typ) {
	case "object":
		out := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		req, _ := m["required"].([]any)
		for _, r := range req {
			if name, ok := r.(string); ok {
				out[name] = fill(props[name])
			}
		}
		return out
	case "array":
		return []any{}
	case "string":
		return ""
	case "number", "integer":
		return 0
	case "boolean":
		return false
	}
	return nil
}

type geminiPart struct {
	Text             string `json:"text"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
		Parts    []geminiPart    `json:"parts"`
	} `json:"functionResponse"`
	InlineData *struct {
		MIMEType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
}

func (s *Server) geminiTools(body []byte) ([]Tool, error) {
	var req struct {
		Tools []struct {
			FunctionDeclarations []struct {
				Name                 string          `json:"name"`
				Description          string          `json:"description"`
				Parameters           json.RawMessage `json:"parameters"`
				ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []Tool
	for _, group := range req.Tools {
		for _, f := range group.FunctionDeclarations {
			name, ok := ourName(Gemini, f.Name)
			if !ok {
				continue
			}
			schema := f.ParametersJSONSchema
			if len(schema) == 0 {
				schema = f.Parameters
			}
			out = append(out, Tool{Name: name, ModelName: f.Name, Description: f.Description, Schema: schema})
		}
	}
	return out, nil
}

// geminiResults finds functionResponse parts; an image travels either in
// the functionResponse's own parts or as inlineData parts after it.
func (s *Server) geminiResults(body []byte, found map[string]Result) error {
	var req struct {
		Contents []struct {
			Role  string       `json:"role"`
			Parts []geminiPart `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	for _, c := range req.Contents {
		var cur *Result
		for _, p := range c.Parts {
			switch {
			case p.FunctionResponse != nil:
				fr := p.FunctionResponse
				r := Result{ID: fr.ID, Raw: fr.Response}
				r.Text = responseTexts(fr.Response)
				for _, q := range fr.Parts {
					if q.InlineData != nil {
						r.Images = append(r.Images, Image{MIMEType: q.InlineData.MIMEType, Data: q.InlineData.Data})
					}
				}
				found[r.ID] = r
				cur = &r
			case p.InlineData != nil && cur != nil:
				cur.Images = append(cur.Images, Image{MIMEType: p.InlineData.MIMEType, Data: p.InlineData.Data})
				found[cur.ID] = *cur
			case p.Text != "" && cur != nil:
				cur.Text = append(cur.Text, p.Text)
				found[cur.ID] = *cur
			}
		}
	}
	return nil
}

// responseTexts takes the strings out of a functionResponse.response
// ({"output": "..."} or {"error": "..."}, or deeper).
func responseTexts(raw json.RawMessage) []string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range []string{"output", "error", "content", "text", "llmContent"} {
				if e, ok := x[k]; ok {
					walk(e)
				}
			}
		}
	}
	walk(v)
	return out
}

package scriptedmodel

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s\n%s", url, resp.Status, b)
	}
	return string(b)
}

// wire is one API's request shapes: where its agent loop posts, a first
// request offering our lsp tool, and a follow-up carrying call_0_0's
// result (text "hover text" and a PNG) in that API's own shape.
type wire struct {
	path, first, followUp string
	toolName              string // how the first request names our tool
}

const png = "iVBORw0KGgo="

var wires = map[API]wire{
	Anthropic: {
		path:     "/v1/messages?beta=true",
		first:    `{"stream":true,"tools":[{"name":"mcp__agent-tools__lsp","description":"d","input_schema":{"type":"object"}},{"name":"Bash","description":"x","input_schema":{}}],"messages":[{"role":"user","content":"go"}]}`,
		followUp: `{"stream":true,"tools":[{"name":"mcp__agent-tools__lsp","description":"d","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"call_0_0"}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_0_0","is_error":true,"content":[{"type":"text","text":"hover text"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png + `"}}]}]}]}`,
		toolName: "mcp__agent-tools__lsp",
	},
	Responses: {
		path:     "/v1/responses",
		first:    `{"stream":true,"tools":[{"type":"namespace","name":"mcp__agent_tools","tools":[{"type":"function","name":"lsp","description":"d","parameters":{"type":"object"}}]}],"input":[]}`,
		followUp: `{"stream":true,"tools":[{"type":"namespace","name":"mcp__agent_tools","tools":[]}],"input":[{"type":"function_call","call_id":"call_0_0"},{"type":"function_call_output","call_id":"call_0_0","output":[{"type":"input_text","text":"hover text"},{"type":"input_image","image_url":"data:image/png;base64,` + png + `"}]}]}`,
		toolName: `"name":"lsp","namespace":"mcp__agent_tools"`,
	},
	Gemini: {
		path:     "/v1beta/models/m:streamGenerateContent?alt=sse",
		first:    `{"tools":[{"functionDeclarations":[{"name":"mcp_agent-tools_lsp","description":"d","parametersJsonSchema":{"type":"object"}}]}],"contents":[{"role":"user","parts":[{"text":"go"}]}]}`,
		followUp: `{"tools":[{"functionDeclarations":[{"name":"mcp_agent-tools_lsp"}]}],"contents":[{"role":"user","parts":[{"functionResponse":{"id":"call_0_0","name":"mcp_agent-tools_lsp","response":{"output":"hover text"}}},{"inlineData":{"mimeType":"image/png","data":"` + png + `"}}]}]}`,
		toolName: "mcp_agent-tools_lsp",
	},
	Chat: {
		path:     "/v1/chat/completions",
		first:    `{"stream":true,"tools":[{"type":"function","function":{"name":"agent-tools_lsp","description":"d","parameters":{"type":"object"}}}],"messages":[{"role":"user","content":"go"}]}`,
		followUp: `{"stream":true,"tools":[{"type":"function","function":{"name":"agent-tools_lsp"}}],"messages":[{"role":"tool","tool_call_id":"call_0_0","content":"hover text"},{"role":"user","content":[{"type":"text","text":"Attached media from tool result:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,` + png + `"}}]}]}`,
		toolName: "agent-tools_lsp",
	},
}

// TestScript plays a two-turn script (one call, then a final text) in each
// API and reads back the tool definition and the call's result.
func TestScript(t *testing.T) {
	for api, w := range wires {
		t.Run(string(api), func(t *testing.T) {
			s, err := Start(api, []Turn{
				{Calls: []Call{{Tool: "lsp", Args: json.RawMessage(`{"action":"status"}`)}}},
				{Text: "all done"},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			first := post(t, s.URL()+w.path, w.first)
			for _, want := range []string{"call_0_0", w.toolName, "status"} {
				if !strings.Contains(first, want) {
					t.Errorf("first answer lacks %s:\n%s", want, first)
				}
			}
			select {
			case <-s.Finished():
				t.Fatal("finished after one of two turns")
			default:
			}
			if second := post(t, s.URL()+w.path, w.followUp); !strings.Contains(second, "all done") {
				t.Errorf("second answer is not the final text:\n%s", second)
			}
			<-s.Finished()

			tools, err := s.Tools()
			if err != nil || len(tools) != 1 || tools[0].Name != "lsp" || tools[0].Description != "d" || !strings.Contains(string(tools[0].Schema), "object") {
				t.Errorf("Tools() = %+v, %v; want only lsp, as sent", tools, err)
			}
			rs, err := s.Results()
			if err != nil || len(rs) != 1 {
				t.Fatalf("Results() = %+v, %v", rs, err)
			}
			r := rs[0]
			if r.Tool != "lsp" || r.Text[0] != "hover text" || len(r.Images) != 1 || r.Images[0].Data != png || r.Images[0].MIMEType != "image/png" {
				t.Errorf("result = %+v; want lsp's text and one PNG", r)
			}
			if r.IsError != (api == Anthropic) {
				t.Errorf("IsError = %v", r.IsError)
			}
		})
	}
}

// TestHelpers answers requests outside the agent loop without using a turn.
func TestHelpers(t *testing.T) {
	s, err := Start(Gemini, []Turn{{Text: "final"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := post(t, s.URL()+"/v1beta/models/m:countTokens", `{}`); !strings.Contains(got, "totalTokens") {
		t.Errorf("countTokens: %s", got)
	}
	got := post(t, s.URL()+"/v1beta/models/m:generateContent", `{"generationConfig":{"responseJsonSchema":{"type":"object","properties":{"next_speaker":{"type":"string","enum":["user","model"]},"reasoning":{"type":"string"}},"required":["reasoning","next_speaker"]}}}`)
	var resp struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(got), &resp); err != nil || len(resp.Candidates) != 1 {
		t.Fatalf("JSON helper: %v\n%s", err, got)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(resp.Candidates[0].Content.Parts[0].Text), &v); err != nil || v["next_speaker"] != "user" || v["reasoning"] != "" {
		t.Errorf("JSON helper's value %q does not fit the schema (%v)", resp.Candidates[0].Content.Parts[0].Text, err)
	}
	if s.TurnsServed() != 0 || len(s.Requests()) != 2 || s.Requests()[0].Turn != -1 {
		t.Errorf("helpers used a turn: %d served, requests %+v", s.TurnsServed(), s.Requests())
	}
	if _, err := s.Tools(); err == nil {
		t.Error("Tools() without an agent-loop request: no error")
	}
	a, _ := Start(Anthropic, []Turn{{Text: "final"}})
	defer a.Close()
	if got := post(t, a.URL()+"/v1/messages", `{"stream":false,"messages":[]}`); !strings.Contains(got, `"type":"message"`) || a.TurnsServed() != 0 {
		t.Errorf("non-streamed helper: %s (%d turns served)", got, a.TurnsServed())
	}
}

func TestModelName(t *testing.T) {
	for api, want := range map[API]string{Anthropic: "mcp__agent-tools__eval", Responses: "eval", Gemini: "mcp_agent-tools_eval", Chat: "agent-tools_eval"} {
		got := ModelName(api, "eval")
		back, ok := ourName(api, got)
		if got != want || !ok || back != "eval" {
			t.Errorf("%s: ModelName = %q, back %q %v; want %q", api, got, back, ok, want)
		}
	}
}

// TestUntil serves a turn with Until again, with fresh call ids, until its
// result satisfies it, in each API (the follow-ups carry the result text
// "starting" or "ready" under the id the last answer gave).
func TestUntil(t *testing.T) {
	for api, w := range wires {
		t.Run(string(api), func(t *testing.T) {
			var seen []string
			s, err := Start(api, []Turn{
				{Calls: []Call{{Tool: "lsp", Args: json.RawMessage(`{"action":"status"}`)}}, Until: func(rs []Result) bool {
					// (opencode's shape adds the image's text after it)
					first, _, _ := strings.Cut(rs[0].AllText(), "\n")
					seen = append(seen, rs[0].ID+"="+first)
					return first == "ready"
				}},
				{Text: "all done"},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			follow := func(id, text string) string {
				body := strings.ReplaceAll(strings.ReplaceAll(w.followUp, "call_0_0", id), "hover text", text)
				return post(t, s.URL()+w.path, body)
			}
			if first := post(t, s.URL()+w.path, w.first); !strings.Contains(first, `call_0_0"`) {
				t.Fatalf("first answer lacks call_0_0:\n%s", first)
			}
			for rep, id := range []string{"call_0_0", "call_0_0_again1"} {
				got := follow(id, "starting")
				want := "call_0_0_again" + string(rune('1'+rep))
				if !strings.Contains(got, want) || s.TurnsServed() != 1 {
					t.Fatalf("after %q: want the turn again as %s (1 turn served, got %d):\n%s", id, want, s.TurnsServed(), got)
				}
			}
			if got := follow("call_0_0_again2", "ready"); !strings.Contains(got, "all done") {
				t.Fatalf("after ready: not the final text:\n%s", got)
			}
			<-s.Finished()
			if want := "call_0_0=starting call_0_0_again1=starting call_0_0_again2=ready"; strings.Join(seen, " ") != want {
				t.Errorf("Until saw %q; want %q", strings.Join(seen, " "), want)
			}
			if r, ok := s.Result(0, 0); !ok || r.Text[0] != "starting" {
				t.Errorf("Result(0, 0) = %+v, %v; want the first serving's", r, ok)
			}
		})
	}
}

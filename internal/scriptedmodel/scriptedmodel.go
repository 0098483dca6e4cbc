// Package scriptedmodel is a scripted model API on loopback, for driving the
// real agent CLIs (Claude Code, Codex, Gemini CLI, opencode) in tests.
//
// It is the only stand-in in those tests: no model can run on the test
// machines, so this server plays the model. It speaks each CLI's real wire
// API — the Anthropic Messages API streamed as SSE, the OpenAI Responses API
// as SSE, the Gemini API's streamGenerateContent (alt=sse) with countTokens
// and its JSON-schema helper calls, and OpenAI-style chat completions as
// SSE — and answers from a script instead of thinking: each turn is one or
// more tool calls, or a final text.
//
// It records every request, and reads back out of them what a real model
// would have been given: the tool definitions the CLI sent ([Server.Tools])
// and, for each scripted call, what the CLI passed back as that call's
// result ([Server.Results]), each in its API's own shape.
package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// API is a model wire API, one per CLI.
type API string

// The four APIs, named after the CLI that uses each.
const (
	Anthropic API = "anthropic" // Claude Code: POST /v1/messages, SSE
	Responses API = "responses" // Codex: POST /v1/responses, SSE
	Gemini    API = "gemini"    // Gemini CLI: POST /v1beta/models/M:streamGenerateContent?alt=sse
	Chat      API = "chat"      // opencode: POST /v1/chat/completions, SSE
)

// ServerName is the name agent-tools is registered under in every CLI.
const ServerName = "agent-tools"

// CodexNamespace is the Responses namespace tool Codex puts our tools in
// (the server name with '-' turned into '_').
const CodexNamespace = "mcp__agent_tools"

// ModelName returns the name api's CLI gives our tool when it shows it to
// the model (for Codex, the function's name inside [CodexNamespace]).
func ModelName(api API, tool string) string {
	switch api {
	case Anthropic:
		return "mcp__" + ServerName + "__" + tool
	case Gemini:
		return "mcp_" + ServerName + "_" + tool
	case Chat:
		return ServerName + "_" + tool
	}
	return tool
}

// ourName inverts ModelName; ok is false for a tool that is not ours.
func ourName(api API, name string) (string, bool) {
	var prefix string
	switch api {
	case Anthropic:
		prefix = "mcp__" + ServerName + "__"
	case Gemini:
		prefix = "mcp_" + ServerName + "_"
	case Chat:
		prefix = ServerName + "_"
	default:
		return name, true
	}
	if !strings.HasPrefix(name, prefix) {
		return "", false
	}
	return strings.TrimPrefix(name, prefix), true
}

// Call is one scripted tool call: our tool name (as agent-tools names it)
// and its JSON arguments.
type Call struct {
	Tool string
	Args json.RawMessage
	// Native: Tool is one of the CLI's own tools (Claude Code's Edit or
	// Bash, Codex's exec_command, Gemini's run_shell_command, opencode's
	// bash), called by that name as is.
	Native bool
}

// callName is the name the model calls c by in api.
func callName(api API, c Call) string {
	if c.Native {
		return c.Tool
	}
	return ModelName(api, c.Tool)
}

// Turn is one model turn: tool calls (run by the CLI, their results coming
// back in the next request) or, when Calls is empty, a final Text.
type Turn struct {
	Calls []Call
	Text  string
	// Until, when set on a turn with calls, makes the turn a wait on the
	// CLI: the turn is served again (the same calls, new ids) until the
	// results of its calls, as the CLI passed them back, satisfy Until —
	// at most MaxRepeats times, then the script goes on. For a resource
	// the CLI starts in the background (Claude Code's plugin language
	// servers answer "server is starting" at first). [Server.Result] gives
	// the first serving's results.
	Until func(results []Result) bool
}

// MaxRepeats bounds how often a turn with Until is served again.
const MaxRepeats = 200

// Request is one HTTP request a CLI sent.
type Request struct {
	Method, Path string // Path includes the query
	Body         []byte
	// Turn is the script turn this request was answered with, or -1 for a
	// helper request (a title, a token count, a JSON-schema question). A
	// turn served again (Until) answers several requests.
	Turn int
	// Time is when the request arrived.
	Time time.Time
}

// Server is one scripted model API on 127.0.0.1.
type Server struct {
	api    API
	script []Turn
	ln     net.Listener
	srv    *http.Server

	mu       sync.Mutex
	requests []Request
	next     int           // next turn to serve
	reps     map[int]int   // times a turn with Until was served again
	finished chan struct{} // closed when the last turn was served
	changed  chan struct{} // closed and replaced on every request
}

// Start serves script for api on a fresh loopback port.
func Start(api API, script []Turn) (*Server, error) {
	switch api {
	case Anthropic, Responses, Gemini, Chat:
	default:
		return nil, fmt.Errorf("scriptedmodel: unknown API %q", api)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{api: api, script: script, ln: ln, reps: map[int]int{}, finished: make(chan struct{}), changed: make(chan struct{})}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	return s, nil
}

// URL is the server's base URL, http://127.0.0.1:PORT (no path).
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Finished is closed once the script's last turn has been served.
func (s *Server) Finished() <-chan struct{} { return s.finished }

// Changed returns a channel closed at the next request (to wait on
// progress without polling).
func (s *Server) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// Requests returns a copy of every request so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// TurnsServed is how many script turns have been answered.
func (s *Server) TurnsServed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// CallID is the id the script gives call c of turn t; each API's result
// refers back to it.
func CallID(turn, c int) string { return fmt.Sprintf("call_%d_%d", turn, c) }

// callID is the id of call c of turn t served for the rep'th time again
// (0: the first serving, [CallID]).
func callID(turn, rep, c int) string {
	if rep == 0 {
		return CallID(turn, c)
	}
	return fmt.Sprintf("call_%d_%d_again%d", turn, c, rep)
}

// again tells whether the request body, which carries the results of the
// last serving of turn prev, must be answered with prev once more.
func (s *Server) again(prev int, body []byte) bool {
	if prev < 0 || prev >= len(s.script)-1 || s.script[prev].Until == nil || len(s.script[prev].Calls) == 0 || s.reps[prev] >= MaxRepeats {
		return false
	}
	found := map[string]Result{}
	var err error
	switch s.api {
	case Anthropic:
		err = s.anthropicResults(body, found)
	case Responses:
		err = s.responsesResults(body, found)
	case Gemini:
		err = s.geminiResults(body, found)
	case Chat:
		err = s.chatResults(body, found)
	}
	if err != nil {
		return true
	}
	var rs []Result
	for i, c := range s.script[prev].Calls {
		r := found[callID(prev, s.reps[prev], i)]
		r.Turn, r.Index, r.Tool = prev, i, c.Tool
		rs = append(rs, r)
	}
	return !s.script[prev].Until(rs)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.RequestURI()
	turn, rep := -1, 0
	main := r.Method == http.MethodPost && s.isMain(path, body)
	s.mu.Lock()
	if main && s.again(s.next-1, body) {
		turn = s.next - 1
		s.reps[turn]++
		rep = s.reps[turn]
	} else if main {
		turn = s.next
		if turn >= len(s.script) {
			turn = len(s.script) - 1 // the script is over: say the last text again
		} else {
			s.next++
			if s.next == len(s.script) {
				close(s.finished)
			}
		}
	}
	s.requests = append(s.requests, Request{Method: r.Method, Path: path, Body: body, Turn: turn, Time: time.Now()})
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()

	if !main {
		s.helper(w, path, body)
		return
	}
	var t Turn
	if turn >= 0 {
		t = s.script[turn]
	}
	switch s.api {
	case Anthropic:
		s.anthropicTurn(w, turn, rep, t)
	case Responses:
		s.responsesTurn(w, turn, rep, t)
	case Gemini:
		s.geminiTurn(w, turn, rep, t)
	case Chat:
		s.chatTurn(w, turn, rep, t)
	}
}

// isMain tells a request of the agent loop (streamed, offering our tools)
// from a CLI's helper requests.
func (s *Server) isMain(path string, body []byte) bool {
	var b struct {
		Stream bool            `json:"stream"`
		Tools  json.RawMessage `json:"tools"`
	}
	json.Unmarshal(body, &b)
	hasOurs := strings.Contains(string(b.Tools), ServerName) || strings.Contains(string(b.Tools), CodexNamespace)
	switch s.api {
	case Anthropic:
		return strings.HasPrefix(path, "/v1/messages") && !strings.Contains(path, "count_tokens") && b.Stream && hasOurs
	case Responses:
		return strings.HasPrefix(path, "/v1/responses") && hasOurs
	case Gemini:
		return strings.Contains(path, ":streamGenerateContent") && hasOurs
	case Chat:
		return strings.HasPrefix(path, "/v1/chat/completions") && hasOurs
	}
	return false
}

// sse writes one server-sent event (event may be empty) and flushes.
func sse(w http.ResponseWriter, event string, data any) {
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	var b []byte
	if s, ok := data.(string); ok {
		b = []byte(s)
	} else {
		b, _ = json.Marshal(data)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// args returns a call's arguments as a JSON object ({} when empty).
func args(c Call) json.RawMessage {
	if len(c.Args) == 0 {
		return json.RawMessage(`{}`)
	}
	return c.Args
}

// helper answers a request that is not an agent turn: a one-word text,
// a token count, or a JSON value fitting the schema asked for.
func (s *Server) helper(w http.ResponseWriter, path string, body []byte) {
	switch s.api {
	case Anthropic:
		if strings.Contains(path, "count_tokens") {
			writeJSON(w, map[string]any{"input_tokens": 100})
			return
		}
		var b struct {
			Stream bool `json:"stream"`
		}
		json.Unmarshal(body, &b)
		if b.Stream {
			s.anthropicTurn(w, -1, 0, Turn{Text: "ok"})
			return
		}
		writeJSON(w, anthropicMessage("msg_helper", []any{map[string]any{"type": "text", "text": "ok"}}, "end_turn"))
	case Responses:
		s.responsesTurn(w, -1, 0, Turn{Text: "ok"})
	case Gemini:
		s.geminiHelper(w, path, body)
	case Chat:
		var b struct {
			Stream bool `json:"stream"`
		}
		json.Unmarshal(body, &b)
		if b.Stream {
			s.chatTurn(w, -1, 0, Turn{Text: "ok"})
			return
		}
		writeJSON(w, map[string]any{
			"id": "chatcmpl-helper", "object": "chat.completion", "created": 0, "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": "ok"}}},
			"usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
		})
	}
}

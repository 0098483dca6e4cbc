// This file reads, out of the recorded requests, what the model was given.

package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Tool is one tool definition as a CLI sent it to the model.
type Tool struct {
	Name        string          // our name (lsp, ast_grep, …)
	ModelName   string          // the CLI's name for it (Codex: namespace.name)
	Description string          // the description the model reads
	Schema      json.RawMessage // the parameter schema, after the CLI's rewriting
}

// Image is an image the model was given.
type Image struct {
	MIMEType string
	Data     string // base64
}

// Result is what a CLI passed back to the model as one call's result.
type Result struct {
	ID      string   // the call's id (see CallID)
	Turn    int      // the script turn and call index it answers
	Index   int      //
	Tool    string   // our tool name
	Text    []string // the text parts, in order
	Images  []Image
	IsError bool            // Anthropic's is_error (the other APIs have no flag)
	Raw     json.RawMessage // the result as it appeared in the request
}

// AllText is the result's text parts joined by newlines.
func (r Result) AllText() string { return strings.Join(r.Text, "\n") }

// Tools returns the tool definitions (ours only) of the first request of
// the agent loop, or an error when there was none.
func (s *Server) Tools() ([]Tool, error) {
	for _, r := range s.Requests() {
		if r.Turn < 0 {
			continue
		}
		switch s.api {
		case Anthropic:
			return s.anthropicTools(r.Body)
		case Responses:
			return s.responsesTools(r.Body)
		case Gemini:
			return s.geminiTools(r.Body)
		case Chat:
			return s.chatTools(r.Body)
		}
	}
	return nil, fmt.Errorf("scriptedmodel: no %s request offered agent-tools' tools", s.api)
}

// Results returns, for each scripted call whose result came back, what the
// CLI passed to the model, in script order. A call that never came back
// (the CLI stopped first) is missing from the list; use [Server.Result] to
// look one up.
func (s *Server) Results() ([]Result, error) {
	found := map[string]Result{}
	for _, r := range s.Requests() {
		if r.Turn < 0 {
			continue
		}
		var err error
		switch s.api {
		case Anthropic:
			err = s.anthropicResults(r.Body, found)
		case Responses:
			err = s.responsesResults(r.Body, found)
		case Gemini:
			err = s.geminiResults(r.Body, found)
		case Chat:
			err = s.chatResults(r.Body, found)
		}
		if err != nil {
			return nil, fmt.Errorf("scriptedmodel: a %s request does not decode: %v", s.api, err)
		}
	}
	var out []Result
	for t, turn := range s.script {
		for i, c := range turn.Calls {
			r, ok := found[CallID(t, i)]
			if !ok {
				continue
			}
			r.Turn, r.Index, r.Tool = t, i, c.Tool
			out = append(out, r)
		}
	}
	return out, nil
}

// Result returns the result of call i of script turn t.
func (s *Server) Result(t, i int) (Result, bool) {
	rs, err := s.Results()
	if err != nil {
		return Result{}, false
	}
	for _, r := range rs {
		if r.Turn == t && r.Index == i {
			return r, true
		}
	}
	return Result{}, false
}

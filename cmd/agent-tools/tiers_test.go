package main

// This file is the tier suite of issue 8: in the plan and readonly
// surfaces every write and exec tool (lsp_rename, ast_edit, resolve,
// debug, eval, and the test binary's test_write and test_spawn) is absent
// from tools/list, and a call of it by name is an isError result saying
// why and what is available (Codex never re-lists on list_changed, so its
// model keeps calling tools it once saw), whether the surface came from
// the flag, from initialize or from
// agent-tools/setMode round trips. The vibe_* tools are hidden while vibe
// mode is off and ask_user without the elicitation capability. The eval
// tool() bridge is checked for what it is by design: a call from a cell
// goes to the client (agent-tools/callTool), not into our registry.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// tiersWriteExec are the write and exec tools a surface below full hides.
var tiersWriteExec = []string{"lsp_rename", "ast_edit", "resolve", "debug", "eval", "test_write", "test_spawn"}

// tiersList returns the names in tools/list.
func tiersList(s *server, id int) []string {
	s.t.Helper()
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id))
	data, _ := json.Marshal(s.until(id))
	var res struct {
		Result struct{ Tools []struct{ Name string } }
	}
	json.Unmarshal(data, &res)
	var names []string
	for _, tool := range res.Result.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// tiersCall calls a tool with arguments that would pass its schema and
// returns the JSON-RPC error code (0 when there was a result), the
// result's isError and text, and the whole answer.
func tiersCall(s *server, id int, name string) (code int, isError bool, text, data string) {
	s.t.Helper()
	args := map[string]string{
		"lsp_rename": `{"file":"a.go","line":1,"symbol":"a","new_name":"b"}`,
		"ast_edit":   `{"pattern":"a","rewrite":"b","language":"go"}`,
		"resolve":    `{"edit_id":"edit_1","action":"accept"}`,
		"debug":      `{"op":"status"}`,
		"eval":       `{"code":"1","description":"one plus nothing at all here"}`,
		"test_write": `{"text":"x"}`,
		"vibe_list":  `{}`,
		"ask_user":   `{"question":"which?","allow_free_text":true}`,
	}[name]
	if args == "" {
		args = "{}"
	}
	s.send(toolCallLine(id, name, args))
	m := s.until(id)
	raw, _ := json.Marshal(m)
	if e, ok := m["error"].(map[string]any); ok {
		c, _ := e["code"].(float64)
		return int(c), false, "", string(raw)
	}
	var r struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct{ Text string }
		}
	}
	json.Unmarshal(raw, &r)
	for _, c := range r.Result.Content {
		text += c.Text
	}
	return 0, r.Result.IsError, text, string(raw)
}

// tiersExpectHidden checks each name is absent from the list and that a
// call of it by name is an isError result saying it is not available and
// which tools are; it returns how many were.
func tiersExpectHidden(t *testing.T, s *server, id *int, when string, names []string) int {
	t.Helper()
	*id++
	list := tiersList(s, *id)
	refused := 0
	for _, name := range names {
		if slices.Contains(list, name) {
			t.Errorf("%s: %s is listed: %v", when, name, list)
		}
		*id++
		code, isErr, text, data := tiersCall(s, *id, name)
		if code != 0 || !isErr || !strings.HasPrefix(text, name+" is not available") || !strings.Contains(text, "\nAvailable tools: "+strings.Join(list, ", ")+".") {
			t.Errorf("%s: calling %s: want an error result saying it is not available and listing %v, got %s", when, name, list, data)
		} else {
			refused++
		}
	}
	return refused
}

func tiersExpectShown(t *testing.T, s *server, id *int, when string, names []string) {
	t.Helper()
	*id++
	list := tiersList(s, *id)
	for _, name := range names {
		if !slices.Contains(list, name) {
			t.Errorf("%s: %s is not listed: %v", when, name, list)
		}
	}
}

func tiersSetMode(s *server, id int, params string) {
	s.t.Helper()
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"agent-tools/setMode","params":%s}`, id, params))
	if m := s.until(id); m["error"] != nil {
		s.t.Fatalf("setMode %s: %v", params, m)
	}
}

// TestTiersSurfaces walks plan → full → plan → readonly → full from the
// flag and readonly from initialize, checking the write and exec tools
// each time.
func TestTiersSurfaces(t *testing.T) {
	var attached []string // the write/exec tools attached on this machine
	for _, name := range expectedTools(t) {
		if slices.Contains(tiersWriteExec, name) {
			attached = append(attached, name)
		}
	}
	for _, must := range []string{"lsp_rename", "ast_edit", "resolve", "debug", "test_write", "test_spawn"} {
		if !slices.Contains(attached, must) {
			t.Fatalf("%s is not attached in the full surface: %v", must, attached)
		}
	}
	tried := 0
	refused := 0
	t.Run("flag and setMode round trips", func(t *testing.T) {
		s := startServer(t, "--surface", "plan")
		s.initialize()
		id := 1
		steps := []struct{ mode, surface string }{{"", "plan"}, {`{"surface":"full"}`, "full"}, {`{"surface":"plan"}`, "plan"},
			{`{"surface":"readonly"}`, "readonly"}, {`{"surface":"full"}`, "full"}, {`{"surface":"readonly"}`, "readonly"}}
		for _, st := range steps {
			when := "--surface plan"
			if st.mode != "" {
				id++
				tiersSetMode(s, id, st.mode)
				when = "after setMode " + st.mode
			}
			if st.surface == "full" {
				tiersExpectShown(t, s, &id, when, attached)
				id++
				if code, isErr, _, data := tiersCall(s, id, "test_write"); code != 0 || isErr {
					t.Errorf("%s: test_write refused: %s", when, data)
				}
				continue
			}
			tried += len(tiersWriteExec)
			refused += tiersExpectHidden(t, s, &id, when, tiersWriteExec)
		}
	})
	t.Run("initialize option", func(t *testing.T) {
		s := startServer(t, "--surface", "full")
		s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"experimental":{"agent-tools":{"surface":"readonly"}}},"clientInfo":{"name":"tiers","version":"0"}}}`)
		s.until(1)
		s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		id := 1
		tried += len(tiersWriteExec)
		refused += tiersExpectHidden(t, s, &id, "initialize surface readonly", tiersWriteExec)
	})
	t.Logf("tier cases: %d tried, %d refused", tried, refused)
}

// TestTiersEvalBridge: a cell's tool("...") in a full-surface session is
// sent to the client as agent-tools/callTool, whatever the tool's tier:
// the bridge re-enters the harness's registry, not ours, so tier
// enforcement for bridged calls is the harness's job (it knows the
// agent's surface and answers with its own tools). Our part is that a
// session whose surface is plan or readonly has no eval at all, also
// when it was switched there with a kernel already running.
func TestTiersEvalBridge(t *testing.T) {
	needsEvalTools(t)
	s := startEvalServer(t, `{"python":"`+evalPython+`"}`)
	res, asked := s.evalCall(2, `{"code":"tool('ast_edit', {'pattern': 'a', 'rewrite': 'b'})","description":"call a write tool through the bridge"}`, 0,
		func(name string, args json.RawMessage) string {
			return `{"content":[{"type":"text","text":"the harness answered ` + name + `"}]}`
		})
	if !slices.Equal(asked, []string{"ast_edit"}) {
		t.Errorf("the client was asked for %v, want [ast_edit]", asked)
	}
	if text := resultText(res); !strings.Contains(text, "the harness answered ast_edit") {
		t.Errorf("eval result:\n%s", text)
	}
	id := 3
	tiersSetMode(s, id, `{"surface":"plan"}`)
	tiersExpectHidden(t, s, &id, "plan after a kernel ran", []string{"eval"})
}

// TestTiersVibeAndAskUser: vibe_* are listed only while vibe mode is on
// (setMode round trips), ask_user only to a client that declared
// elicitation.
func TestTiersVibeAndAskUser(t *testing.T) {
	vibe := []string{"vibe_kill", "vibe_list", "vibe_send", "vibe_spawn", "vibe_wait"}
	t.Run("vibe", func(t *testing.T) {
		s := startServer(t, "--worker", "fast="+fakeAgent(t))
		s.initialize()
		id := 1
		tiersExpectHidden(t, s, &id, "vibe off", vibe)
		id++
		tiersSetMode(s, id, `{"vibe":true}`)
		tiersExpectShown(t, s, &id, "after setMode vibe on", vibe)
		id++
		if code, isErr, _, data := tiersCall(s, id, "vibe_list"); code != 0 || isErr {
			t.Errorf("vibe_list with vibe on: %s", data)
		}
		id++
		tiersSetMode(s, id, `{"vibe":false}`)
		tiersExpectHidden(t, s, &id, "after setMode vibe off", vibe)
	})
	t.Run("ask_user", func(t *testing.T) {
		s := startServer(t)
		s.initialize() // no elicitation capability
		id := 1
		tiersExpectHidden(t, s, &id, "without elicitation", []string{"ask_user"})
		e := startServer(t)
		e.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"tiers","version":"0"}}}`)
		e.until(1)
		e.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		id = 1
		tiersExpectShown(t, e, &id, "with elicitation", []string{"ask_user"})
	})
}

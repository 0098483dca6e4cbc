package main

// This file tests the lsp tool's hierarchy actions through the real
// binary: the input schema offers them flat, and bad depth or direction
// is refused with the argument named before any server is started.

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// listedTool is the part of a tools/list entry this test reads.
type listedTool struct {
	Name        string
	Description string
	InputSchema struct {
		Properties map[string]struct {
			Type string
			Enum []string
		}
	}
}

func TestLSPHierarchySchema(t *testing.T) {
	s := startServer(t)
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	data, _ := json.Marshal(s.until(2))
	var list struct{ Result struct{ Tools []listedTool } }
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(list.Result.Tools, func(x listedTool) bool { return x.Name == "lsp" })
	if i < 0 {
		t.Fatalf("no lsp tool in %s", data)
	}
	lsp := list.Result.Tools[i]
	props := lsp.InputSchema.Properties
	for _, a := range []string{"incoming_calls", "outgoing_calls", "type_hierarchy"} {
		if !slices.Contains(props["action"].Enum, a) {
			t.Errorf("action enum lacks %s: %v", a, props["action"].Enum)
		}
		if !strings.Contains(lsp.Description, a) {
			t.Errorf("the description does not mention %s", a)
		}
	}
	if props["depth"].Type != "integer" {
		t.Errorf("depth: %+v", props["depth"])
	}
	if props["direction"].Type != "string" || !slices.Equal(props["direction"].Enum, []string{"subtypes", "supertypes"}) {
		t.Errorf("direction: %+v", props["direction"])
	}
	for name, p := range props {
		if p.Type == "object" || p.Type == "array" {
			t.Errorf("the lsp schema is not flat: %s is %s", name, p.Type)
		}
	}

	for id, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "incoming_calls", "file": "a.go", "line": 1, "symbol": "F", "depth": 4}, "argument 'depth': incoming_calls walks 1 to 3 levels, got 4"},
		{map[string]any{"action": "outgoing_calls", "file": "a.go", "line": 1, "symbol": "F", "depth": -1}, "argument 'depth': outgoing_calls walks 1 to 3 levels, got -1"},
		{map[string]any{"action": "incoming_calls", "file": "a.go", "line": 1, "symbol": "F", "direction": "subtypes"}, "argument 'direction': only type_hierarchy takes a direction"},
		{map[string]any{"action": "type_hierarchy", "file": "a.go", "line": 1, "symbol": "T", "direction": "up"}, "argument 'direction'"},
		{map[string]any{"action": "incoming_calls", "file": "a.go", "symbol": "F"}, "line is required for incoming_calls"},
	} {
		r := s.call(10+id, "lsp", c.args)
		if !r.Result.IsError || !strings.Contains(r.Result.Content[0].Text, c.want) {
			t.Errorf("%v: want an error with %q, got %+v", c.args, c.want, r.Result)
		}
	}
}

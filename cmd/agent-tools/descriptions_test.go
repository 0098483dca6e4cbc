package main

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// descriptionBudget is what the descriptions of all the tools (each
// tool's own and each of its properties', at any depth) may add up to.
// Every agent CLI sends them to its model with every request, so each
// character is paid for on every turn; the detail lives in the README.
const descriptionBudget = 8000

// productTools are the tools a full session lists when every capability
// attaches, vibe mode is on and the client can elicit.
var productTools = []string{"ask_user", "ast_edit", "ast_grep", "debug", "eval", "lsp", "lsp_rename", "resolve",
	"vibe_kill", "vibe_list", "vibe_send", "vibe_spawn", "vibe_wait"}

// TestDescriptionBudget measures the descriptions in tools/list over the
// 13 tools and holds them to descriptionBudget.
func TestDescriptionBudget(t *testing.T) {
	s := startServer(t, "--vibe", "--worker", "fast=true")
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"e2e","version":"0"}}}`)
	s.until(1)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	raw, _ := json.Marshal(s.until(2)["result"])
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	total, definitions := 0, 0
	var seen []string
	for _, tool := range list.Tools {
		if !slices.Contains(productTools, tool.Name) {
			continue // the test binary's own tools
		}
		seen = append(seen, tool.Name)
		var sch any
		if err := json.Unmarshal(tool.InputSchema, &sch); err != nil {
			t.Fatal(err)
		}
		n := len(tool.Description) + propertyDescriptions(sch)
		def, _ := json.Marshal(tool)
		t.Logf("%-10s %5d characters of descriptions, %5d of definition", tool.Name, n, len(def))
		total += n
		definitions += len(def)
	}
	t.Logf("total: %d characters of descriptions (budget %d), %d of definitions, over %d tools", total, descriptionBudget, definitions, len(seen))
	if missing := slices.DeleteFunc(slices.Clone(productTools), func(n string) bool { return slices.Contains(seen, n) }); len(missing) > 0 {
		if testutil.RequireAll() {
			t.Errorf("tools not listed (a capability did not attach): %v", missing)
		} else {
			t.Logf("not listed here (a capability did not attach), not counted: %v", missing)
		}
	}
	if total > descriptionBudget {
		t.Errorf("the tool descriptions add up to %d characters, over the budget of %d: move detail to the README", total, descriptionBudget)
	}
}

// propertyDescriptions sums the description of every schema below s (its
// properties, items and alternatives, at any depth), not s's own.
func propertyDescriptions(s any) int {
	n := 0
	var walk func(v any, top bool)
	walk = func(v any, top bool) {
		switch v := v.(type) {
		case map[string]any:
			if d, ok := v["description"].(string); ok && !top {
				n += len(d)
			}
			for k, c := range v {
				if k == "properties" {
					if props, ok := c.(map[string]any); ok {
						for _, p := range props {
							walk(p, false)
						}
					}
					continue
				}
				if k != "description" {
					walk(c, false)
				}
			}
		case []any:
			for _, c := range v {
				walk(c, false)
			}
		}
	}
	walk(s, true)
	return n
}

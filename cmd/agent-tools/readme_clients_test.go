package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// clientSnippet is one way the README tells a client to start us.
type clientSnippet struct {
	what string   // which snippet, for messages
	argv []string // the command and its arguments, as the client would run them
}

// TestREADMEClientConfigs reads the README's section on registering
// agent-tools with MCP clients, decodes each snippet with the shape its
// client expects (unknown keys are errors), and starts the command each one
// names: it must serve initialize and tools/list.
func TestREADMEClientConfigs(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := readmeSection(t, string(data), "### Registering it with an MCP client")
	var snippets []clientSnippet
	blocks := regexp.MustCompile("(?s)```(\\w+)\n(.*?)```").FindAllStringSubmatch(section, -1)
	for _, b := range blocks {
		lang, body := b[1], b[2]
		switch lang {
		case "sh":
			snippets = append(snippets, shellSnippets(t, body)...)
		case "json":
			snippets = append(snippets, jsonSnippet(t, body))
		case "toml":
			snippets = append(snippets, tomlSnippet(t, body))
		default:
			t.Errorf("unexpected %s block in the section", lang)
		}
	}
	// Inline commands in the prose (codex mcp add …).
	for _, m := range regexp.MustCompile("`((?:claude|codex) mcp add [^`]*)`").FindAllStringSubmatch(section, -1) {
		snippets = append(snippets, shellSnippets(t, m[1])...)
	}
	if len(snippets) < 9 {
		t.Fatalf("found %d snippets in the section, want the 9 it shows (2 claude, 1 codex command, 6 configs)", len(snippets))
	}
	for _, sn := range snippets {
		t.Run(sn.what, func(t *testing.T) {
			if len(sn.argv) < 2 || sn.argv[0] != "agent-tools" || sn.argv[1] != "serve" {
				t.Fatalf("command %q does not start agent-tools serve", sn.argv)
			}
			serveSnippet(t, sn.argv[1:])
		})
	}
}

func readmeSection(t *testing.T, doc, heading string) string {
	i := strings.Index(doc, heading+"\n")
	if i < 0 {
		t.Fatalf("README has no %q", heading)
	}
	rest := doc[i+len(heading):]
	if j := strings.Index(rest, "\n### "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// shellSnippets takes the words after " -- " of each `mcp add` line.
func shellSnippets(t *testing.T, body string) []clientSnippet {
	var out []clientSnippet
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		before, after, ok := strings.Cut(line, " -- ")
		if !ok || !strings.Contains(before, " mcp add ") {
			t.Errorf("shell line %q is not `<client> mcp add NAME -- COMMAND…`", line)
			continue
		}
		if !strings.HasSuffix(before, " agent-tools") {
			t.Errorf("shell line %q does not name the server agent-tools", line)
		}
		out = append(out, clientSnippet{what: strings.Fields(before)[0] + " " + strings.Join(strings.Fields(before)[3:], " "), argv: strings.Fields(after)})
	}
	return out
}

func decodeStrict(t *testing.T, body string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("snippet does not decode: %v\n%s", err, body)
	}
}

// jsonSnippet decodes a client's JSON config by its top-level key.
func jsonSnippet(t *testing.T, body string) clientSnippet {
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &top); err != nil {
		t.Fatalf("snippet is not JSON: %v\n%s", err, body)
	}
	type stdioEntry struct {
		Type    string            `json:"type,omitempty"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env,omitempty"`
		Trust   bool              `json:"trust,omitempty"` // Gemini CLI's settings.json
	}
	switch {
	case top["mcpServers"] != nil: // Claude Code's .mcp.json, Cursor
		var c struct {
			MCPServers map[string]stdioEntry `json:"mcpServers"`
		}
		decodeStrict(t, body, &c)
		e, ok := c.MCPServers["agent-tools"]
		if !ok || (e.Type != "" && e.Type != "stdio") {
			t.Fatalf("no stdio agent-tools entry in mcpServers: %+v", c)
		}
		what := "cursor mcp.json"
		switch {
		case e.Trust:
			what = "gemini settings.json"
		case e.Type != "":
			what = "claude .mcp.json"
		}
		return clientSnippet{what: what, argv: append([]string{e.Command}, e.Args...)}
	case top["servers"] != nil: // VS Code
		var c struct {
			Servers map[string]stdioEntry `json:"servers"`
		}
		decodeStrict(t, body, &c)
		e, ok := c.Servers["agent-tools"]
		if !ok || e.Type != "stdio" {
			t.Fatalf("no stdio agent-tools entry in servers: %+v", c)
		}
		return clientSnippet{what: "vscode", argv: append([]string{e.Command}, e.Args...)}
	case top["mcp"] != nil: // opencode
		var c struct {
			Schema string `json:"$schema"`
			MCP    map[string]struct {
				Type        string            `json:"type"`
				Command     []string          `json:"command"`
				Enabled     bool              `json:"enabled"`
				Environment map[string]string `json:"environment,omitempty"`
				Timeout     int               `json:"timeout,omitempty"` // milliseconds
			} `json:"mcp"`
		}
		decodeStrict(t, body, &c)
		e, ok := c.MCP["agent-tools"]
		if !ok || e.Type != "local" || !e.Enabled {
			t.Fatalf("no enabled local agent-tools entry in mcp: %+v", c)
		}
		return clientSnippet{what: "opencode", argv: e.Command}
	}
	t.Fatalf("unknown client config shape:\n%s", body)
	return clientSnippet{}
}

// tomlSnippet decodes Codex's config.toml entry; keys Codex does not have
// would show as undecoded.
func tomlSnippet(t *testing.T, body string) clientSnippet {
	var c struct {
		MCPServers map[string]struct {
			Command           string   `toml:"command"`
			Args              []string `toml:"args"`
			StartupTimeoutSec int      `toml:"startup_timeout_sec"`
			ToolTimeoutSec    int      `toml:"tool_timeout_sec"`
		} `toml:"mcp_servers"`
	}
	md, err := toml.Decode(body, &c)
	if err != nil {
		t.Fatalf("snippet is not TOML: %v\n%s", err, body)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Fatalf("unknown keys %v in\n%s", u, body)
	}
	e, ok := c.MCPServers["agent-tools"]
	if !ok {
		t.Fatalf("no [mcp_servers.agent-tools] in\n%s", body)
	}
	return clientSnippet{what: "codex config.toml", argv: append([]string{e.Command}, e.Args...)}
}

// serveSnippet runs this binary with args, the way a client would (in a
// project directory, ${workspaceFolder} substituted), and checks that it
// answers initialize and lists tools.
func serveSnippet(t *testing.T, args []string) {
	dir := t.TempDir()
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "${workspaceFolder}", dir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := testBinaryCmd(ctx, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"readme","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agent-tools %q: %v\n%s", args, err, stderr.String())
	}
	var tools int
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Tools []json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err == nil && msg.ID == 2 {
			tools = len(msg.Result.Tools)
		}
	}
	if tools == 0 {
		t.Errorf("agent-tools %q listed no tools; stdout:\n%s", args, out)
	}
}

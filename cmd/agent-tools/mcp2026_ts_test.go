package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// tsClientScript drives agent-tools with the TypeScript SDK's v2 client
// (@modelcontextprotocol/client, the first TS client that speaks
// 2026-07-28; the v1 package stops at 2025-11-25) in its "auto" version
// negotiation: server/discover first (on a sibling process), then the
// stateless revision. Its elicitation handler answers the multi
// round-trip questions: "Decline?" is declined, anything else gets B.
const tsClientScript = `
const root = process.env.TS_CLIENT_DIR;
const { Client } = await import(root + "/dist/index.mjs");
const { StdioClientTransport } = await import(root + "/dist/stdio.mjs");
const [bin, ...args] = JSON.parse(process.env.SERVER_CMD);
const client = new Client({ name: "ts-2026", version: "0" },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } });
client.setRequestHandler("elicitation/create", async (req) => {
  const p = req.params ?? req;
  return p.message.startsWith("Decline?") ? { action: "decline" } : { action: "accept", content: { choice: "B" } };
});
const transport = new StdioClientTransport({ command: bin, args, env: { ...process.env }, stderr: "inherit" });
await client.connect(transport);
const text = r => (r.isError ? "ERROR: " : "") + r.content.filter(c => c.type === "text").map(c => c.text).join("\n");
const out = { version: client.getNegotiatedProtocolVersion(), server: client.getServerVersion()?.name };
out.tools = (await client.listTools()).tools.map(t => t.name);
out.echo = text(await client.callTool({ name: "test_echo", arguments: { text: "from ts" } }));
out.grep = text(await client.callTool({ name: "ast_grep", arguments: { pattern: "print($X)", path: "a.py" } }));
out.ask = text(await client.callTool({ name: "ask_user", arguments: { question: "Which?", options: [{ label: "A" }, { label: "B" }] } }));
out.decline = text(await client.callTool({ name: "ask_user", arguments: { question: "Decline?", allow_free_text: true } }));
console.log(JSON.stringify(out));
await client.close();
`

func TestMCP2026TypeScriptClient(t *testing.T) {
	testutil.Needs(t, "node", "npm")
	var dir string
	testutil.NeedsFunc(t, "@modelcontextprotocol/client 2.x (npm, global)", func() string {
		out, err := exec.Command("npm", "root", "-g").Output()
		if err != nil {
			return "npm root -g: " + err.Error()
		}
		dir = filepath.Join(strings.TrimSpace(string(out)), "@modelcontextprotocol", "client")
		if _, err := os.Stat(filepath.Join(dir, "dist", "stdio.mjs")); err != nil {
			return "not installed (scripts/install-tools.sh installs it)"
		}
		return ""
	})
	root := t.TempDir()
	writeFile(t, root, "a.py", "print(1)\n")
	script := writeFile(t, t.TempDir(), "client.mjs", tsClientScript)
	serverCmd, _ := json.Marshal([]string{os.Args[0], "serve", "--root", root, "--log-level", "warn"})
	ctx, cancel := context.WithTimeout(t.Context(), testutil.IntegrationTimeout())
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "AGENT_TOOLS_TEST_MAIN=1", "TS_CLIENT_DIR="+dir, "SERVER_CMD="+string(serverCmd))
	cmd.Stderr = t.Output()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TS client failed: %v\n%s", err, out)
	}
	var got struct {
		Version, Server, Echo, Grep, Ask, Decline string
		Tools                                     []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the TS client printed %q: %v", out, err)
	}
	if got.Version != "2026-07-28" || got.Server != "agent-tools" {
		t.Errorf("negotiated %q with %q, want 2026-07-28 with agent-tools", got.Version, got.Server)
	}
	if !slices.Contains(got.Tools, "ask_user") || !slices.Contains(got.Tools, "test_echo") {
		t.Errorf("tools: %v", got.Tools)
	}
	for _, c := range []struct{ what, got, want string }{
		{"test_echo", got.Echo, "from ts"},
		{"ast_grep", got.Grep, "a.py:1:"},
		{"ask_user answered", got.Ask, "answer: B"},
		{"ask_user declined", got.Decline, "skipped: the person did not answer (decline). " + skipInstruction},
	} {
		if !strings.Contains(c.got, c.want) || strings.HasPrefix(c.got, "ERROR") {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
}

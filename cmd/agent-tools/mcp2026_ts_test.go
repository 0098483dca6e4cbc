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

// npmGlobal returns the folder of a globally installed npm package, or
// skips (fails under AGENT_TOOLS_REQUIRE_ALL) when it is not there.
func npmGlobal(t *testing.T, pkg, file string) string {
	t.Helper()
	testutil.Needs(t, "node", "npm")
	var dir string
	testutil.NeedsFunc(t, pkg+" (npm, global)", func() string {
		out, err := exec.Command("npm", "root", "-g").Output()
		if err != nil {
			return "npm root -g: " + err.Error()
		}
		dir = filepath.Join(strings.TrimSpace(string(out)), filepath.FromSlash(pkg))
		if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
			return "not installed (scripts/install-tools.sh installs it)"
		}
		return ""
	})
	return dir
}

func TestMCP2026TypeScriptClient(t *testing.T) {
	dir := npmGlobal(t, "@modelcontextprotocol/client", "dist/stdio.mjs")
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

// tsTasksScript calls one tool through the Tasks extension's own client
// (@modelcontextprotocol/ext-tasks) on the TS SDK client. The extension
// needs a raw request path from its host on the same connection (the
// SDK's codecs do not know task results): here a few lines that send with
// ids of their own and take those answers before the SDK sees them.
const tsTasksScript = `
const root = process.env.TS_CLIENT_DIR, ext = process.env.TS_TASKS_DIR;
const { Client } = await import(root + "/dist/index.mjs");
const { StdioClientTransport } = await import(root + "/dist/stdio.mjs");
const { createTaskSessionFromClient, resultFromTaskOutcome } = await import(ext + "/dist/client/index.js");
const [bin, ...args] = JSON.parse(process.env.SERVER_CMD);
const clientInfo = { name: "ts-tasks", version: "0" };
const clientCapabilities = { extensions: { "io.modelcontextprotocol/tasks": {} } };
const client = new Client(clientInfo, { capabilities: clientCapabilities, versionNegotiation: { mode: "auto" } });
const transport = new StdioClientTransport({ command: bin, args, env: { ...process.env }, stderr: "inherit" });
await client.connect(transport);
const pending = new Map(); let n = 0;
const sdkOnMessage = transport.onmessage;
transport.onmessage = (msg, extra) => {
  if (msg && typeof msg.id === "string" && pending.has(msg.id) && !("method" in msg)) {
    pending.get(msg.id)(msg); pending.delete(msg.id); return;
  }
  sdkOnMessage.call(transport, msg, extra);
};
const rawDispatch = (request) => new Promise((resolve) => {
  const id = "raw-" + (++n);
  pending.set(id, resolve);
  transport.send({ ...request, jsonrpc: "2.0", id });
});
const session = createTaskSessionFromClient(client, { endpointId: "agent-tools", rawDispatch,
  v2RequestFraming: { protocolVersion: client.getNegotiatedProtocolVersion(), clientInfo, clientCapabilities } });
const out = { version: client.getNegotiatedProtocolVersion(), events: [] };
const execution = await session.callTool(process.env.TOOL, JSON.parse(process.env.ARGS));
const { outcome } = await execution.settle({ onEvent: (e) => { out.events.push(e.type + (e.task ? ":" + e.task.status : "")); } });
out.result = resultFromTaskOutcome(outcome);
console.log(JSON.stringify(out));
await session.close();
await client.close();
`

// TestMCP2026TypeScriptTasks: the Tasks extension's client gets a task
// for a slow eval cell (--task-after shorter than the cell), polls it to
// completed, and its result is the cell's answer.
func TestMCP2026TypeScriptTasks(t *testing.T) {
	testutil.Needs(t, "python3")
	clientDir := npmGlobal(t, "@modelcontextprotocol/client", "dist/stdio.mjs")
	tasksDir := npmGlobal(t, "@modelcontextprotocol/ext-tasks", "dist/client/index.js")
	script := writeFile(t, t.TempDir(), "tasks.mjs", tsTasksScript)
	serverCmd, _ := json.Marshal([]string{os.Args[0], "serve", "--root", t.TempDir(), "--log-level", "warn", "--task-after", "200ms"})
	ctx, cancel := context.WithTimeout(t.Context(), testutil.IntegrationTimeout())
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "AGENT_TOOLS_TEST_MAIN=1", "TS_CLIENT_DIR="+clientDir, "TS_TASKS_DIR="+tasksDir,
		"SERVER_CMD="+string(serverCmd), "TOOL=eval", `ARGS={"code":"import time\ntime.sleep(1.5)\nsum(range(10))","description":"a slow sum"}`)
	cmd.Stderr = t.Output()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TS Tasks client failed: %v\n%s", err, out)
	}
	var got struct {
		Version string
		Events  []string
		Result  struct {
			Content []struct{ Type, Text string }
			IsError bool
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the TS Tasks client printed %q: %v", out, err)
	}
	if got.Version != "2026-07-28" || len(got.Events) == 0 || got.Events[0] != "task:working" || !slices.Contains(got.Events, "task:completed") {
		t.Errorf("version %q, events %v: want 2026-07-28 and a task that went from working to completed", got.Version, got.Events)
	}
	if got.Result.IsError || len(got.Result.Content) == 0 || !strings.HasSuffix(got.Result.Content[0].Text, "Out: 45") {
		t.Errorf("the task's result: %+v", got.Result)
	}
}

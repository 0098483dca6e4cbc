package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// expectedTools returns the names `agent-tools tools` lists here: every
// attached capability tool plus the test tools.
func expectedTools(t *testing.T) []string {
	t.Helper()
	cmd := testBinaryCmd(t.Context(), "tools", "--root", t.TempDir(), "--log-level", "off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agent-tools tools: %v", err)
	}
	var tools []struct{ Name string }
	if err := json.Unmarshal(out, &tools); err != nil {
		t.Fatalf("agent-tools tools: %v\n%s", err, out)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"test_echo", "test_write", "test_spawn"} {
		if !slices.Contains(names, want) {
			t.Fatalf("agent-tools tools lacks %s: %v", want, names)
		}
	}
	return names
}

func (s *server) spawn(id int) (pid, grandchild int) {
	s.t.Helper()
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"test_spawn","arguments":{}}}`, id))
	m := s.until(id)
	var res struct {
		Result struct {
			IsError bool
			Content []struct{ Text string }
		}
	}
	data, _ := json.Marshal(m)
	json.Unmarshal(data, &res)
	var sc spawnResult // test_spawn has no text form: its text is its JSON
	if len(res.Result.Content) > 0 {
		json.Unmarshal([]byte(res.Result.Content[0].Text), &sc)
	}
	if res.Result.IsError || sc.Pid == 0 || sc.Grandchild == 0 {
		s.t.Fatalf("test_spawn: %v", m)
	}
	return sc.Pid, sc.Grandchild
}

func TestSIGKILLLeavesNoChildren(t *testing.T) {
	s := startServer(t)
	s.initialize()
	pid1, gc1 := s.spawn(2)
	pid2, gc2 := s.spawn(3)
	for _, p := range []int{pid1, gc1, pid2, gc2} {
		if !testutil.Alive(p) {
			t.Fatalf("pid %d is not running before the kill", p)
		}
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.ended
	testutil.WaitGone(t, 2*time.Second, pid1, gc1, pid2, gc2)
}

func TestStdinEOFStopsChildren(t *testing.T) {
	s := startServer(t)
	s.initialize()
	pid, gc := s.spawn(2)
	s.stdin.Close()
	select {
	case <-s.ended:
	case <-time.After(testutil.IntegrationTimeout()):
		t.Fatal("agent-tools did not exit on stdin EOF")
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after stdin EOF", code)
	}
	testutil.WaitGone(t, 2*time.Second, pid, gc)
}

func TestSIGTERMStopsChildren(t *testing.T) {
	s := startServer(t)
	s.initialize()
	pid, gc := s.spawn(2)
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.ended:
	case <-time.After(testutil.IntegrationTimeout()):
		t.Fatal("agent-tools did not exit on SIGTERM")
	}
	testutil.WaitGone(t, 2*time.Second, pid, gc)
}

// TestStdoutCarriesOnlyFrames drives a session whose children and logs
// write to their stdout and stderr, and checks every byte on agent-tools'
// stdout is a JSON-RPC frame.
func TestStdoutCarriesOnlyFrames(t *testing.T) {
	s := startServer(t)
	s.initialize()
	s.spawn(2)
	s.send(`garbage`)
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_panic","arguments":{}}}`)
	s.until(3)
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	s.until(4)
	s.stdin.Close()
	<-s.ended
	for line := range s.lines {
		mustFrame(t, line)
	}
}

// TestOfficialGoSDKClient connects the official MCP Go SDK client to the
// binary over stdio, lists the tools and calls one: by default the result
// is text only and no tool has an outputSchema; with --structured (and
// with structured in initialize, pinned by the results/ transcripts) the
// SDK gets, and checks against the outputSchema, structured content too.
func TestOfficialGoSDKClient(t *testing.T) {
	for _, structured := range []bool{false, true} {
		t.Run(fmt.Sprintf("structured=%v", structured), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), testutil.IntegrationTimeout())
			defer cancel()
			args := []string{"serve", "--root", t.TempDir()}
			if structured {
				args = append(args, "--structured")
			}
			cmd := testBinaryCmd(ctx, args...)
			cmd.Stderr = t.Output()
			client := mcp.NewClient(&mcp.Implementation{Name: "sdk-e2e", Version: "v0"}, nil)
			session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatalf("connecting: %v", err)
			}
			defer session.Close()
			if v := session.InitializeResult().ServerInfo.Name; v != "agent-tools" {
				t.Errorf("serverInfo.name = %q", v)
			}
			var names []string
			for tool, err := range session.Tools(ctx, nil) {
				if err != nil {
					t.Fatalf("listing tools: %v", err)
				}
				names = append(names, tool.Name)
				if tool.Name == "test_echo" && (tool.OutputSchema != nil) != structured {
					t.Errorf("test_echo outputSchema: %v", tool.OutputSchema)
				}
			}
			if diff := cmp.Diff(expectedTools(t), names); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "test_echo", Arguments: map[string]any{"text": "hello from the SDK"}})
			if err != nil {
				t.Fatalf("calling test_echo: %v", err)
			}
			if res.IsError || len(res.Content) != 1 {
				t.Fatalf("test_echo result: %+v", res)
			}
			if txt, ok := res.Content[0].(*mcp.TextContent); !ok || txt.Text != "hello from the SDK" {
				t.Errorf("test_echo content: %+v", res.Content[0])
			}
			sc, _ := json.Marshal(res.StructuredContent)
			if want := map[bool]string{false: "null", true: `{"echo":"hello from the SDK"}`}[structured]; string(sc) != want {
				t.Errorf("structuredContent = %s, want %s", sc, want)
			}
			res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "test_echo", Arguments: map[string]any{"txt": "typo"}})
			if err != nil || !res.IsError {
				t.Errorf("bad arguments: want an isError result, got %+v, %v", res, err)
			}
		})
	}
}

// TestInspectorCLI lists and calls tools through the MCP Inspector CLI,
// whose TypeScript client rejects the whole list if any schema root is not
// an object.
func TestInspectorCLI(t *testing.T) {
	testutil.Needs(t, "npx")
	testutil.NeedsFunc(t, "MCP Inspector CLI", func() string {
		out, err := exec.Command("npm", "ls", "-g", "--depth=0", "@modelcontextprotocol/inspector").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "@modelcontextprotocol/inspector@") {
			return "npm package @modelcontextprotocol/inspector is not installed globally"
		}
		return ""
	})
	inspect := func(t *testing.T, serveFlags []string, args ...string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), testutil.IntegrationTimeout())
		defer cancel()
		full := append([]string{"--no-install", "@modelcontextprotocol/inspector", "--cli", os.Args[0],
			"-e", "AGENT_TOOLS_TEST_MAIN=1"}, args...)
		full = append(full, "--", "serve", "--root", t.TempDir())
		full = append(full, serveFlags...)
		cmd := exec.CommandContext(ctx, "npx", full...)
		cmd.Dir = t.TempDir()
		cmd.Stderr = t.Output()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("inspector output is not JSON: %v\n%s", err, out)
		}
		return m
	}
	t.Run("tools/list", func(t *testing.T) {
		m := inspect(t, nil, "--method", "tools/list")
		tools, _ := m["tools"].([]any)
		var names []string
		for _, tool := range tools {
			names = append(names, tool.(map[string]any)["name"].(string))
		}
		if diff := cmp.Diff(expectedTools(t), names); diff != "" {
			t.Errorf("inspector's tools (-want +got):\n%s", diff)
		}
	})
	t.Run("tools/call", func(t *testing.T) {
		m := inspect(t, nil, "--tool-arg", "text=from inspector", "--method", "tools/call", "--tool-name", "test_echo")
		data, _ := json.Marshal(m)
		if !strings.Contains(string(data), "from inspector") || m["isError"] == true || m["structuredContent"] != nil {
			t.Errorf("inspector call: %s", data)
		}
	})
	// The TypeScript client checks structuredContent against the
	// outputSchema it listed: the opt-in must pass it.
	t.Run("tools/call structured", func(t *testing.T) {
		m := inspect(t, []string{"--structured"}, "--tool-arg", "text=from inspector", "--method", "tools/call", "--tool-name", "test_echo")
		data, _ := json.Marshal(m)
		if sc, _ := m["structuredContent"].(map[string]any); sc["echo"] != "from inspector" || m["isError"] == true {
			t.Errorf("inspector call: %s", data)
		}
	})
}

func TestSubcommands(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"version", []string{"--version"}, 0, "agent-tools "},
		{"help", []string{"--help"}, 0, "agent-tools doctor"},
		{"doctor", []string{"doctor", "--root", dir}, 0, "CAPABILITY"},
		{"tools plan", []string{"tools", "--surface", "plan", "--root", dir}, 0, `"test_echo"`},
		{"call", []string{"call", "--root", dir, "test_echo", `{"text":"cli"}`}, 0, `"text": "cli"`},
		{"call bad args", []string{"call", "--root", dir, "test_echo", `{}`}, 1, "'text'"},
		{"call unknown", []string{"call", "--root", dir, "nope", `{}`}, 1, ""},
		{"call hidden", []string{"call", "--surface", "plan", "--root", dir, "test_write", `{"text":"x"}`}, 1, `test_write is not available on the \"plan\" surface`},
		{"call structured", []string{"call", "--structured", "--root", dir, "test_echo", `{"text":"cli"}`}, 0, `"structuredContent": {`},
		{"call over budget", []string{"call", "--max-output-bytes", "200", "--root", dir, "test_echo", `{"text":"` + strings.Repeat(`a line\n`, 100) + `"}`}, 0, `[cut: `},
		{"bad budget", []string{"serve", "--max-output-bytes", "ten"}, 2, ""},
		{"bad surface", []string{"serve", "--surface", "root"}, 2, ""},
		{"bad worker", []string{"serve", "--worker", "slow=x"}, 2, ""},
		{"missing root", []string{"doctor", "--root", filepath.Join(dir, "nope")}, 2, ""},
		{"unknown command", []string{"frobnicate"}, 2, ""},
		{"config missing", []string{"doctor", "--root", dir, "--config", filepath.Join(dir, "none.json")}, 2, ""},
		{"config bad section", []string{"doctor", "--root", dir, "--config", writeFile(t, dir, "bad.json", `{"lsp":{},"colour":1}`)}, 2, ""},
		{"config ok", []string{"doctor", "--root", dir, "--config", writeFile(t, dir, "ok.json", `{"lsp":{}}`)}, 0, "CAPABILITY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := testBinaryCmd(t.Context(), tt.args...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, _ := cmd.Output()
			if code := cmd.ProcessState.ExitCode(); code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, stderr.String())
			}
			if !strings.Contains(string(out), tt.contains) {
				t.Errorf("stdout lacks %q:\n%s", tt.contains, out)
			}
			if tt.name == "tools plan" && (strings.Contains(string(out), "test_write") || strings.Contains(string(out), "outputSchema")) {
				t.Errorf("plan surface lists a write tool, or an outputSchema without --structured:\n%s", out)
			}
			if tt.name == "call" && strings.Contains(string(out), "structuredContent") {
				t.Errorf("structured content without --structured:\n%s", out)
			}
		})
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

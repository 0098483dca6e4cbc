package main

// This file adds the workers rows to `make bench`: an ask_user round trip
// (through agent-tools vs an official Go SDK server whose tool calls
// ServerSession.Elicit) and a worker run (vibe_spawn + vibe_wait through
// agent-tools vs running the same worker command directly).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// askPeerEnv makes the test binary serve the ask peer (see init).
const askPeerEnv = "AGENT_TOOLS_ASK_PEER"

func init() {
	if os.Getenv(askPeerEnv) == "1" {
		os.Exit(runAskPeer())
	}
	benchRows = append(benchRows,
		benchRow{name: "ask_user round trip (elicitation)", peerName: "go-sdk server", ours: benchAsk("agent-tools"), peer: benchAsk("go-sdk")},
		benchRow{name: "worker: spawn → wait (fake agent)", peerName: "the command run directly", ours: benchWorker(true), peer: benchWorker(false)},
	)
}

// runAskPeer serves one tool, ask_user, with the official MCP Go SDK: it
// sends elicitation/create and returns the answer.
func runAskPeer() int {
	srv := mcp.NewServer(&mcp.Implementation{Name: "sdk-ask-peer", Version: "v0"}, nil)
	type askIn struct {
		Question      string `json:"question"`
		AllowFreeText bool   `json:"allow_free_text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "ask_user", Description: "asks"},
		func(ctx context.Context, req *mcp.CallToolRequest, a askIn) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: a.Question, RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}}})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(res.Content["text"])}}}, nil, nil
		})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

const initElicitLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"bench","version":"0"}}}`

func startPipe(b *testing.B, cmd *exec.Cmd) *server {
	b.Helper()
	s := startCmd(b, cmd)
	s.initializeWith(initElicitLine)
	return s
}

// answerElicitation reads until the server's elicitation/create and
// answers it.
func (s *server) answerElicitation() {
	s.t.Helper()
	m := s.next(func(m map[string]any) bool {
		if m["method"] == nil {
			s.t.Fatalf("a response came instead of elicitation/create: %v", m)
		}
		return m["method"] == "elicitation/create"
	})
	id, _ := json.Marshal(m["id"])
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"text":"yes"}}}`, id))
}

func benchAsk(peer string) func(b *testing.B) {
	return func(b *testing.B) {
		var cmd *exec.Cmd
		if peer == "agent-tools" {
			cmd = testBinaryCmd(context.Background(), "serve", "--root", b.TempDir(), "--log-level", "off")
		} else {
			cmd = exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), askPeerEnv+"=1")
		}
		s := startPipe(b, cmd)
		defer s.close()
		id := 1
		for b.Loop() {
			id++
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask_user","arguments":{"question":"ok?","allow_free_text":true}}}`, id))
			s.answerElicitation()
			s.until(id)
		}
	}
}

func benchWorker(ours bool) func(b *testing.B) {
	return func(b *testing.B) {
		fake, err := filepath.Abs("../../workers/testdata/fakeagent.sh")
		if err != nil {
			b.Fatal(err)
		}
		root := b.TempDir()
		if !ours {
			for b.Loop() {
				cmd := exec.Command("sh", fake)
				cmd.Dir = root
				cmd.Stdin = strings.NewReader("bench\n")
				if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), `"result"`) {
					b.Fatalf("fake agent: %v %s", err, out)
				}
			}
			return
		}
		s := startPipe(b, testBinaryCmd(context.Background(), "serve", "--root", root, "--log-level", "off", "--vibe", "--worker", "fast=sh "+fake, "--config", writeBenchConfig(b)))
		defer s.close()
		id, n := 1, 0
		for b.Loop() {
			n++
			id++
			s.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"vibe_spawn","arguments":{"brief":"bench","label":"b"}}}`, id), id)
			id++
			s.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"vibe_wait","arguments":{"worker_id":"w%d"}}}`, id, n), id)
		}
	}
}

// writeBenchConfig lifts the concurrency cap, which finished workers do
// not count against anyway.
func writeBenchConfig(b *testing.B) string {
	path := filepath.Join(b.TempDir(), "config.json")
	os.WriteFile(path, []byte(`{"workers":{"max_running":64}}`), 0o644)
	return path
}

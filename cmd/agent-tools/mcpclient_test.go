package main

// This file is the one MCP test client of this package's tests and
// benchmarks: a server (agent-tools re-executed from the test binary, or a
// peer) on real pipes, spoken to in raw JSON-RPC lines; and, beside it,
// the official Go SDK's client connected the same way.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// server is an MCP server process on real pipes: what the test writes to
// its stdin, every line of its stdout in order.
type server struct {
	t     testing.TB
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string // every stdout line; closed at EOF
	ended chan struct{}
	once  sync.Once
}

// testBinaryCmd runs this test binary as agent-tools with args.
func testBinaryCmd(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "AGENT_TOOLS_TEST_MAIN=1")
	return cmd
}

// startServer starts agent-tools serving a fresh temp root at debug level
// (args may name another root), its stderr in the test's output.
func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	cmd := testBinaryCmd(context.Background(), append([]string{"serve", "--root", t.TempDir(), "--log-level", "debug"}, args...)...)
	cmd.Stderr = t.Output()
	return startCmd(t, cmd)
}

// startCmd starts cmd (any MCP server on stdio) and reads its stdout. The
// server is closed (stdin closed, its exit awaited) at the end of the test,
// or earlier by close.
func startCmd(tb testing.TB, cmd *exec.Cmd) *server {
	tb.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	s := &server{t: tb, cmd: cmd, stdin: stdin, lines: make(chan string, 1000), ended: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	go func() { cmd.Wait(); close(s.ended) }()
	tb.Cleanup(s.close)
	return s
}

// close closes the server's stdin and waits (bounded) for it to exit.
func (s *server) close() {
	s.once.Do(func() {
		s.stdin.Close()
		select {
		case <-s.ended:
		case <-time.After(testutil.IntegrationTimeout()):
			s.cmd.Process.Kill()
			s.t.Error("the server did not exit after stdin closed")
		}
	})
}

func (s *server) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// line returns the next stdout line; a closed stdout or none within the
// integration timeout fails the test, saying what was awaited.
func (s *server) line(what string) string {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("stdout closed while waiting for %s", what)
		}
		return line
	case <-time.After(testutil.IntegrationTimeout()):
		s.t.Fatalf("no %s", what)
	}
	return ""
}

// next reads stdout until a frame that pred accepts, checking that every
// line is a JSON-RPC 2.0 frame.
func (s *server) next(pred func(map[string]any) bool) map[string]any {
	s.t.Helper()
	return s.await(func() string { return "such frame" }, pred)
}

// await is next, saying what it waited for (what is called when the wait
// fails) when stdout closes or the integration timeout passes first.
func (s *server) await(what func() string, pred func(map[string]any) bool) map[string]any {
	s.t.Helper()
	timeout := time.After(testutil.IntegrationTimeout())
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("stdout closed while waiting for %s", what())
			}
			if m := mustFrame(s.t, line); pred(m) {
				return m
			}
		case <-timeout:
			s.t.Fatalf("no %s", what())
		}
	}
}

// responseTo accepts the response (not a request) with id.
func responseTo(id int) func(map[string]any) bool {
	return func(m map[string]any) bool {
		v, ok := m["id"].(float64)
		return ok && int(v) == id && m["method"] == nil
	}
}

// until reads stdout until the response with id (see next).
func (s *server) until(id int) map[string]any {
	s.t.Helper()
	return s.next(responseTo(id))
}

// collectUntil reads the server's lines until the response with id and
// returns the methods of the notifications seen before it.
func (s *server) collectUntil(id int) (resp map[string]any, notes []string) {
	s.t.Helper()
	resp = s.next(func(m map[string]any) bool {
		if method, ok := m["method"].(string); ok {
			notes = append(notes, method)
			return false
		}
		return responseTo(id)(m)
	})
	return resp, notes
}

// roundTrip sends one line and returns the first line after it that holds
// `"id":<id>`, without decoding the lines: the benchmarks' loop, kept as
// cheap as the wire.
func (s *server) roundTrip(line string, id int) string {
	s.t.Helper()
	s.send(line)
	want := fmt.Sprintf(`"id":%d`, id)
	for {
		if l := s.line(fmt.Sprintf("response %d", id)); strings.Contains(l, want) {
			return l
		}
	}
}

func mustFrame(t testing.TB, line string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
		t.Fatalf("stdout carried something that is not a JSON-RPC frame: %q", line)
	}
	return m
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"0"}}}`

// initialize runs the 2025-11-25 handshake with no client capabilities.
func (s *server) initialize() { s.initializeWith(initLine) }

// initializeWith runs the handshake with the initialize request line (id 1).
func (s *server) initializeWith(line string) {
	s.t.Helper()
	s.send(line)
	s.until(1)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// toolCallLine is the tools/call request id for tool with args (a JSON
// object).
func toolCallLine(id int, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

// callTool calls tool with args (a JSON object) and returns the response.
func (s *server) callTool(id int, tool, args string) map[string]any {
	s.t.Helper()
	s.send(toolCallLine(id, tool, args))
	return s.until(id)
}

// callResult is the part of a tools/call answer these tests read.
type callResult struct {
	Result struct {
		IsError           bool
		Content           []struct{ Text string }
		StructuredContent json.RawMessage
	}
}

func (s *server) call(id int, tool string, args any) callResult {
	s.t.Helper()
	a, _ := json.Marshal(args)
	s.send(toolCallLine(id, tool, string(a)))
	m := s.until(id)
	data, _ := json.Marshal(m)
	var r callResult
	json.Unmarshal(data, &r)
	if len(r.Result.Content) == 0 {
		s.t.Fatalf("no content in %s", data)
	}
	return r
}

// connectSDK starts agent-tools with args (after `serve --log-level
// warn`) and connects the official Go SDK client, named name, with opts
// and session options so (nil: its default, newest revision).
func connectSDK(t *testing.T, name string, opts *mcp.ClientOptions, so *mcp.ClientSessionOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testutil.IntegrationTimeout())
	t.Cleanup(cancel)
	cmd := testBinaryCmd(ctx, append([]string{"serve", "--log-level", "warn"}, args...)...)
	cmd.Stderr = t.Output()
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "v0"}, opts)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, so)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

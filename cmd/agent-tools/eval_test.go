package main

// This file tests the eval tool end to end: the re-executed binary, a raw
// JSON-RPC client that declares experimental["agent-tools"].callTool and
// answers agent-tools/callTool, and real python3 and node kernels.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

const evalPython = "/usr/bin/python3"

func needsEvalTools(t *testing.T) {
	t.Helper()
	testutil.Needs(t, "node")
	testutil.NeedsFunc(t, evalPython, func() string {
		if err := exec.Command(evalPython, "-c", "pass").Run(); err != nil {
			return err.Error()
		}
		return ""
	})
}

// startEvalServer starts agent-tools with an eval config section and
// initializes as a client that serves agent-tools/callTool.
func startEvalServer(t *testing.T, evalSection string) *server {
	t.Helper()
	cfg := writeFile(t, t.TempDir(), "config.json", `{"eval":`+evalSection+`}`)
	s := startServer(t, "--config", cfg)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"experimental":{"agent-tools":{"callTool":true}}},"clientInfo":{"name":"eval-e2e","version":"0"}}}`)
	s.until(1)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// evalCall sends an eval call and answers every agent-tools/callTool
// request with answer(name, args) after delay; it returns the call's
// result and the tool names the server asked for.
func (s *server) evalCall(id int, args string, delay time.Duration, answer func(name string, args json.RawMessage) string) (map[string]any, []string) {
	s.t.Helper()
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"eval","arguments":%s}}`, id, args))
	var asked []string
	resp := s.next(func(frame map[string]any) bool {
		if frame["method"] == "agent-tools/callTool" {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Params struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"params"`
			}
			data, _ := json.Marshal(frame)
			json.Unmarshal(data, &m)
			asked = append(asked, m.Params.Name)
			time.Sleep(delay) // the harness takes its time (a subagent, an approval)
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, answer(m.Params.Name, m.Params.Arguments)))
			return false
		}
		return responseTo(id)(frame)
	})
	result, _ := resp["result"].(map[string]any)
	return result, asked
}

func readAnswer(name string, args json.RawMessage) string {
	var a struct{ Path string }
	json.Unmarshal(args, &a)
	if name != "read" {
		return `{"content":[{"type":"text","text":"no such tool"}],"isError":true}`
	}
	return fmt.Sprintf(`{"content":[{"type":"text","text":"contents of %s"}]}`, a.Path)
}

func resultText(res map[string]any) string {
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	first, _ := content[0].(map[string]any)
	text, _ := first["text"].(string)
	return text
}

// withoutStatusLine drops the status line of a kernel's first cell
// ("[python kernel: …]", checked by the kernel package's tests).
func withoutStatusLine(text string) string {
	return regexp.MustCompile(`(?m)^\[(python|javascript) kernel: .*\]\n`).ReplaceAllString(text, "")
}

func TestEvalBridge(t *testing.T) {
	needsEvalTools(t)
	// A 3 s budget: long enough for the kernel's first cell on a loaded
	// CI machine under -race, short enough for the busy loop below.
	s := startEvalServer(t, `{"python":"`+evalPython+`","timeout":"3s"}`)
	tests := []struct {
		name  string
		args  string
		delay time.Duration
		want  string
		isErr bool
		asked int
	}{
		{"python", `{"code":"text = tool('read', {'path': 'lib/auth.py'})\ntext.upper()","description":"read a file through the harness"}`, 0,
			"# read a file through the harness (python)\nOut: 'CONTENTS OF LIB/AUTH.PY'", false, 1},
		{"javascript", `{"code":"const t = await tool('read', {path: 'a.js'}); t.length","description":"read a file through the harness","language":"javascript"}`, 0,
			"# read a file through the harness (javascript)\nOut: 16", false, 1},
		{"tool error", `{"code":"try:\n    tool('frob', {})\nexcept ToolError as e:\n    print('failed:', e)","description":"call a tool that does not exist"}`, 0,
			"# call a tool that does not exist (python)\nfailed: no such tool", false, 1},
		// The bridged call takes longer than the 3 s budget: it does not count.
		{"slow bridge", `{"code":"tool('read', {'path': 'slow'})","description":"wait on a slow harness tool call"}`, 4500 * time.Millisecond,
			"# wait on a slow harness tool call (python)\nOut: 'contents of slow'", false, 1},
		{"busy loop", `{"code":"print('spinning', flush=True)\nwhile True: pass","description":"spin until the budget runs out"}`, 0,
			"# spin until the budget runs out (python)\nspinning\n", true, 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.t = t
			res, asked := s.evalCall(10+i, tt.args, tt.delay, readAnswer)
			text := withoutStatusLine(resultText(res))
			if !strings.HasPrefix(text, tt.want) {
				t.Errorf("result text:\n%s\nwant prefix:\n%s", text, tt.want)
			}
			if isErr, _ := res["isError"].(bool); isErr != tt.isErr {
				t.Errorf("isError = %v, want %v: %s", isErr, tt.isErr, text)
			}
			if len(asked) != tt.asked {
				t.Errorf("callTool requests %v, want %d", asked, tt.asked)
			}
			if tt.name == "busy loop" && !strings.Contains(text, "error: timeout") {
				t.Errorf("busy loop: %s", text)
			}
		})
	}
}

func TestEvalWithoutBridge(t *testing.T) {
	needsEvalTools(t)
	s := startServer(t, "--config", writeFile(t, t.TempDir(), "c.json", `{"eval":{"python":"`+evalPython+`"}}`))
	s.initialize() // no callTool capability
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"eval","arguments":{"code":"tool('read', {'path': 'x'})","description":"try the bridge without a harness"}}}`)
	m := s.until(2)
	data, _ := json.Marshal(m)
	if !strings.Contains(string(data), "no harness bridge") || !strings.Contains(string(data), `"isError":true`) {
		t.Errorf("without callTool: %s", data)
	}
}

// TestEvalDescriptions: any non-empty description is accepted (the 5–10
// words are the schema's guidance; a refusal would cost the model a round
// trip), a long one is cut to 10 words for the label, and an empty one is
// refused naming the argument.
func TestEvalDescriptions(t *testing.T) {
	needsEvalTools(t)
	s := startServer(t, "--config", writeFile(t, t.TempDir(), "c.json", `{"eval":{"python":"`+evalPython+`"}}`))
	s.initialize()
	tests := []struct {
		description string
		want        string // in the result text
		isErr       bool
	}{
		{"add", "# add (python)", false},
		{"add numbers", "# add numbers (python)", false},
		{"add one and one, then check the result is two as expected", "# add one and one, then check the result is two … (python)", false},
		{"", "argument 'description': want at least 1 character, got 0", true},
		{"  \n ", "argument 'description': empty: say what the cell does, in 5 to 10 words", true},
	}
	for i, tt := range tests {
		desc, _ := json.Marshal(tt.description)
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"eval","arguments":{"code":"1 + 1","description":%s}}}`, 10+i, desc))
		m := s.until(10 + i)
		data, _ := json.Marshal(m["result"])
		var res map[string]any
		json.Unmarshal(data, &res)
		text := resultText(res)
		if isErr, _ := res["isError"].(bool); isErr != tt.isErr || !strings.Contains(text, tt.want) {
			t.Errorf("description %q: isError %v, text:\n%s\nwant %q", tt.description, isErr, text, tt.want)
		}
	}
}

// TestEvalDoctor: doctor names each interpreter with its version and why
// it was chosen, and the other Python interpreters found.
func TestEvalDoctor(t *testing.T) {
	needsEvalTools(t)
	dir := t.TempDir()
	cmd := testBinaryCmd(t.Context(), "doctor", "--root", dir, "--config", writeFile(t, dir, "c.json", `{"eval":{"python":"`+evalPython+`"}}`))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("doctor: %v\n%s", err, out)
	}
	for _, re := range []string{
		`(?m)^  python +found +` + regexp.QuoteMeta(evalPython) + ` \(Python 3\.\d+\.\d+; configured\)$`,
		`(?m)^  node +found +/\S+/node \(Node \d+\.\d+\.\d+; node on PATH\)$`,
	} {
		if !regexp.MustCompile(re).Match(out) {
			t.Errorf("doctor output does not match %s:\n%s", re, out)
		}
	}
}

// TestEvalImageContent checks that a matplotlib figure leaves agent-tools
// as an MCP image content block holding a PNG.
func TestEvalImageContent(t *testing.T) {
	needsEvalTools(t)
	testutil.NeedsFunc(t, "matplotlib for "+evalPython, func() string {
		if out, err := exec.Command(evalPython, "-c", "import matplotlib").CombinedOutput(); err != nil {
			return string(out)
		}
		return ""
	})
	s := startEvalServer(t, `{"python":"`+evalPython+`"}`)
	res, _ := s.evalCall(2, `{"code":"import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.title('squares')","description":"plot three squares as a line"}`, 0, readAnswer)
	content, _ := res["content"].([]any)
	if len(content) != 2 {
		t.Fatalf("want a text block and an image block, got %v", res)
	}
	img, _ := content[1].(map[string]any)
	if img["type"] != "image" || img["mimeType"] != "image/png" {
		t.Fatalf("second block: %v", img)
	}
	data, err := base64.StdEncoding.DecodeString(img["data"].(string))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width < 100 || cfg.Height < 100 {
		t.Errorf("image: %+v, %v", cfg, err)
	}
	if text := resultText(res); !strings.Contains(text, "Out: Text(0.5, 1.0, 'squares')") || !strings.Contains(text, "[image image/png ") {
		t.Errorf("text block:\n%s", text)
	}
}

// TestEvalReplayCommand: `agent-tools replay`, the shipped command, passes
// an eval transcript recorded on a machine with another node version: it
// normalises the interpreter versions as TestTranscripts does.
func TestEvalReplayCommand(t *testing.T) {
	testutil.Needs(t, "node")
	path := filepath.Join("..", "..", "conformance", "testdata", "eval", "javascript-cell.txtar")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "Node $VERSION") {
		t.Fatalf("%s should hold a normalised node version", path)
	}
	cmd := testBinaryCmd(t.Context(), "replay", path)
	cmd.Stderr = t.Output()
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "1 passed, 0 failed, 0 skipped") {
		t.Errorf("replay: %v\n%s", err, out)
	}
}

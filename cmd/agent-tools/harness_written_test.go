package main

// Diagnostics on write in the agent CLIs, which never send
// agent-tools/didWrite: Claude Code through the README's PostToolUse hook,
// the others through the next answer of any of our tools after a shell
// edit. As in the rest of the harness suite, every assertion is on what
// the CLI passed to its (scripted) model.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/scriptedmodel"
)

// writtenProject is a Go module whose main.go calls lib.go's Greet: a
// change to Greet's signature breaks main.go, a file nobody edits.
const writtenProject = `-- go.mod --
module example.com/w

go 1.22
-- lib.go --
package main

// Greet says hello.
func Greet(name string) string { return "hello " + name }
-- main.go --
package main

import "fmt"

func main() { fmt.Println(Greet("gopher")) }
`

const (
	greetOld    = "func Greet(name string) string {"
	greetBroken = "func Greet(name string, times int) string {"
	callerError = "not enough arguments in call to Greet"
)

// gitCommit makes dir a repository with everything committed, as the
// projects agents work in are: the committed version is the baseline of a
// file no server has seen yet.
func gitCommit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
}

// writtenServe is how agent-tools is served in these runs: with the
// language servers' waits raised. The suite starts 13 CLIs, their servers
// and a debugger at once, and on two loaded cores a cold gopls can take
// longer than the default waits to publish; the answer then says what was
// not checked (see lspbridge's tests), but these runs are about whether a
// report reaches the model through each CLI.
func (h *harnessEnv) writtenServe(t *testing.T) []string {
	cfg := filepath.Join(h.base, "written.json")
	if err := os.WriteFile(cfg, []byte(`{"lsp": {"ready_timeout": "90s", "diagnostic_timeout": "60s"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"--config", cfg}
}

// writtenRuns are the suite's runs for diagnostics on write, by name.
func (h *harnessEnv) writtenRuns() map[string]func(*testing.T) {
	runs := map[string]func(*testing.T){"claude-hook": h.claudeHookRun}
	for _, k := range []cliKind{codexCLI, geminiCLI, opencodeCLI} {
		runs[string(k)+"-shell-edit"] = func(t *testing.T) { h.shellEditRun(t, k) }
	}
	return runs
}

// readmeHook is the README's .claude/settings.json with the PostToolUse
// hook, parsed out of the README so that what it tells a user is what is
// tested.
func readmeHook(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		if strings.Contains(b[1], `"mcp_tool"`) && strings.Contains(b[1], "PostToolUse") {
			if !json.Valid([]byte(b[1])) {
				t.Fatalf("the README's hook settings are not JSON:\n%s", b[1])
			}
			return []byte(b[1])
		}
	}
	t.Fatal("the README has no ```json block with the PostToolUse mcp_tool hook")
	return nil
}

// claudeHookRun edits lib.go with Claude Code's own Edit tool three times
// (break Greet's callers, fix, break again) with the README's hook in
// .claude/settings.json; after each edit the model's next request must
// carry our report: main.go's error, then "no new errors", then the error
// again.
func (h *harnessEnv) claudeHookRun(t *testing.T) {
	lib := func(r *cliRun) string { return filepath.Join(r.proj, "lib.go") }
	var r *cliRun
	edit := func(from, to string) scriptedmodel.Call {
		args, _ := json.Marshal(map[string]string{"file_path": lib(r), "old_string": from, "new_string": to})
		return scriptedmodel.Call{Tool: "Edit", Args: args, Native: true}
	}
	r = h.newRun(t, claudeCLI, "hook", writtenProject, nil, h.writtenServe(t)...)
	script := []scriptedmodel.Turn{
		{Calls: []scriptedmodel.Call{{Tool: "Read", Args: mustJSON(map[string]string{"file_path": lib(r)}), Native: true}}},
		{Calls: []scriptedmodel.Call{edit(greetOld, greetBroken)}},
		{Calls: []scriptedmodel.Call{edit(greetBroken, greetOld)}},
		{Calls: []scriptedmodel.Call{edit(greetOld, greetBroken)}},
		{Text: "That is all."},
	}
	var err error
	if r.model, err = scriptedmodel.Start(claudeCLI.api(), script); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.model.Close() })
	gitCommit(t, r.proj)
	if err := os.MkdirAll(filepath.Join(r.proj, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.proj, ".claude", "settings.json"), readmeHook(t), 0o644); err != nil {
		t.Fatal(err)
	}
	r.allow = "Read,Edit"
	h.run(t, r, 4*time.Minute)

	after := func(turn int) string { return newInRequest(t, r, turn) }
	// The request answered with turn k+1 is the first the model sees
	// after the edit of turn k.
	for _, c := range []struct {
		turn         int
		want, refuse []string
		what         string
	}{
		{2, []string{"agent-tools, diagnostics on write:", "main.go:", callerError}, nil, "the edit that breaks main.go"},
		{3, []string{"agent-tools, diagnostics on write:", "no new errors"}, []string{callerError}, "the fix"},
		{4, []string{"agent-tools, diagnostics on write:", "main.go:", callerError}, nil, "breaking it again"},
	} {
		got := after(c.turn)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: after %s the model did not see %q; it saw:\n%s", r.name, c.what, w, tail(got, 2000))
			}
		}
		for _, w := range c.refuse {
			if strings.Contains(got, w) {
				t.Errorf("%s: after %s the model saw %q:\n%s", r.name, c.what, w, tail(got, 2000))
			}
		}
	}
}

// shellEditRun breaks Greet's callers with the CLI's own shell tool (sed),
// then calls ast_grep: its answer must name main.go's new error, though
// nothing told agent-tools of the write.
func (h *harnessEnv) shellEditRun(t *testing.T, k cliKind) {
	sed := "sed -i 's/" + greetOld + "/" + greetBroken + "/' lib.go"
	var shell scriptedmodel.Call
	switch k {
	case codexCLI:
		shell = scriptedmodel.Call{Tool: "exec_command", Args: mustJSON(map[string]string{"cmd": sed}), Native: true}
	case geminiCLI:
		shell = scriptedmodel.Call{Tool: "run_shell_command", Args: mustJSON(map[string]string{"command": sed, "description": "change Greet's signature"}), Native: true}
	case opencodeCLI:
		shell = scriptedmodel.Call{Tool: "bash", Args: mustJSON(map[string]string{"command": sed, "description": "change Greet's signature"}), Native: true}
	}
	script := []scriptedmodel.Turn{
		{Calls: []scriptedmodel.Call{{Tool: "lsp", Args: json.RawMessage(`{"action":"diagnostics","file":"main.go"}`)}}},
		{Calls: []scriptedmodel.Call{shell}},
		{Calls: []scriptedmodel.Call{{Tool: "ast_grep", Args: json.RawMessage(`{"pattern":"Greet($A)","path":"main.go"}`)}}},
		{Text: "That is all."},
	}
	r := h.newRun(t, k, "shell-edit", writtenProject, script, h.writtenServe(t)...)
	gitCommit(t, r.proj)
	h.run(t, r, 4*time.Minute)
	data, _ := os.ReadFile(filepath.Join(r.proj, "lib.go"))
	if !strings.Contains(string(data), greetBroken) {
		t.Fatalf("%s: the CLI's shell tool did not run the edit; lib.go is:\n%s", r.name, data)
	}
	res, ok := r.model.Result(2, 0)
	if !ok {
		t.Fatalf("%s: the ast_grep result after the shell edit never reached the model", r.name)
	}
	got := res.AllText()
	for _, w := range []string{"Greet(", "changed on disk since the language servers last saw them: lib.go", "main.go:", callerError} {
		if !strings.Contains(got, w) {
			t.Errorf("%s: after the shell edit the model did not see %q in the next answer; it saw:\n%s", r.name, w, tail(got, 2000))
		}
	}
}

// newInRequest returns what the request answered with script turn turn
// added since the model's last turn: the messages after the last
// assistant message, as JSON (tool results, Claude Code's hook context and
// system reminders alike).
func newInRequest(t *testing.T, r *cliRun, turn int) string {
	t.Helper()
	for _, req := range r.model.Requests() {
		if req.Turn != turn {
			continue
		}
		var body struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(req.Body, &body); err != nil {
			t.Fatalf("%s: a request does not decode: %v", r.name, err)
		}
		last := -1
		for i, m := range body.Messages {
			if m.Role == "assistant" {
				last = i
			}
		}
		var b strings.Builder
		for _, m := range body.Messages[last+1:] {
			var parts any
			json.Unmarshal(m.Content, &parts)
			collectStrings(parts, &b)
		}
		return b.String()
	}
	t.Fatalf("%s: no request was answered with turn %d (%d turns served)", r.name, turn, r.model.TurnsServed())
	return ""
}

// collectStrings writes every string inside v, one a line.
func collectStrings(v any, b *strings.Builder) {
	switch v := v.(type) {
	case string:
		b.WriteString(v + "\n")
	case []any:
		for _, e := range v {
			collectStrings(e, b)
		}
	case map[string]any:
		for _, e := range v {
			collectStrings(e, b)
		}
	}
}

func mustJSON(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

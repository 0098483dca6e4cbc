package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-tools/agent-tools/internal/scriptedmodel"
)

// scenarioCall is one call of the suite's scenario, as a model would make
// it from the tool descriptions, and what the model must then read.
type scenarioCall struct {
	name   string
	tool   string
	args   string
	only   []cliKind // the CLIs that make this call; nil: all four
	want   []string  // sentences of our text the model must see
	refuse []string  // text the model must not see
	image  bool      // the model must get the image we send
	head   []string  // sentences that must be within the first headChars characters
	// noSize leaves the call out of the size comparison: a result longer
	// than a CLI keeps (each cuts its own way) says nothing about envelopes.
	noSize bool
}

// headChars is how much of a long result's head every CLI keeps whole
// (Claude Code's preview of a result it saved to a file is 2 KB).
const headChars = 2000

func (c scenarioCall) in(k cliKind) bool { return c.only == nil || slices.Contains(c.only, k) }

// manyLines is a Python file with more matches of mark($A) than any listing
// shows: the count and the advice must still reach the model.
var manyLines = func() string {
	var b strings.Builder
	for i := range 1200 {
		fmt.Fprintf(&b, "mark(%d)\n", i)
	}
	return b.String()
}()

// scenarioProject adds to harnessProject what the scenario needs: a program
// that says whether it sees an API key and then panics inside the standard
// library (so the debugger stops below frames that are not ours), a file
// with 1,200 matches, and JavaScript written without semicolons (a
// rewrite there that starts with '(' would continue the line before).
var scenarioProject = harnessProject + `
-- web/asi.js --
let x = null
a && b
const y = (p + q) * r
-- cmd/boom/main.go --
package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	n := len(os.Args) - 2 // -1 when run without arguments
	fmt.Println("API key visible:", os.Getenv("ANTHROPIC_API_KEY") != "")
	fmt.Println(strings.Repeat("x", n))
}
-- many.py --
` + manyLines

const plotCell = `import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(2, 2))
ax.plot([1, 2, 3], [1, 4, 9])
fig`

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// varies marks a call whose answer depends on timing (how far a language
// server got, where a worker is), so that the reference session's text for
// it is no measure of what the CLI added: left out of the size comparison.
const varies = true

// scenario is the main run's calls, in order (each its own turn: later calls
// depend on earlier ones, resolve on ast_edit's edit id).
var scenario = []scenarioCall{
	{name: "ast_grep capped", tool: "ast_grep", args: `{"pattern":"fmt.Println($A)","max_results":1}`,
		want: []string{"raise max_results or narrow path", "not searched: 1 node_modules directory", "pass a path inside one to search it"}},
	{name: "ast_grep other reading", tool: "ast_grep", args: `{"pattern":"func $F($$$A) {}","path":"main.go"}`,
		want: []string{`retry with context: "statement"`}},
	{name: "ast_grep over 1000 matches", tool: "ast_grep", args: `{"pattern":"mark($A)","path":"many.py","max_results":5000}`,
		head: []string{"1200 matches"}, want: []string{"narrow path"}, noSize: true},
	{name: "ast_edit", tool: "ast_edit", args: `{"pattern":"Shout($A)","rewrite":"Shout(($A))","path":"main.go"}`,
		want: []string{`nothing is written yet: call resolve with edit_id "edit_1"`, "nested in replaced ones were left alone"}},
	{name: "resolve accept", tool: "resolve", args: `{"edit_id":"edit_1","action":"accept"}`,
		want: []string{"accepted edit_1: wrote 1 file", "checked: main.go"}, noSize: varies},
	{name: "ast_edit semicolon", tool: "ast_edit", args: `{"pattern":"$A && $B","rewrite":"($A) && ($B)","path":"web/asi.js"}`,
		want: []string{`edit_id "edit_2"`, "note: a ';' was written before 1 replacement", "web/asi.js:2", "+;(a) && (b)"}},
	{name: "ast_edit joined", tool: "ast_edit", args: `{"pattern":"($X)","rewrite":"$X","path":"web/asi.js"}`,
		want: []string{"refused: the rewrite changes what the code around it means", "web/asi.js:3:11: parses, but means something else"}},
	{name: "lsp_rename", tool: "lsp_rename", args: `{"file":"shout.go","line":6,"symbol":"Shout","new_name":"Yell"}`,
		want: []string{"renamed shout.go:6:6 Shout → Yell:", "main.go  3 edits", "shout.go  2 edits"}, noSize: varies},
	{name: "lsp symbols, incomplete", tool: "lsp", args: `{"action":"symbols","query":"Helper"}`,
		want: []string{"not searched: gopls for sub (no server runs there yet)", "pass file"}},
	{name: "debug breakpoints", tool: "debug", args: `{"op":"breakpoints","file":"cmd/boom/main.go","lines":[10]}`,
		want: []string{"pending (sent at launch)"}},
	{name: "debug launch", tool: "debug", args: `{"op":"launch","program":"cmd/boom"}`},
	{name: "debug continue", tool: "debug", args: `{"op":"continue"}`,
		want: []string{"current frame: the first in your code", "below the top"}},
	{name: "debug output, credentials", tool: "debug", args: `{"op":"output"}`,
		only: []cliKind{claudeCLI}, want: []string{"API key visible: false"}, refuse: []string{"API key visible: true"}},
	{name: "debug terminate", tool: "debug", args: `{"op":"terminate"}`},
	{name: "eval figure", tool: "eval", args: `{"code":` + jsonString(plotCell) + `,"description":"plot a small line chart of squares"}`,
		image: true},
	{name: "eval credentials", tool: "eval", args: `{"code":"import os\nprint('ANTHROPIC_API_KEY' in os.environ)","description":"check whether the API key is visible"}`,
		only: []cliKind{claudeCLI}, want: []string{"False"}, refuse: []string{"True"}},
	{name: "vibe_spawn", tool: "vibe_spawn", args: `{"brief":"write a haiku about gophers","label":"haiku","tier":"fast"}`,
		want: []string{`vibe_wait {"worker_id": "w1"} returns its result`}},
	{name: "vibe_list", tool: "vibe_list", args: `{}`,
		want: []string{"1 worker", "w1  fast", "haiku"}, noSize: varies},
	{name: "vibe_send", tool: "vibe_send", args: `{"worker_id":"w1","message":"make it rhyme"}`,
		want: []string{"w1 ", "attempt 2"}, noSize: varies},
	{name: "vibe_kill", tool: "vibe_kill", args: `{"worker_id":"w1"}`,
		want: []string{"w1 "}, refuse: []string{"invalid arguments"}, noSize: varies},
	{name: "ask_user", tool: "ask_user", args: `{"question":"Which database should the cache use?","options":[{"label":"sqlite"},{"label":"redis"}]}`,
		only: []cliKind{claudeCLI, codexCLI}, want: []string{"Continue on a stated assumption", "do not ask this question again"}, refuse: []string{`{"action"`}},
	{name: "gemini wait_for_previous", tool: "ast_grep", args: `{"pattern":"fmt.Println($A)","path":"main.go","wait_for_previous":true}`,
		only: []cliKind{geminiCLI}, want: []string{"main.go:7:2"}, refuse: []string{"invalid arguments", "unknown field"}},
}

// scriptFor makes the scripted model's turns for k, and returns the calls
// in turn order.
func scriptFor(k cliKind, calls []scenarioCall) ([]scriptedmodel.Turn, []scenarioCall) {
	var turns []scriptedmodel.Turn
	var mine []scenarioCall
	for _, c := range calls {
		if !c.in(k) {
			continue
		}
		mine = append(mine, c)
		turns = append(turns, scriptedmodel.Turn{Calls: []scriptedmodel.Call{{Tool: c.tool, Args: json.RawMessage(c.args)}}})
	}
	return append(turns, scriptedmodel.Turn{Text: "That is all."}), mine
}

// scenarioServe is how agent-tools is served in the main scenario: vibe
// mode with the workers' test agent as the fast worker.
// The kernel runs Debian's python3, which has matplotlib (the first
// python3 on PATH may not).
func (h *harnessEnv) scenarioServe() []string {
	return []string{"--vibe", "--worker", "fast=/bin/sh " + h.fakeAgt, "--config", h.config}
}

// harnessSuite runs the scenario in each CLI, the Codex run on the plan
// surface and the long calls under Codex and opencode, all at once, and
// checks what each CLI passed to its model (TestHarness).
func harnessSuite(t *testing.T) {
	h := setupHarness(t)
	start := time.Now()
	t.Cleanup(func() { t.Logf("harness suite: %s", time.Since(start).Round(time.Second)) })
	// Our own text per scenario call, for sizes: made by the first scenario
	// run that needs it, alongside the other runs.
	var refMu sync.Mutex
	var refMade bool
	var ours map[string]string
	reference := func(t *testing.T) map[string]string {
		refMu.Lock()
		defer refMu.Unlock()
		if !refMade {
			refMade = true
			ours = h.referenceTexts(t, scenario)
		}
		return ours
	}
	// The runs go at once, not as t.Parallel subtests: those are held to
	// -parallel (GOMAXPROCS, 2 here), and most of these runs wait on a CLI,
	// a sleeping worker or a sleeping cell, not on a core.
	runs := map[string]func(t *testing.T){}
	for _, k := range allCLIs {
		runs[string(k)] = func(t *testing.T) { h.scenarioRun(t, k, reference) }
	}
	runs["codex-plan-surface"] = h.planSurfaceRun
	for _, k := range []cliKind{codexCLI, opencodeCLI} {
		for _, lc := range longCalls {
			runs[string(k)+"-"+lc.name] = func(t *testing.T) { h.longCallRun(t, k, lc) }
		}
	}
	for name, run := range h.writtenRuns() {
		runs[name] = run
	}
	var wg sync.WaitGroup
	for name, run := range runs {
		wg.Go(func() { t.Run(name, run) })
	}
	wg.Wait()
}

// scenarioRun runs the scenario in k; reference gives our own texts.
func (h *harnessEnv) scenarioRun(t *testing.T, k cliKind, reference func(*testing.T) map[string]string) {
	script, calls := scriptFor(k, scenario)
	r := h.newRun(t, k, "scenario", scenarioProject, script, h.scenarioServe()...)
	h.run(t, r, 5*time.Minute)
	results, err := r.model.Results()
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]scriptedmodel.Result{}
	for _, res := range results {
		got[res.Turn] = res
	}
	var ours map[string]string
	if k == claudeCLI || k == codexCLI {
		ours = reference(t)
	}
	var modelChars, ourChars int
	for i, c := range calls {
		res, ok := got[i]
		if !ok {
			t.Errorf("%s: the result of %s (%s %s) never reached the model", r.name, c.name, c.tool, c.args)
			continue
		}
		text := res.AllText()
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %s: the model did not see %q; it saw:\n%s", r.name, c.name, w, tail(text, 1500))
			}
		}
		for _, w := range c.head {
			if i := strings.Index(text, w); i < 0 || i+len(w) > headChars {
				t.Errorf("%s: %s: %q is not in the first %d characters the model saw (at %d; every CLI keeps the head of a result):\n%s", r.name, c.name, w, headChars, i, tail(text[:min(len(text), 2*headChars)], 1500))
			}
		}
		for _, w := range c.refuse {
			if strings.Contains(text, w) {
				t.Errorf("%s: %s: the model saw %q:\n%s", r.name, c.name, w, tail(text, 1500))
			}
		}
		if c.image && len(res.Images) == 0 {
			t.Errorf("%s: %s: the model got no image; it saw:\n%s", r.name, c.name, tail(text, 600))
		}
		if o, ok := ours[c.name]; ok && !c.noSize && (k == claudeCLI || k == codexCLI) {
			n := len(stripEnvelope(k, text))
			modelChars += n
			ourChars += len(o)
			t.Logf("%s: %s: the model read %d characters for our %d", r.name, c.name, n, len(o))
		}
	}
	if (k == claudeCLI || k == codexCLI) && len(ours) == 0 {
		t.Errorf("%s: no reference texts, so no size comparison", r.name)
	} else if k == claudeCLI || k == codexCLI {
		ratio := float64(modelChars) / float64(max(ourChars, 1))
		t.Logf("%s: the model read %d characters for our %d (%.2f×)", r.name, modelChars, ourChars, ratio)
		if ratio > 1.1 {
			t.Errorf("%s: the model read %.2f× our text (%d for %d characters); want ≤ 1.1×", r.name, ratio, modelChars, ourChars)
		}
	}
	h.checkSchemas(t, r)
}

// codexEnvelope is the header Codex puts before every MCP result it shows.
var codexEnvelope = regexp.MustCompile(`^Wall time: [0-9.]+ seconds\nOutput:\n`)

// claudeImageNote is the text part Claude Code adds after each image of a
// result: where it saved the image.
var claudeImageNote = regexp.MustCompile(`\n?\[Image: source: [^\]\n]*\]`)

// stripEnvelope removes a CLI's fixed wrapping of a result, so sizes
// compare what came from us: Codex's "Wall time: …\nOutput:\n" header, and
// Claude Code's "[Image: source: PATH]" note after each image.
func stripEnvelope(k cliKind, text string) string {
	switch k {
	case codexCLI:
		return codexEnvelope.ReplaceAllString(text, "")
	case claudeCLI:
		return claudeImageNote.ReplaceAllString(text, "")
	}
	return text
}

// checkSchemas reads the tool definitions the CLI sent its model: debug's
// lines items must be integers or objects, never strings.
func (h *harnessEnv) checkSchemas(t *testing.T, r *cliRun) {
	tools, err := r.model.Tools()
	if err != nil {
		t.Error(err)
		return
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		if tool.Name != "debug" {
			continue
		}
		var s struct {
			Properties struct {
				Lines struct {
					Items json.RawMessage `json:"items"`
				} `json:"lines"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tool.Schema, &s); err != nil {
			t.Errorf("%s: debug's schema as sent to the model does not decode: %v", r.name, err)
			continue
		}
		types := schemaTypes(s.Properties.Lines.Items)
		if slices.Contains(types, "string") || !slices.Contains(types, "integer") || !slices.Contains(types, "object") {
			t.Errorf("%s: the model is told debug lines items are %v (want integer or object, never string): %s", r.name, types, s.Properties.Lines.Items)
		}
	}
	if !slices.Contains(names, "debug") || !slices.Contains(names, "ast_grep") {
		t.Errorf("%s: the model was not offered debug and ast_grep: %v", r.name, names)
	}
}

// schemaTypes lists the types a schema allows, through anyOf/oneOf.
func schemaTypes(raw json.RawMessage) []string {
	var s struct {
		Type  any               `json:"type"`
		AnyOf []json.RawMessage `json:"anyOf"`
		OneOf []json.RawMessage `json:"oneOf"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	var out []string
	switch x := s.Type.(type) {
	case string:
		out = append(out, strings.ToLower(x))
	case []any:
		for _, e := range x {
			out = append(out, strings.ToLower(fmt.Sprint(e)))
		}
	}
	for _, sub := range append(s.AnyOf, s.OneOf...) {
		out = append(out, schemaTypes(sub)...)
	}
	return out
}

// referenceTexts makes the scenario's calls straight to the binary (an MCP
// client of the official Go SDK that answers elicitation cancel, as
// claude -p does), in a project of the same path length, and returns our
// text per call. It runs alongside the CLIs, under the same load: an answer
// that depends on a language server's speed (resolve's check after the
// write) may still differ by a line between two sessions; the 10% margin
// covers it. (The session's own recording would be exact, but in the
// Claude Code and Codex runs agent-tools left no transcript.) It runs alongside the CLIs, under the same load: an answer
// that depends on a language server's speed (resolve's check after the
// write) may still differ by a line between two sessions. (The session's
// own recording would be exact, but Claude Code and Codex end agent-tools
// before it writes its transcript.)
func (h *harnessEnv) referenceTexts(t *testing.T, calls []scenarioCall) map[string]string {
	r := h.newRun(t, claudeCLI, "reference", scenarioProject, nil, h.scenarioServe()...)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.bin, append([]string{"serve", "--log-level", "warn"}, r.serve...)...)
	cmd.Dir = r.proj
	cmd.Env = r.baseEnv(h)
	cmd.Stderr = t.Output()
	client := mcp.NewClient(&mcp.Implementation{Name: "harness-reference", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "cancel"}, nil
		},
	})
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	out := map[string]string{}
	for _, c := range calls {
		if !c.in(claudeCLI) && !c.in(codexCLI) {
			continue
		}
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Errorf("reference %s: %v", c.name, err)
			continue
		}
		var texts []string
		for _, part := range res.Content {
			if tc, ok := part.(*mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		out[c.name] = strings.Join(texts, "\n")
		if os.Getenv("AGENT_TOOLS_HARNESS_DUMP") != "" {
			t.Logf("reference %s:\n%s", c.name, out[c.name])
		}
	}
	return out
}

// planSurfaceRun serves Codex on the plan surface, where eval is hidden,
// and has the model call eval anyway (Codex does not re-list after a
// surface change, so its model does exactly this). The model must read an
// error that says why and what is available, not "unknown tool".
func (h *harnessEnv) planSurfaceRun(t *testing.T) {
	record := filepath.Join(h.base, "record-codex-plan.txtar")
	script := []scriptedmodel.Turn{
		{Calls: []scriptedmodel.Call{{Tool: "eval", Args: json.RawMessage(`{"code":"1+1","description":"add one and one"}`)}}},
		{Text: "That is all."},
	}
	r := h.newRun(t, codexCLI, "plan", harnessProject, script, "--surface", "plan", "--record", record)
	r.record = record
	h.run(t, r, 3*time.Minute)
	res, ok := r.model.Result(0, 0)
	if !ok {
		t.Fatalf("%s: the eval call's result never reached the model", r.name)
	}
	text := res.AllText()
	transcript, err := os.ReadFile(record)
	if err != nil {
		t.Fatalf("%s: %v", r.name, err)
	}
	forwarded := strings.Contains(string(transcript), `"name":"eval"`)
	t.Logf("%s: Codex forwarded the hidden call to agent-tools: %v; the model saw:\n%s", r.name, forwarded, text)
	if !forwarded {
		// Measured with Codex 0.169.0: it answers a call of a tool it was
		// not offered itself ("unsupported call: …"), so agent-tools never
		// sees it; the case that matters is a surface change after the
		// listing, which Codex does not follow. Pin what the model reads.
		if !strings.Contains(text, "unsupported call") {
			t.Errorf("%s: Codex kept the call of the hidden tool eval to itself, and the model saw neither its \"unsupported call\" nor our answer:\n%s", r.name, text)
		}
		return
	}
	if strings.Contains(text, "unknown tool") {
		t.Errorf("%s: the model was told eval is an unknown tool:\n%s", r.name, text)
	}
	if !strings.Contains(text, "plan") || !strings.Contains(text, "ast_grep") {
		t.Errorf("%s: the answer does not say why eval is refused (the plan surface) and what is available (ast_grep, …):\n%s", r.name, text)
	}
}

// longCall is one long call: the turns that lead to it (the call is the
// last turn's) and the answer of ours the model must get.
type longCall struct {
	name  string
	turns []scriptedmodel.Turn
	want  string
}

var longCalls = []longCall{
	{name: "vibe_wait-90s", want: "done: slow job", turns: []scriptedmodel.Turn{
		{Calls: []scriptedmodel.Call{{Tool: "vibe_spawn", Args: json.RawMessage(`{"brief":"slow job","label":"slow","tier":"fast"}`)}}},
		{Calls: []scriptedmodel.Call{{Tool: "vibe_wait", Args: json.RawMessage(`{"worker_id":"w1","timeout_seconds":200}`)}}},
	}},
	{name: "eval-70s", want: "slept 70 s", turns: []scriptedmodel.Turn{
		{Calls: []scriptedmodel.Call{{Tool: "eval", Args: json.RawMessage(`{"code":"import time\ntime.sleep(70)\n'slept 70 s'","description":"sleep seventy seconds, then answer"}`)}}},
	}},
}

// longCallRun has the model make one long call: a vibe_wait on a worker
// that takes 90 s, or a 70 s eval (each in its own run, so that the runs
// go in parallel: Codex makes one turn's calls one after the other). The
// model must get our answer, not the CLI's timeout. opencode is registered
// without the README's "timeout", so its default applies (a call ends after
// 60 s without a progress notification): what keeps the call alive there
// is our progress. Codex runs with the README's snippet.
func (h *harnessEnv) longCallRun(t *testing.T, k cliKind, lc longCall) {
	script := append(append([]scriptedmodel.Turn(nil), lc.turns...), scriptedmodel.Turn{Text: "That is all."})
	r := h.newRun(t, k, lc.name, harnessProject, script, "--vibe", "--worker", "fast=sleep 90; exec /bin/sh "+h.fakeAgt)
	r.defaultTimeout = k == opencodeCLI
	h.run(t, r, 5*time.Minute)
	last := len(lc.turns) - 1
	tool := lc.turns[last].Calls[0].Tool
	res, ok := r.model.Result(last, 0)
	if !ok {
		t.Fatalf("%s: the result of %s never reached the model", r.name, tool)
	}
	if text := res.AllText(); !strings.Contains(text, lc.want) {
		t.Errorf("%s: %s: the model did not get our answer (%q); it saw:\n%s", r.name, tool, lc.want, tail(text, 1500))
	}
}

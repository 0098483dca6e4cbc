package main

// The harness suite: agent-tools registered in the four agent CLIs people
// use (Claude Code, Codex, Gemini CLI, opencode), each CLI run headless
// against a scripted model of its own wire API (internal/scriptedmodel, the
// only stand-in: no model runs here), and every assertion made on what the
// CLI passed to the model. The registration of each CLI is parsed out of
// the README, so what the README tells a user and what is tested cannot
// drift apart.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agent-tools/agent-tools/internal/scriptedmodel"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// cliKind is one agent CLI.
type cliKind string

const (
	claudeCLI   cliKind = "claude"
	codexCLI    cliKind = "codex"
	geminiCLI   cliKind = "gemini"
	opencodeCLI cliKind = "opencode"
)

var allCLIs = []cliKind{claudeCLI, codexCLI, geminiCLI, opencodeCLI}

func (k cliKind) api() scriptedmodel.API {
	switch k {
	case claudeCLI:
		return scriptedmodel.Anthropic
	case codexCLI:
		return scriptedmodel.Responses
	case geminiCLI:
		return scriptedmodel.Gemini
	}
	return scriptedmodel.Chat
}

// harnessEnv is what every CLI run of the suite shares.
type harnessEnv struct {
	bin     string // the agent-tools binary
	clis    string // the folder holding the CLIs' executables
	readme  string // the README's "Registering it with an MCP client" section
	base    string // a folder for projects and homes, with names of equal length
	goEnv   map[string]string
	fakeAgt string // workers/testdata/fakeagent.sh
	config  string // an agent-tools --config file: eval on /usr/bin/python3
	runs    atomic.Int32
}

// cliDir finds the CLIs installed by scripts/install-tools.sh
// (AGENT_TOOLS_AGENT_CLIS overrides the folder).
func cliDir() string {
	if d := os.Getenv("AGENT_TOOLS_AGENT_CLIS"); d != "" {
		return d
	}
	abs, _ := filepath.Abs("../../third_party/npm/agent-clis/node_modules/.bin")
	return abs
}

// setupHarness skips (or fails under AGENT_TOOLS_REQUIRE_ALL=1) when a CLI
// is missing, and builds the binary for the test's runs.
func setupHarness(t *testing.T) *harnessEnv {
	t.Helper()
	dir := cliDir()
	testutil.NeedsFunc(t, "the agent CLIs (claude, codex, gemini, opencode)", func() string {
		var missing []string
		for _, k := range allCLIs {
			if _, err := os.Stat(filepath.Join(dir, string(k))); err != nil {
				missing = append(missing, string(k))
			}
		}
		if len(missing) > 0 {
			return fmt.Sprintf("%s not in %s", strings.Join(missing, ", "), dir)
		}
		return ""
	})
	testutil.Needs(t, "go", "node", "gopls", "dlv", "python3")
	h, err := buildHarness(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if os.Getenv("AGENT_TOOLS_HARNESS_DUMP") == "" {
			os.RemoveAll(h.base)
		}
	})
	return h
}

func buildHarness(clis string) (*harnessEnv, error) {
	base, err := os.MkdirTemp("", "agent-tools-harness-")
	if err != nil {
		return nil, err
	}
	h := &harnessEnv{clis: clis, base: base, goEnv: map[string]string{}}
	h.bin = filepath.Join(base, "agent-tools")
	if bin := os.Getenv("AGENT_TOOLS_HARNESS_BIN"); bin != "" {
		// A binary built elsewhere (another branch), to see what its
		// answers look like to each CLI's model.
		h.bin = bin
	} else if err := buildBinary(h.bin); err != nil {
		return nil, err
	}
	out, err := exec.Command("go", "env", "-json", "GOPATH", "GOMODCACHE", "GOCACHE", "GOROOT").Output()
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(out, &h.goEnv); err != nil {
		return nil, err
	}
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		return nil, err
	}
	const heading = "### Registering it with an MCP client\n"
	i := strings.Index(string(data), heading)
	if i < 0 {
		return nil, fmt.Errorf("README has no %q", heading)
	}
	h.readme = string(data)[i+len(heading):]
	if j := strings.Index(h.readme, "\n### "); j >= 0 {
		h.readme = h.readme[:j]
	}
	h.fakeAgt, _ = filepath.Abs("../../workers/testdata/fakeagent.sh")
	h.config = filepath.Join(base, "agent-tools.json")
	// The language servers' waits are raised as in writtenServe: 13 CLIs
	// start their own gopls at once on two cores, and a rename then waited
	// past the default 30 s index wait (the answer rightly refused it, but
	// these runs are about what reaches the model).
	conf := `{"eval": {"python": "/usr/bin/python3"}, "lsp": {"ready_timeout": "90s", "index_timeout": "120s", "diagnostic_timeout": "60s"}}`
	if err := os.WriteFile(h.config, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	return h, nil
}

// buildBinary builds agent-tools into bin, with the Dart grammar when its
// sources are there, as the Makefile does.
func buildBinary(bin string) error {
	args := []string{"build"}
	if _, err := os.Stat("../../third_party/npm/node_modules/tree-sitter-dart/src/parser.c"); err == nil {
		args = append(args, "-tags", "dart")
	}
	args = append(args, "-o", bin, ".")
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// A run is one CLI session: its project, home, scripted model and output.
type cliRun struct {
	kind  cliKind
	name  string // for messages: kind and scenario
	proj  string
	home  string
	model *scriptedmodel.Server
	serve []string // extra agent-tools serve arguments
	// record is the transcript agent-tools writes (serve --record) when it
	// exits, which the CLI may not wait for.
	record string
	// defaultTimeout registers without the README's call timeout (opencode's
	// "timeout"), to see what the CLI's own default does to a long call.
	defaultTimeout bool
	// allow names more of the CLI's own tools a headless Claude Code run
	// may use (Read, Edit), besides ours.
	allow string
	// cliArgs are more arguments for the CLI's headless command (Claude
	// Code's --plugin-dir).
	cliArgs []string
	stdout  bytes.Buffer
	stderr  bytes.Buffer
	exitErr error
	took    time.Duration
}

// newRun makes a project from files (a txtar archive) and a home, both
// under the suite's base folder with names of the same length, so that
// paths in answers have the same length in every run.
func (h *harnessEnv) newRun(t *testing.T, kind cliKind, name, files string, script []scriptedmodel.Turn, serve ...string) *cliRun {
	t.Helper()
	root := filepath.Join(h.base, fmt.Sprintf("run-%03d", h.runs.Add(1)))
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &cliRun{kind: kind, name: string(kind) + "/" + name, proj: filepath.Join(root, "proj"), home: filepath.Join(root, "home"), serve: serve}
	for _, d := range []string{r.proj, r.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WriteTree(t, r.proj, files)
	if script != nil {
		var err error
		if r.model, err = scriptedmodel.Start(kind.api(), script); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.model.Close() })
	}
	return r
}

// serverEnv is the environment the suite gives agent-tools through each
// CLI's registration: the Go caches (a fresh HOME would rebuild the
// standard library for every debug launch) and a PATH with the tools.
func (h *harnessEnv) serverEnv() map[string]string {
	return map[string]string{
		"PATH":        os.Getenv("PATH"),
		"GOPATH":      h.goEnv["GOPATH"],
		"GOMODCACHE":  h.goEnv["GOMODCACHE"],
		"GOCACHE":     h.goEnv["GOCACHE"],
		"GOFLAGS":     "-mod=mod",
		"GOTOOLCHAIN": "local",
	}
}

// baseEnv is the CLI's environment: a fresh HOME and XDG folders, no
// inherited credentials or config, offline switches.
func (r *cliRun) baseEnv(h *harnessEnv) []string {
	env := []string{
		"HOME=" + r.home,
		"XDG_CONFIG_HOME=" + filepath.Join(r.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(r.home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(r.home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(r.home, ".local", "state"),
		"PATH=" + os.Getenv("PATH"),
		"TERM=dumb",
		"NO_COLOR=1",
		"LANG=C.UTF-8",
		"TMPDIR=" + os.TempDir(),
		"PWD=" + r.proj,
	}
	for k, v := range h.serverEnv() {
		if k != "PATH" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// readmeBlock returns the first fenced block of lang in the README section
// whose text contains marker.
func (h *harnessEnv) readmeBlock(t *testing.T, lang, marker string) string {
	t.Helper()
	for _, b := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(h.readme, -1) {
		if strings.Contains(b[1], marker) {
			return b[1]
		}
	}
	t.Fatalf("README's registration section has no %s block containing %q", lang, marker)
	return ""
}

// serveArgv is the README's command with our binary for "agent-tools" and
// the run's extra serve arguments appended.
func (h *harnessEnv) serveArgv(t *testing.T, r *cliRun, argv []string) []string {
	t.Helper()
	if len(argv) < 2 || argv[0] != "agent-tools" || argv[1] != "serve" {
		t.Fatalf("README's %s registration does not run agent-tools serve: %q", r.kind, argv)
	}
	return append(append([]string{h.bin}, argv[1:]...), r.serve...)
}

// register writes the CLI's configuration from the README's snippet.
func (h *harnessEnv) register(t *testing.T, r *cliRun) {
	t.Helper()
	switch r.kind {
	case claudeCLI:
		h.registerClaude(t, r)
	case codexCLI:
		h.registerCodex(t, r)
	case geminiCLI:
		h.registerGemini(t, r)
	case opencodeCLI:
		h.registerOpencode(t, r)
	}
}

func (h *harnessEnv) registerClaude(t *testing.T, r *cliRun) {
	var line string
	for _, l := range strings.Split(h.readmeBlock(t, "sh", "claude mcp add agent-tools"), "\n") {
		if strings.HasPrefix(l, "claude mcp add agent-tools --") {
			line = l
			break
		}
	}
	if line == "" {
		t.Fatal("README has no `claude mcp add agent-tools -- …` line")
	}
	before, after, _ := strings.Cut(line, " -- ")
	words := strings.Fields(before)[1:] // mcp add agent-tools
	for k, v := range h.serverEnv() {
		words = append(words, "-e", k+"="+v)
	}
	words = append(append(words, "--"), h.serveArgv(t, r, strings.Fields(after))...)
	cmd := exec.Command(filepath.Join(h.clis, "claude"), words...)
	cmd.Dir = r.proj
	cmd.Env = append(r.baseEnv(h), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("claude %s: %v\n%s", strings.Join(words, " "), err, out)
	}
}

func (h *harnessEnv) registerCodex(t *testing.T, r *cliRun) {
	body := h.readmeBlock(t, "toml", "[mcp_servers.agent-tools]")
	var c struct {
		MCPServers map[string]map[string]any `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(body, &c); err != nil {
		t.Fatalf("README's Codex snippet: %v", err)
	}
	entry := c.MCPServers["agent-tools"]
	argv := []string{fmt.Sprint(entry["command"])}
	for _, a := range entry["args"].([]any) {
		argv = append(argv, fmt.Sprint(a))
	}
	argv = h.serveArgv(t, r, argv)
	entry["command"], entry["args"], entry["env"] = argv[0], argv[1:], h.serverEnv()
	cfg := map[string]any{
		"model":           "scripted",
		"model_provider":  "scripted",
		"approval_policy": "never",
		"sandbox_mode":    "danger-full-access",
		"model_providers": map[string]any{"scripted": map[string]any{
			"name": "scripted", "base_url": r.model.URL() + "/v1", "wire_api": "responses", "env_key": "SCRIPTED_API_KEY",
		}},
		"mcp_servers": map[string]any{"agent-tools": entry},
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(cfg); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, filepath.Join(r.home, ".codex", "config.toml"), b.String())
}

func (h *harnessEnv) registerGemini(t *testing.T, r *cliRun) {
	var snip struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(h.readmeBlock(t, "json", `"trust"`)), &snip); err != nil {
		t.Fatalf("README's Gemini snippet: %v", err)
	}
	entry := snip.MCPServers["agent-tools"]
	argv := []string{fmt.Sprint(entry["command"])}
	for _, a := range entry["args"].([]any) {
		argv = append(argv, fmt.Sprint(a))
	}
	argv = h.serveArgv(t, r, argv)
	entry["command"], entry["args"], entry["env"] = argv[0], argv[1:], h.serverEnv()
	settings := map[string]any{
		"security": map[string]any{
			"auth":        map[string]any{"selectedType": "gemini-api-key"},
			"folderTrust": map[string]any{"enabled": false},
		},
		"general":    map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"telemetry":  map[string]any{"enabled": false},
		"privacy":    map[string]any{"usageStatisticsEnabled": false},
		"mcpServers": map[string]any{"agent-tools": entry},
	}
	b, _ := json.MarshalIndent(settings, "", "  ")
	writeConfig(t, filepath.Join(r.home, ".gemini", "settings.json"), string(b))
}

func (h *harnessEnv) registerOpencode(t *testing.T, r *cliRun) {
	var cfg map[string]any
	if err := json.Unmarshal([]byte(h.readmeBlock(t, "json", `"type": "local"`)), &cfg); err != nil {
		t.Fatalf("README's opencode snippet: %v", err)
	}
	entry := cfg["mcp"].(map[string]any)["agent-tools"].(map[string]any)
	var argv []string
	for _, a := range entry["command"].([]any) {
		argv = append(argv, fmt.Sprint(a))
	}
	entry["command"], entry["environment"] = h.serveArgv(t, r, argv), h.serverEnv()
	if r.defaultTimeout {
		delete(entry, "timeout")
	}
	cfg["provider"] = map[string]any{"scripted": map[string]any{
		"npm":     "@ai-sdk/openai-compatible",
		"name":    "scripted",
		"options": map[string]any{"baseURL": r.model.URL() + "/v1", "apiKey": "scripted"},
		"models": map[string]any{"scripted": map[string]any{"name": "scripted", "tool_call": true, "attachment": true,
			"modalities": map[string]any{"input": []string{"text", "image"}, "output": []string{"text"}}}},
	}}
	cfg["model"], cfg["small_model"] = "scripted/scripted", "scripted/scripted"
	cfg["autoupdate"], cfg["share"] = false, "disabled"
	cfg["permission"] = map[string]any{"edit": "allow", "bash": "allow", "webfetch": "allow"}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	writeConfig(t, filepath.Join(r.proj, "opencode.json"), string(b))
}

func writeConfig(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// command is the headless invocation of the run's CLI, with its env.
func (h *harnessEnv) command(ctx context.Context, r *cliRun) *exec.Cmd {
	env := r.baseEnv(h)
	var cmd *exec.Cmd
	bin := filepath.Join(h.clis, string(r.kind))
	switch r.kind {
	case claudeCLI:
		allowed := "mcp__agent-tools"
		if r.allow != "" {
			allowed += "," + r.allow
		}
		cmd = exec.CommandContext(ctx, bin, append([]string{"-p", "go", "--output-format", "stream-json", "--verbose", "--allowedTools", allowed}, r.cliArgs...)...)
		env = append(env, "ANTHROPIC_BASE_URL="+r.model.URL(), "ANTHROPIC_API_KEY=sk-scripted-model-not-a-key",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "ENABLE_TOOL_SEARCH=false",
			// claude -p starts its first turn without waiting for MCP
			// servers that are still connecting (a loaded machine can
			// make that seconds): these make it wait, as the README says.
			"MCP_CONNECTION_NONBLOCKING=false", "MCP_CONNECT_TIMEOUT_MS=60000")
	case codexCLI:
		cmd = exec.CommandContext(ctx, bin, "exec", "--json", "--skip-git-repo-check", "-C", r.proj, "go")
		env = append(env, "CODEX_HOME="+filepath.Join(r.home, ".codex"), "SCRIPTED_API_KEY=scripted")
	case geminiCLI:
		cmd = exec.CommandContext(ctx, bin, "-p", "go", "--output-format", "stream-json", "--approval-mode", "yolo")
		env = append(env, "GEMINI_API_KEY=scripted", "GOOGLE_GEMINI_BASE_URL="+r.model.URL(), "GEMINI_CLI_NO_RELAUNCH=true")
	case opencodeCLI:
		cmd = exec.CommandContext(ctx, bin, "run", "--format", "json", "go")
		env = append(env, "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1",
			"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1")
	}
	cmd.Dir = r.proj
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// On a timeout, end the CLI's whole process group (our server with it).
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// cliStartBound bounds a CLI's start: from its launch to its first request
// to the model (opencode's first is its title request, which it makes
// before it starts agent-tools). On two cores at load 20–30 (busy loops
// beside the suite's 13 CLIs starting at once), opencode took 1m36s–1m45s
// to get there, 36 s of it before its first log line: most of a run's
// bound, when that bound counted from the launch.
const cliStartBound = 4 * time.Minute

// Why a run was ended before the CLI exited.
var (
	errNoStart = errors.New("no request to the model since the CLI's launch")
	errBound   = errors.New("the run's bound passed")
	errNoExit  = errors.New("no exit after the script's final text")
)

// run registers agent-tools and runs the CLI until it exits. The CLI's
// own signals bound it: its first request to the model must come within
// cliStartBound of its launch; from that request on it has bound to get
// through the script; once the script's final text is served, a minute to
// exit. Its exit after the final text is what ends a good run.
func (h *harnessEnv) run(t *testing.T, r *cliRun, bound time.Duration) {
	t.Helper()
	h.register(t, r)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	cmd := h.command(ctx, r)
	cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
	first := r.model.Changed() // closed at the CLI's first request
	exited := make(chan struct{})
	go func() {
		launch := time.NewTimer(cliStartBound)
		defer launch.Stop()
		select {
		case <-first:
		case <-launch.C:
			cancel(errNoStart)
			return
		case <-exited:
			return
		}
		work := time.NewTimer(bound)
		defer work.Stop()
		select {
		case <-r.model.Finished():
		case <-work.C:
			cancel(errBound)
			return
		case <-exited:
			return
		}
		// The script's final text is served: the CLI has nothing left
		// to do but exit, and a minute is plenty.
		select {
		case <-time.After(time.Minute):
			cancel(errNoExit)
		case <-exited:
		}
	}()
	start := time.Now()
	r.exitErr = cmd.Run()
	r.took = time.Since(start)
	close(exited)
	if cmd.Process == nil {
		t.Fatalf("%s does not start: %v", r.name, r.exitErr)
	}
	if r.record != "" {
		r.awaitRecord(t)
	}
	// Whatever is left of the group (a server that outlived its CLI).
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if dir := os.Getenv("AGENT_TOOLS_HARNESS_DUMP"); dir != "" {
		r.dump(t, dir)
	}
	t.Logf("%s: %d requests, %d of the script's turns served, exit %v, %s; requests at %s", r.name, len(r.model.Requests()), r.model.TurnsServed(), r.exitErr, r.took.Round(time.Second), r.timeline(start))
	switch cause := context.Cause(ctx); cause {
	case errNoStart:
		t.Errorf("%s made no request to its model within %s of its launch; stderr:\n%s", r.name, cliStartBound, tail(r.stderr.String(), 3000))
	case errBound:
		t.Errorf("%s did not finish within %s of its first request to the model (%d turns served); stdout:\n%s\nstderr:\n%s", r.name, bound, r.model.TurnsServed(), tail(r.stdout.String(), 1500), tail(r.stderr.String(), 3000))
	case errNoExit:
		t.Errorf("%s did not exit within a minute of the script's final text", r.name)
	}
}

// timeline says when each request of the run came, after the CLI's
// launch, and which script turn answered it (-1: a helper request).
func (r *cliRun) timeline(launch time.Time) string {
	var parts []string
	for _, q := range r.model.Requests() {
		parts = append(parts, fmt.Sprintf("+%s (turn %d)", q.Time.Sub(launch).Round(100*time.Millisecond), q.Turn))
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, ", ")
}

// awaitRecord waits (bounded) for agent-tools to write its transcript: it
// exits when the CLI closes its stdin, which may be after the CLI itself.
func (r *cliRun) awaitRecord(t *testing.T) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for {
		if _, err := os.Stat(r.record); err == nil {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Errorf("%s: agent-tools wrote no transcript to %s within 30 s of the CLI's exit", r.name, r.record)
			return
		}
	}
}

// dump writes the run's requests and output, for reading by hand.
func (r *cliRun) dump(t *testing.T, dir string) {
	d := filepath.Join(dir, strings.ReplaceAll(r.name, "/", "-"))
	os.MkdirAll(d, 0o755)
	for i, q := range r.model.Requests() {
		var pretty bytes.Buffer
		if json.Indent(&pretty, q.Body, "", " ") != nil {
			pretty.Write(q.Body)
		}
		os.WriteFile(filepath.Join(d, fmt.Sprintf("%03d-turn%d.json", i, q.Turn)), append([]byte(q.Time.Format("15:04:05.000")+" "+q.Method+" "+q.Path+"\n"), pretty.Bytes()...), 0o644)
	}
	os.WriteFile(filepath.Join(d, "stdout"), r.stdout.Bytes(), 0o644)
	os.WriteFile(filepath.Join(d, "stderr"), r.stderr.Bytes(), 0o644)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

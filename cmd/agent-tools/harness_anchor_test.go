package main

// Ours against the anchor, side by side in one Claude Code run per
// language: Claude Code's own LSP support (a plugin folder with an
// .lsp.json for gopls and pyright, loaded with --plugin-dir: its LSP tool
// and the diagnostics it adds after its own Edit) and agent-tools through
// the README's PostToolUse hook. The scripted model edits; what each side
// put in front of it is read out of the model's next requests and scored
// on six points. Ours must hold all six; the anchor's score is recorded,
// not asserted (it is a peer), but the run fails when its plugin did not
// load, so that the comparison is real.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/scriptedmodel"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// anchorLang is one language's project and edits. Every file is under a
// subdirectory, so that a report naming a file without its directory
// shows.
type anchorLang struct {
	name   string
	server string // the language server the plugin starts
	files  string // a txtar archive
	lib    string // the file the model edits
	caller string // a file using lib that the model never opens
	old    string // a file with an error from before the run
	// ok and broken are lib's text around the change that breaks caller;
	// callerErr is a part of caller's error then.
	ok, broken, callerErr string
	// oldFrom and oldTo are an edit of old unrelated to its error; oldErr
	// is a part of that error.
	oldFrom, oldTo, oldErr string
	// libSym and oldSym are symbols of lib and old, in a documentSymbol
	// answer of the anchor's LSP tool.
	libSym, oldSym string
}

var anchorLangs = []anchorLang{
	{
		name:   "go",
		server: "gopls",
		files: `-- go.mod --
module example.com/anchor

go 1.22
-- greet/greet.go --
package greet

// Greet says hello.
func Greet(name string) string { return "hello " + name }
-- cmd/app/main.go --
package main

import (
	"fmt"

	"example.com/anchor/greet"
)

func main() { fmt.Println(greet.Greet("gopher")) }
-- legacy/legacy.go --
package legacy

// Answer has been wrong since before the run.
func Answer() int { return "forty-two" }

// Note is what the unrelated edit changes.
const Note = "old"
-- notes.txt --
Nothing to see here.
`,
		lib: "greet/greet.go", caller: "cmd/app/main.go", old: "legacy/legacy.go",
		ok: "func Greet(name string) string {", broken: "func Greet(name string, times int) string {",
		callerErr: "not enough arguments in call to greet.Greet",
		oldFrom:   `const Note = "old"`, oldTo: `const Note = "new"`,
		oldErr: `as int value in return statement`,
		libSym: "Greet", oldSym: "Answer",
	},
	{
		name:   "python",
		server: "pyright-langserver",
		files: `-- pyproject.toml --
[project]
name = "anchor"
version = "0.1.0"
-- pkg/__init__.py --
-- pkg/greet.py --
def greet(name: str) -> str:
    return "hello " + name
-- app/main.py --
from pkg.greet import greet

print(greet("snake"))
-- legacy/legacy.py --
def answer() -> int:
    return "forty-two"


NOTE = "old"
-- notes.txt --
Nothing to see here.
`,
		lib: "pkg/greet.py", caller: "app/main.py", old: "legacy/legacy.py",
		ok: "def greet(name: str) -> str:", broken: "def greet(name: str, times: int) -> str:",
		callerErr: `Argument missing for parameter "times"`,
		oldFrom:   `NOTE = "old"`, oldTo: `NOTE = "new"`,
		oldErr: `is not assignable to return type "int"`,
		libSym: "greet", oldSym: "answer",
	},
}

// anchorPlugin is the plugin folder giving Claude Code its LSP support for
// Go and Python, as its docs describe one.
const anchorPluginJSON = `{"name": "anchor-lsp", "version": "1.0.0", "description": "gopls and pyright for Claude Code's LSP tool"}`

const anchorLSPJSON = `{
  "go": {"command": "gopls", "extensionToLanguage": {".go": "go"}},
  "python": {"command": "pyright-langserver", "args": ["--stdio"], "extensionToLanguage": {".py": "python"}}
}`

// The script's turns. The first waits until the anchor's language server
// answers its LSP tool (Claude Code starts a plugin's servers in the
// background, and says "server is starting" until one is up), so that it
// is up before the first edit, as it would be long since after a real
// model's first few turns. After each step's edit the model is given one
// harmless turn more, so that diagnostics that arrive later than the
// edit's result still count: a call of the anchor's own LSP tool
// (documentSymbol of the file just edited), which waits for its language
// server to answer, as a model's next look at the file would. Its answers
// also show that the anchor's servers run.
const (
	turnReady = iota
	turnReadLib
	turnBreak
	turnBreakExtra
	turnFix
	turnFixExtra
	turnRebreak
	turnRebreakExtra
	turnReadOld
	turnEditOld
	turnEditOldExtra
	turnEnd
)

// anchorStep is one step of the run: the script turns whose results the
// model may see its report in (the request answered with turn k+1 is the
// first after turn k's calls).
type anchorStep struct {
	name  string
	turns []int // script turns whose calls precede the requests
}

var anchorSteps = []anchorStep{
	{"the break", []int{turnBreak, turnBreakExtra}},
	{"the fix", []int{turnFix, turnFixExtra}},
	{"the re-break", []int{turnRebreak, turnRebreakExtra}},
	{"the unrelated edit", []int{turnReadOld, turnEditOld, turnEditOldExtra}},
}

// A delivery is one report a side put in front of the model: the script
// turn the request was answered with, and the text.
type delivery struct {
	turn int
	text string
}

const (
	sideOurs   = "agent-tools hook"
	sideAnchor = "Claude Code LSP plugin"
)

// anchorCriteria are the six points, in the README table's order.
var anchorCriteria = []string{
	"caller's error arrives with the Edit's own result",
	"re-broken code reported again",
	"error in a caller the model never opened",
	`"fixed" said after the fix`,
	"files named with their directories",
	"old error not called new",
}

// anchorVerdict is one side's score: per criterion, yes or no and why.
type anchorVerdict struct {
	ok   map[string]bool
	why  map[string]string
	seen map[int][]string // deliveries by turn, for the log
}

// harnessAnchor runs the comparison for Go and Python at once and logs
// the table the README shows (TestHarnessAnchor).
func harnessAnchor(t *testing.T) {
	h := setupHarness(t)
	testutil.Needs(t, "pyright-langserver")
	var mu sync.Mutex
	verdicts := map[string]map[string]anchorVerdict{}
	start := time.Now()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if len(verdicts) == len(anchorLangs) {
			table := anchorTable(verdicts)
			t.Logf("ours against Claude Code's LSP plugin (%s):\n%s", time.Since(start).Round(time.Second), table)
			// The anchor is a peer whose timing may vary: a README
			// table that differs is said, not failed.
			if old := readmeAnchorTable(t); old != table {
				t.Logf("the README's table differs from this run's:\n%s", old)
			}
		}
	})
	for _, lang := range anchorLangs {
		t.Run(lang.name, func(t *testing.T) {
			t.Parallel()
			v := h.anchorRun(t, lang)
			if v != nil {
				mu.Lock()
				verdicts[lang.name] = v
				mu.Unlock()
			}
		})
	}
}

// anchorRun is one language's Claude Code run with both sides loaded.
func (h *harnessEnv) anchorRun(t *testing.T, lang anchorLang) map[string]anchorVerdict {
	var r *cliRun
	abs := func(rel string) string { return filepath.Join(r.proj, filepath.FromSlash(rel)) }
	read := func(rel string) scriptedmodel.Call {
		return scriptedmodel.Call{Tool: "Read", Args: mustJSON(map[string]string{"file_path": abs(rel)}), Native: true}
	}
	edit := func(rel, from, to string) scriptedmodel.Call {
		return scriptedmodel.Call{Tool: "Edit", Args: mustJSON(map[string]string{"file_path": abs(rel), "old_string": from, "new_string": to}), Native: true}
	}
	r = h.newRun(t, claudeCLI, "anchor-"+lang.name, lang.files, nil, h.writtenServe(t)...)
	script := make([]scriptedmodel.Turn, turnEnd+1)
	one := func(c scriptedmodel.Call) scriptedmodel.Turn {
		return scriptedmodel.Turn{Calls: []scriptedmodel.Call{c}}
	}
	script[turnReadLib] = one(read(lang.lib))
	script[turnBreak] = one(edit(lang.lib, lang.ok, lang.broken))
	script[turnFix] = one(edit(lang.lib, lang.broken, lang.ok))
	script[turnRebreak] = one(edit(lang.lib, lang.ok, lang.broken))
	script[turnReadOld] = one(read(lang.old))
	script[turnEditOld] = one(edit(lang.old, lang.oldFrom, lang.oldTo))
	symbols := func(rel string) scriptedmodel.Call {
		return scriptedmodel.Call{Tool: "LSP", Args: mustJSON(map[string]any{"operation": "documentSymbol", "filePath": abs(rel), "line": 1, "character": 1}), Native: true}
	}
	script[turnReady] = one(symbols(lang.lib))
	script[turnReady].Until = func(rs []scriptedmodel.Result) bool {
		return !rs[0].IsError && strings.Contains(rs[0].AllText(), lang.libSym)
	}
	extra := map[int]string{turnBreakExtra: lang.lib, turnFixExtra: lang.lib, turnRebreakExtra: lang.lib, turnEditOldExtra: lang.old}
	for k, rel := range extra {
		script[k] = one(symbols(rel))
	}
	script[turnEnd] = scriptedmodel.Turn{Text: "That is all."}
	var err error
	if r.model, err = scriptedmodel.Start(claudeCLI.api(), script); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.model.Close() })
	gitCommit(t, r.proj)
	writeConfig(t, filepath.Join(r.proj, ".claude", "settings.json"), string(readmeHook(t)))
	plugin := filepath.Join(filepath.Dir(r.proj), "plugin")
	writeConfig(t, filepath.Join(plugin, ".claude-plugin", "plugin.json"), anchorPluginJSON)
	writeConfig(t, filepath.Join(plugin, ".lsp.json"), anchorLSPJSON)
	r.cliArgs = []string{"--plugin-dir", plugin}
	r.allow = "Read,Edit"
	h.run(t, r, 4*time.Minute)

	if got := r.model.TurnsServed(); got != len(script) {
		t.Fatalf("%s: %d of the script's %d turns were served; stderr:\n%s", r.name, got, len(script), tail(r.stderr.String(), 3000))
	}
	if !anchorToolOffered(t, r) {
		t.Fatalf("%s: Claude Code offered the model no LSP tool: the plugin in %s did not load, so there is nothing to compare with", r.name, plugin)
	}
	for _, rel := range []string{lang.lib, lang.old} {
		data, _ := os.ReadFile(abs(rel))
		if want := map[string]string{lang.lib: lang.broken, lang.old: lang.oldTo}[rel]; !strings.Contains(string(data), want) {
			t.Fatalf("%s: Claude Code's Edit did not run: %s is\n%s", r.name, rel, data)
		}
	}

	seen := map[string]map[int][]string{sideOurs: {}, sideAnchor: {}}
	for turn := 0; turn <= turnEnd; turn++ {
		for _, part := range newParts(t, r, turn) {
			ours, anchor := splitSides(part)
			if ours != "" {
				seen[sideOurs][turn] = append(seen[sideOurs][turn], ours)
			}
			if len(anchor) > 0 {
				seen[sideAnchor][turn] = append(seen[sideAnchor][turn], anchor...)
			}
		}
	}
	tries := 0
	for _, q := range r.model.Requests() {
		if q.Turn == turnReady {
			tries++
		}
	}
	t.Logf("%s: the readiness turn (the anchor's LSP tool, until %s answers) was served %d time(s)", r.name, lang.server, tries)
	// The plugin's server answered its LSP tool: the anchor was running.
	for k, rel := range extra {
		sym := map[string]string{lang.lib: lang.libSym, lang.old: lang.oldSym}[rel]
		res, ok := r.model.Result(k, 0)
		if !ok || res.IsError || !strings.Contains(res.AllText(), sym) {
			t.Fatalf("%s: the anchor's LSP tool (documentSymbol of %s, turn %d) did not answer with %s, so its %s did not run: %s", r.name, rel, k, sym, lang.server, tail(res.AllText(), 1500))
		}
	}
	if len(seen[sideAnchor]) == 0 {
		t.Logf("%s: Claude Code's LSP plugin put no diagnostics in front of the model in the whole run", r.name)
	}
	out := map[string]anchorVerdict{}
	for _, side := range []string{sideOurs, sideAnchor} {
		v := scoreAnchor(lang, seen[side])
		out[side] = v
		var turns []int
		for k := range v.seen {
			turns = append(turns, k)
		}
		sort.Ints(turns)
		for _, k := range turns {
			t.Logf("%s: %s, in the request answered with turn %d:\n%s", r.name, side, k, strings.Join(v.seen[k], "\n"))
		}
	}
	for _, c := range anchorCriteria {
		if !out[sideOurs].ok[c] {
			t.Errorf("%s: ours fails %q: %s", r.name, c, out[sideOurs].why[c])
		}
	}
	t.Logf("%s (%s, %s):\n%s", r.name, lang.server, langServerVersion(lang.server), anchorTable(map[string]map[string]anchorVerdict{lang.name: out}))
	return out
}

// anchorToolOffered: the CLI's first agent request offered the model a
// tool named LSP, which only the plugin brings.
func anchorToolOffered(t *testing.T, r *cliRun) bool {
	for _, q := range r.model.Requests() {
		if q.Turn < 0 {
			continue
		}
		var body struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(q.Body, &body); err != nil {
			t.Fatalf("%s: a request does not decode: %v", r.name, err)
		}
		for _, tool := range body.Tools {
			if tool.Name == "LSP" {
				return true
			}
		}
		return false
	}
	return false
}

// newParts returns the strings of the messages added since the model's
// last turn in the request answered with script turn turn (tool results,
// hook context, system reminders), each whole.
func newParts(t *testing.T, r *cliRun, turn int) []string {
	t.Helper()
	var parts []string
	for _, q := range r.model.Requests() {
		if q.Turn != turn {
			continue
		}
		var body struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(q.Body, &body); err != nil {
			t.Fatalf("%s: a request does not decode: %v", r.name, err)
		}
		last := -1
		for i, m := range body.Messages {
			if m.Role == "assistant" {
				last = i
			}
		}
		for _, m := range body.Messages[last+1:] {
			var v any
			json.Unmarshal(m.Content, &v)
			parts = appendStrings(parts, v)
		}
		break
	}
	return parts
}

// anchorBlock is one report of Claude Code's own diagnostics.
var anchorBlock = regexp.MustCompile(`(?s)<new-diagnostics>.*?</new-diagnostics>`)

// ourMarker starts our hook's context as Claude Code shows it.
const ourMarker = "agent-tools, diagnostics on write:"

// splitSides takes one text the model was given apart: Claude Code joins
// the system texts of a turn — the hook's context, its own diagnostics
// (<new-diagnostics> blocks), its reminders — with blank lines into one
// message. Our report has no blank line in it.
func splitSides(part string) (ours string, anchor []string) {
	anchor = anchorBlock.FindAllString(part, -1)
	rest := anchorBlock.ReplaceAllString(part, "\n\n")
	if i := strings.Index(rest, ourMarker); i >= 0 {
		ours, _, _ = strings.Cut(rest[i:], "\n\n")
		ours = strings.TrimSpace(ours)
	}
	return ours, anchor
}

// scoreAnchor scores one side on the six points from what it delivered,
// by request turn.
func scoreAnchor(lang anchorLang, seen map[int][]string) anchorVerdict {
	v := anchorVerdict{ok: map[string]bool{}, why: map[string]string{}, seen: seen}
	in := func(turns ...int) []delivery {
		var ds []delivery
		for _, k := range turns {
			for _, s := range seen[k+1] {
				ds = append(ds, delivery{k + 1, s})
			}
		}
		return ds
	}
	with := func(ds []delivery, sub string) []delivery {
		var out []delivery
		for _, d := range ds {
			if strings.Contains(d.text, sub) {
				out = append(out, d)
			}
		}
		return out
	}
	set := func(c string, ok bool, why string, args ...any) {
		v.ok[c], v.why[c] = ok, fmt.Sprintf(why, args...)
	}
	step := func(i int) []delivery { return in(anchorSteps[i].turns...) }

	// 1. With the Edit's result: in the very request that carries it.
	if d := with(in(turnBreak), lang.callerErr); len(d) > 0 {
		set(anchorCriteria[0], true, "yes")
	} else if d := with(step(0), lang.callerErr); len(d) > 0 {
		set(anchorCriteria[0], false, "no: a turn later")
	} else {
		set(anchorCriteria[0], false, "no: never")
	}
	// 2. Broken again after the fix: reported again.
	switch {
	case len(with(step(2), lang.callerErr)) > 0:
		set(anchorCriteria[1], true, "yes")
	case len(step(2)) > 0:
		set(anchorCriteria[1], false, "no: only other diagnostics")
	default:
		set(anchorCriteria[1], false, "no: nothing said")
	}
	// 3. The caller's error at the first break, at all.
	if len(with(step(0), lang.callerErr)) > 0 {
		set(anchorCriteria[2], true, "yes")
	} else {
		set(anchorCriteria[2], false, "no: never reported")
	}
	// 4. After the fix: said in words, without the error.
	fixed := regexp.MustCompile(`(?i)\bno (new )?(errors|problems|diagnostics)\b|\bfixed\b|\bresolved\b`)
	var said bool
	for _, d := range step(1) {
		if fixed.MatchString(d.text) && !strings.Contains(d.text, lang.callerErr) {
			said = true
		}
	}
	if said {
		set(anchorCriteria[3], true, "yes")
	} else if len(step(1)) == 0 {
		set(anchorCriteria[3], false, "no: silence")
	} else {
		set(anchorCriteria[3], false, "no")
	}
	// 5. Every file named in a report is named with its directory.
	var named, bare []string
	for k := 0; k <= turnEnd; k++ {
		for _, s := range seen[k] {
			for _, rel := range []string{lang.lib, lang.caller, lang.old} {
				base := filepath.Base(rel)
				for _, m := range regexp.MustCompile(`[^\s"'(<>:]*`+regexp.QuoteMeta(base)).FindAllString(s, -1) {
					named = append(named, m)
					if !strings.HasSuffix(m, rel) {
						bare = append(bare, m)
					}
				}
			}
		}
	}
	switch {
	case len(named) == 0:
		set(anchorCriteria[4], false, "no: no file named")
	case len(bare) > 0:
		set(anchorCriteria[4], false, "no: `%s`", bare[0])
	default:
		set(anchorCriteria[4], true, "yes")
	}
	// 6. The old error never reported as new, in any step.
	var all []delivery
	for k := 0; k < turnEnd; k++ {
		all = append(all, in(k)...)
	}
	if d := with(all, lang.oldErr); len(d) > 0 {
		var when []string
		for _, e := range d {
			if w := stepOf(e.turn); len(when) == 0 || when[len(when)-1] != w {
				when = append(when, w)
			}
		}
		set(anchorCriteria[5], false, "no: called new at %s", strings.Join(when, " and at "))
	} else {
		set(anchorCriteria[5], true, "yes")
	}
	return v
}

// readmeAnchorTable is the comparison table in the README, found by its
// header row.
func readmeAnchorTable(t *testing.T) string {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(anchorTable(map[string]map[string]anchorVerdict{"go": nil, "python": nil}), "\n")
	_, rest, ok := strings.Cut(string(data), header+"\n")
	if !ok {
		return "(none)"
	}
	table := header + "\n"
	for _, l := range strings.SplitAfter(rest, "\n") {
		if !strings.HasPrefix(l, "|") {
			break
		}
		table += l
	}
	return table
}

// stepOf names the step whose report a request answered with turn turn
// carries.
func stepOf(turn int) string {
	for _, st := range anchorSteps {
		for _, k := range st.turns {
			if k+1 == turn {
				return st.name
			}
		}
	}
	return fmt.Sprintf("turn %d", turn)
}

// anchorTable is the comparison as a Markdown table, a column per side and
// language.
func anchorTable(verdicts map[string]map[string]anchorVerdict) string {
	var langs []string
	for _, l := range anchorLangs {
		if _, ok := verdicts[l.name]; ok {
			langs = append(langs, l.name)
		}
	}
	var b strings.Builder
	b.WriteString("| |")
	for _, l := range langs {
		fmt.Fprintf(&b, " ours (%s) | Claude Code LSP (%s) |", l, l)
	}
	b.WriteString("\n|---|")
	for range langs {
		b.WriteString("---|---|")
	}
	b.WriteString("\n")
	for _, c := range anchorCriteria {
		fmt.Fprintf(&b, "| %s |", c)
		for _, l := range langs {
			fmt.Fprintf(&b, " %s | %s |", verdicts[l][sideOurs].why[c], verdicts[l][sideAnchor].why[c])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// langServerVersion is what the language server says of its version.
func langServerVersion(server string) string {
	var cmd *exec.Cmd
	switch server {
	case "gopls":
		cmd = exec.Command("gopls", "version")
	default:
		cmd = exec.Command("pyright", "--version")
	}
	out, err := cmd.Output()
	if err != nil {
		return "version unknown"
	}
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
}

// appendStrings appends every string inside v, each whole.
func appendStrings(out []string, v any) []string {
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, e := range v {
			out = appendStrings(out, e)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = appendStrings(out, v[k])
		}
	}
	return out
}

// TestAnchorScoring holds the scoring to texts of both shapes, as Claude
// Code joins them (no CLI needed).
func TestAnchorScoring(t *testing.T) {
	lang := anchorLangs[0]
	joined := "PostToolUse:Edit hook additional context: " + ourMarker + " new errors and warnings after this write:\n" +
		"cmd/app/main.go:9:47  error  " + lang.callerErr + " have (string) want (string, int)\nchecked: greet/greet.go, cmd/app/main.go\n\n" +
		"<new-diagnostics>The following new diagnostic issues were detected:\n\nmain.go:\n  ✘ [Line 9:47] " + lang.callerErr + "</new-diagnostics>\n\n" +
		"The user hasn't heard from you in a while."
	ours, anchor := splitSides(joined)
	if !strings.HasPrefix(ours, ourMarker) || !strings.HasSuffix(ours, "cmd/app/main.go") || len(anchor) != 1 || !strings.Contains(anchor[0], "main.go:\n") {
		t.Fatalf("splitSides: ours %q, anchor %q", ours, anchor)
	}
	// A side that reports like ours holds all six; one that reports the
	// caller once, a turn late, by base name, with the old error, holds
	// only "a caller the model never opened".
	good := map[int][]string{
		turnBreak + 1:   {ours},
		turnFix + 1:     {ourMarker + " no new errors or warnings (checked: greet/greet.go, cmd/app/main.go)"},
		turnRebreak + 1: {ours},
		turnEditOld + 1: {ourMarker + " no new errors or warnings after this write; 1 already there before remain (legacy/legacy.go:4)"},
	}
	bad := map[int][]string{
		turnBreakExtra + 1: {anchor[0], "<new-diagnostics>legacy.go:\n  ✘ [Line 4:28] cannot use \"forty-two\" " + lang.oldErr + "</new-diagnostics>"},
	}
	g, b := scoreAnchor(lang, good), scoreAnchor(lang, bad)
	for _, c := range anchorCriteria {
		if !g.ok[c] || b.ok[c] != (c == anchorCriteria[2]) {
			t.Errorf("%q: the good side scores %s, the bad one %s", c, g.why[c], b.why[c])
		}
	}
	if want := "no: a turn later"; b.why[anchorCriteria[0]] != want {
		t.Errorf("late delivery scored %q, want %q", b.why[anchorCriteria[0]], want)
	}
	if want := "no: called new at the break"; b.why[anchorCriteria[5]] != want {
		t.Errorf("old error scored %q, want %q", b.why[anchorCriteria[5]], want)
	}
}

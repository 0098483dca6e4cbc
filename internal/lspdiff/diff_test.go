package lspdiff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corpora "github.com/agent-tools/agent-tools/internal/corpus"
	"github.com/agent-tools/agent-tools/internal/testutil"
	"github.com/agent-tools/agent-tools/lspbridge"
)

// lang is what a differential test needs of a language.
type lang struct {
	name     string
	argv     []string        // the server, as lspbridge's built-in entry starts it
	initOpts json.RawMessage // its initializationOptions there
	tools    []string
	corpus   func(t *testing.T, rng *rand.Rand) (*corpus, string)
	kinds    []string // tree-sitter identifier kinds (not Go)
	// index names the progress the raw server reports its background
	// index with (clangd: "indexing"); the raw answers wait for it.
	index string
	env   map[string]string
	// ciSeed, ciFiles, ciSpots: the CI draw.
	ciSeed           uint64
	ciFiles, ciSpots int
	// listed names the differences known to be the server's own, not
	// lspbridge's (nil: none): the class, or "" when this one is not.
	listed func(d *differ, action string, sp spot, ours, raw answer) string
}

// ops are the actions compared, with the raw request and provider.
var ops = []struct {
	action, method, provider string
}{
	{"definition", "textDocument/definition", "definitionProvider"},
	{"type_definition", "textDocument/typeDefinition", "typeDefinitionProvider"},
	{"references", "textDocument/references", "referencesProvider"},
	{"implementation", "textDocument/implementation", "implementationProvider"},
	{"hover", "textDocument/hover", "hoverProvider"},
	{"incoming_calls", "callHierarchy/incomingCalls", "callHierarchyProvider"},
	{"outgoing_calls", "callHierarchy/outgoingCalls", "callHierarchyProvider"},
}

// Outcomes of one comparison.
const (
	agreeEmpty    = "agree (both none)"
	agreeSome     = "agree"
	fewerMarked   = "fewer, said incomplete"
	fewerUnmarked = "FEWER, NOT SAID"
	differs       = "DIFFERS"
	differsMarked = "differs, said incomplete"
	listedDiff    = "listed difference"
	rawUnsettled  = "raw unsettled (skipped)"
)

var outcomeOrder = []string{agreeSome, agreeEmpty, fewerMarked, differsMarked, fewerUnmarked, differs, listedDiff, rawUnsettled}

// answer is one side's answer after conversion: locations (and call
// sites) as path:line:col, inside the root relative to it.
type answer struct {
	keys  []string
	total int    // ours: how many it found (more than keys when capped)
	hover string // hover text
	text  string // what the model reads (ours) or the raw JSON
	err   error
}

func (a answer) String() string {
	if a.err != nil {
		return "error: " + a.err.Error()
	}
	return a.text
}

// seedOf is the draw's seed: AGENT_TOOLS_SEED, else the clock under
// AGENT_TOOLS_SOAK=1, else ci.
func seedOf(t *testing.T, ci uint64) uint64 {
	return testutil.Seed(t, ci, os.Getenv("AGENT_TOOLS_SOAK") == "1")
}

// sampleOf is the number of files and positions: the CI sample, or under
// AGENT_TOOLS_SOAK=1 a larger one (AGENT_TOOLS_POSITIONS=n).
func sampleOf(l *lang) (files, spots int) {
	files, spots = l.ciFiles, l.ciSpots
	if os.Getenv("AGENT_TOOLS_SOAK") == "1" {
		files, spots = 4*l.ciFiles, 300
	}
	if n, err := strconv.Atoi(os.Getenv("AGENT_TOOLS_POSITIONS")); err == nil && n > 0 {
		spots = n
		files = max(files, n/25)
	}
	return files, spots
}

// runDiff is one language's differential test.
func runDiff(t *testing.T, l *lang) {
	testutil.Needs(t, l.tools...)
	for k, v := range l.env {
		t.Setenv(k, v)
	}
	seed := seedOf(t, l.ciSeed)
	rng := rand.New(rand.NewPCG(seed, seed>>1|1))
	c, why := l.corpus(t, rng)
	if c == nil {
		testutil.NeedsFunc(t, l.name+" corpus", func() string { return why })
		return
	}
	nfiles, nspots := sampleOf(l)
	spots := drawSpots(t, rng, c, l.kinds, nfiles, nspots)
	t.Logf("drew %s: %d files, %d positions", c.name, len(c.files), len(spots))
	if len(spots) == 0 {
		t.Fatalf("seed %d: no identifier in the drawn files of %s", seed, c.name)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	opts, err := lspbridge.ParseConfig(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sup := lspbridge.NewSupervisor(opts, nil)
	defer sup.Close(context.Background())
	raw, err := startRaw(ctx, l.argv[0], l.argv, c.raw, l.initOpts)
	if err != nil {
		t.Fatalf("seed %d: raw %s: %v", seed, l.argv[0], err)
	}
	defer raw.close()

	d := &differ{t: t, l: l, c: c, raw: raw, sup: sup, seed: seed, lines: map[string][]string{},
		counts: map[string]map[string]int{}, index: l.index, silent: map[string]bool{}}
	start := time.Now()
	for _, sp := range spots {
		d.spot(ctx, sp)
		if ctx.Err() != nil {
			t.Fatalf("seed %d: out of time at %s", seed, sp)
		}
	}
	t.Logf("%d positions in %s", len(spots), time.Since(start).Round(time.Millisecond))
	d.report()
}

type differ struct {
	t      *testing.T
	l      *lang
	c      *corpus
	raw    *rawServer
	sup    *lspbridge.Supervisor
	seed   uint64
	lines  map[string][]string
	counts map[string]map[string]int // action → outcome → n
	failed int
	capped int // answers ours capped (its total checked against the raw count)
	// index is the progress still awaited before raw answers; cleared
	// when the server never begins one (nothing to index).
	index string
	// silent are the files the raw server never published for: their
	// diagnostics are not waited for again.
	silent map[string]bool
}

// maxFailures bounds the disagreements printed in full.
const maxFailures = 15

func (d *differ) count(action, outcome string) {
	if d.counts[action] == nil {
		d.counts[action] = map[string]int{}
	}
	d.counts[action][outcome]++
}

func (d *differ) report() {
	for _, op := range ops {
		m := d.counts[op.action]
		if m == nil {
			continue
		}
		var parts []string
		n := 0
		for _, o := range outcomeOrder {
			if m[o] > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", o, m[o]))
				n += m[o]
			}
		}
		d.t.Logf("%-15s %3d: %s", op.action, n, strings.Join(parts, ", "))
	}
	unsettled, all := 0, 0
	for _, m := range d.counts {
		unsettled += m[rawUnsettled]
		for _, n := range m {
			all += n
		}
	}
	if unsettled*10 > all {
		d.t.Errorf("seed %d: %d of %d comparisons were skipped because the raw server had not settled: too few compared", d.seed, unsettled, all)
	}
	if d.capped > 0 {
		d.t.Logf("%d answers were capped lists: their totals matched the raw counts", d.capped)
	}
}

// spot compares every action at one position.
func (d *differ) spot(ctx context.Context, sp spot) {
	rawPath := filepath.Join(d.c.raw, filepath.FromSlash(sp.file))
	if err := d.raw.open(rawPath); err != nil {
		d.t.Fatal(err)
	}
	for _, op := range ops {
		if !d.raw.supports(op.provider) {
			continue
		}
		ours := d.ours(ctx, op.action, sp)
		if ours.err != nil && errors.Is(ours.err, context.DeadlineExceeded) {
			return
		}
		if !d.aimed(ours, sp) {
			continue
		}
		if why := d.settle(ctx, rawPath); why != "" {
			if err := d.raw.deadErr(); err != nil {
				d.t.Fatalf("seed %d: at %s: %v", d.seed, sp, err)
			}
			d.count(op.action, rawUnsettled)
			d.t.Logf("%s %s: raw %s not settled: still %s", op.action, sp, d.raw.name, why)
			continue
		}
		rawA := d.rawAsk(ctx, op.action, op.method, sp)
		outcome, detail := d.compare(op.action, ours, rawA)
		if outcome == fewerUnmarked || outcome == differs {
			// The raw answer must be its settled one: asked again, it
			// must say the same.
			d.settle(ctx, rawPath)
			again := d.rawAsk(ctx, op.action, op.method, sp)
			if !slices.Equal(again.keys, rawA.keys) || again.hover != rawA.hover {
				d.count(op.action, rawUnsettled)
				d.t.Logf("%s %s: the raw answer changed when asked again", op.action, sp)
				continue
			}
		}
		if (outcome == fewerUnmarked || outcome == differs) && d.l.listed != nil {
			if class := d.l.listed(d, op.action, sp, ours, rawA); class != "" {
				d.t.Logf("%s at %s: %s (listed: %s)", op.action, sp, detail, class)
				outcome = listedDiff
			}
		}
		d.count(op.action, outcome)
		if ours.total > len(ours.keys) {
			d.capped++
		}
		if os.Getenv("LSPDIFF_TRACE") != "" && (outcome == agreeEmpty) == (os.Getenv("LSPDIFF_TRACE") == "empty") {
			d.t.Logf("%s %s: %s\nours:\n%s\nraw:\n%s", op.action, sp, outcome, indent(ours.String()), indent(rawA.String()))
		}
		if outcome == fewerUnmarked || outcome == differs {
			d.failed++
			if d.failed <= maxFailures {
				d.t.Errorf("seed %d, %s at %s: %s: %s\nours:\n%s\nraw %s:\n%s", d.seed, op.action, sp, outcome, detail,
					indent(ours.String()), d.raw.name, indent(rawA.String()))
			}
		}
	}
}

// settle waits (bounded) for the raw server to settle on path.
func (d *differ) settle(ctx context.Context, path string) string {
	sctx, cancel := context.WithTimeout(ctx, 2*testutil.IntegrationTimeout())
	defer cancel()
	why := d.raw.settle(sctx, path, d.index, !d.silent[path])
	switch {
	case strings.Contains(why, ","):
	case strings.Contains(why, "to begin"):
		d.t.Logf("raw %s never began a progress %q: not waited for again", d.raw.name, d.index)
		d.index = ""
		return ""
	case strings.HasPrefix(why, "diagnostics of"):
		d.t.Logf("raw %s published no diagnostics for %s: not waited for again", d.raw.name, path)
		d.silent[path] = true
	}
	return why
}

var targetColRe = regexp.MustCompile(`:(\d+):(\d+) \S+$`)

// aimed checks that ours aimed where the spot is (the test's occurrence
// agrees with lspbridge's), else logs it and says false.
func (d *differ) aimed(ours answer, sp spot) bool {
	if ours.err != nil {
		return true
	}
	first, _, _ := strings.Cut(ours.text, "\n")
	m := targetColRe.FindStringSubmatch(first)
	if m == nil {
		return true
	}
	if m[1] != strconv.Itoa(sp.line) || m[2] != strconv.Itoa(sp.col) {
		d.t.Errorf("seed %d: %s: lspbridge aimed at %s:%s (%s)", d.seed, sp, m[1], m[2], first)
		return false
	}
	return true
}

// ours asks lspbridge's Supervisor, as the lsp tool does.
func (d *differ) ours(ctx context.Context, action string, sp spot) answer {
	rctx, cancel := context.WithTimeout(ctx, 3*testutil.IntegrationTimeout())
	defer cancel()
	req := lspbridge.Request{Root: d.c.ours, File: sp.file, Line: sp.line, Symbol: sp.name, Occurrence: sp.occurrence}
	var r *lspbridge.Result
	var err error
	switch action {
	case "hover":
		r, err = d.sup.Hover(rctx, req)
	case "incoming_calls", "outgoing_calls":
		r, err = d.sup.Calls(rctx, action, req, 1)
	default:
		r, err = d.sup.Locations(rctx, action, req)
	}
	if err != nil {
		return answer{err: err, text: err.Error()}
	}
	a := answer{text: r.Text(), total: r.Total, hover: r.Hover}
	for _, l := range r.Locations {
		a.keys = append(a.keys, fmt.Sprintf("%s:%d:%d", l.Path, l.Line, l.Col))
	}
	for _, c := range r.Calls {
		if c.Level == 1 {
			a.keys = append(a.keys, fmt.Sprintf("%s:%d:%d %s", c.Path, c.Line, c.Col, c.Name))
		}
	}
	a.keys = sortedSet(a.keys)
	if r.Action == "hover" {
		a.total = 0
	}
	return a
}

func sortedSet(keys []string) []string {
	slices.Sort(keys)
	return slices.Compact(keys)
}

// saysIncomplete says whether ours told the model its answer may lack
// something: an answer given while the server still worked, or an error
// saying it has not finished loading.
func saysIncomplete(a answer) bool {
	return strings.Contains(a.text, "may be incomplete") || strings.Contains(a.text, "has not finished loading")
}

// compare converts and compares; detail says what differs.
func (d *differ) compare(action string, ours, raw answer) (string, string) {
	if action == "hover" {
		return compareHover(ours, raw)
	}
	rs := raw.keys
	var extra, missing []string
	for _, k := range ours.keys {
		if !slices.Contains(rs, k) {
			extra = append(extra, k)
		}
	}
	for _, k := range rs {
		if !slices.Contains(ours.keys, k) {
			missing = append(missing, k)
		}
	}
	capped := ours.total > len(ours.keys)
	short := len(missing)
	if capped {
		short = len(rs) - ours.total // ours lists a capped part; its total counts the rest
	}
	switch {
	case len(extra) > 0 && saysIncomplete(ours):
		// Given while the server still worked, and saying so.
		return differsMarked, ""
	case len(extra) > 0:
		return differs, fmt.Sprintf("ours has %d the raw server has not: %s; it lacks %d: %s", len(extra), clip(extra), len(missing), clip(missing))
	case capped && ours.total > len(rs):
		return differs, fmt.Sprintf("ours counts %d, the raw server has %d", ours.total, len(rs))
	case short > 0 && saysIncomplete(ours):
		return fewerMarked, ""
	case short > 0:
		return fewerUnmarked, fmt.Sprintf("ours lacks %d of %d: %s", short, len(rs), clip(missing))
	case len(rs) == 0:
		return agreeEmpty, ""
	}
	return agreeSome, ""
}

// compareHover: ours must contain the raw hover's signature (its first
// code block, else its first line), spaces aside.
func compareHover(ours, raw answer) (string, string) {
	sig := signature(raw.hover)
	switch {
	case sig == "" && ours.hover == "":
		return agreeEmpty, ""
	case sig == "":
		return differs, "ours has a hover, the raw server none"
	case ours.hover == "" && saysIncomplete(ours):
		return fewerMarked, ""
	case ours.hover == "":
		return fewerUnmarked, "ours has no hover"
	case strings.Contains(squash(ours.hover), squash(sig)):
		return agreeSome, ""
	case cutHoverRe.MatchString(ours.hover) && strings.HasPrefix(squash(sig), squash(signature(ours.hover))):
		// lspbridge cuts a hover after 40 lines and says how many more.
		return fewerMarked, ""
	}
	if len(sig) > 300 {
		sig = sig[:300] + "…"
	}
	return differs, fmt.Sprintf("ours lacks the signature %q", sig)
}

// cutHoverRe is how lspbridge ends a hover it cut.
var cutHoverRe = regexp.MustCompile(`\n… \(\d+ more lines\)$`)

var fenceRe = regexp.MustCompile("(?s)```[a-zA-Z0-9_+-]*\n(.*?)\n```")

func signature(hover string) string {
	if m := fenceRe.FindStringSubmatch(hover); m != nil {
		return strings.TrimSpace(m[1])
	}
	for _, l := range strings.Split(hover, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(keys []string) string {
	if len(keys) > 6 {
		return strings.Join(keys[:6], ", ") + fmt.Sprintf(", … (%d more)", len(keys)-6)
	}
	return strings.Join(keys, ", ")
}

func indent(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 25 {
		lines = append(lines[:25], fmt.Sprintf("… (%d more lines)", len(lines)-25))
	}
	return "    " + strings.Join(lines, "\n    ")
}

// --- the raw side ---

type rawRange struct {
	Start struct{ Line, Character int } `json:"start"`
}

type rawItem struct {
	Name           string   `json:"name"`
	URI            string   `json:"uri"`
	SelectionRange rawRange `json:"selectionRange"`
}

// rawAsk sends the request of action at sp to the raw server and
// converts its answer.
func (d *differ) rawAsk(ctx context.Context, action, method string, sp spot) answer {
	rctx, cancel := context.WithTimeout(ctx, 3*testutil.IntegrationTimeout())
	defer cancel()
	path := filepath.Join(d.c.raw, filepath.FromSlash(sp.file))
	doc := map[string]string{"uri": uriOf(path)}
	pos := d.raw.position(d.fileLines(path), sp.line, sp.col)
	params := map[string]any{"textDocument": doc, "position": pos}
	if action == "references" {
		params["context"] = map[string]bool{"includeDeclaration": true}
	}
	if action == "incoming_calls" || action == "outgoing_calls" {
		return d.rawCalls(rctx, action, method, params)
	}
	res, err := d.raw.call(rctx, method, params)
	if err != nil {
		return answer{err: err}
	}
	a := answer{text: string(res)}
	if action == "hover" {
		var h struct {
			Contents json.RawMessage `json:"contents"`
		}
		if json.Unmarshal(res, &h) == nil {
			// A hover may name the file it is in (clangd expands
			// __FILE__ in a macro's body): the copies differ in root.
			a.hover = strings.ReplaceAll(hoverText(h.Contents), d.c.raw, d.c.ours)
		}
		a.text = a.hover
		return a
	}
	a.keys = d.rawLocations(res)
	a.total = len(a.keys)
	return a
}

func (d *differ) rawCalls(ctx context.Context, action, method string, params map[string]any) answer {
	res, err := d.raw.call(ctx, "textDocument/prepareCallHierarchy", params)
	if err != nil {
		return answer{err: err, text: err.Error()}
	}
	var items []json.RawMessage
	json.Unmarshal(res, &items)
	var keys []string
	var text strings.Builder
	for _, it := range items {
		var item rawItem
		json.Unmarshal(it, &item)
		out, err := d.raw.call(ctx, method, map[string]json.RawMessage{"item": it})
		if err != nil {
			return answer{err: err, text: err.Error()}
		}
		text.Write(out)
		var calls []struct {
			From       *rawItem   `json:"from"`
			To         *rawItem   `json:"to"`
			FromRanges []rawRange `json:"fromRanges"`
		}
		json.Unmarshal(out, &calls)
		for _, c := range calls {
			uri, other := item.URI, c.To
			if action == "incoming_calls" {
				uri, other = c.From.URI, c.From
			}
			sites := c.FromRanges
			if len(sites) == 0 && other != nil {
				uri, sites = other.URI, []rawRange{other.SelectionRange}
			}
			name := ""
			if other != nil {
				name = other.Name
			}
			for _, r := range sites {
				keys = append(keys, d.key(pathOf(uri), r.Start.Line, r.Start.Character)+" "+name)
			}
		}
	}
	keys = sortedSet(keys)
	return answer{keys: keys, total: len(keys), text: text.String()}
}

// rawLocations converts Location | Location[] | LocationLink[] | null.
func (d *differ) rawLocations(res json.RawMessage) []string {
	s := strings.TrimSpace(string(res))
	if s == "" || s == "null" {
		return nil
	}
	if strings.HasPrefix(s, "{") {
		s = "[" + s + "]"
	}
	var items []struct {
		URI                  string   `json:"uri"`
		Range                rawRange `json:"range"`
		TargetURI            string   `json:"targetUri"`
		TargetSelectionRange rawRange `json:"targetSelectionRange"`
	}
	json.Unmarshal([]byte(s), &items)
	var keys []string
	for _, it := range items {
		if it.TargetURI != "" {
			keys = append(keys, d.key(pathOf(it.TargetURI), it.TargetSelectionRange.Start.Line, it.TargetSelectionRange.Start.Character))
		} else {
			keys = append(keys, d.key(pathOf(it.URI), it.Range.Start.Line, it.Range.Start.Character))
		}
	}
	return sortedSet(keys)
}

// key is path:line:col of a raw position: the path relative to the raw
// root when inside it, the column in runes.
func (d *differ) key(path string, line, char int) string {
	col := d.raw.runeCol(lineOf(d.fileLines(path), line+1), char)
	shown := path
	if rel, err := filepath.Rel(d.c.raw, path); err == nil && filepath.IsLocal(rel) {
		shown = filepath.ToSlash(rel)
	}
	return fmt.Sprintf("%s:%d:%d", shown, line+1, col)
}

func (d *differ) fileLines(path string) []string {
	if l, ok := d.lines[path]; ok {
		return l
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(string(data), "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	d.lines[path] = lines
	return lines
}

// hoverText renders MarkupContent | MarkedString | MarkedString[] as
// markdown.
func hoverText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var mc struct {
		Language string `json:"language"`
		Value    string `json:"value"`
	}
	if json.Unmarshal(raw, &mc) == nil && mc.Value != "" {
		if mc.Language != "" {
			return "```" + mc.Language + "\n" + strings.TrimSpace(mc.Value) + "\n```"
		}
		return strings.TrimSpace(mc.Value)
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) == nil {
		var out []string
		for _, p := range parts {
			if t := hoverText(p); t != "" {
				out = append(out, t)
			}
		}
		return strings.Join(out, "\n\n")
	}
	return ""
}

// --- the languages ---

var goLang = &lang{
	name: "Go", argv: []string{"gopls"}, initOpts: json.RawMessage(`{"diagnosticsDelay":"0s"}`), tools: []string{"gopls", "go"},
	corpus: goCorpus,
	// Offline: the drawn module needs no other, and nothing is fetched.
	env:    map[string]string{"GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOWORK": "off"},
	ciSeed: 1796170000000000001, ciFiles: 4, ciSpots: 40,
}

var pythonLang = &lang{
	name: "Python", argv: []string{"pyright-langserver", "--stdio"}, tools: []string{"pyright-langserver"},
	corpus: pythonCorpus, kinds: []string{"identifier"},
	ciSeed: 1796170000000000002, ciFiles: 4, ciSpots: 20,
}

var tsLang = &lang{
	name: "TypeScript", argv: []string{"typescript-language-server", "--stdio"}, tools: []string{"typescript-language-server", "npm"},
	corpus: tsCorpus, kinds: []string{"identifier", "property_identifier", "type_identifier", "shorthand_property_identifier"},
	ciSeed: 1796170000000000003, ciFiles: 3, ciSpots: 20,
}

var cLang = &lang{
	name: "C", argv: []string{"clangd"}, tools: []string{"clangd", "go"},
	corpus: cCorpus, kinds: []string{"identifier", "field_identifier", "type_identifier"},
	index: "index", listed: cListed,
	ciSeed: 1796170000000000004, ciFiles: 4, ciSpots: 40,
}

func TestRawDiffGo(t *testing.T)         { runDiff(t, goLang) }
func TestRawDiffPython(t *testing.T)     { runDiff(t, pythonLang) }
func TestRawDiffTypeScript(t *testing.T) { runDiff(t, tsLang) }

func TestRawDiffC(t *testing.T) {
	// lspbridge keeps clangd's generated database and index in the user
	// cache: a temp one, not the machine's.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	runDiff(t, cLang)
}

// cListed: a directory of separate programs (several files define main)
// gives clangd's index one symbol for all their same-named functions
// (their USRs are equal: c:@F@main). clangd 14 then names as the caller
// of a call in nbody.c the main of another program (mandelbrot.c, or
// binary-tree.c: which one varies from one clangd to the next), with the
// call's ranges, so the call site is put in the wrong file; and the
// definition of main asked at nbody.c's own main is, from the index, one
// of the others. lspbridge shows what clangd says. A difference is this
// one when the name of every line that differs (the caller or callee of
// a call line, else the name asked about) is a function that two or
// more .c files of the corpus declare at top level.
func cListed(d *differ, action string, sp spot, ours, raw answer) string {
	if action == "hover" {
		return ""
	}
	diff := symmetricDiff(ours.keys, raw.keys)
	if len(diff) == 0 {
		return ""
	}
	var names []string
	for _, k := range diff {
		name := sp.name
		if _, n, ok := strings.Cut(k, " "); ok {
			name = n
		}
		if c := d.topLevelIn(name); c < 2 {
			return ""
		}
		names = append(names, name)
	}
	return fmt.Sprintf("clangd takes the same-named functions %s of several programs in one directory for one", strings.Join(sortedSet(names), ", "))
}

// topLevelIn counts the .c files of the corpus that declare name as a
// function at top level (a line that starts with its type or the name).
func (d *differ) topLevelIn(name string) int {
	re := regexp.MustCompile(`(?m)^(?:[A-Za-z_][\w \t*]*[ \t*])?` + regexp.QuoteMeta(name) + `\s*\(`)
	n := 0
	for _, f := range corpora.Files(d.c.ours, corpora.Ext(".c")) {
		if data, err := os.ReadFile(filepath.Join(d.c.ours, f)); err == nil && re.Match(data) {
			n++
		}
	}
	return n
}

func symmetricDiff(a, b []string) []string {
	var out []string
	for _, k := range a {
		if !slices.Contains(b, k) {
			out = append(out, k)
		}
	}
	for _, k := range b {
		if !slices.Contains(a, k) {
			out = append(out, k)
		}
	}
	return out
}

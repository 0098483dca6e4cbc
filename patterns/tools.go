// This file adapts the pattern engine to package rpc: the ast_grep,
// ast_edit and resolve tools, the config section and doctor's checks.

package patterns

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-tools/agent-tools/internal/config"
	"github.com/agent-tools/agent-tools/rpc"
	"github.com/rs/zerolog"
)

// Config is the "patterns" section of --config.
type Config struct {
	// MaxFileBytes: files larger than this are not searched (default 4 MiB).
	MaxFileBytes int64 `json:"max_file_bytes,omitempty"`
	// Workers: parallel parsers (default: one per core).
	Workers int `json:"workers,omitempty"`
}

func decodeConfig(raw json.RawMessage, log *zerolog.Logger) (Config, error) {
	var c Config
	if err := config.Decode("patterns", raw, &c, config.LogWarnings(log)); err != nil {
		return c, err
	}
	if c.MaxFileBytes < 0 || c.Workers < 0 {
		return c, fmt.Errorf("config patterns: max_file_bytes and workers must not be negative")
	}
	return c, nil
}

// Attach reports the structural-search capability for a run rooted at
// root, configured by the raw "patterns" config section (may be nil); log
// gets the config's deprecation warnings (nil: dropped), as the other
// capabilities' do.
func Attach(root string, section json.RawMessage, log *zerolog.Logger) rpc.Attachment {
	att := rpc.Attachment{Capability: "patterns"}
	cfg, err := decodeConfig(section, log)
	if err != nil {
		att.Reason = err.Error()
		att.Checks = []rpc.Check{{Name: "config", Detail: err.Error()}}
		return att
	}
	// Loading a grammar builds its symbol tables (milliseconds for all of
	// them): doctor's Probe does it, serving loads each on first use.
	att.Probe = grammarChecks
	if !anyGrammarBuiltIn() {
		att.Reason = "no tree-sitter grammar is built in"
		return att
	}
	e := &engine{root: root, cfg: cfg, stager: NewStager()}
	att.Tools = []*rpc.Tool{e.grepTool(), e.editTool(), e.resolveTool()}
	return att
}

// grammarChecks loads every grammar and reports it for doctor.
func grammarChecks() []rpc.Check {
	var checks []rpc.Check
	for _, l := range Languages() {
		ok, why := l.Available()
		c := rpc.Check{Name: "grammar " + l.ID, OK: ok, Detail: why}
		if ok {
			c.Detail = l.Version()
		}
		checks = append(checks, c)
	}
	return checks
}

// anyGrammarBuiltIn reports, without loading any, whether a grammar is
// compiled in: the Go grammar modules always are, Dart with its build tag.
func anyGrammarBuiltIn() bool {
	if len(moduleGrammars) > 0 {
		return true
	}
	ptr, _ := dartGrammar()
	return ptr != nil
}

type engine struct {
	root   string // the root at start-up; calls read the session's
	cfg    Config
	stager *Stager
}

func (e *engine) rootOf(ctx context.Context) string {
	return rpc.Root(ctx, e.root)
}

func (e *engine) search(ctx context.Context, pattern, path, language, context_, selector string, keep bool, maxMatches, listed int) (*SearchResult, error) {
	return Search(ctx, e.rootOf(ctx), pattern, SearchOptions{
		Path: path, Language: language, MaxMatches: maxMatches, MaxListed: listed,
		CompileOptions: CompileOptions{Context: context_, Selector: selector},
		MaxFileBytes:   e.cfg.MaxFileBytes, Workers: e.cfg.Workers, KeepSource: keep,
		Progress: func(done, total int) {
			rpc.ReportProgress(ctx, float64(done), float64(total), fmt.Sprintf("%d of %d files", done, total))
		},
	})
}

// find runs the search a call asks for: a pattern, or a rule with its
// constraints and utils (not both).
// maxMatches stops the search (0: never); listed is how many matches of
// a file are detailed (0: all).
func (e *engine) find(ctx context.Context, q query, keep bool, maxMatches, listed int) (*SearchResult, error) {
	if !present(q.rule) {
		if present(q.constraints) || present(q.utils) {
			return nil, fmt.Errorf("constraints and utils go with rule: give rule (an ast-grep rule object) or drop them")
		}
		if strings.TrimSpace(q.pattern) == "" {
			return nil, fmt.Errorf(`give pattern (a code fragment such as foo($X)) or rule (an ast-grep rule object such as {"pattern": "foo($X)", "inside": {"kind": "if_statement", "stopBy": "end"}})`)
		}
		return e.search(ctx, q.pattern, q.path, q.language, q.context, q.selector, keep, maxMatches, listed)
	}
	if q.pattern != "" {
		return nil, fmt.Errorf(`give pattern or rule, not both: a rule holds its pattern, as in {"rule": {"pattern": %q, ...}}`, q.pattern)
	}
	spec, err := ParseRule(q.rule, q.constraints, q.utils)
	if err != nil {
		return nil, err
	}
	return SearchRule(ctx, e.rootOf(ctx), spec, SearchOptions{
		Path: q.path, Language: q.language, MaxMatches: maxMatches, MaxListed: listed,
		CompileOptions: CompileOptions{Context: q.context, Selector: q.selector},
		MaxFileBytes:   e.cfg.MaxFileBytes, Workers: e.cfg.Workers, KeepSource: keep,
		Progress: func(done, total int) {
			rpc.ReportProgress(ctx, float64(done), float64(total), fmt.Sprintf("%d of %d files", done, total))
		},
	})
}

// query is what ast_grep and ast_edit search for.
type query struct {
	pattern                  string
	rule, constraints, utils json.RawMessage
	path, language           string
	context, selector        string
}

// present reports a JSON argument that was given (not absent, not null).
func present(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	return t != "" && t != "null"
}

// readings says how a search read its pattern, or its rule's patterns.
func readings(res *SearchResult) []ReadAs {
	if len(res.Rules) == 0 {
		return readAs(res.Patterns)
	}
	out := []ReadAs{}
	for _, r := range res.Rules {
		if len(r.Patterns) == 0 {
			out = append(out, ReadAs{Language: r.Lang.ID, Context: "rule", Node: r.KindsRead()})
		}
		out = append(out, readAs(r.Patterns)...)
	}
	return out
}

// countBound is how many matches ast_grep counts before it stops: a
// pattern as general as $X would otherwise match every node of every file.
func countBound(maxResults int) int { return max(maxResults, 100000) }

type grepArgs struct {
	Pattern     string          `json:"pattern,omitempty" jsonschema_description:"code fragment with metavariables; or give rule"`
	Rule        json.RawMessage `json:"rule,omitempty" jsonschema:"type=object" jsonschema_description:"instead of pattern: an ast-grep rule object (its YAML keys: pattern, kind, regex, inside, has, precedes, follows, stopBy, field, all, any, not, matches)"`
	Constraints json.RawMessage `json:"constraints,omitempty" jsonschema:"type=object" jsonschema_description:"with rule: metavariable name to a rule its capture must match"`
	Utils       json.RawMessage `json:"utils,omitempty" jsonschema:"type=object" jsonschema_description:"with rule: named rules for matches"`
	Path        string          `json:"path,omitempty" jsonschema_description:"file or directory under the root (default: all)"`
	Language    string          `json:"language,omitempty" jsonschema_description:"language id, e.g. go, python, typescript, tsx, rust, c, cpp, java, c-sharp; inferred from a file path"`
	MaxResults  int             `json:"max_results,omitempty" jsonschema:"minimum=1" jsonschema_description:"matches to list (default 50)"`
	Context     string          `json:"context,omitempty" jsonschema:"enum=statement,enum=expression,enum=member,enum=declaration,enum=type,enum=annotation,enum=selector,enum=case,enum=condition,enum=pattern" jsonschema_description:"force how the pattern is read"`
	Selector    string          `json:"selector,omitempty" jsonschema_description:"node kind inside the fragment to match, as ast-grep --selector"`
	Dump        string          `json:"dump,omitempty" jsonschema:"enum=pattern,enum=code" jsonschema_description:"show a tree instead of searching: pattern (how it was read) or code (the text parsed as code)"`
}

// DumpOut is ast_grep's answer to dump.
type DumpOut struct {
	Mode     string `json:"mode" jsonschema_description:"pattern or code"`
	Language string `json:"language" jsonschema_description:"the language the text was read in"`
	// ReadAs is the pattern's reading (mode pattern).
	ReadAs *ReadAs `json:"readAs,omitempty" jsonschema_description:"mode pattern: the context and node the pattern was read as"`
	// OtherReadings are the pattern's other contexts (mode pattern).
	OtherReadings []ReadAs `json:"otherReadings,omitempty" jsonschema_description:"mode pattern: other contexts in which the pattern parses as a different node"`
	// SyntaxErrors counts ERROR and MISSING nodes (mode code).
	SyntaxErrors int    `json:"syntaxErrors,omitempty" jsonschema_description:"mode code: ERROR and MISSING nodes in the tree"`
	Tree         string `json:"tree" jsonschema_description:"indented tree, one node a line: its kind (a token's quoted), and for code its line:column range; metavariables marked in a pattern"`
	Capped       bool   `json:"capped,omitempty" jsonschema_description:"the tree was cut"`
}

// Text renders a dump.
func (d *DumpOut) Text() string {
	var b strings.Builder
	if d.ReadAs != nil {
		fmt.Fprintf(&b, "%s pattern read as %s: %s\n", d.Language, d.ReadAs.Context, d.ReadAs.Node)
	} else {
		fmt.Fprintf(&b, "%s code, %s\n", d.Language, plural(d.SyntaxErrors, "syntax error node"))
	}
	b.WriteString(d.Tree)
	if d.Capped {
		fmt.Fprintf(&b, "… tree capped at %d lines\n", maxDumpLines)
	}
	for _, o := range d.OtherReadings {
		fmt.Fprintf(&b, "also parses as %s: %s (retry with context: %q)\n", o.Context, o.Node, o.Context)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// dump answers ast_grep's dump option: no file is read.
func dump(a grepArgs) (*DumpOut, error) {
	if a.Dump != "pattern" && a.Dump != "code" {
		return nil, fmt.Errorf("unknown dump %q: want \"pattern\" (how the pattern is read) or \"code\" (the tree of the text as plain code)", a.Dump)
	}
	var lang *Language
	if a.Language != "" {
		var err error
		if lang, err = LanguageByName(a.Language); err != nil {
			return nil, err
		}
	} else if a.Path != "" {
		lang = LanguageForPath(a.Path)
	}
	if lang == nil {
		why := "no path was given"
		if a.Path != "" {
			why = fmt.Sprintf("the language of %s cannot be told from its extension", a.Path)
		}
		return nil, fmt.Errorf("dump needs a language and %s: pass language, e.g. \"go\" or \"python\"", why)
	}
	out := &DumpOut{Mode: a.Dump, Language: lang.ID}
	if a.Dump == "code" {
		if a.Context != "" || a.Selector != "" {
			return nil, fmt.Errorf(`dump "code" parses the text as a whole file: context and selector apply to dump "pattern"`)
		}
		if strings.TrimSpace(a.Pattern) == "" {
			return nil, fmt.Errorf("empty pattern: dump \"code\" shows the tree of the pattern text")
		}
		tree, errs, capped, err := DumpCode(lang, a.Pattern)
		if err != nil {
			return nil, err
		}
		out.Tree, out.SyntaxErrors, out.Capped = tree, errs, capped
		return out, nil
	}
	p, err := Compile(lang, a.Pattern, CompileOptions{Context: a.Context, Selector: a.Selector})
	if err != nil {
		return nil, err
	}
	r := readAs([]*Pattern{p})[0]
	out.ReadAs, out.Tree = &r, p.Dump()
	if a.Context == "" && a.Selector == "" {
		out.OtherReadings = readAs(p.OtherReadings())
	}
	return out, nil
}

// ReadAs says how the pattern was read for one language.
type ReadAs struct {
	Language string `json:"language" jsonschema_description:"language id"`
	Context  string `json:"context" jsonschema_description:"the ladder context that accepted the pattern"`
	Node     string `json:"node" jsonschema_description:"the node kind(s) the pattern is"`
}

// MatchOut is one match in ast_grep's result.
type MatchOut struct {
	Path     string      `json:"path" jsonschema_description:"file, relative to the workspace root"`
	Start    Position    `json:"start" jsonschema_description:"where the match starts"`
	End      Position    `json:"end" jsonschema_description:"where the match ends"`
	Text     string      `json:"text" jsonschema_description:"the first line of the match"`
	Captures []NamedText `json:"captures,omitempty" jsonschema_description:"what each metavariable captured"`
}

// GrepResult is ast_grep's result.
type GrepResult struct {
	ReadAs  []ReadAs   `json:"readAs" jsonschema_description:"how the pattern was read, per language searched"`
	Matches []MatchOut `json:"matches" jsonschema_description:"the matches shown, in path order"`
	Total   int        `json:"total" jsonschema_description:"all matches found (a lower bound when totalIsLowerBound)"`
	// TotalIsLowerBound says counting stopped at the bound.
	TotalIsLowerBound bool `json:"totalIsLowerBound,omitempty" jsonschema_description:"counting stopped at the bound: there are at least total matches, and files not yet searched were left out"`
	// OtherReadings, given when nothing matched, are other ways the
	// pattern parses.
	OtherReadings []ReadAs `json:"otherReadings,omitempty" jsonschema_description:"when nothing matched: other contexts in which the pattern parses, to retry with context"`
	Shown         int      `json:"shown" jsonschema_description:"matches listed (at most max_results)"`
	FilesSearched int      `json:"filesSearched" jsonschema_description:"files in a searched language"`
	FilesMatched  int      `json:"filesMatched" jsonschema_description:"files with at least one match"`
	Skipped       []string `json:"skipped,omitempty" jsonschema_description:"languages present but not searched, and why"`
	// NotSearched are the node_modules directories left out.
	NotSearched []string `json:"notSearched,omitempty" jsonschema_description:"what was not searched: node_modules directories under path (dependencies; those .gitignore leaves out are not listed; pass a path inside one to search it), then the files over max_file_bytes (see tooLarge)"`
	// TooLarge are files left out for their size.
	TooLarge []TooLargeFile `json:"tooLarge,omitempty" jsonschema_description:"files not searched for being over max_file_bytes (a config key)"`
	// Unparsed are files whose parse did not finish.
	Unparsed []UnparsedFile `json:"unparsed,omitempty" jsonschema_description:"files not searched because their grammar could not finish parsing them (it loops on some inputs)"`
	// NotText are files not searched for not being UTF-8 text.
	NotText []string `json:"notText,omitempty" jsonschema_description:"files not searched because they are not UTF-8 text (a Latin-1 comment, a NUL byte) though they hold the pattern's words; matches there may be missing"`
	// MaxFileBytes is the size limit applied.
	MaxFileBytes int64 `json:"maxFileBytes,omitempty" jsonschema_description:"the size limit: larger files are not searched"`
	// Dump answers the dump option (nothing is searched then).
	Dump *DumpOut `json:"dump,omitempty" jsonschema_description:"with dump: the tree asked for (nothing was searched)"`

	budget int // text budget in bytes (0: the default)
}

func readAs(ps []*Pattern) []ReadAs {
	out := make([]ReadAs, len(ps))
	for i, p := range ps {
		out[i] = ReadAs{Language: p.Lang.ID, Context: p.Context, Node: strings.TrimPrefix(p.ReadAs(), p.Context+": ")}
	}
	return out
}

func readAsLine(rs []ReadAs) string {
	if len(rs) == 0 {
		return "no file there has the extension of a built-in language (a file named by path is searched with the language given)"
	}
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%s %s: %s", r.Language, r.Context, r.Node))
	}
	return "read as " + strings.Join(parts, "; ")
}

// Text implements rpc.Texter. The count, the caps and every warning come
// first, since agent CLIs keep the head of a long result; the listing
// follows and stops at the output budget, saying how many it left out.
func (r GrepResult) Text() string {
	if r.Dump != nil {
		return r.Dump.Text()
	}
	var b strings.Builder
	b.WriteString(readAsLine(r.ReadAs) + "\n")
	switch {
	case r.Total == 0:
		fmt.Fprintf(&b, "0 matches in %s searched\n", plural(r.FilesSearched, "file"))
		for _, o := range r.OtherReadings {
			fmt.Fprintf(&b, "the %s pattern also parses as %s: %s; retry with context: %q\n", o.Language, o.Context, o.Node, o.Context)
		}
	case r.TotalIsLowerBound:
		fmt.Fprintf(&b, "%d shown of at least %d matches: counting stopped there (%s matched so far); make the pattern more specific or narrow path\n", r.Shown, r.Total, plural(r.FilesMatched, "file"))
	case r.Shown < r.Total:
		fmt.Fprintf(&b, "%d of %d matches shown (%s matched, %d searched); raise max_results or narrow path\n", r.Shown, r.Total, plural(r.FilesMatched, "file"), r.FilesSearched)
	default:
		fmt.Fprintf(&b, "%s in %s (%d searched)\n", plural(r.Total, "match"), plural(r.FilesMatched, "file"), r.FilesSearched)
	}
	for _, s := range r.Skipped {
		b.WriteString("skipped " + s + "\n")
	}
	// NotSearched lists the node_modules directories, then the files in
	// TooLarge.
	if n := len(r.NotSearched) - len(r.TooLarge); n > 0 {
		fmt.Fprintf(&b, "not searched: %s (dependencies): %s; pass a path inside one to search it\n",
			plural(n, "node_modules directory"), someOf(r.NotSearched[:n], n))
	}
	if n := len(r.TooLarge); n > 0 {
		var names []string
		for _, t := range r.TooLarge[:min(n, 3)] {
			names = append(names, fmt.Sprintf("%s (%d bytes)", t.Path, t.Size))
		}
		fmt.Fprintf(&b, "not searched: %s over max_file_bytes (%d): %s; raise max_file_bytes in the patterns section of the agent-tools config to search them, or use grep\n",
			plural(n, "file"), r.MaxFileBytes, someOf(names, n))
	}
	unparsedLine(&b, r.Unparsed, "not searched")
	notTextLine(&b, r.NotText, "not searched")
	lines := make([]string, len(r.Matches))
	for i, m := range r.Matches {
		lines[i] = matchLine(m)
	}
	listWithin(&b, lines, budgetOr(r.budget), func(left int) string {
		return fmt.Sprintf("… %s not listed here (text budget %d bytes): narrow path or make the pattern more specific to see them",
			plural(left, "more match"), budgetOr(r.budget))
	})
	return strings.TrimSuffix(b.String(), "\n")
}

// matchLine is one match of ast_grep's listing.
func matchLine(m MatchOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d:%d  %s", m.Path, m.Start.Line, m.Start.Column, m.Text)
	if len(m.Captures) > 0 {
		var cs []string
		for _, c := range m.Captures {
			cs = append(cs, "$"+c.Name+"="+clip(strings.Join(strings.Fields(c.Text), " "), 60))
		}
		b.WriteString("  ⟨" + strings.Join(cs, " ") + "⟩")
	}
	return b.String()
}

// someOf joins the first three of names, and says how many of n more
// there are.
func someOf(names []string, n int) string {
	s := strings.Join(names[:min(len(names), 3)], ", ")
	if n > 3 {
		s += fmt.Sprintf(", and %d more", n-3)
	}
	return s
}

// budgetOr is the text budget a result was given, or the default.
func budgetOr(n int) int {
	if n <= 0 {
		return rpc.DefaultOutputBudget
	}
	return n
}

// footerRoom is what listWithin keeps free for its last line.
const footerRoom = 240

// listWithin appends lines (each gets a newline) to b while the text stays
// within budget bytes, keeping room for the line footer(left) that it
// writes when some are left out.
// It reports whether it left some out.
func listWithin(b *strings.Builder, lines []string, budget int, footer func(left int) string) bool {
	for i, l := range lines {
		room := budget - b.Len() - len(l) - 1
		if i < len(lines)-1 {
			room -= footerRoom
		}
		if room < 0 {
			b.WriteString(footer(len(lines)-i) + "\n")
			return true
		}
		b.WriteString(l + "\n")
	}
	return false
}

func (e *engine) grepTool() *rpc.Tool {
	return rpc.NewTool(rpc.Spec{
		Name:  "ast_grep",
		Title: "Structural search",
		Tier:  rpc.TierRead,
		Description: "Find code by syntax-tree shape, not text. $NAME matches one node, $$$NAME a run of nodes (maybe none), $_ and $$$ match without capturing; a name used twice must match the same code." +
			` Example: {"pattern": "fmt.Errorf($$$ARGS)", "language": "go", "path": "internal"}.` +
			` A rule instead: {"rule": {"pattern": "$X.Close()", "not": {"inside": {"kind": "defer_statement", "stopBy": "end"}}}}.` +
			` No match? "dump": "pattern" shows how the pattern was read`,
	}, e.grep)
}

// grep answers ast_grep.
func (e *engine) grep(ctx context.Context, a grepArgs) (GrepResult, error) {
	if a.Dump != "" {
		return dumpResult(a)
	}
	max := a.MaxResults
	if max <= 0 {
		max = 50
	}
	res, err := e.find(ctx, query{a.Pattern, a.Rule, a.Constraints, a.Utils, a.Path, a.Language, a.Context, a.Selector}, false, countBound(max), max)
	if err != nil {
		return GrepResult{}, err
	}
	out := GrepResult{ReadAs: readings(res), Matches: []MatchOut{}, Total: res.Total, TotalIsLowerBound: res.Partial,
		FilesSearched: res.Searched, FilesMatched: len(res.Files), Skipped: res.Skipped, NotSearched: res.Deps,
		TooLarge: res.TooLarge, Unparsed: res.Unparsed, NotText: res.NotText, budget: rpc.OutputBudget(ctx)}
	if len(res.TooLarge) > 0 {
		out.MaxFileBytes = res.MaxFileBytes
		out.NotSearched = slices.Clone(res.Deps)
		for _, t := range res.TooLarge {
			out.NotSearched = append(out.NotSearched, t.Path)
		}
	}
	if res.Total == 0 && a.Context == "" && a.Selector == "" {
		for _, p := range res.Patterns {
			out.OtherReadings = append(out.OtherReadings, readAs(p.OtherReadings())...)
		}
	}
	out.Matches = shownMatches(res.Files, max)
	out.Shown = len(out.Matches)
	return out, nil
}

// dumpResult answers ast_grep's dump option.
func dumpResult(a grepArgs) (GrepResult, error) {
	if present(a.Rule) {
		return GrepResult{}, fmt.Errorf("dump shows how one pattern is read: pass it as pattern (with language), not inside rule")
	}
	d, err := dump(a)
	if err != nil {
		return GrepResult{}, err
	}
	// The search fields stay well-typed for a client that checks the
	// output schema: readAs is the pattern's reading.
	out := GrepResult{Dump: d, ReadAs: []ReadAs{}, Matches: []MatchOut{}}
	if d.ReadAs != nil {
		out.ReadAs = []ReadAs{*d.ReadAs}
	}
	return out, nil
}

// shownMatches are the first max matches, in file order.
func shownMatches(files []FileMatches, max int) []MatchOut {
	shown := []MatchOut{}
	for _, f := range files {
		for _, m := range f.Matches {
			if len(shown) == max {
				return shown
			}
			shown = append(shown, MatchOut{Path: f.Path, Start: m.From, End: m.To, Text: m.Text, Captures: m.Captured})
		}
	}
	return shown
}

type editArgs struct {
	Pattern     string          `json:"pattern,omitempty" jsonschema_description:"as for ast_grep; or give rule"`
	Rule        json.RawMessage `json:"rule,omitempty" jsonschema:"type=object" jsonschema_description:"as for ast_grep"`
	Constraints json.RawMessage `json:"constraints,omitempty" jsonschema:"type=object" jsonschema_description:"with rule, as for ast_grep"`
	Utils       json.RawMessage `json:"utils,omitempty" jsonschema:"type=object" jsonschema_description:"with rule, as for ast_grep"`
	Rewrite     string          `json:"rewrite" jsonschema_description:"template; $NAME and $$$NAME are the captures, e.g. errors.Wrap($ERR, $MSG)"`
	Path        string          `json:"path,omitempty" jsonschema_description:"file or directory under the root (default: all)"`
	Language    string          `json:"language,omitempty" jsonschema_description:"language id; inferred from a file path"`
	Context     string          `json:"context,omitempty" jsonschema:"enum=statement,enum=expression,enum=member,enum=declaration,enum=type,enum=annotation,enum=selector,enum=case,enum=condition,enum=pattern" jsonschema_description:"force how the pattern is read"`
	Selector    string          `json:"selector,omitempty" jsonschema_description:"node kind inside the fragment to match"`
	// AllowSyntaxErrors stages a rewrite that breaks the syntax.
	AllowSyntaxErrors bool `json:"allow_syntax_errors,omitempty" jsonschema_description:"stage even a rewrite that adds syntax errors (they are listed)"`
}

// EditFile is one file of a staged edit.
type EditFile struct {
	Path         string `json:"path" jsonschema_description:"file, relative to the workspace root"`
	Replacements int    `json:"replacements" jsonschema_description:"replacements in this file"`
}

// EditResult is ast_edit's result.
type EditResult struct {
	EditID       string     `json:"edit_id" jsonschema_description:"the id to pass to resolve"`
	ReadAs       []ReadAs   `json:"readAs" jsonschema_description:"how the pattern was read, per language"`
	Replacements int        `json:"replacements" jsonschema_description:"replacements staged"`
	Matches      int        `json:"matches" jsonschema_description:"matches found (nested ones inside a replacement are not rewritten)"`
	Files        []EditFile `json:"files" jsonschema_description:"files the edit changes"`
	Diff         string     `json:"diff" jsonschema_description:"unified diff preview"`
	DiffCapped   bool       `json:"diffCapped,omitempty" jsonschema_description:"the preview was cut"`
	// SyntaxErrors are staged only with allow_syntax_errors.
	SyntaxErrors []SyntaxError `json:"syntaxErrors,omitempty" jsonschema_description:"syntax errors the rewrite introduces, the first after each replacement that breaks the syntax (staged because allow_syntax_errors was true)"`
	// DroppedComments are comments the rewrite removes.
	DroppedComments []DroppedComment `json:"droppedComments,omitempty" jsonschema_description:"comments inside replaced code that no metavariable of the rewrite carries, so the edit deletes them"`
	// CommentsUnread are files whose comments could not be read.
	CommentsUnread []string `json:"commentsUnread,omitempty" jsonschema_description:"files whose comments could not be read (their second parse did not finish): the edit may delete comments there that droppedComments does not list"`
	// JoinsUnchecked are files whose replacements were not read with
	// the code around them.
	JoinsUnchecked []string `json:"joinsUnchecked,omitempty" jsonschema_description:"files where the rewrite parses but could not be compared with the original (its second parse did not finish): a replacement the parser reads together with the code around it, which changes the code's meaning, would not be refused there"`
	// Semicolons are where a ';' was written before a replacement.
	Semicolons []string `json:"semicolonsAdded,omitempty" jsonschema_description:"path:line of each replacement that got a leading ';' because it starts with a character like '(' after a statement with no ';', which JavaScript would otherwise read as one statement with it"`
	// TooLarge are files not searched for their size.
	TooLarge []TooLargeFile `json:"tooLarge,omitempty" jsonschema_description:"files not searched (so not rewritten) for being over max_file_bytes"`
	// Unparsed are files whose parse did not finish.
	Unparsed []UnparsedFile `json:"unparsed,omitempty" jsonschema_description:"files not searched (so not rewritten) because their grammar could not finish parsing them"`
	// NotText are files not searched for not being UTF-8 text.
	NotText []string `json:"notText,omitempty" jsonschema_description:"files not searched (so not rewritten) because they are not UTF-8 text though they hold the pattern's words"`

	budget int // text budget in bytes (0: the default)
}

const maxDiffLines = 300

// Text implements rpc.Texter: the summary, the next step and every
// warning, then the diff, which stops at the output budget.
func (r EditResult) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "(proposed) %s in %s; nothing is written yet: call resolve with edit_id %q and action \"accept\" (or \"discard\")\n", plural(r.Replacements, "replacement"), plural(len(r.Files), "file"), r.EditID)
	b.WriteString(readAsLine(r.ReadAs) + "\n")
	if r.Matches > r.Replacements {
		fmt.Fprintf(&b, "%d matches nested in replaced ones were left alone: run ast_edit again after accepting\n", r.Matches-r.Replacements)
	}
	if n := len(r.TooLarge); n > 0 {
		var names []string
		for _, t := range r.TooLarge[:min(n, 3)] {
			names = append(names, t.Path)
		}
		fmt.Fprintf(&b, "not searched, so not rewritten: %s over max_file_bytes: %s; edit them another way\n", plural(n, "file"), someOf(names, n))
	}
	unparsedLine(&b, r.Unparsed, "not searched, so not rewritten")
	notTextLine(&b, r.NotText, "not searched, so not rewritten")
	if len(r.SyntaxErrors) > 0 {
		fmt.Fprintf(&b, "warning: the rewrite %s after %s (staged because allow_syntax_errors is true):\n", syntaxHarm(r.SyntaxErrors), plural(len(r.SyntaxErrors), "replacement"))
		for i, se := range r.SyntaxErrors {
			if i == maxSyntaxErrorsListed {
				fmt.Fprintf(&b, "… and %d more\n", len(r.SyntaxErrors)-i)
				break
			}
			b.WriteString(se.String() + "\n")
		}
	}
	if n := len(r.Semicolons); n > 0 {
		what := "1 replacement: it starts"
		if n > 1 {
			what = fmt.Sprintf("%d replacements: each starts", n)
		}
		what += " with a character that would continue the statement before it, which has no ';'"
		fmt.Fprintf(&b, "note: a ';' was written before %s (JavaScript would read the two as one): %s\n", what, someOf(r.Semicolons, n))
	}
	if n := len(r.DroppedComments); n > 0 {
		var where []string
		for _, d := range r.DroppedComments[:min(n, 3)] {
			where = append(where, fmt.Sprintf("%s:%d %s", d.Path, d.Line, d.Text))
		}
		fmt.Fprintf(&b, "note: the rewrite deletes %s that no metavariable carries (the pattern passes over comments): %s; if they should stay, write them into the rewrite or put them back after accepting\n", plural(n, "comment"), someOf(where, n))
	}
	if n := len(r.CommentsUnread); n > 0 {
		fmt.Fprintf(&b, "warning: the comments of %s could not be read (the parse did not finish): the rewrite may delete comments there that this answer does not list; check their diff before accepting: %s\n", plural(n, "file"), someOf(r.CommentsUnread, n))
	}
	if n := len(r.JoinsUnchecked); n > 0 {
		fmt.Fprintf(&b, "warning: the rewrite of %s parses, but could not be compared with the original (its parse did not finish): a replacement the parser reads together with the code around it (a call where there was none, an operator that binds otherwise) would not be refused there; check their diff before accepting: %s\n", plural(n, "file"), someOf(r.JoinsUnchecked, n))
	}
	if r.DiffCapped {
		fmt.Fprintf(&b, "the diff below is capped at %d lines: the edit changes every file counted above\n", maxDiffLines)
	}
	lines := strings.Split(strings.TrimSuffix(r.Diff, "\n"), "\n")
	if r.Diff == "" {
		lines = nil
	}
	cut := listWithin(&b, lines, budgetOr(r.budget), func(left int) string {
		return fmt.Sprintf("… diff stops here (text budget %d bytes): %d more lines not shown; run ast_edit with a narrower path to review a part, or discard", budgetOr(r.budget), left)
	})
	if r.DiffCapped && !cut {
		fmt.Fprintf(&b, "… diff preview capped at %d lines; run ast_edit with a narrower path to review the rest\n", maxDiffLines)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (e *engine) editTool() *rpc.Tool {
	return rpc.NewTool(rpc.Spec{
		Name:           "ast_edit",
		Title:          "Structural rewrite (staged)",
		Tier:           rpc.TierWrite,
		NonDestructive: true,
		Description: "Rewrite every match of a pattern (or rule, as for ast_grep) with a template, staged: the answer is a diff and an edit_id; nothing is written until resolve accepts it." +
			" Of nested matches the outermost is rewritten; a rewrite that breaks the syntax is refused." +
			` Example: {"pattern": "errors.New(fmt.Sprintf($$$A))", "rewrite": "fmt.Errorf($$$A)", "language": "go"}`,
	}, e.edit)
}

// edit answers ast_edit.
func (e *engine) edit(ctx context.Context, a editArgs) (EditResult, error) {
	res, err := e.find(ctx, query{a.Pattern, a.Rule, a.Constraints, a.Utils, a.Path, a.Language, a.Context, a.Selector}, true, 0, 0)
	if err != nil {
		return EditResult{}, err
	}
	// A template naming a metavariable the pattern lacks is wrong
	// whether or not anything matched.
	if err := CheckTemplate(res.Patterns, a.Rewrite); err != nil {
		return EditResult{}, err
	}
	if err := CheckRuleTemplate(res.Rules, a.Rewrite); err != nil {
		return EditResult{}, err
	}
	if res.Total == 0 {
		return EditResult{}, noMatchToStage(res)
	}
	st, err := e.stager.Stage(res, a.Rewrite, a.AllowSyntaxErrors)
	if err != nil {
		return EditResult{}, err
	}
	out := EditResult{EditID: st.ID, ReadAs: readings(res), Replacements: st.Replacements, Matches: res.Total, SyntaxErrors: st.SyntaxErrors, DroppedComments: st.Dropped,
		CommentsUnread: st.CommentsUnread, JoinsUnchecked: st.JoinsUnchecked, Semicolons: st.Semicolons,
		TooLarge: res.TooLarge, Unparsed: res.Unparsed, NotText: res.NotText, budget: rpc.OutputBudget(ctx)}
	files := st.sortedFiles()
	for _, f := range files {
		out.Files = append(out.Files, EditFile{Path: f.Path, Replacements: f.Replacements})
	}
	out.Diff, out.DiffCapped = cappedDiff(files)
	return out, nil
}

// noMatchToStage says why an ast_edit has nothing to stage: what was
// searched, how the pattern was read, and the files left out.
func noMatchToStage(res *SearchResult) error {
	what := "the pattern"
	if len(res.Rules) > 0 {
		what = "the rule"
	}
	big := ""
	if n := len(res.TooLarge); n > 0 {
		big = fmt.Sprintf("; %s over max_file_bytes (%s) not searched", plural(n, "file"), res.TooLarge[0].Path)
	}
	if n := len(res.Unparsed); n > 0 {
		big += fmt.Sprintf("; %s not searched, its grammar could not finish parsing it (%s)", plural(n, "file"), res.Unparsed[0].Path)
	}
	if n := len(res.NotText); n > 0 {
		big += fmt.Sprintf("; %s not searched, not UTF-8 text (%s)", plural(n, "file"), res.NotText[0])
	}
	return fmt.Errorf("no match for %s in %s searched (%s)%s: nothing to stage", what, plural(res.Searched, "file"), readAsLine(readings(res)), big)
}

// cappedDiff joins the files' diffs, up to maxDiffLines lines.
func cappedDiff(files []StagedFile) (string, bool) {
	var diff strings.Builder
	lines := 0
	for _, f := range files {
		for _, l := range strings.SplitAfter(f.Diff, "\n") {
			if l == "" {
				continue
			}
			if lines == maxDiffLines {
				return diff.String(), true
			}
			diff.WriteString(l)
			lines++
		}
	}
	return diff.String(), false
}

type resolveArgs struct {
	EditID string `json:"edit_id" jsonschema_description:"the edit_id ast_edit returned"`
	Action string `json:"action" jsonschema:"enum=accept,enum=discard" jsonschema_description:"accept or discard"`
}

// ResolveResult is resolve's result.
type ResolveResult struct {
	EditID       string   `json:"edit_id" jsonschema_description:"the edit"`
	Action       string   `json:"action" jsonschema_description:"accept or discard"`
	Files        []string `json:"files" jsonschema_description:"files written (accept)"`
	Replacements int      `json:"replacements" jsonschema_description:"replacements in the edit"`
	// AfterWrite holds what other capabilities found in the written
	// files: the language servers' new diagnostics.
	AfterWrite []rpc.WriteReport `json:"after_write,omitempty" jsonschema_description:"what other capabilities found in the written files after accept, e.g. the language servers' new diagnostics"`

	budget int // text budget in bytes (0: the default)
}

// Text implements rpc.Texter: the summary and what the language servers
// found come first, then the files written, listed up to the budget.
func (r ResolveResult) Text() string {
	if r.Action == "discard" {
		return fmt.Sprintf("discarded %s: nothing written", r.EditID)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "accepted %s: wrote %s (%s)\n", r.EditID, plural(len(r.Files), "file"), plural(r.Replacements, "replacement"))
	for _, w := range r.AfterWrite {
		b.WriteString(strings.TrimSuffix(w.Text, "\n") + "\n")
	}
	if len(r.AfterWrite) == 0 {
		b.WriteString("not checked: no language server reported on the written files (lsp is not attached, or has no server for them); build, or run lsp diagnostics, to check them\n")
	}
	listWithin(&b, r.Files, budgetOr(r.budget), func(left int) string {
		return fmt.Sprintf("… and %s written, not listed (text budget)", plural(left, "more file"))
	})
	return strings.TrimSuffix(b.String(), "\n")
}

func (e *engine) resolveTool() *rpc.Tool {
	return rpc.NewTool(rpc.Spec{
		Name:  "resolve",
		Title: "Accept or discard a staged edit",
		Tier:  rpc.TierWrite,
		Description: "Accept or discard an edit staged by ast_edit. Accept writes all its files, or none if any changed since staging, and lists the new errors language servers report." +
			` Example: {"edit_id": "edit_1", "action": "accept"}`,
	}, func(ctx context.Context, a resolveArgs) (ResolveResult, error) {
		st, err := e.stager.Resolve(a.EditID, a.Action)
		if err != nil {
			return ResolveResult{}, err
		}
		out := ResolveResult{EditID: st.ID, Action: a.Action, Files: []string{}, Replacements: st.Replacements, budget: rpc.OutputBudget(ctx)}
		var written []string
		for _, f := range st.sortedFiles() {
			out.Files = append(out.Files, f.Path)
			written = append(written, f.Path)
		}
		if a.Action == "accept" {
			// Every writer reports its files the same way, so the
			// language servers check them as after didWrite or lsp_rename.
			out.AfterWrite = rpc.FilesWritten(ctx, e.rootOf(ctx), written)
		}
		return out, nil
	})
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "ch") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	if strings.HasSuffix(noun, "ory") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// notTextLine names the files not searched for not being UTF-8 text.
func notTextLine(b *strings.Builder, paths []string, what string) {
	if len(paths) == 0 {
		return
	}
	fmt.Fprintf(b, "%s: %s not UTF-8 text (a Latin-1 comment, a NUL byte), which tree-sitter does not read: %s; matches there may be missing, use grep for them or convert the file (iconv -f latin1 -t utf-8)\n",
		what, plural(len(paths), "file"), someOf(paths[:min(len(paths), 3)], len(paths)))
}

// unparsedLine names the files whose parse did not finish, with the first
// one's reason: they were not searched, so the answer may miss matches.
func unparsedLine(b *strings.Builder, us []UnparsedFile, what string) {
	if len(us) == 0 {
		return
	}
	names := make([]string, 0, 3)
	for _, u := range us[:min(len(us), 3)] {
		names = append(names, u.Path)
	}
	fmt.Fprintf(b, "%s: %s the grammar could not finish parsing (%s): %s; matches there may be missing, use grep for them\n",
		what, plural(len(us), "file"), us[0].Why, someOf(names, len(us)))
}

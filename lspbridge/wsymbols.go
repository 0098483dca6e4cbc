// This file defines workspace symbols (the symbols action with a query):
// which servers are asked (starting the ones the root's markers name when
// none runs yet), and how their matches are ranked for a model: the
// workspace's own first, best names first, libraries only on request or
// when the workspace has none.

package lspbridge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/workspace"
)

// serverSymbolLimits are the most matches a server returns for one
// workspace/symbol request, where it has a fixed cap: an answer of exactly
// that many was cut by the server, not by the query.
var serverSymbolLimits = map[string]int{
	"gopls":  100, // maxSymbols in gopls/internal/golang/workspace_symbol.go (v0.23.0)
	"clangd": 100, // --limit-results, default 100
}

// workspaceSymbols asks the file's server (or, without a file, every
// running server of the root; when none runs, the servers the root's
// markers name) for symbols matching the query, and ranks the matches.
func (s *Supervisor) workspaceSymbols(ctx context.Context, req Request) (*Result, error) {
	unready := map[*server]bool{} // opened a file for this call and did not see the server ready
	srvs, notes, err := s.symbolServers(ctx, req, unready)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(srvs, func(a, b *server) int { return cmp.Compare(a.cfg.Name, b.cfg.Name) })
	q := &symbolSearch{req: req, runRoot: canonical(req.Root), notes: notes}
	var unsearched string
	if req.File == "" {
		unsearched = s.unsearched(q.runRoot, srvs)
	}
	for _, srv := range srvs {
		if !supported(srv.caps.WorkspaceSymbolProvider) {
			q.notes = append(q.notes, srv.cfg.Name+" does not support workspace symbols")
			continue
		}
		if err := s.searchServer(ctx, q, srv, unready[srv]); err != nil {
			return nil, err
		}
	}
	if len(q.names) == 0 {
		return nil, errors.New("no running server supports workspace symbols" + noteSuffix(q.notes))
	}
	return q.result(unsearched), nil
}

// symbolServers returns the servers a workspace search asks: the one for
// req.File (synced, and unready noted), else those running for the root
// (refreshed), else those startForQuery starts.
func (s *Supervisor) symbolServers(ctx context.Context, req Request, unready map[*server]bool) ([]*server, []string, error) {
	if req.File != "" {
		path, err := existingFile(req.Root, req.File)
		if err != nil {
			return nil, nil, err
		}
		srv, err := s.serverFor(ctx, req.Root, path)
		if err != nil {
			return nil, nil, err
		}
		if _, err := srv.sync(ctx, path); err != nil {
			return nil, nil, err
		}
		unready[srv] = !srv.waitReady(ctx, path, s.opts.ReadyTimeout)
		return []*server{srv}, nil, nil
	}
	srvs := s.running(req.Root)
	for _, srv := range srvs {
		if err := srv.refresh(ctx); err != nil {
			return nil, nil, err
		}
	}
	if len(srvs) == 0 {
		return s.startForQuery(ctx, req, unready)
	}
	return srvs, nil, nil
}

// symbolSearch is one workspace search across servers: the matches and
// what the answer must say about them.
type symbolSearch struct {
	req     Request
	runRoot string
	all     []rankedSym
	names   []string // the servers asked
	pending []string // why a server's answer may be incomplete
	limited []string // servers that stopped at their own cap
	notes   []string
}

// searchServer asks srv for the query, once it is indexed, and adds its
// matches to q; unready says srv was not seen ready after its file was
// opened.
func (s *Supervisor) searchServer(ctx context.Context, q *symbolSearch, srv *server, unready bool) error {
	req := q.req
	if p := srv.waitIndexed(ctx, s.opts.IndexTimeout, req.Progress); p != "" || srv.failure() != "" {
		q.pending = append(q.pending, incompleteNote(srv, p, "workspace symbols"))
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	q.names = append(q.names, srv.cfg.Name)
	var raw json.RawMessage
	if err := srv.call(ctx, "workspace/symbol", WorkspaceSymbolParams{Query: req.Query}, &raw); err != nil {
		return err
	}
	var infos []SymbolInformation
	if err := json.Unmarshal(raw, &infos); err != nil && strings.TrimSpace(string(raw)) != "null" {
		return fmt.Errorf("workspace/symbol: %s answered something that is not a symbol list: %w", srv.cfg.Name, err)
	}
	if len(infos) == 0 && unready {
		q.pending = append(q.pending, fmt.Sprintf("%s had not finished loading after %s: no match may only mean not loaded yet; ask again in a few seconds", srv.cfg.Name, s.opts.ReadyTimeout))
	}
	if n := serverSymbolLimits[srv.cfg.Name]; n > 0 && len(infos) >= n {
		q.limited = append(q.limited, fmt.Sprintf("%s returns at most %d matches and stopped there: refine the query", srv.cfg.Name, n))
	}
	lc := &lineCache{srv: srv, files: map[string][]string{}}
	for _, in := range infos {
		p := uriPath(in.Location.URI)
		s.remember(q.runRoot, srv, p)
		line, col := in.Location.Range.Start.Line, in.Location.Range.Start.Character+1
		if _, err := os.Stat(p); err == nil {
			line, col = nameStart(lc, srv.enc, p, in.Location.Range, in.Name)
		}
		q.all = append(q.all, rankedSym{
			Sym: Sym{Name: in.Name, Kind: symbolKind(in.Kind), Path: displayPath(req.Root, p),
				Line: line + 1, Col: col, Container: in.ContainerName},
			library: !workspace.Within(q.runRoot, p), match: matchRank(in.Name, req.Query)})
	}
	return nil
}

// result ranks the matches and says what is hidden and what may be
// missing (unsearched: the projects no server covered).
func (q *symbolSearch) result(unsearched string) *Result {
	shown, inRoot, libs := rankSymbols(q.all, q.req.IncludeLibraries)
	what := fmt.Sprintf("workspace symbols matching %q", q.req.Query)
	switch {
	case libs > 0:
		what += " under the root"
	case len(shown) > 0 && inRoot == 0:
		what = fmt.Sprintf("symbols matching %q, all outside the root (none under it)", q.req.Query)
	}
	r := symbolResult(strings.Join(q.names, ","), shown, workspaceSymbolsCap, what)
	if libs > 0 {
		r.Hidden = libs
		r.Summary += fmt.Sprintf("; %d more outside the root (standard library, dependencies) hidden: pass include_libraries: true to list them", libs)
	}
	var incomplete []string
	incomplete = append(incomplete, q.limited...)
	incomplete = append(incomplete, q.pending...)
	if unsearched != "" {
		incomplete = append(incomplete, unsearched)
	}
	if len(incomplete) > 0 {
		r.Incomplete = strings.Join(incomplete, "; ")
		r.Summary += "; " + r.Incomplete
	}
	if len(q.notes) > 0 {
		r.Summary += "; " + strings.Join(q.notes, "; ")
	}
	return r
}

// unsearchedShown caps the projects an unsearched note names.
const unsearchedShown = 5

// unsearched says which projects under runRoot a workspace search did not
// reach: a root marker (a second go.mod of a monorepo, a pyproject.toml
// next to a go.mod) whose server is not among srvs, so the answer may
// miss their symbols. "" when every one was searched. Servers whose
// binary is missing are left to status.
func (s *Supervisor) unsearched(runRoot string, srvs []*server) string {
	var cfgs []*ServerConfig
	for i := range s.opts.Servers {
		cfg := &s.opts.Servers[i]
		if cfg.Disabled {
			continue
		}
		if _, err := proc.LookPath(cfg.Command[0]); err == nil {
			cfgs = append(cfgs, cfg)
		}
	}
	dirs := markerDirsOf(cfgs, runRoot)
	var missed []string
	for _, cfg := range cfgs {
		for _, dir := range dirs[cfg] {
			if rel, err := filepath.Rel(runRoot, dir); err == nil && slices.Contains(strings.Split(filepath.ToSlash(rel), "/"), "testdata") {
				continue // test fixtures, not projects (go build ignores them too)
			}
			if !slices.ContainsFunc(srvs, func(srv *server) bool { return srv.cfg.Name == cfg.Name && srv.root == dir }) {
				missed = append(missed, fmt.Sprintf("%s for %s", cfg.Name, displayRoot(runRoot, dir)))
			}
		}
	}
	if len(missed) == 0 {
		return ""
	}
	more := ""
	if len(missed) > unsearchedShown {
		more = fmt.Sprintf(" and %d more", len(missed)-unsearchedShown)
		missed = missed[:unsearchedShown]
	}
	return fmt.Sprintf("not searched: %s%s (no server runs there yet): pass file (a file of that project) to search it", strings.Join(missed, ", "), more)
}

// nameSearchLines bounds how far into a declaration nameStart looks for
// its name.
const nameSearchLines = 40

// nameStart returns where a workspace symbol's name starts: its 0-based
// line and 1-based column. typescript-language-server's location is the
// whole declaration, modifiers and decorators included (`@Component({…})`
// lines above `export class AppThing`), where the other servers give the
// name itself; a line and column that do not hold the name would send the
// next call (line + symbol) to the wrong line. The name's last segment
// (gopls says Logger.Write) is looked for as a whole word outside quotes
// from the range's start, within the range; when it is not there, the
// range's start is kept.
func nameStart(lc *lineCache, enc encoding, path string, rng Range, name string) (int, int) {
	start := rng.Start
	first := lc.line(path, start.Line)
	col := enc.column(first, start.Character)
	_, seg := lastSegment(name)
	if seg == "" {
		return start.Line, col
	}
	last := min(rng.End.Line, start.Line+nameSearchLines)
	for n := start.Line; n <= last; n++ {
		text, from := lc.line(path, n), 0
		if n == start.Line {
			from = enc.byteOffset(text, start.Character)
			if strings.HasPrefix(text[from:], seg) {
				return start.Line, col
			}
		}
		for _, i := range indexAll(text[from:], seg) {
			at := from + i
			if boundary(text, at, at+len(seg)) && !quoted(text, at) {
				return n, utf8.RuneCountInString(text[:at]) + 1
			}
		}
	}
	return start.Line, col
}

func noteSuffix(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, "; ") + ")"
}

// rankedSym is a workspace symbol with what ranks it.
type rankedSym struct {
	Sym
	library bool // outside the run's root
	match   int  // matchRank: 0 is best
}

// matchRank grades how name answers query: 0 exact, 1 exact but for
// case, 2 prefix, 3 substring (of the last segment of a qualified name
// such as "ObjectCodec.ReadObject", case-insensitive), 4 substring of the
// qualified name, 5 a fuzzy match only (what servers add: "Codec" finds
// "unicode.Cc").
func matchRank(name, query string) int {
	base := name
	if i := strings.LastIndexAny(base, ".:"); i >= 0 && i < len(base)-1 {
		base = base[i+1:]
	}
	lb, lq := strings.ToLower(base), strings.ToLower(query)
	switch {
	case base == query:
		return 0
	case lb == lq:
		return 1
	case strings.HasPrefix(lb, lq):
		return 2
	case strings.Contains(lb, lq):
		return 3
	case strings.Contains(strings.ToLower(name), lq):
		return 4
	}
	return 5
}

// rankSymbols orders matches: under the root before outside it, then by
// matchRank, the server's order otherwise. Matches outside the root are
// dropped (and counted) unless includeLibraries or nothing is under the
// root.
func rankSymbols(all []rankedSym, includeLibraries bool) (shown []Sym, inRoot, hiddenLibs int) {
	slices.SortStableFunc(all, func(a, b rankedSym) int {
		return cmp.Or(compareBool(a.library, b.library), cmp.Compare(a.match, b.match))
	})
	for _, r := range all {
		if !r.library {
			inRoot++
		}
	}
	keep := all
	if !includeLibraries && inRoot > 0 {
		keep, hiddenLibs = all[:inRoot], len(all)-inRoot
	}
	shown = make([]Sym, len(keep))
	for i, r := range keep {
		shown[i] = r.Sym
	}
	return shown, inRoot, hiddenLibs
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// startForQuery starts the servers the root's markers name, for a
// workspace search before any file was opened: those with a marker in the
// root itself, else each with its marker nearest the root. Each opens one
// of its files (typescript-language-server has no project, and clangd no
// index, before a file is open). It returns the started servers and notes
// saying which were started and which could not be; unready gets the
// servers not seen ready within ReadyTimeout.
func (s *Supervisor) startForQuery(ctx context.Context, req Request, unready map[*server]bool) ([]*server, []string, error) {
	runRoot := canonical(req.Root)
	cands, err := s.queryCandidates(runRoot)
	if err != nil {
		return nil, nil, err
	}
	srvs := make([]*server, len(cands))
	errs := make([]error, len(cands))
	ready := make([]bool, len(cands))
	var wg sync.WaitGroup
	for i, c := range cands {
		wg.Go(func() { srvs[i], ready[i], errs[i] = s.startCandidate(ctx, c, runRoot) })
	}
	wg.Wait()
	var started, failed []string
	var out []*server
	for i, c := range cands {
		where := c.marker
		if c.dir != runRoot {
			where = displayPath(runRoot, filepath.Join(c.dir, c.marker))
		}
		if srvs[i] != nil {
			out = append(out, srvs[i])
			unready[srvs[i]] = !ready[i]
			started = append(started, fmt.Sprintf("%s (for %s)", c.cfg.Name, where))
		} else {
			failed = append(failed, fmt.Sprintf("%s (for %s) did not start: %v", c.cfg.Name, where, errs[i]))
		}
	}
	if len(out) == 0 {
		return nil, nil, errors.New("no language server could be started for this root: " + strings.Join(failed, "; "))
	}
	notes := []string{"started " + strings.Join(started, ", ") + " for this search"}
	return out, append(notes, failed...), nil
}

// startCand is a server a search may start: its config, the directory
// it would serve and the marker found there.
type startCand struct {
	cfg    *ServerConfig
	dir    string
	marker string
}

// queryCandidates returns the servers whose markers are at runRoot, else
// for each server the shallowest directory under it with its marker; an
// error, naming the markers, when there are none.
func (s *Supervisor) queryCandidates(runRoot string) ([]startCand, error) {
	var atRoot, nested []startCand
	var all []string
	for i := range s.opts.Servers {
		cfg := &s.opts.Servers[i]
		if cfg.Disabled {
			continue
		}
		all = append(all, cfg.allMarkers()...)
		if m := markerIn(cfg, runRoot); m != "" {
			atRoot = append(atRoot, startCand{cfg, runRoot, m})
		}
	}
	if len(atRoot) > 0 {
		return atRoot, nil
	}
	for i := range s.opts.Servers {
		cfg := &s.opts.Servers[i]
		if cfg.Disabled {
			continue
		}
		dirs := markerDirs(cfg, runRoot)
		if len(dirs) == 0 {
			continue
		}
		d := slices.MinFunc(dirs, func(a, b string) int {
			return cmp.Or(cmp.Compare(strings.Count(a, string(filepath.Separator)), strings.Count(b, string(filepath.Separator))), cmp.Compare(a, b))
		})
		nested = append(nested, startCand{cfg, d, markerIn(cfg, d)})
	}
	if len(nested) == 0 {
		slices.Sort(all)
		return nil, fmt.Errorf("no language server runs for this root, and no root marker (%s) is under it to start one by: pass 'file' (a file of the project)", strings.Join(slices.Compact(all), ", "))
	}
	return nested, nil
}

// startCandidate starts c's server and opens a file of its project so
// that it loads; it reports whether the server was seen ready.
func (s *Supervisor) startCandidate(ctx context.Context, c startCand, runRoot string) (*server, bool, error) {
	srv, err := s.get(ctx, c.cfg, c.dir)
	if err != nil {
		return nil, false, err
	}
	file := projectFile(c.cfg, c.dir)
	if file == "" {
		return nil, false, fmt.Errorf("no %s file under %s to open", c.cfg.Language, displayRoot(runRoot, c.dir))
	}
	if _, err := srv.sync(ctx, file); err != nil {
		return nil, false, err
	}
	return srv, srv.waitReady(ctx, file, s.opts.ReadyTimeout), nil
}

// projectFile picks the file a server is shown first so that it loads
// the project: the first file with the extension most common among the
// first projectSample files cfg handles under dir (rxjs's src/ starts
// with Rx.global.js, which typescript-language-server would put in a
// project of its own, without the TypeScript sources).
func projectFile(cfg *ServerConfig, dir string) string {
	files := sourceFiles(cfg, dir, projectSample)
	count := map[string]int{}
	best := ""
	for _, f := range files {
		e := strings.ToLower(filepath.Ext(f))
		count[e]++
		if best == "" || count[e] > count[best] {
			best = e
		}
	}
	for _, f := range files {
		if strings.ToLower(filepath.Ext(f)) == best {
			return f
		}
	}
	return ""
}

const projectSample = 200

// markerIn returns the first of cfg's markers present in dir, or "".
func markerIn(cfg *ServerConfig, dir string) string {
	for _, m := range cfg.allMarkers() {
		if exists(filepath.Join(dir, m)) {
			return m
		}
	}
	return ""
}

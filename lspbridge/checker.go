// This file defines `diagnostics "*"`: each project's own checker (go vet,
// pyright, tsc, cargo check, dart analyze) run in its root, its output
// parsed into diagnostics; servers without a checker (clangd) get every
// source file synced through them instead.

package lspbridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/workspace"
)

const (
	projectDiagnosticsCap = 200
	syncedFilesCap        = 100
	checkerOutputCap      = 16 << 20 // of stdout, and again of stderr
)

// checkerTimeout bounds one checker run; tests shorten it.
var checkerTimeout = 3 * time.Minute

// projectDiagnostics runs every applicable checker under root.
func (s *Supervisor) projectDiagnostics(ctx context.Context, root string) (*Result, error) {
	root = canonical(root)
	var groups [][]Diag
	var ran, notes []string
	for i := range s.opts.Servers {
		cfg := &s.opts.Servers[i]
		if cfg.Disabled {
			continue
		}
		for _, dir := range markerDirs(cfg, root) {
			if nestedRoot(cfg, root, dir) {
				continue
			}
			ds, how, err := s.checkRoot(ctx, cfg, root, dir)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s in %s: %v", cfg.Name, displayRoot(root, dir), err))
				continue
			}
			ran = append(ran, how)
			groups = append(groups, ds)
		}
	}
	if len(ran) == 0 && len(notes) == 0 {
		return nil, fmt.Errorf("no project under the root has a marker any server knows (%s)", s.known())
	}
	all := mergeDuplicates(groups...)
	sortDiags(all)
	shown := min(len(all), projectDiagnosticsCap)
	r := &Result{Action: "diagnostics", Diagnostics: all[:shown], Shown: shown, Total: len(all), all: all}
	if len(ran) > 0 {
		r.how = " (ran " + strings.Join(ran, "; ") + ")"
	}
	if len(notes) > 0 {
		r.how += "; not checked: " + strings.Join(notes, "; ")
	}
	r.Summary = shownOf(shown, len(all), "errors and warnings") + r.how
	return r, nil
}

// mergeDuplicates merges what several reporters said of the same
// problems: go vet and gopls both report a package's type errors (vet as
// errors without a source or code, its column in bytes; gopls with its
// source, code and a column in characters), and vet's analyzers again as
// gopls's warnings. Each group is one reporter's output. An entry of a
// later group is merged into one of an earlier group's with the same
// file, line and message, each earlier entry taking at most one: two
// identical errors on a line (TypeScript's "Parameter 'p' implicitly has
// an 'any' type." for each of p => … and p => … there) are two, and stay
// two. Within a group, only entries at the same column that other
// sources reported (gopls's analyzers) are merged. The entry kept is the
// most severe, with the details of the one that has a source; sources
// that differ are joined.
func mergeDuplicates(groups ...[]Diag) []Diag {
	type key struct {
		path    string
		line    int
		message string
	}
	type spot struct {
		key
		col int
	}
	var out []Diag
	earlier := map[key][]int{} // the entries of earlier groups, by key
	for _, g := range groups {
		taken := map[key]int{} // how many of earlier[k] this group merged into
		here := map[spot]int{} // this group's own entries
		var added []int
		for _, d := range g {
			k := key{d.Path, d.Line, normalizeMessage(d.Message)}
			if i, ok := here[spot{k, d.Col}]; ok && !slices.Contains(strings.Split(out[i].Source, "+"), d.Source) {
				mergeInto(&out[i], d)
				continue
			}
			if n := taken[k]; n < len(earlier[k]) {
				mergeInto(&out[earlier[k][n]], d)
				taken[k]++
				continue
			}
			here[spot{k, d.Col}] = len(out)
			added = append(added, len(out))
			out = append(out, d)
		}
		for _, i := range added {
			k := key{out[i].Path, out[i].Line, normalizeMessage(out[i].Message)}
			earlier[k] = append(earlier[k], i)
		}
	}
	return out
}

// mergeInto merges d, another report of m's problem, into m.
func mergeInto(m *Diag, d Diag) {
	sev := m.Severity
	if severityRank(d.Severity) < severityRank(sev) {
		sev = d.Severity
	}
	switch {
	case m.Source == "" && d.Source != "":
		*m = d
	case d.Source != "" && d.Source != m.Source && !slices.Contains(strings.Split(m.Source, "+"), d.Source):
		m.Source += "+" + d.Source
	}
	if m.Code == "" {
		m.Code = d.Code
	}
	m.Severity = sev
}

// nestedRoot reports whether dir lies inside another marker directory of
// cfg under root whose checker already covers it (a go.mod under a
// go.work).
func nestedRoot(cfg *ServerConfig, root, dir string) bool {
	for d := filepath.Dir(dir); workspace.Within(root, d) && d != dir; d = filepath.Dir(d) {
		for _, m := range cfg.PreferredMarkers {
			if exists(filepath.Join(d, m)) {
				return true
			}
		}
		if d == root {
			break
		}
	}
	return false
}

// checkRoot runs cfg's checker in dir, or syncs its files through the
// server when it has none.
func (s *Supervisor) checkRoot(ctx context.Context, cfg *ServerConfig, root, dir string) ([]Diag, string, error) {
	where := " in " + displayRoot(root, dir)
	if len(cfg.Checker) == 0 {
		return s.syncAll(ctx, cfg, root, dir, where)
	}
	if _, err := proc.LookPath(cfg.Checker[0]); err != nil {
		return nil, "", fmt.Errorf("checker %s not found on PATH", cfg.Checker[0])
	}
	// Through proc: its own process group, killed with it at the timeout
	// (cargo's rustc processes too) and by the reaper if we die; and the
	// wait never outlasts the timeout for a grandchild holding the pipe.
	res, err := proc.Output(ctx, proc.Spec{Name: cfg.Checker[0], Path: cfg.Checker[0], Args: cfg.Checker[1:], Dir: dir, StderrTail: checkerOutputCap},
		checkerTimeout, checkerOutputCap)
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	ended, ran := errors.AsType[*proc.Ended](err)
	if ran && ended.Timeout > 0 {
		return nil, "", fmt.Errorf("%s did not finish within %s: stopped", strings.Join(cfg.Checker, " "), checkerTimeout)
	}
	// The parsers read lines, so stdout then stderr loses nothing
	// (go vet writes to stderr, tsc to stdout).
	out := append(res.Stdout, res.Stderr...)
	ds := parseChecker(cfg.CheckerFormat, root, dir, out)
	if err != nil && len(ds) == 0 {
		if !ran {
			return nil, "", fmt.Errorf("running %s: %v", cfg.Checker[0], err)
		}
		// A failure whose output we could not parse: show it as one
		// diagnostic rather than hide it.
		ds = append(ds, Diag{Path: displayRoot(root, dir), Line: 1, Col: 1, Severity: "error", Source: cfg.Checker[0],
			Message: firstLines(string(out), 5) + " (" + proc.Describe(err) + ")"})
	}
	ds, _ = errorsAndWarnings(ds)
	how := strings.Join(cfg.Checker, " ") + where
	if res.StdoutCut || res.StderrCut {
		how += fmt.Sprintf(" (its output passed %d MiB: the rest was not read, so diagnostics may be missing)", checkerOutputCap>>20)
	}
	if cfg.Name == "gopls" {
		more, also, err := s.vetThenGopls(ctx, root, dir, ds)
		if err != nil {
			return nil, "", err
		}
		ds, how = mergeDuplicates(ds, more), how+also
	}
	return ds, how, nil
}

// vetThenGopls completes go vet's findings ds with gopls's diagnostics
// of the packages they are in and of those that import them, and says so
// (to be added to the checker's description). go vet reports one type
// error per package it cannot type-check (an external test package: only
// its first), and a package whose internal tests break hides its external
// tests' errors: gopls diagnoses every file of each package that has an
// error.
func (s *Supervisor) vetThenGopls(ctx context.Context, root, dir string, ds []Diag) ([]Diag, string, error) {
	more, broken, users, cut, err := s.recheckPackages(ctx, root, dir, ds)
	if err != nil && more == nil {
		return nil, "", err
	}
	how := ""
	if len(broken) > 0 {
		how += fmt.Sprintf(", then gopls on every file of the packages with errors (%s)", strings.Join(broken, ", "))
		if len(users) > 0 {
			how += fmt.Sprintf(" and of those that import them (%s)", strings.Join(users, ", "))
		}
		how += ": vet stops at a package's first type error, and skips the packages that import a broken one"
	}
	if cut != "" {
		how += "; " + cut
	}
	if err != nil {
		how += "; " + err.Error()
	}
	return more, how, nil
}

// recheckPackages has the server diagnose every source file in the
// directories of ds's errors, and in the packages that import those
// (go vet does not check a package whose dependency fails to type-check,
// so a caller broken by the change would go unreported); it returns what
// it found, the broken directories and the importers' (relative to root),
// and what was left out.
func (s *Supervisor) recheckPackages(ctx context.Context, root, dir string, ds []Diag) (found []Diag, broken, importers []string, cut string, err error) {
	seen := map[string]bool{}
	var dirs []string
	for _, d := range ds {
		if d.Severity != "error" {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(d.Path))
		if !filepath.IsAbs(d.Path) && workspace.Within(dir, p) && !seen[filepath.Dir(p)] {
			seen[filepath.Dir(p)] = true
			dirs = append(dirs, filepath.Dir(p))
		}
	}
	if len(dirs) == 0 {
		return nil, nil, nil, "", nil
	}
	users, why := goImporters(ctx, dir, dirs)
	if why != "" {
		cut = "the packages that import them were not found (" + why + ")"
	}
	var files []string
	skipped := 0
	for _, d := range append(dirs, users...) {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
				continue
			}
			if len(files) < syncedFilesCap {
				files = append(files, filepath.Join(d, e.Name()))
			} else {
				skipped++
			}
		}
	}
	if skipped > 0 {
		cut = strings.TrimPrefix(cut+"; ", "; ") + fmt.Sprintf("%d more files of them were not diagnosed (cap %d)", skipped, syncedFilesCap)
	}
	for _, d := range dirs {
		broken = append(broken, displayRoot(root, d))
	}
	for _, d := range users {
		importers = append(importers, displayRoot(root, d))
	}
	found, err = s.diagnoseFiles(ctx, root, files)
	return found, broken, importers, cut, err
}

// goImporters returns the directories of the packages under dir (the
// module) that import a package in one of dirs, tests included; why says
// what went wrong when go list could not tell.
func goImporters(ctx context.Context, dir string, dirs []string) (users []string, why string) {
	if _, err := proc.LookPath("go"); err != nil {
		return nil, "go not found on PATH"
	}
	res, err := proc.Output(ctx, proc.Spec{Name: "go list", Path: "go", Dir: dir, StderrTail: 4096,
		Args: []string{"list", "-e", "-f", "{{.Dir}}\t{{.ImportPath}}\t{{join .Imports \" \"}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}", "./..."}},
		checkerTimeout, checkerOutputCap)
	if err != nil && len(res.Stdout) == 0 {
		return nil, "go list: " + proc.Describe(err)
	}
	type pkg struct{ dir, path, imports string }
	var pkgs []pkg
	brokenPaths := map[string]bool{}
	for _, line := range strings.Split(string(res.Stdout), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			continue
		}
		pkgs = append(pkgs, pkg{f[0], f[1], f[2]})
		if slices.Contains(dirs, f[0]) {
			brokenPaths[f[1]] = true
		}
	}
	for _, p := range pkgs {
		if slices.Contains(dirs, p.dir) || slices.Contains(users, p.dir) {
			continue
		}
		for _, imp := range strings.Fields(p.imports) {
			if brokenPaths[imp] {
				users = append(users, p.dir)
				break
			}
		}
	}
	return users, ""
}

// diagnoseFiles syncs files through their server and collects their
// errors and warnings, all at once.
func (s *Supervisor) diagnoseFiles(ctx context.Context, root string, files []string) ([]Diag, error) {
	out := make([][]Diag, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() {
			_, ds, err := s.fileDiagnostics(ctx, root, f)
			out[i], _ = errorsAndWarnings(ds)
			errs[i] = err
		})
	}
	wg.Wait()
	var all []Diag
	var failed []string
	for i := range files {
		if errs[i] != nil {
			failed = append(failed, displayPath(root, files[i])+": "+errs[i].Error())
			continue
		}
		all = append(all, out[i]...)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if len(failed) > 0 {
		return all, fmt.Errorf("not checked: %s", strings.Join(failed, "; "))
	}
	return all, nil
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[:min(n, len(lines))], " ")
}

// syncAll opens every source file of dir (up to a cap) in the server and
// collects their diagnostics. For C and C++ only translation units are
// opened: a header alone is parsed without what includes it before it
// (clangd reports "unknown type name 'int8_t'" in headers gcc compiles
// cleanly through every .c); its errors show through the files that
// include it.
func (s *Supervisor) syncAll(ctx context.Context, cfg *ServerConfig, root, dir, where string) ([]Diag, string, error) {
	files := sourceFiles(cfg, dir, 10*syncedFilesCap)
	how := fmt.Sprintf("%s on every source file%s", cfg.Name, where)
	if cfg.Name == "clangd" {
		files = slices.DeleteFunc(files, func(f string) bool { return translationUnitExts[strings.ToLower(filepath.Ext(f))] == "" })
		how = fmt.Sprintf("%s on the %d translation units (headers through the files that include them)%s", cfg.Name, min(len(files), syncedFilesCap), where)
	}
	if len(files) > syncedFilesCap {
		how += fmt.Sprintf("; only the first %d of %d files", syncedFilesCap, len(files))
		files = files[:syncedFilesCap]
	}
	ds, err := s.diagnoseFiles(ctx, root, files)
	if err != nil && ds == nil {
		return nil, "", err
	}
	if err != nil {
		how += "; " + err.Error()
	}
	return ds, how, nil
}

var (
	gccLine = regexp.MustCompile(`^(?:vet: )?([^\s:][^:]*):(\d+):(?:(\d+):)? (?:(error|warning|note)(?:\[(\w+)\])?: )?(.*)$`)
	tscLine = regexp.MustCompile(`^(.+?)\((\d+),(\d+)\): (error|warning) (TS\d+): (.*)$`)
)

// parseChecker parses a checker's output; paths are relative to dir.
func parseChecker(format, root, dir string, out []byte) []Diag {
	mk := func(file string, line, col int, sev, code, src, msg string) Diag {
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		return Diag{Path: displayPath(root, file), Line: line, Col: max(col, 1), Severity: sev, Code: code, Source: src, Message: msg}
	}
	var ds []Diag
	switch format {
	case "pyright-json":
		var rep struct {
			GeneralDiagnostics []struct {
				File, Severity, Message, Rule string
				Range                         Range
			} `json:"generalDiagnostics"`
		}
		json.Unmarshal(out, &rep)
		for _, d := range rep.GeneralDiagnostics {
			ds = append(ds, mk(d.File, d.Range.Start.Line+1, d.Range.Start.Character+1, d.Severity, d.Rule, "pyright", d.Message))
		}
		return ds
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch format {
		case "tsc":
			if m := tscLine.FindStringSubmatch(line); m != nil {
				ds = append(ds, mk(m[1], atoi(m[2]), atoi(m[3]), m[4], m[5], "tsc", m[6]))
			}
		case "dart-machine":
			f := strings.SplitN(line, "|", 8)
			if len(f) == 8 {
				ds = append(ds, mk(f[3], atoi(f[4]), atoi(f[5]), dartSeverity(f[0]), strings.ToLower(f[2]), "dart", f[7]))
			}
		default: // gcc
			if m := gccLine.FindStringSubmatch(line); m != nil && !strings.HasPrefix(line, "#") {
				sev := m[4]
				if sev == "" {
					sev = "error"
				}
				if sev == "note" {
					continue
				}
				ds = append(ds, mk(m[1], atoi(m[2]), atoi(m[3]), sev, m[5], "", m[6]))
			}
		}
	}
	return ds
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func dartSeverity(s string) string {
	switch s {
	case "ERROR":
		return "error"
	case "WARNING":
		return "warning"
	}
	return "info"
}

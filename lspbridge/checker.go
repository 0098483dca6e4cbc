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
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

const (
	projectDiagnosticsCap = 200
	checkerTimeout        = 3 * time.Minute
	syncedFilesCap        = 100
)

// projectDiagnostics runs every applicable checker under root.
func (s *Supervisor) projectDiagnostics(ctx context.Context, root string) (*Result, error) {
	root = canonical(root)
	var all []Diag
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
			ran = append(ran, fmt.Sprintf("%s in %s", how, displayRoot(root, dir)))
			all = append(all, ds...)
		}
	}
	if len(ran) == 0 && len(notes) == 0 {
		return nil, fmt.Errorf("no project under the root has a marker any server knows (%s)", s.known())
	}
	all = slices.CompactFunc(all, func(a, b Diag) bool { return a.String() == b.String() })
	sortDiags(all)
	shown := min(len(all), projectDiagnosticsCap)
	r := &Result{Action: "diagnostics", Diagnostics: all[:shown], Shown: shown, Total: len(all)}
	r.Summary = shownOf(shown, len(all), "errors and warnings")
	if len(ran) > 0 {
		r.Summary += " (ran " + strings.Join(ran, "; ") + ")"
	}
	if len(notes) > 0 {
		r.Summary += "; not checked: " + strings.Join(notes, "; ")
	}
	return r, nil
}

// nestedRoot reports whether dir lies inside another marker directory of
// cfg under root whose checker already covers it (a go.mod under a
// go.work).
func nestedRoot(cfg *ServerConfig, root, dir string) bool {
	for d := filepath.Dir(dir); within(root, d) && d != dir; d = filepath.Dir(d) {
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
	if len(cfg.Checker) == 0 {
		ds, err := s.syncAll(ctx, cfg, root, dir)
		return ds, cfg.Name, err
	}
	if _, err := exec.LookPath(cfg.Checker[0]); err != nil {
		return nil, "", fmt.Errorf("checker %s not found on PATH", cfg.Checker[0])
	}
	ctx, cancel := context.WithTimeout(ctx, checkerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.Checker[0], cfg.Checker[1:]...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, "", fmt.Errorf("%s did not finish within %s", strings.Join(cfg.Checker, " "), checkerTimeout)
	}
	ds := parseChecker(cfg.CheckerFormat, root, dir, out.Bytes())
	if err != nil && len(ds) == 0 {
		var ee *exec.ExitError
		if !asExit(err, &ee) {
			return nil, "", fmt.Errorf("running %s: %v", cfg.Checker[0], err)
		}
		// A failure whose output we could not parse: show it as one
		// diagnostic rather than hide it.
		ds = append(ds, Diag{Path: displayRoot(root, dir), Line: 1, Col: 1, Severity: "error", Source: cfg.Checker[0],
			Message: firstLines(out.String(), 5)})
	}
	ds, _ = errorsAndWarnings(ds)
	return ds, strings.Join(cfg.Checker, " "), nil
}

func asExit(err error, ee **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*ee = e
	return ok
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[:min(n, len(lines))], " ")
}

// syncAll opens every source file of dir (up to a cap) in the server and
// collects their diagnostics.
func (s *Supervisor) syncAll(ctx context.Context, cfg *ServerConfig, root, dir string) ([]Diag, error) {
	var all []Diag
	for _, f := range sourceFiles(cfg, dir, syncedFilesCap) {
		_, ds, err := s.fileDiagnostics(ctx, root, f)
		if err != nil {
			return nil, err
		}
		ds, _ = errorsAndWarnings(ds)
		all = append(all, ds...)
	}
	return all, nil
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

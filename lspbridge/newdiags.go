// This file defines the lsp tool's diagnostics "new only" mode (since):
// a file's errors and warnings that were not there at git HEAD (its
// committed content diagnosed by the same server first, as diagnostics on
// write checks a before and an after) or in this session's previous
// answer for it; the new ones nearest the changed lines first, capped
// per file with the cut ones named. For "*", since last compares each
// file with the previous "*" answer.

package lspbridge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// answers remembers this session's diagnostics answers, per file and for
// "*": what since last compares with.
type answers struct {
	mu    sync.Mutex // guards byKey
	byKey map[string]*answer
}

// answer is one earlier diagnostics answer.
type answer struct {
	diags []Diag
	text  string // the file's content it was for ("" for "*")
}

func (a *answers) swap(key string, now *answer) *answer {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byKey == nil {
		a.byKey = map[string]*answer{}
	}
	prev := a.byKey[key]
	a.byKey[key] = now
	return prev
}

// newAgainst returns the diagnostics of now that base does not have,
// keyed as diagnostics on write keys them (severity, code, message; not
// the position), and how many of now were there before.
func newAgainst(path string, base, now []Diag) (fresh []Diag, old int) {
	r := newRegistry()
	r.baseline(path, base)
	idx, _ := r.observe(path, now)
	for _, i := range idx {
		fresh = append(fresh, now[i])
	}
	return fresh, len(now) - len(fresh)
}

// changedLineSet returns the 1-based lines of new that differ from old:
// those between the common prefix and suffix whose text old does not
// have there (a line that only moved is not a change); when lines were
// only deleted, the line where they were.
func changedLineSet(old, new string) []int {
	a, b := splitLines(old), splitLines(new)
	from := 0
	for from < len(a) && from < len(b) && a[from] == b[from] {
		from++
	}
	ea, eb := len(a), len(b) // exclusive ends of the changed middles
	for ea > from && eb > from && a[ea-1] == b[eb-1] {
		ea--
		eb--
	}
	had := map[string]int{}
	for _, l := range a[from:ea] {
		had[strings.TrimSpace(l)]++
	}
	var out []int
	for i := from; i < eb; i++ {
		if t := strings.TrimSpace(b[i]); had[t] > 0 {
			had[t]--
		} else {
			out = append(out, i+1)
		}
	}
	if len(out) == 0 && ea-from > eb-from {
		out = append(out, from+1)
	}
	return out
}

// nearestFirst orders ds errors first, then by distance to the nearest
// changed line, then by position.
func nearestFirst(ds []Diag, changed []int) {
	dist := func(line int) int {
		if len(changed) == 0 {
			return 0
		}
		i, _ := slices.BinarySearch(changed, line)
		d := 1 << 30
		if i < len(changed) {
			d = changed[i] - line
		}
		if i > 0 {
			d = min(d, line-changed[i-1])
		}
		return d
	}
	slices.SortStableFunc(ds, func(a, b Diag) int {
		return cmp.Or(cmp.Compare(severityRank(a.Severity), severityRank(b.Severity)), cmp.Compare(dist(a.Line), dist(b.Line)),
			cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
}

// capPerFile keeps up to limit diagnostics per file, in order, and says
// which were cut ("x.go: 4 more new not shown, at lines 80, 95, 97, 120").
func capPerFile(ds []Diag, limit int) (kept []Diag, cut []string) {
	n := map[string]int{}
	lines := map[string][]string{}
	var order []string
	for _, d := range ds {
		if n[d.Path]++; n[d.Path] <= limit {
			kept = append(kept, d)
			continue
		}
		if lines[d.Path] == nil {
			order = append(order, d.Path)
		}
		lines[d.Path] = append(lines[d.Path], strconv.Itoa(d.Line))
	}
	for _, p := range order {
		at := lines[p]
		list := strings.Join(at[:min(10, len(at))], ", ")
		if len(at) > 10 {
			list += ", …"
		}
		cut = append(cut, fmt.Sprintf("%s: %d more new not shown (cap %d per file), at lines %s", p, len(at), limit, list))
	}
	return kept, cut
}

// headBaseline diagnoses path's committed content (git HEAD) in srv and
// returns its errors and warnings and that content; the current content
// is sent again afterwards by the caller's sync. known is false, with why,
// when there is no committed version to compare with.
func (s *Supervisor) headBaseline(ctx context.Context, srv *server, root, path string) (base []Diag, old string, known bool, why string) {
	old, ok, problem := committed(ctx, path)
	if !ok {
		if problem == "" {
			problem = "it is not committed (or not in a git repository)"
		}
		return nil, "", false, problem
	}
	if cur, err := srv.textOf(path); err == nil && cur == old {
		if d := srv.doc(path); d != nil && d.text == old {
			// What the server has is HEAD's content: its answer for the
			// current content is the baseline too; nothing is new.
			return nil, old, true, "same"
		}
	}
	if _, err := srv.syncText(ctx, path, old, stamp{size: -1}, false); err != nil {
		return nil, "", false, "sending its committed version: " + err.Error()
	}
	ds, err := s.settledDiagnostics(ctx, srv, path)
	if err != nil && !errors.Is(err, errBaseUnsettled) {
		return nil, "", false, "diagnosing its committed version: " + err.Error()
	}
	base, _ = errorsAndWarnings(convertDiags(root, srv.enc, path, old, ds))
	if errors.Is(err, errBaseUnsettled) {
		why = "unsettled"
	}
	return base, old, true, why
}

// newOnly turns a file's diagnostics answer into its new-only form.
func (s *Supervisor) newOnly(r *Result, since, shown string, base []Diag, baseText, curText string, baseKnown bool, why string) {
	what := map[string]string{"head": "git HEAD", "last": "this session's previous answer"}[since]
	if !baseKnown {
		r.Summary = fmt.Sprintf("%d errors and warnings in %s, all listed as new: no %s to compare with (%s)", len(r.Diagnostics), shown, what, why)
		nearestFirst(r.Diagnostics, nil)
	} else {
		fresh, old := newAgainst(shown, base, r.Diagnostics)
		changed := changedLineSet(baseText, curText)
		nearestFirst(fresh, changed)
		r.Old = old
		r.Diagnostics = fresh
		r.Summary = fmt.Sprintf("%d new errors and warnings in %s since %s (%d there before not listed", len(fresh), shown, what, old)
		if len(changed) > 0 {
			r.Summary += fmt.Sprintf("; nearest the %d changed lines first", len(changed))
		} else {
			r.Summary += "; the content is the same"
		}
		r.Summary += ")"
		if why == "unsettled" {
			r.Summary += "; the server was still publishing for the earlier content when the wait ended: an old error may be listed as new"
		}
	}
	r.Total = len(r.Diagnostics)
	var cut []string
	r.Diagnostics, cut = capPerFile(r.Diagnostics, s.opts.PerFileCap)
	r.Shown = len(r.Diagnostics)
	if len(cut) > 0 {
		r.Summary += "; " + strings.Join(cut, "; ")
	}
}

// projectNewOnly turns a "*" answer into its new-only form against this
// session's previous "*" answer: per file, what that answer did not have.
func (s *Supervisor) projectNewOnly(r *Result) {
	prev := s.answers.swap("*", &answer{diags: r.all})
	if prev == nil {
		r.Summary = fmt.Sprintf("%d errors and warnings, all listed as new: no earlier \"*\" answer in this session to compare with%s", len(r.all), r.how)
		r.Diagnostics, r.Total = slices.Clone(r.all), len(r.all)
	} else {
		before, now := map[string][]Diag{}, map[string][]Diag{}
		var paths []string
		for _, d := range prev.diags {
			before[d.Path] = append(before[d.Path], d)
		}
		for _, d := range r.all {
			if now[d.Path] == nil {
				paths = append(paths, d.Path)
			}
			now[d.Path] = append(now[d.Path], d)
		}
		var fresh []Diag
		old := 0
		for _, p := range paths {
			f, o := newAgainst(p, before[p], now[p])
			fresh, old = append(fresh, f...), old+o
		}
		r.Diagnostics, r.Total, r.Old = fresh, len(fresh), old
		r.Summary = fmt.Sprintf("%d new errors and warnings since this session's previous \"*\" answer (%d there before not listed)%s", len(fresh), old, r.how)
	}
	sortDiags(r.Diagnostics)
	var cut []string
	r.Diagnostics, cut = capPerFile(r.Diagnostics, s.opts.PerFileCap)
	if len(r.Diagnostics) > projectDiagnosticsCap {
		cut = append(cut, fmt.Sprintf("%d more new past the cap of %d", len(r.Diagnostics)-projectDiagnosticsCap, projectDiagnosticsCap))
		r.Diagnostics = r.Diagnostics[:projectDiagnosticsCap]
	}
	r.Shown = len(r.Diagnostics)
	if len(cut) > 0 {
		r.Summary += "; " + strings.Join(cut, "; ")
	}
}

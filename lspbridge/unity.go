// This file checks a written C or C++ file as a unity build compiles it:
// a translation unit that #includes other source files (go-tree-sitter's
// lib.c is nothing but #include "./alloc.c", #include "./parser.c", …).
//
// Some errors exist only in such a unit. Renaming the declaration of
// ts_subtree_new_error_node in subtree.h leaves parser.c calling an
// undeclared function, which C declares implicitly as returning int;
// subtree.c, which lib.c includes after parser.c, then defines it with its
// real type: "conflicting types", only when lib.c is compiled. Each .c
// compiles cleanly on its own, and clangd does not see it through lib.c
// either: a file of nothing but #include lines is all preamble to clangd
// 14, which skips function bodies there, so the implicit declaration
// never happens.
//
// So a written file that a unity unit reaches is also compiled as that
// unit, before and after the write, in an unsaved unit (see
// compileUnsaved): a declaration first, which ends clangd's preamble so
// that every #include after it is compiled in full, then the unit's text
// with the files on the way to the written one copied in place of their
// #include, the written file's text before or after the write innermost;
// the two differ in that text only. The other source files the unit
// includes are copied in whole too: clangd shows only the first error of
// an included file, and which one is first changes when an error before
// it comes or goes (a fix in subtree.h made an old error of parser.c's
// first, and new). A line map gives each diagnostic back to its file;
// those on the unit's own lines are the unit's. What the after has and
// the before has not is the write's.

package lspbridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// unityPreamble is a unity check's first line: a declaration, where
// clangd's preamble ends.
const unityPreamble = "typedef int agent_tools_unity_unit_;"

// unityPerWrite bounds the unity units compiled for one write (each twice:
// before and after).
const unityPerWrite = 2

// unityHops bounds the files between a unity unit and the written file:
// one more than for a header's includer (the source file on the way).
const unityHops = includeHops + 1

// errUnityGuard says a unity check compiled nothing of the written file:
// an include guard on the way was already defined where the unit was
// expected to include it first.
var errUnityGuard = errors.New("the written file was included earlier than where the unit was expected to include it first")

// pragmaOnceRe matches a #pragma once line.
var pragmaOnceRe = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*pragma[ \t]+once\b`)

// onceOnTheWay returns a header on u's way to file (or file) that is
// included once by #pragma once, or "": a copy of its text in the unit
// does not make it included, so a later #include of it would compile it
// again, from disk, and the before would hold the after's text too.
func onceOnTheWay(u *unityUnit, file, text string) string {
	if isHeader(file) && pragmaOnceRe.MatchString(text) {
		return file
	}
	for _, l := range u.chain[1:] {
		if isHeader(l.path) && pragmaOnceRe.MatchString(l.text) {
			return l.path
		}
	}
	return ""
}

// unityUnit is a unity unit that reaches a written file: the unit and
// the files on the way down to it (see includer), and the other source
// files the unit includes, by the line of their #include.
type unityUnit struct {
	includer
	sources map[int]link
}

// lineOrigin is where a line of a unity check's text comes from: a file
// and its 0-based line; no path for the lines the check adds.
type lineOrigin struct {
	path string
	line int
}

// unityText returns the text that compiles file, with content text, as
// the unity unit u does, and the origin of each of its lines:
// unityPreamble, then the unit, each file on the way copied in place of
// its #include in the one before, file's text in place of the last, and
// the unit's other sources in place of theirs. Before a header on the way
// whose include guard is already defined there, an #error with
// guardMarker: its text would be skipped. Quoted #includes of the files
// copied from another directory than the unit's are made absolute (on
// the same lines).
func unityText(u *unityUnit, file, text string) (string, []lineOrigin) {
	var b strings.Builder
	var origins []lineOrigin
	add := func(ln string, o lineOrigin) {
		b.WriteString(ln + "\n")
		origins = append(origins, o)
	}
	add(unityPreamble, lineOrigin{})
	probe := func(text string) {
		if g := guardOf(text); g != "" {
			add("#ifdef "+g, lineOrigin{})
			add("#error "+guardMarker, lineOrigin{})
			add("#endif", lineOrigin{})
		}
	}
	unitDir := filepath.Dir(u.path)
	copyWhole := func(path, text string) {
		for n, ln := range strings.Split(text, "\n") {
			add(includeFrom(ln, filepath.Dir(path), unitDir), lineOrigin{path, n})
		}
	}
	var emit func(i int)
	emit = func(i int) {
		if i == len(u.chain) {
			probe(text)
			copyWhole(file, text)
			return
		}
		l := u.chain[i]
		if i > 0 {
			probe(l.text)
		}
		for n, ln := range strings.Split(l.text, "\n") {
			src, isSource := u.sources[n]
			switch {
			case n == l.line:
				emit(i + 1)
			case i == 0 && isSource:
				copyWhole(src.path, src.text)
			default:
				add(includeFrom(ln, filepath.Dir(l.path), unitDir), lineOrigin{l.path, n})
			}
		}
	}
	emit(0)
	return b.String(), origins
}

// unityUnitsOf returns up to n unity units under the root that reach path
// — translation units with a quoted #include of a source file outside any
// #if — each with the way down to path along the files' #includes in
// order, each file once (as include guards make it): where the unit first
// includes it, as the build compiles it; and the other sources it
// includes so. Units in path's directory come first, then by path. more
// counts the others that reach it. None for a server that does not
// compile translation units, or a file that is no C or C++ source or
// header.
func (s *server) unityUnitsOf(ctx context.Context, path string, n int) (units []*unityUnit, more int) {
	_, tu := translationUnitExts[strings.ToLower(filepath.Ext(path))]
	if !s.cfg.DiskIncludes || !tu && !isHeader(path) {
		return nil, 0
	}
	files, paths := s.sourceIncludes(ctx)
	isTU := func(p string) bool {
		_, ok := translationUnitExts[strings.ToLower(filepath.Ext(p))]
		return ok
	}
	// sourceOf is the source file an #include of unit names beside it,
	// outside any #if; "" for any other.
	sourceOf := func(unit string, l includeLine) string {
		x := filepath.Join(filepath.Dir(unit), l.name)
		if _, known := files[x]; !l.quoted || l.depth > 0 || !known || !isTU(x) || x == unit {
			return ""
		}
		return x
	}
	var cands []string
	for _, p := range paths {
		if !isTU(p) || p == path {
			continue
		}
		if slices.ContainsFunc(files[p].lines, func(l includeLine) bool { return sourceOf(p, l) != "" }) {
			cands = append(cands, p)
		}
	}
	if len(cands) == 0 {
		return nil, 0
	}
	slices.SortStableFunc(cands, func(a, b string) int {
		ra, rb := filepath.Dir(a) != filepath.Dir(path), filepath.Dir(b) != filepath.Dir(path)
		switch {
		case ra == rb:
			return strings.Compare(a, b)
		case rb:
			return -1
		}
		return 1
	})
	byBase := map[string][]string{}
	for _, p := range paths {
		byBase[filepath.Base(p)] = append(byBase[filepath.Base(p)], p)
	}
	// resolve finds the file an #include names: beside the includer when
	// quoted and there, else the one the name ends (through an include
	// directory); "" when none under the root does.
	resolve := func(from string, l includeLine) string {
		if x := filepath.Join(filepath.Dir(from), l.name); l.quoted {
			if _, ok := files[x]; ok {
				return x
			}
		}
		var found []string
		for _, p := range byBase[filepath.Base(l.name)] {
			if strings.HasSuffix(p, string(filepath.Separator)+l.name) {
				found = append(found, p)
			}
		}
		if len(found) == 0 {
			return ""
		}
		return slices.Min(found)
	}
	for _, unit := range cands {
		if ctx.Err() != nil {
			break
		}
		way := firstWay(unit, path, files, resolve)
		if way == nil {
			continue
		}
		if len(units) == n {
			more++
			continue
		}
		u := readWay(way)
		if u == nil {
			continue
		}
		u.sources = map[int]link{}
		lines := strings.Split(u.chain[0].text, "\n")
		for _, l := range files[unit].lines {
			src := sourceOf(unit, l)
			if src == "" || src == path || l.line == u.chain[0].line || l.line >= len(lines) || !anyIncludeRe.MatchString(lines[l.line]) {
				continue
			}
			if data, err := os.ReadFile(src); err == nil {
				u.sources[l.line] = link{src, string(data), 0}
			}
		}
		units = append(units, u)
	}
	return units, more
}

// firstWay follows unit's #includes in order (outside any #if but a
// header's guard), each file once, down to path within unityHops, and
// returns the files on the way, each with its #include of the next (the
// unit first, path not included); nil when it does not get there.
func firstWay(unit, path string, files map[string]fileIncludes, resolve func(string, includeLine) string) []link {
	seen := map[string]bool{unit: true}
	var way []link
	var walk func(cur string, depth int) bool
	walk = func(cur string, depth int) bool {
		f := files[cur]
		_, tu := translationUnitExts[strings.ToLower(filepath.Ext(cur))]
		for _, l := range f.lines {
			if l.depth > 0 && (tu || !f.guarded || l.depth > 1) {
				continue
			}
			next := resolve(cur, l)
			if next == "" || seen[next] {
				continue
			}
			seen[next] = true
			if next == path || depth < unityHops && walk(next, depth+1) {
				way = append(way, link{path: cur, line: l.line})
				return true
			}
		}
		return false
	}
	if !walk(unit, 1) {
		return nil
	}
	slices.Reverse(way)
	return way
}

// readWay reads the files of a way into a unity unit; nil when one cannot
// be read or no longer has its #include where the index said.
func readWay(way []link) *unityUnit {
	inc := &unityUnit{includer: includer{path: way[0].path}}
	for _, l := range way {
		data, err := os.ReadFile(l.path)
		if err != nil {
			return nil
		}
		lines := strings.Split(string(data), "\n")
		if l.line >= len(lines) || !anyIncludeRe.MatchString(lines[l.line]) {
			return nil
		}
		inc.chain = append(inc.chain, link{l.path, string(data), l.line})
	}
	return inc
}

// unityCompile compiles text, the content of file, as the unity unit u
// compiles it (see unityText), in an unsaved unit named with tag, and
// returns its errors and warnings, each in its own file's position: those
// on the unit's own lines are the unit's.
func (s *server) unityCompile(ctx context.Context, root string, u *unityUnit, file, text, tag string, limit time.Duration) ([]Diag, waitState, error) {
	if once := onceOnTheWay(u, file, text); once != "" {
		return nil, settled, fmt.Errorf("%s is included once by #pragma once, which a copy of its text in the unit cannot keep", displayPath(root, once))
	}
	unit, origins := unityText(u, file, text)
	vp := filepath.Join(filepath.Dir(u.path), contextPrefix+tag+"."+filepath.Base(u.path))
	raw, state, err := s.compileUnsaved(ctx, vp, s.cfg.languageID(u.path), unit, limit)
	if err != nil {
		return nil, state, err
	}
	texts := map[string]string{file: text}
	for _, l := range u.chain {
		texts[l.path] = l.text
	}
	for _, l := range u.sources {
		texts[l.path] = l.text
	}
	byFile := map[string][]Diagnostic{}
	var order []string
	for _, d := range raw {
		if strings.Contains(d.Message, guardMarker) {
			return nil, state, errUnityGuard
		}
		d.Message = unitPlaces(d.Message, vp, u.path, origins)
		l := d.Range.Start.Line
		if mainFileArtifact(d) || l < 0 || l >= len(origins) || origins[l].path == "" {
			continue
		}
		o := origins[l]
		end := o.line
		if e := d.Range.End.Line; e < len(origins) && origins[e].path == o.path && origins[e].line > o.line {
			end = origins[e].line
		}
		d.Range.Start.Line, d.Range.End.Line = o.line, end
		if byFile[o.path] == nil {
			order = append(order, o.path)
		}
		byFile[o.path] = append(byFile[o.path], d)
	}
	var out []Diag
	for _, p := range order {
		ds, _ := errorsAndWarnings(convertDiags(root, s.enc, p, texts[p], byFile[p]))
		out = append(out, ds...)
	}
	return out, state, nil
}

// unitPlaces rewrites the places in msg that name the unsaved unit at vp
// as the places its lines come from: clang names a type declared there
// "struct (unnamed at <vp>:28:9)", and a note there by vp's base name.
// Left as they were, they would name a file that is gone, and differ
// between the before and the after (named apart).
func unitPlaces(msg, vp, unit string, origins []lineOrigin) string {
	if !strings.Contains(msg, contextPrefix) {
		return msg
	}
	re := regexp.MustCompile(`(?:` + regexp.QuoteMeta(vp) + `|` + regexp.QuoteMeta(filepath.Base(vp)) + `):(\d+):(\d+)`)
	return re.ReplaceAllStringFunc(msg, func(m string) string {
		sub := re.FindStringSubmatch(m)
		o := lineOrigin{path: unit}
		if l, err := strconv.Atoi(sub[1]); err == nil && l >= 1 && l <= len(origins) && origins[l-1].path != "" {
			o = origins[l-1]
		}
		return fmt.Sprintf("%s:%d:%s", o.path, o.line+1, sub[2])
	})
}

// unityCheck is a written file's check through a unity unit that reaches
// it: the errors and warnings the write brought there.
type unityCheck struct {
	unit  *unityUnit
	old   string // the written file's content before the write
	tag   string // names the unsaved units, one per check of the write
	fresh []Diag // in the after, not in the before
	ran   bool   // (not when the written file could not be synced: it is skipped)
	state waitState
	err   error
}

// run compiles the unit with the written file's content before and after
// the write, both at once, and keeps what only the after has.
func (u *unityCheck) run(ctx context.Context, root string, t *checkTarget) {
	u.ran = true
	var before []Diag
	var bstate waitState
	var berr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		before, bstate, berr = t.srv.unityCompile(ctx, root, u.unit, t.path, u.old, u.tag+"-before", t.limit)
	}()
	after, astate, aerr := t.srv.unityCompile(ctx, root, u.unit, t.path, t.sr.text, u.tag+"-after", t.limit)
	<-done
	u.state = max(bstate, astate)
	if u.err = errors.Join(aerr, berr); u.err == nil {
		u.fresh = freshIn(before, after)
	}
}

// freshIn returns the diagnostics of after that before does not have, file
// by file, by the registry's key (a key whose count grew is new again).
func freshIn(before, after []Diag) []Diag {
	r := newRegistry()
	was, now := map[string][]Diag{}, map[string][]Diag{}
	var files []string
	for _, d := range before {
		was[d.Path] = append(was[d.Path], d)
	}
	for _, d := range after {
		if now[d.Path] == nil {
			files = append(files, d.Path)
		}
		now[d.Path] = append(now[d.Path], d)
	}
	var out []Diag
	for _, p := range files {
		r.baseline(p, was[p])
		idx, _ := r.observe(p, now[p])
		for _, i := range idx {
			out = append(out, now[p][i])
		}
	}
	return out
}

// addUnityChecks sets up t's checks through the unity units that reach
// it, within what is left of unityPerWrite; those beyond are said not
// checked. A file whose content before is unknown or unchanged has none.
func (w *writeRun) addUnityChecks(t *checkTarget, old, text string) {
	if !t.oldKnown || old == text {
		return
	}
	units, more := t.srv.unityUnitsOf(w.ctx, t.path, unityPerWrite-w.unityChecks)
	for _, u := range units {
		w.unityChecks++
		t.unity = append(t.unity, &unityCheck{unit: u, old: old, tag: fmt.Sprintf("unity%d", w.unityChecks)})
	}
	if more > 0 {
		w.wc.notes = append(w.wc.notes, fmt.Sprintf("%d more unity builds include %s (translation units that include other source files): their combined compiles were not checked (at most %d a write)", more, displayPath(w.root, t.path), unityPerWrite))
	}
}

// addUnity adds what t's unity checks found new to the result, but for
// what is already listed in the same file (the same key again, or a
// unit's "In included file" error that the file it names already lists)
// and in a file already said to have more than it shows; it names the
// units in the checked list, and says which were not checked.
func (w *writeRun) addUnity(t *checkTarget) {
	root, wc := w.root, w.wc
	file := displayPath(root, t.path)
	for _, u := range t.unity {
		unit := displayPath(root, u.unit.path)
		if !u.ran {
			continue
		}
		if u.err != nil {
			wc.notes = append(wc.notes, fmt.Sprintf("%s's combined compile (a unity build, with %s as %s includes it) was not checked: %v", unit, file, u.unit.via(root), u.err))
			continue
		}
		wc.checked = append(wc.checked, fmt.Sprintf("%s compiled whole with %s (a unity build)", unit, file))
		if u.state == unsettled {
			wc.notes = append(wc.notes, fmt.Sprintf("%s was still publishing for %s compiled whole with %s when the wait ended (%s): its new errors may be incomplete", t.srv.cfg.Name, unit, file, t.limit))
		}
		listed, shown := map[diagKey]int{}, map[string]int{}
		for _, d := range wc.fresh {
			listed[diagKeyOf(d.Path, d)]++
			shown[d.Path]++
		}
		more := map[string]int{}
		var order []string
		added := 0
		for _, d := range u.fresh {
			if k := diagKeyOf(d.Path, d); listed[k] > 0 {
				listed[k]--
				continue
			}
			if listedWhereIncluded(root, d, wc.fresh) || saidMore(wc, d.Path) {
				continue
			}
			if shown[d.Path] >= w.s.opts.PerFileCap {
				if more[d.Path] == 0 {
					order = append(order, d.Path)
				}
				more[d.Path]++
				continue
			}
			wc.fresh = append(wc.fresh, d)
			shown[d.Path]++
			added++
		}
		for _, p := range order {
			wc.more = append(wc.more, fmt.Sprintf("%d more new diagnostics in %s not shown", more[p], p))
		}
		if added > 0 || len(order) > 0 {
			wc.notes = append(wc.notes, unityNote(t.srv, root, t.path, u.unit))
		}
	}
}

// saidMore reports whether wc already says that path has more new
// diagnostics than it shows: which ones are left out is not known, so a
// unity build's are not added to them.
func saidMore(wc *writeCheck, path string) bool {
	return slices.ContainsFunc(wc.more, func(m string) bool { return strings.HasSuffix(m, " in "+path+" not shown") })
}

// unityNote says how a written file was compiled in a unity unit, for an
// answer that lists what that found.
func unityNote(srv *server, root, file string, u *unityUnit) string {
	return fmt.Sprintf("%s also compiled %s as %s compiles it, whole (it includes other source files: a unity build): errors only that combination has are listed at the files they are in", srv.cfg.Name, displayPath(root, file), u.via(root))
}

// includedErrorRe reads clangd's error of an included file: the message,
// and the file and line where it occurred.
var includedErrorRe = regexp.MustCompile(`(?s)^In included file: (.*?)\n\n(\S+?):(\d+):\d+:\s*note: error occurred here`)

// listedWhereIncluded reports whether d, an "In included file" error of
// a unit, is already listed in the file it names with the same message
// (clangd capitalizes a main file's messages, not an included file's).
func listedWhereIncluded(root string, d Diag, listed []Diag) bool {
	m := includedErrorRe.FindStringSubmatch(d.Message)
	if m == nil {
		return false
	}
	path, msg := displayPath(root, filepath.Clean(m[2])), keyMessage(m[1])
	return slices.ContainsFunc(listed, func(x Diag) bool {
		return x.Path == path && strings.EqualFold(keyMessage(x.Message), msg)
	})
}

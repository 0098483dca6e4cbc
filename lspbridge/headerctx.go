// This file checks a C or C++ header the way the build compiles it: as
// part of a translation unit that includes it, not on its own.
//
// clangd compiles an open header as if it were a source file of its own.
// What an includer puts before the #include (a _POSIX_C_SOURCE, the
// system headers that define CLOCK_MONOTONIC, its own typedefs) is then
// missing: errors appear that the build never sees, and #if branches that
// every includer takes are left out and not checked. Nor do the includers'
// own answers make up for it: clangd reads the headers at the top of a
// file into its preamble without their function bodies, so an error in a
// header's static inline function is invisible through them (gcc sees it).
//
// So a header is checked as one includer compiles it: an unsaved unit is
// opened beside the includer, holding the includer's lines before its
// #include and then the header's text, and the diagnostics that fall on
// the header's lines are the header's, shifted back. The unit is never
// written to disk; it is closed as soon as its diagnostics are in, and
// its publications are kept out of everything else.

package lspbridge

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// contextPrefix starts the name of every unsaved unit (see isContextFile).
const contextPrefix = ".agent-tools-header-context."

// isContextFile reports an unsaved unit of this file's making.
func isContextFile(path string) bool { return strings.HasPrefix(filepath.Base(path), contextPrefix) }

// isHeader reports a C or C++ header by its extension.
func isHeader(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".h", ".hh", ".hpp", ".hxx", ".h++":
		return true
	}
	return false
}

// includer is a translation unit that includes a header, directly or
// through other headers, outside any #if but their include guards: the
// unit, then each header on the way, each with the line of its #include
// of the next.
type includer struct {
	path  string // the translation unit
	chain []link
}

// link is one file on the way to the header, and its #include line.
type link struct {
	path, text string
	line       int // 0-based
}

// via names the unit and the headers on the way, for an answer.
func (inc *includer) via(root string) string {
	var b strings.Builder
	b.WriteString(displayPath(root, inc.path))
	for _, l := range inc.chain[1:] {
		b.WriteString(" through " + displayPath(root, l.path))
	}
	return b.String()
}

var (
	quoteIncludeRe = regexp.MustCompile(`^(\s*#\s*include\s*)"([^"\n]+)"`)
	anyIncludeRe   = regexp.MustCompile(`^\s*#\s*include\s*["<]([^">\n]+)[">]`)
	ifOpenRe       = regexp.MustCompile(`^\s*#\s*if(n?def)?\b`)
	ifCloseRe      = regexp.MustCompile(`^\s*#\s*endif\b`)
)

// includeIndex remembers the #include lines of each source file, by file
// and modification stamp, so that finding a header's includer reads only
// the files that changed since the last search (a project's diagnostics
// look for one per header).
type includeIndex struct {
	mu    sync.Mutex
	files map[string]fileIncludes
}

// fileIncludes is one file's #include lines, and whether it starts with
// an include guard.
type fileIncludes struct {
	st      stamp
	guarded bool
	lines   []includeLine
}

// includeLine is an #include: its line (0-based), the name, whether it
// is quoted, and how many #if it is inside.
type includeLine struct {
	line   int
	name   string
	quoted bool
	depth  int
}

// of returns path's #include lines, reading it only when it changed.
func (x *includeIndex) of(path string, fi fs.FileInfo) fileIncludes {
	st := stamp{size: fi.Size(), mtime: fi.ModTime()}
	x.mu.Lock()
	f, ok := x.files[path]
	x.mu.Unlock()
	if ok && f.st.size == st.size && f.st.mtime.Equal(st.mtime) {
		return f
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fileIncludes{}
	}
	f = fileIncludes{st: st, guarded: guardOf(string(data)) != ""}
	depth := 0
	for i, ln := range strings.Split(string(data), "\n") {
		switch {
		case ifOpenRe.MatchString(ln):
			depth++
		case ifCloseRe.MatchString(ln):
			depth--
		}
		if m := anyIncludeRe.FindStringSubmatch(ln); m != nil {
			f.lines = append(f.lines, includeLine{i, filepath.Clean(m[1]), strings.Contains(m[0], `"`), depth})
		}
	}
	x.mu.Lock()
	if x.files == nil {
		x.files = map[string]fileIncludes{}
	}
	x.files[path] = f
	x.mu.Unlock()
	return f
}

// sourceIncludes returns the #include lines of the C and C++ sources and
// headers under the root (up to dependentsWalk files, none over
// dependentMaxSize), and their paths in walk order.
func (s *server) sourceIncludes(ctx context.Context) (map[string]fileIncludes, []string) {
	files := map[string]fileIncludes{}
	var paths []string
	walked := 0
	s.walkSources(func(p string, d fs.DirEntry) error {
		walked++
		if walked > dependentsWalk || ctx.Err() != nil {
			return filepath.SkipAll
		}
		_, tu := translationUnitExts[strings.ToLower(filepath.Ext(p))]
		if !tu && !isHeader(p) {
			return nil
		}
		fi, err := d.Info()
		if err != nil || fi.Size() > dependentMaxSize {
			return nil
		}
		files[p] = s.includes.of(p, fi)
		paths = append(paths, p)
		return nil
	})
	return files, paths
}

// includeHops bounds the headers between a header and its unit.
const includeHops = 3

// includerOf returns a translation unit under srv's root that includes
// header, directly or through up to includeHops other headers, with the
// chain of #include lines on the way; nil when none does. At each step an
// #include that names the file relative to the includer's own directory
// is preferred to one found through an include directory (the name ends
// the path), then the path order; only #includes outside any #if count
// (in a header, its include guard aside).
func (s *server) includerOf(ctx context.Context, header string) *includer {
	files, paths := s.sourceIncludes(ctx)
	// includersOf lists the files including target: file, line, rank.
	type hit struct {
		path       string
		line, rank int
	}
	includersOf := func(target string) []hit {
		base := filepath.Base(target)
		var hits []hit
		for _, p := range paths {
			f := files[p]
			_, tu := translationUnitExts[strings.ToLower(filepath.Ext(p))]
			for _, l := range f.lines {
				if filepath.Base(l.name) != base || p == target || l.depth > 0 && (tu || !f.guarded || l.depth > 1) {
					continue
				}
				rank := -1
				switch {
				case l.quoted && filepath.Join(filepath.Dir(p), l.name) == target:
					rank = 0
				case strings.HasSuffix(target, string(filepath.Separator)+l.name):
					rank = 1
				}
				if rank >= 0 {
					hits = append(hits, hit{p, l.line, rank})
					break
				}
			}
		}
		slices.SortStableFunc(hits, func(a, b hit) int { return a.rank - b.rank })
		return hits
	}
	// Breadth first, up from the header: every file that reaches it, and
	// the nearest unit.
	frontier := []*step{{path: header}}
	seen := map[string]bool{header: true}
	var unit *step
	for hop := 0; hop <= includeHops && len(frontier) > 0; hop++ {
		var up []*step
		for _, st := range frontier {
			for _, h := range includersOf(st.path) {
				if seen[h.path] {
					continue
				}
				seen[h.path] = true
				n := &step{path: h.path, next: st, line: h.line}
				if _, tu := translationUnitExts[strings.ToLower(filepath.Ext(h.path))]; tu {
					if unit == nil {
						unit = n
					}
					continue
				}
				up = append(up, n)
			}
		}
		frontier = up
	}
	if unit == nil {
		return nil
	}
	// Down from the unit along the first #include that reaches the
	// header: where the unit really compiles it. (An earlier header of
	// the unit often includes it first — go-tree-sitter's parser.c gets
	// subtree.h through language.h — and the #include found above would
	// then be skipped under the guard.)
	if first := firstPath(unit.path, header, files, seen); first != nil {
		return chainOf(first)
	}
	return chainOf(unit)
}

// firstPath follows, from unit down, each file's first #include (outside
// any #if but a header's guard) of a file in reach, to header; nil when
// it does not get there within includeHops.
func firstPath(unit, header string, files map[string]fileIncludes, reach map[string]bool) *step {
	var steps []*step
	cur := unit
	for hop := 0; hop <= includeHops; hop++ {
		f := files[cur]
		_, tu := translationUnitExts[strings.ToLower(filepath.Ext(cur))]
		next, at := "", 0
		for _, l := range f.lines {
			if l.depth > 0 && (tu || !f.guarded || l.depth > 1) {
				continue
			}
			if x := filepath.Join(filepath.Dir(cur), l.name); l.quoted && reach[x] && x != cur {
				next, at = x, l.line
				break
			}
			var found []string
			for x := range reach {
				if x != cur && strings.HasSuffix(x, string(filepath.Separator)+l.name) {
					found = append(found, x)
				}
			}
			if len(found) > 0 {
				next, at = slices.Min(found), l.line
				break
			}
		}
		if next == "" {
			return nil
		}
		steps = append(steps, &step{path: cur, line: at})
		if next == header {
			steps = append(steps, &step{path: header})
			for i := len(steps) - 2; i >= 0; i-- {
				steps[i].next = steps[i+1]
			}
			return steps[0]
		}
		cur = next
	}
	return nil
}

// step is a file on the way up from a header to its unit.
type step struct {
	path string
	next *step // toward the header
	line int   // this file's #include of next
}

// chainOf reads the files of a step chain, from the unit down to (not
// including) the header.
func chainOf(st *step) *includer {
	inc := &includer{path: st.path}
	for ; st.next != nil; st = st.next {
		data, err := os.ReadFile(st.path)
		if err != nil {
			return nil
		}
		inc.chain = append(inc.chain, link{st.path, string(data), st.line})
	}
	return inc
}

// guardOf returns the macro of a header's include guard (#ifndef X then
// #define X, before any code), or "".
func guardOf(text string) string {
	var directives []string
	for ln := range strings.SplitSeq(text, "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "" || strings.HasPrefix(ln, "//") || strings.HasPrefix(ln, "/*") || strings.HasPrefix(ln, "*") {
			continue
		}
		if !strings.HasPrefix(ln, "#") {
			break
		}
		directives = append(directives, strings.Join(strings.Fields(strings.TrimPrefix(ln, "#")), " "))
		if len(directives) == 2 {
			break
		}
	}
	if len(directives) < 2 {
		return ""
	}
	name, ok := strings.CutPrefix(directives[0], "ifndef ")
	if !ok || !strings.HasPrefix(directives[1]+" ", "define "+name+" ") {
		return ""
	}
	return name
}

// guardMarker is in the #error a unit raises when the header's guard is
// already defined where it is included (an earlier header included it):
// its text would then be skipped, and its check would prove nothing.
const guardMarker = "AGENT_TOOLS_HEADER_ALREADY_INCLUDED"

// contextUnit returns the unit that compiles header's text as inc
// includes it, and the line where the header's text starts in it: each
// file of the chain up to its #include of the next, then the header, then
// an #endif for each include guard left open on the way. Each header's
// guard is tested first: already defined there, its text would be
// skipped. The unit sits in the translation unit's directory, so the
// headers' quoted includes that name files beside them are made absolute
// (on the same lines).
func contextUnit(inc *includer, header, text string) (string, int) {
	var b strings.Builder
	line := 0
	probe := func(text string) {
		if g := guardOf(text); g != "" {
			fmt.Fprintf(&b, "#ifdef %s\n#error %s\n#endif\n", g, guardMarker)
			line += 3
		}
	}
	copyLines := func(path, text string, n int) {
		lines := strings.Split(text, "\n")
		if n < 0 {
			n = len(lines)
		}
		dir, unitDir := filepath.Dir(path), filepath.Dir(inc.path)
		for _, ln := range lines[:n] {
			b.WriteString(includeFrom(ln, dir, unitDir) + "\n")
		}
		line += n
	}
	open := 0
	for i, l := range inc.chain {
		if i > 0 {
			probe(l.text)
			if guardOf(l.text) != "" {
				open++
			}
		}
		copyLines(l.path, l.text, l.line)
	}
	probe(text)
	start := line
	copyLines(header, text, -1)
	b.WriteString(strings.Repeat("#endif\n", open))
	return b.String(), start
}

// includeFrom returns ln, a line of a file in dir copied into a unit in
// unitDir, with a quoted #include of a file beside it made absolute (the
// unit would look for it in unitDir).
func includeFrom(ln, dir, unitDir string) string {
	m := quoteIncludeRe.FindStringSubmatchIndex(ln)
	if m == nil || dir == unitDir {
		return ln
	}
	name := ln[m[4]:m[5]]
	if abs := filepath.Join(dir, name); !filepath.IsAbs(name) && exists(abs) {
		return ln[:m[4]] + abs + ln[m[5]:]
	}
	return ln
}

// headerInContext compiles text, the content of header, as inc includes
// it, in an unsaved unit named with tag (units for different contents of
// one header can be compiled at once), and returns the diagnostics on the
// header's lines in the header's own positions. ok is false when the
// header's guard was already defined where inc includes it (nothing of it
// was compiled there).
func (s *server) headerInContext(ctx context.Context, inc *includer, header, text, tag string, limit time.Duration) (ds []Diagnostic, state waitState, ok bool, err error) {
	unit, start := contextUnit(inc, header, text)
	vp := filepath.Join(filepath.Dir(inc.path), contextPrefix+tag+"."+filepath.Base(header)+filepath.Ext(inc.path))
	raw, state, err := s.compileUnsaved(ctx, vp, s.cfg.languageID(inc.path), unit, limit)
	if err != nil {
		return nil, state, false, err
	}
	end := start + strings.Count(text, "\n") + 1
	for _, d := range raw {
		if strings.Contains(d.Message, guardMarker) {
			return nil, state, false, nil
		}
		if mainFileArtifact(d) {
			continue // the unit is the main file; the header never is
		}
		l := d.Range.Start.Line
		if l < start || l >= end {
			if isErrorLimit(d) {
				d.Range = Range{} // clang's limit counts the unit's errors: said at the header's top
				ds = append(ds, d)
			}
			continue
		}
		d.Range.Start.Line -= start
		d.Range.End.Line = max(d.Range.Start.Line, min(d.Range.End.Line-start, end-start-1))
		ds = append(ds, d)
	}
	return ds, state, true, nil
}

// compileUnsaved opens text at path (not on disk) as version 1, waits for
// its diagnostics and closes it. What the server publishes for it is kept
// from the rest (see onPublish, publications).
func (s *server) compileUnsaved(ctx context.Context, path, lang, text string, limit time.Duration) ([]Diagnostic, waitState, error) {
	s.mu.Lock()
	var seq uint64
	if p := s.diags[path]; p != nil {
		seq = p.seq
	}
	s.mu.Unlock()
	uri := fileURI(path)
	err := s.exclusive(ctx, func() error {
		return s.notify("textDocument/didOpen", DidOpenParams{TextDocument: TextDocumentItem{URI: uri, LanguageID: lang, Version: 1, Text: text}})
	})
	if err != nil {
		return nil, settled, fmt.Errorf("opening a unit that includes the header in %s: %w", s.cfg.Name, err)
	}
	ds, state, err := s.diagnosticsSilent(ctx, path, syncResult{version: 1, text: text, changed: true, seq: seq}, limit)
	// Emptied, then closed, whatever the wait gave. clangd keeps a closed
	// file's symbols and references in its index (references to the
	// header's functions then named the unit); an empty version replaces
	// them, and its publication follows the index update.
	s.mu.Lock()
	if p := s.diags[path]; p != nil {
		seq = p.seq
	}
	s.mu.Unlock()
	v := int32(2)
	if s.exclusive(ctx, func() error {
		return s.notify("textDocument/didChange", DidChangeParams{TextDocument: VersionedTextDocumentIdentifier{URI: uri, Version: &v}, ContentChanges: []ContentChange{{Text: ""}}})
	}) == nil {
		s.diagnosticsSilent(ctx, path, syncResult{version: 2, changed: true, seq: seq}, limit)
	}
	s.exclusive(context.WithoutCancel(ctx), func() error {
		return s.notify("textDocument/didClose", DidCloseParams{TextDocument: TextDocumentIdentifier{URI: uri}})
	})
	s.mu.Lock()
	delete(s.diags, path)
	s.mu.Unlock()
	return ds, state, err
}

// contextNote says how a header was checked, for an answer that lists
// its errors.
func contextNote(srv *server, root, header string, inc *includer) string {
	return fmt.Sprintf("%s checked the header %s as %s compiles it (its lines before the #include, then the header)", srv.cfg.Name, displayPath(root, header), inc.via(root))
}

// headerIncluder returns the unit a header is checked through (see
// includerOf), or nil: for a file that is not a header, a server that
// does not compile translation units, or a header no unit includes.
func (s *server) headerIncluder(ctx context.Context, path string) *includer {
	if !s.cfg.DiskIncludes || !isHeader(path) {
		return nil
	}
	return s.includerOf(ctx, path)
}

// run compiles the header's content after the write, and before it when
// that is known, as h.inc includes it, both at once; h.ok says whether
// the check stands (else the header's own diagnostics are the answer).
func (h *headerCheck) run(ctx context.Context, t *checkTarget) {
	var before, after struct {
		ds    []Diagnostic
		state waitState
		ok    bool
		err   error
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if t.baseKnown {
			before.ds, before.state, before.ok, before.err = t.srv.headerInContext(ctx, h.inc, t.path, h.old, "before", t.limit)
		}
	}()
	after.ds, after.state, after.ok, after.err = t.srv.headerInContext(ctx, h.inc, t.path, t.sr.text, "after", t.limit)
	<-done
	h.ok = after.ok && after.err == nil && (!t.baseKnown || before.ok && before.err == nil)
	h.before, h.after = before.ds, after.ds
	h.state = max(before.state, after.state)
}

// This file finds the dependents of a write for diagnostics on write
// (didwrite.go): the names the change touches (from the server's outline
// of the old content), the files that use them or import the written
// file, and their diagnostics before the change (their baselines).

package lspbridge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// addDependents finds the files that use what changed and opens (and
// diagnoses) them while the server still has the old content: that is
// their baseline.
func (w *writeRun) addDependents() {
	s, ctx := w.s, w.ctx
	for _, c := range w.written {
		if !c.t.oldKnown || c.old == c.new {
			continue
		}
		names := s.changedNames(ctx, c.t.srv, c.t.path, c.old, c.new)
		if len(names) > 0 {
			w.changed = namesPattern(w.changed, names)
		}
		// The files that import this one (Python's modules, TS's relative
		// imports, C's headers) depend on it too, whatever changed: a
		// deleted import or a typo changes what its names' types are for
		// them (pyright infers through modules). They come after the files
		// that use a changed name. Go imports packages, not files, and
		// gopls republishes a package's files.
		imports := importPattern(c.t.srv.cfg.languageID(c.t.path), c.t.path)
		if len(names) == 0 && imports == nil {
			continue
		}
		found, more, _ := dependents(ctx, c.t.srv, c.t.path, names, imports, w.byPath)
		indirect := len(found) > 0 && !c.t.srv.cfg.DiagnosesDependents
		if note := dependentsNote(c.t.srv.cfg, displayPath(w.root, c.t.path), names, imports != nil, more, indirect); note != "" {
			w.wc.notes = append(w.wc.notes, note)
		}
		re := blamePattern(names, imports, c.t.srv.cfg.DiskIncludes)
		for _, d := range found {
			t := &checkTarget{srv: c.t.srv, path: d, names: re, opened: c.t.srv.doc(d) == nil}
			w.byPath[d] = t
			w.deps = append(w.deps, t)
		}
	}
	w.addReported()
	w.baselineDependents()
}

// dependentsNote says what a write's check of its dependents left out
// (shown is the written file as the answer names it): the files past the
// cap, and, when indirect, the files that reach the change only through
// a dependent (on node-pty, unixTerminal.test.ts's term.onData(data =>
// …), typed through Terminal, which uses the renamed IEvent), which a
// server that does not diagnose dependents itself never looks at. It is
// "" when nothing was.
func dependentsNote(cfg *ServerConfig, shown string, names []string, imports bool, more int, indirect bool) string {
	how := `lsp diagnostics "*" checks the whole project`
	if len(cfg.Checker) > 0 {
		how += " with " + cfg.Checker[0]
	}
	if more > 0 {
		what, also := strings.Join(names, ", "), ""
		if imports && what == "" {
			what = "import " + shown
		} else if imports {
			also = "; files that import " + shown + " included"
		}
		note := fmt.Sprintf("%d more files mention %s and were not checked (cap %d%s)", more, what, dependentsCap, also)
		if indirect {
			note += ", nor were files that reach them only through other files (" + how + ")"
		}
		return note
	}
	if !indirect {
		return ""
	}
	var what []string
	if len(names) > 0 {
		some := names[:min(len(names), 3)]
		if len(names) > 3 {
			some = append(some, "…")
		}
		what = append(what, "mention "+strings.Join(some, ", "))
	}
	if imports {
		what = append(what, "import "+shown)
	}
	return fmt.Sprintf("only files that %s were checked; files that reach them only through other files were not (%s)", strings.Join(what, " or "), how)
}

// blamePattern matches the lines of a dependent whose errors are the
// write's whatever its baseline said (see collect): the lines naming what
// changed, and on a server reading includes from disk the line including
// the written file (a header's deleted #include breaks its includers
// there, and their before already saw it). It is nil when none are.
func blamePattern(names []string, imports *regexp.Regexp, diskIncludes bool) *regexp.Regexp {
	var blames []string
	if len(names) > 0 {
		blames = append(blames, namesPattern(nil, names).String())
	}
	if imports != nil && diskIncludes {
		blames = append(blames, imports.String())
	}
	if len(blames) == 0 {
		return nil
	}
	return regexp.MustCompile(strings.Join(blames, "|"))
}

// baselineDependents opens the dependents and records their diagnostics
// before the change as their baselines, in parallel.
func (w *writeRun) baselineDependents() {
	s, ctx := w.s, w.ctx
	s.parallel(w.deps, func(t *checkTarget) {
		if _, err := t.srv.sync(ctx, t.path); err != nil {
			return
		}
		ds, err := s.settledDiagnostics(ctx, t.srv, t.path)
		if err == nil || errors.Is(err, errBaseUnsettled) {
			text, _ := t.srv.textOf(t.path)
			s.reg.baseline(t.path, convertDiags(w.root, t.srv.enc, t.path, text, ds))
			t.baseKnown = true
		}
		if err != nil {
			w.noteBase(t.path, err)
		}
	})
}

// changedNames returns the names of the symbols (from the server's
// outline of the old content) whose lines the change touches: what other
// files may use and the change may break.
func (s *Supervisor) changedNames(ctx context.Context, srv *server, path, old, new string) []string {
	if !supported(srv.caps.DocumentSymbolProvider) {
		return nil
	}
	from, to := changedLines(old, new)
	var raw []DocumentSymbol
	if err := srv.call(ctx, "textDocument/documentSymbol", DocumentSymbolParams{TextDocument: TextDocumentIdentifier{URI: fileURI(path)}}, &raw); err != nil {
		return nil
	}
	var names []string
	var walk func(ds []DocumentSymbol, depth int, inType bool, parent string)
	walk = func(ds []DocumentSymbol, depth int, inType bool, parent string) {
		for _, d := range ds {
			r := d.Range
			if r.End.Line < from || r.Start.Line > to {
				continue
			}
			// Top-level symbols and the members of a type: what other
			// files can use. The children of a function or a variable
			// (parameters, locals: pyright lists them) are not, and
			// searching for them (url, val, entry) opens half the tree.
			// A type whose change lies wholly inside its members changed
			// only those: its own name (Cache, for a method of it renamed)
			// would blame every old error on a line that mentions the type.
			own := depth == 0 || inType
			if own && isContainer(d.Kind) && insideChildren(d.Children, from, to) {
				own = false
			}
			if own {
				n := useName(d.Name)
				if inType && isConstructorName(n) {
					// Callers of a constructor write its type's name:
					// Client(cfg), new Client(cfg).
					n = useName(parent)
				}
				if len(n) > 1 && !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
			if depth < 1 {
				walk(d.Children, depth+1, isContainer(d.Kind), d.Name)
			}
		}
	}
	walk(raw, 0, false, "")
	return names
}

// isConstructorName reports whether a member named n is its type's
// constructor in a language whose callers do not write that name: Python's
// __init__ and __new__, JavaScript's and TypeScript's constructor.
func isConstructorName(n string) bool {
	return n == "__init__" || n == "__new__" || n == "constructor"
}

// insideChildren reports whether every line from..to lies inside one of
// children's ranges.
func insideChildren(children []DocumentSymbol, from, to int) bool {
	for l := from; l <= to; l++ {
		in := false
		for _, c := range children {
			if c.Range.Start.Line <= l && l <= c.Range.End.Line {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	return true
}

// isContainer reports whether a symbol of kind k holds members that other
// files use by name: types, modules, namespaces (not functions, whose
// children are parameters and locals).
func isContainer(k int) bool {
	switch symbolKind(k) {
	case "module", "namespace", "package", "class", "interface", "enum", "struct", "object":
		return true
	}
	return false
}

// useName is the name callers write for an outline entry: gopls names a
// method "(*Command).Flags" and a C++ server "Config::load", but a caller
// writes cmd.Flags() or cfg.load(); rust-analyzer's "impl Display for T"
// has no such name at all. It returns the last identifier of the entry's
// name, or "" when the name has none.
func useName(name string) string {
	if i := strings.IndexAny(name, "(<["); i > 0 && !strings.HasPrefix(name, "(") {
		name = name[:i] // foo(int), Vec<T>: the name before its signature
	}
	end := len(name)
	for end > 0 && !isIdentByte(name[end-1]) {
		end--
	}
	start := end
	for start > 0 && isIdentByte(name[start-1]) {
		start--
	}
	if strings.HasPrefix(name, "impl ") || strings.Contains(name[:start], " for ") {
		return ""
	}
	return name[start:end]
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// changedLines returns the 0-based line range of old that new replaced
// (common prefix and suffix lines removed).
func changedLines(old, new string) (from, to int) {
	a, b := splitLines(old), splitLines(new)
	for from < len(a) && from < len(b) && a[from] == b[from] {
		from++
	}
	ea, eb := len(a)-1, len(b)-1
	for ea >= from && eb >= from && a[ea] == b[eb] {
		ea--
		eb--
	}
	return from, max(ea, from)
}

// namesPattern adds names to re, a whole-word pattern of names.
func namesPattern(re *regexp.Regexp, names []string) *regexp.Regexp {
	quoted := make([]string, 0, len(names)+1)
	if re != nil {
		quoted = append(quoted, re.String())
	}
	for _, n := range names {
		quoted = append(quoted, `\b`+regexp.QuoteMeta(n)+`\b`)
	}
	return regexp.MustCompile(strings.Join(quoted, "|"))
}

// importPattern matches a line that imports the file at path, for the
// languages that import files (nil for others: Go imports packages).
func importPattern(lang, path string) *regexp.Regexp {
	base := filepath.Base(path)
	stem := regexp.QuoteMeta(strings.TrimSuffix(base, filepath.Ext(base)))
	switch {
	case lang == "python":
		dir := filepath.Dir(path)
		if stem == "__init__" {
			stem, dir = regexp.QuoteMeta(filepath.Base(dir)), filepath.Dir(dir)
		}
		// import a.json, from a.json import x, and the module taken from
		// its package: from a import json, from . import (log,⏎ json).
		parent := regexp.QuoteMeta(filepath.Base(dir))
		return regexp.MustCompile(`(?m)^\s*(?:from\s+[\w.]*\b` + stem + `\b|import\s+[\w., ]*\b` + stem + `\b)` +
			`|^\s*from\s+(?:[\w.]*\b` + parent + `|\.+)\s+import\s+(?:[\w, ]*|\([^)]*)\b` + stem + `\b`)
	case strings.HasPrefix(lang, "typescript") || strings.HasPrefix(lang, "javascript"):
		dir := ""
		if stem == "index" {
			// A directory's index is imported by the directory's name
			// ('./utils', '../utils/'), or as '.' or '..' from beside it
			// or below it: those two only after from, import or require
			// (x.split('.') imports nothing).
			dir = `|['"][^'"\n]*/` + regexp.QuoteMeta(filepath.Base(filepath.Dir(path))) + `/?['"]` +
				`|(?:\bfrom|\bimport|\brequire)\s*\(?\s*['"]\.\.?/?['"]`
		}
		return regexp.MustCompile(`['"][^'"\n]*/` + stem + `(?:\.[cm]?[jt]sx?)?['"]` + dir)
	case lang == "c" || lang == "cpp":
		return regexp.MustCompile(`(?m)^\s*#\s*include\s*["<][^">\n]*\b` + regexp.QuoteMeta(base) + `[">]`)
	}
	return nil
}

// relImport is a Python import from the importing file's own package or
// one above it (from . import a, from .. import b).
var relImport = regexp.MustCompile(`(?m)^\s*from\s+\.+\s+import\b`)

// importedBy says the file at p, holding data, imports the file at path,
// which imports (importPattern's) matches a line of: or, for a Python
// package's __init__.py, p lies in that package and imports from it
// relatively (from . import curves_to_quadratic, a name the package's
// __init__ gives, where nothing names the package).
func importedBy(path string, imports *regexp.Regexp, p string, data []byte) bool {
	if imports.Match(data) {
		return true
	}
	dir := filepath.Dir(path)
	return filepath.Base(path) == "__init__.py" && strings.HasPrefix(p, dir+string(filepath.Separator)) && relImport.Match(data)
}

// dependents returns up to dependentsCap files of srv's root, handled by
// srv, that mention any of names as a whole word, most mentions first,
// then those that import path (imports, when not nil); not path itself,
// nor the files in skip. more is how many others do.
func dependents(ctx context.Context, srv *server, path string, names []string, imports *regexp.Regexp, skip map[string]*checkTarget) (found []string, more int, re *regexp.Regexp) {
	if len(names) > 0 {
		re = namesPattern(nil, names)
	}
	type hit struct {
		path string
		n    int
	}
	var hits, importers []hit
	walked := 0
	srv.walkSources(func(p string, d fs.DirEntry) error {
		if p == path || skip[p] != nil {
			return nil
		}
		walked++
		if walked > dependentsWalk || ctx.Err() != nil {
			return filepath.SkipAll
		}
		if fi, err := d.Info(); err != nil || fi.Size() > dependentMaxSize {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		if re != nil {
			if n := len(re.FindAllIndex(data, -1)); n > 0 {
				hits = append(hits, hit{p, n})
				return nil
			}
		}
		if imports != nil && importedBy(path, imports, p, data) {
			importers = append(importers, hit{p, 0})
		}
		return nil
	})
	slices.SortStableFunc(hits, func(a, b hit) int { return b.n - a.n })
	hits = append(hits, importers...)
	for i, h := range hits {
		if i < dependentsCap {
			found = append(found, h.path)
		}
	}
	return found, max(0, len(hits)-dependentsCap), re
}

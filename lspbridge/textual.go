// This file checks a rename against a word search of the server's root:
// a server renames only the uses it can resolve, and a mixin's method
// called through self in a class that does not inherit the mixin (PyYAML's
// Parser calling Scanner's peek_token), a dynamic attribute or an
// Object.assign'd property are invisible to it. Their files keep the old
// name, and the code breaks at run time. Uses found in files the rename
// does not touch are named, and the rename is refused unless the call
// says to go ahead.

package lspbridge

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IdentifierFinder returns where name is written as an identifier in the
// file at path, read with the file's grammar so that strings and comments
// do not count: 1-based lines and columns (in characters). ok is false when
// no grammar reads the file; a word search then stands in. cmd/agent-tools
// passes the tree-sitter engine's (package patterns).
type IdentifierFinder func(ctx context.Context, path, name string) (uses []LineCol, ok bool, err error)

// LineCol is a 1-based line and column (in characters).
type LineCol struct{ Line, Col int }

const (
	textualShown   = 10   // uses listed in a refusal or an answer
	textualParsed  = 200  // files handed to the grammar, at most
	textualWalkCap = 5000 // files read by the word search
)

// textualUse is one use of the old name in a file the rename leaves.
type textualUse struct {
	path string // display path
	line int    // 1-based
	text string // the source line, trimmed
}

// textualCheck is what the word search found.
type textualCheck struct {
	name    string
	uses    []textualUse
	files   []string // display paths, in walk order
	byText  []string // files no grammar read: comments and strings counted too
	partial string   // why the search may have missed uses, or ""
}

// places is "path:line" of the first uses, then "…".
func (tc *textualCheck) places(n int) string {
	var out []string
	for _, u := range tc.uses[:min(n, len(tc.uses))] {
		out = append(out, fmt.Sprintf("%s:%d  %s", u.path, u.line, u.text))
	}
	if len(tc.uses) > n {
		out = append(out, fmt.Sprintf("… %d more", len(tc.uses)-n))
	}
	return strings.Join(out, "\n")
}

// dropKnown leaves out the uses the server knows and kept with the old
// name on purpose (k, nil when none): references that go through an
// alias its edits write, which are no uses it cannot see.
func (tc *textualCheck) dropKnown(k *keptName) {
	if k == nil {
		return
	}
	tc.uses = slices.DeleteFunc(tc.uses, func(u textualUse) bool {
		return slices.Contains(k.uses, fmt.Sprintf("%s:%d", u.path, u.line))
	})
	tc.files = slices.DeleteFunc(tc.files, func(f string) bool {
		return !slices.ContainsFunc(tc.uses, func(u textualUse) bool { return u.path == f })
	})
	tc.byText = slices.DeleteFunc(tc.byText, func(f string) bool { return !slices.Contains(tc.files, f) })
}

// summary says how many uses were found, where, and how they were found.
func (tc *textualCheck) summary() string {
	s := fmt.Sprintf("a word search finds %s of %s in %s the rename does not touch (%s)", count(len(tc.uses), "use"), tc.name, count(len(tc.files), "file"), strings.Join(tc.files[:min(5, len(tc.files))], ", "))
	if len(tc.files) > 5 {
		s = strings.TrimSuffix(s, ")") + ", …)"
	}
	if len(tc.byText) > 0 {
		s += fmt.Sprintf("; no grammar read %s, so a mention there may be in a comment or string", strings.Join(tc.byText[:min(3, len(tc.byText))], ", "))
	}
	return s
}

// count is "1 file", "2 files".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// textualUses searches srv's root for name as a whole word in the files
// srv handles that changes does not touch; where the finder's grammar
// reads a file, only its identifier uses count.
func (s *Supervisor) textualUses(ctx context.Context, srv *server, root, name string, changes []fileChange) *textualCheck {
	touched := map[string]bool{}
	for _, c := range changes {
		touched[c.path] = true
	}
	tc := &textualCheck{name: name}
	walked, parsed := 0, 0
	srv.walkSources(func(p string, d fs.DirEntry) error {
		if touched[p] {
			return nil
		}
		if walked++; walked > textualWalkCap {
			tc.partial = fmt.Sprintf("the word search stopped after %d files: uses in the others were not looked for", textualWalkCap)
			return filepath.SkipAll
		}
		if ctx.Err() != nil {
			return filepath.SkipAll
		}
		if fi, err := d.Info(); err != nil || fi.Size() > dependentMaxSize {
			return nil
		}
		if s.addTextualUses(ctx, tc, root, p, name, parsed < textualParsed) {
			parsed++
		}
		return nil
	})
	if s.opts.Identifiers == nil {
		tc.byText = slices.Clone(tc.files)
	}
	return tc
}

// addTextualUses adds name's uses in the file p to tc: the lines where
// the finder's grammar reads an identifier name when parse allows (and a
// finder is set), else where the word occurs. It reports whether the
// finder was asked.
func (s *Supervisor) addTextualUses(ctx context.Context, tc *textualCheck, root, p, name string, parse bool) (parsed bool) {
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	text := string(data)
	lines := wordLines(text, name)
	if len(lines) == 0 {
		return false
	}
	shown := displayPath(root, p)
	if s.opts.Identifiers != nil && parse {
		parsed = true
		uses, ok, err := s.opts.Identifiers(ctx, p, name)
		switch {
		case err == nil && ok:
			lines = lines[:0]
			for _, u := range uses {
				if !slices.Contains(lines, u.Line) {
					lines = append(lines, u.Line)
				}
			}
		case err == nil:
			tc.byText = append(tc.byText, shown)
		}
	} else if s.opts.Identifiers != nil && tc.partial == "" {
		tc.partial = fmt.Sprintf("past %d files the uses are a word search's (comments and strings counted)", textualParsed)
	}
	if len(lines) == 0 {
		return parsed
	}
	src := splitLines(text)
	for _, l := range lines {
		line := ""
		if l-1 < len(src) {
			line = strings.TrimSpace(src[l-1])
		}
		tc.uses = append(tc.uses, textualUse{path: shown, line: l, text: line})
	}
	tc.files = append(tc.files, shown)
	return parsed
}

// wordLines returns the 1-based lines where name occurs as a whole word:
// not preceded or followed by a letter, digit, _ or $.
func wordLines(text, name string) []int {
	var lines []int
	line, from := 1, 0
	for {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return lines
		}
		at := from + i
		line += strings.Count(text[from:at], "\n")
		from = at + len(name)
		prev, _ := utf8.DecodeLastRuneInString(text[:at])
		next, _ := utf8.DecodeRuneInString(text[from:])
		if at > 0 && isWordRune(prev) || from < len(text) && isWordRune(next) {
			continue
		}
		if len(lines) == 0 || lines[len(lines)-1] != line {
			lines = append(lines, line)
		}
	}
}

func isWordRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// renameIsLocal reports whether a rename's edits name a local of one
// function (a variable, a parameter, a nested function): nothing outside
// that function can use it, so there is nothing to search for. It is
// true when every edit lies in one file, inside one function or method
// (or in the doc comment right above it), and the declaration (when the outline lists it) has a function as its
// nearest enclosing entry, not a class (a method of a class defined in a
// function, a mixin factory's, is used from elsewhere).
func (s *Supervisor) renameIsLocal(ctx context.Context, srv *server, changes []fileChange) bool {
	if len(changes) != 1 || !supported(srv.caps.DocumentSymbolProvider) {
		return false
	}
	c := changes[0]
	var outline []DocumentSymbol
	if err := srv.call(ctx, "textDocument/documentSymbol", DocumentSymbolParams{TextDocument: TextDocumentIdentifier{URI: fileURI(c.path)}}, &outline); err != nil {
		return false
	}
	within := func(r Range, p Position) bool { return !before(p, r.Start) && !before(r.End, p) }
	lines := splitLines(c.old)
	// enclosing is the innermost function-like entry containing every
	// edit; decl is the entry whose name is an edit, with its parent.
	var enclosing *DocumentSymbol
	declParent, declFound := "", false
	var walk func(ds []DocumentSymbol, parent string)
	walk = func(ds []DocumentSymbol, parent string) {
		for i := range ds {
			d := &ds[i]
			if d.Location != nil {
				continue // flat SymbolInformation: no nesting to read
			}
			all := true
			for _, r := range c.ranges {
				if !within(d.Range, r.Start) && !inDocComment(lines, r.Start.Line, d.Range.Start.Line) {
					all = false
				}
				if within(d.SelectionRange, r.Start) && !declFound {
					declParent, declFound = parent, true
				}
			}
			kind := symbolKind(d.Kind)
			if all && isFunction(kind) {
				enclosing = d
			}
			walk(d.Children, kind)
		}
	}
	walk(outline, "")
	if enclosing == nil {
		return false
	}
	for _, r := range c.ranges {
		if within(enclosing.SelectionRange, r.Start) {
			return false // the function's own name
		}
	}
	return !declFound || isFunction(declParent)
}

// inDocComment reports whether line (0-based) lies in the comment right
// above a declaration starting on line start: every line from it down to
// the declaration is a comment line (a JSDoc's @param x names the
// parameter, and servers rename it there too).
func inDocComment(lines []string, line, start int) bool {
	if line >= start || start > len(lines) {
		return false
	}
	for _, l := range lines[line:start] {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "*") && !strings.HasPrefix(t, "/*") && !strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

func isFunction(kind string) bool {
	return kind == "function" || kind == "method" || kind == "constructor"
}

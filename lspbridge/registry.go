// This file defines the per-run registry of reported diagnostics that
// keeps diagnostics on write to what is new.

package lspbridge

import (
	"crypto/sha256"
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// diagKey identifies a diagnostic for suppression. Position is left out on
// purpose: a diagnostic that moved down four lines is not new.
type diagKey struct {
	path, severity, message string // not the code: see diagKeyOf
}

// registry remembers, per file and key, the diagnostics present the last
// time the file was reported (their source lines, for picking which copy
// is new). A key whose count grows is new again (a second identical
// "missing return").
type registry struct {
	mu   sync.Mutex                      // guards seen and warned
	seen map[string]map[diagKey][]string // path → key → source lines last observed
	// warned holds, per file, the warnings it has shown at each content
	// it had (sha256 of the text) in this session (see returning).
	warned map[string]map[[32]byte]map[diagKey]bool
}

func newRegistry() *registry {
	return &registry{seen: map[string]map[diagKey][]string{}, warned: map[string]map[[32]byte]map[diagKey]bool{}}
}

// returning records the warnings of ds, path's diagnostics for its
// content text, and reports the ones the file already showed at this
// very content earlier in the session. A warning that comes back while
// the file's own text is as it was is not the write's doing: gopls runs
// its analyzers (S1001 and the like) only on a package that type-checks,
// so a write that breaks a package hides the warnings of its other files
// and the write that mends it shows them again.
func (r *registry) returning(path, text string, ds []Diag) func(Diag) bool {
	h := sha256.Sum256([]byte(text))
	r.mu.Lock()
	defer r.mu.Unlock()
	byText := r.warned[path]
	if byText == nil {
		byText = map[[32]byte]map[diagKey]bool{}
		r.warned[path] = byText
	}
	before := byText[h]
	now := map[diagKey]bool{}
	for _, d := range ds {
		if d.Severity == "warning" {
			now[diagKeyOf(path, d)] = true
		}
	}
	for k := range before {
		now[k] = true
	}
	byText[h] = now
	return func(d Diag) bool { return d.Severity == "warning" && before[diagKeyOf(path, d)] }
}

// normalizeMessage collapses whitespace (pyright's multi-line messages
// indent with non-breaking spaces) so that equal messages key equally.
func normalizeMessage(m string) string {
	return strings.Join(strings.FieldsFunc(m, unicode.IsSpace), " ")
}

// keyMessage is a message as the registry keys it: normalizeMessage, with
// each quoted or parenthesised span that holds Unknown made one
// placeholder. Unknown is pyright's word for what it has not inferred,
// and how far it got depends on the order it evaluated the files in: the
// same error in a file the write did not touch read "Any | list[Unknown]"
// before a write and "Any | list[Any | list[Unknown] | Unknown] | Unknown"
// after it, and an overload error's "Argument types: (Unknown |
// list[Unknown | …])" nested deeper in our server than in the CLI
// (Debian's gast, mutations in another file): both were called new.
//
// A closing suggestion ("… Did you mean 'lastCol'?") is no part of the
// key either: TypeScript adds one when a near name is in scope, and with
// another code (2552 for 2304), so the same missing name read as a new
// error when an edit elsewhere brought a near name in or out of scope
// (sourcemap-codec, a TypeScript mutation test draw). clang's form is
// "; did you mean 'subtree'?", and it stops suggesting after a number of
// corrections in a file: an old "use of undeclared identifier
// 'subtreeq'" got its suggestion back when an edit removed other errors
// above it (go-tree-sitter's query.c, a C mutation test draw).
//
// The notes clangd appends to a message ("\n\nlexer.h:41:6: note:
// previous declaration is here") and its "(fix available)" are no part
// of the key either: a note names a line, which moves with edits above
// it, and a fix comes and goes with the suggestion.
//
// Nor is the build configuration gopls names after a message that another
// view of the package found (" [aix,ppc64]", " [windows]"): it names the
// view, not the finding, and the same finding comes from the host's view
// without it. A write that opened a file the host's build leaves out
// (xid's hostid_fallback.go) made gopls a view for aix/ppc64, whose copy
// of an old warning in id_test.go was called new (a Go mutation test
// draw, seed 1796692433946640178).
func keyMessage(m string) string {
	m = goViewRe.ReplaceAllString(withoutSuggestion(normalizeMessage(withoutNotes(m))), "")
	if !strings.Contains(m, "Unknown") {
		return m
	}
	var b strings.Builder
	for i := 0; i < len(m); {
		end := spanEnd(m, i)
		if end > i && strings.Contains(m[i:end], "Unknown") {
			b.WriteString(m[i:i+1] + "…" + m[end-1:end])
			i = end
			continue
		}
		b.WriteByte(m[i])
		i++
	}
	return b.String()
}

// goViewRe matches the build configuration gopls appends to a message
// found in another view than the host's: its GOOS, its GOARCH or both.
var goViewRe = regexp.MustCompile(` \[(?:(?:aix|android|darwin|dragonfly|freebsd|hurd|illumos|ios|js|linux|netbsd|openbsd|plan9|solaris|wasip1|windows|zos)(?:,[a-z0-9]+)?|386|amd64|arm|arm64|loong64|mips|mips64|mips64le|mipsle|ppc64|ppc64le|riscv64|s390x|wasm)\]$`)

// suggestionRe matches a message's closing suggestion sentence.
var suggestionRe = regexp.MustCompile(`(;\s*|\s+)\b[Dd]id you mean\b[^?]*\?$`)

// noteRe matches the start of the notes clangd appends to a message when
// the client does not take them as related information: "a.c:3:5: note:"
// for a note in the main file, with a line break before "note:" for one
// in another file.
var noteRe = regexp.MustCompile(`\n\n[^\n]*:\d+:\d+:\s(note|error|warning|remark):`)

// withoutNotes cuts the notes clangd appends to m, and its closing
// "(fix available)".
func withoutNotes(m string) string {
	if loc := noteRe.FindStringIndex(m); loc != nil {
		m = m[:loc[0]]
	}
	return strings.TrimSuffix(strings.TrimRight(m, " \n"), " (fix available)")
}

// withoutSuggestion cuts m's closing suggestion, if it has more.
func withoutSuggestion(m string) string {
	if loc := suggestionRe.FindStringIndex(m); loc != nil && loc[0] > 0 {
		return m[:loc[0]]
	}
	return m
}

// diagKeyOf is d's key in the registry: its path, severity and message
// as keyMessage writes it, not its code, which changes with the
// message's suggestion (TypeScript's 2304 "Cannot find name 'x'." is 2552
// with "Did you mean 'y'?") where the error is the same.
func diagKeyOf(path string, d Diag) diagKey {
	return diagKey{path, d.Severity, keyMessage(d.Message)}
}

// spanEnd returns the end (after its closing byte) of the quoted or
// parenthesised span that opens at m[i], or i when none opens there or
// it is not closed.
func spanEnd(m string, i int) int {
	switch m[i] {
	case '"':
		if j := strings.IndexByte(m[i+1:], '"'); j >= 0 {
			return i + 1 + j + 1
		}
	case '(':
		depth := 0
		for j := i; j < len(m); j++ {
			switch m[j] {
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
	}
	return i
}

// observe records the file's current diagnostics and returns the indexes
// of those that are new, and how many were suppressed as already
// reported. When a key's count grew, the new ones are those whose source
// line was not there before, then the first ones in order.
func (r *registry) observe(path string, ds []Diag) (fresh []int, suppressed int) {
	now := map[diagKey][]string{}
	keys := make([]diagKey, len(ds))
	for i, d := range ds {
		keys[i] = diagKeyOf(path, d)
		now[keys[i]] = append(now[keys[i]], d.Text)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	prev := r.seen[path]
	isNew := make([]bool, len(ds))
	for k, texts := range now {
		budget := len(texts) - len(prev[k])
		if budget <= 0 {
			continue
		}
		old := map[string]int{}
		for _, t := range prev[k] {
			old[t]++
		}
		var rest []int
		for i := range ds {
			if keys[i] != k {
				continue
			}
			if old[ds[i].Text] > 0 {
				old[ds[i].Text]--
				rest = append(rest, i)
			} else if budget > 0 {
				isNew[i] = true
				budget--
			}
		}
		for _, i := range rest {
			if budget == 0 {
				break
			}
			isNew[i] = true
			budget--
		}
	}
	for i := range ds {
		if isNew[i] {
			fresh = append(fresh, i)
		} else {
			suppressed++
		}
	}
	r.seen[path] = now
	return fresh, suppressed
}

// baseline records ds as the file's state before a write: what is there
// already is not new afterwards.
func (r *registry) baseline(path string, ds []Diag) {
	ds, _ = errorsAndWarnings(ds)
	r.observe(path, ds)
}

// known reports whether path's diagnostics were recorded before.
func (r *registry) known(path string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.seen[path]
	return ok
}

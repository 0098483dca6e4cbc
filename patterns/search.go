// This file searches a workspace: it confines paths to the root, walks
// files honouring .gitignore, compiles the pattern once per language,
// skips files whose text lacks the pattern's literal tokens, and parses
// and matches the rest in parallel, one parser per worker — parsing and
// flattening only the parts around the rarest literal where it can
// (parseFor).

package patterns

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/agent-tools/agent-tools/internal/workspace"
)

// DefaultMaxFileBytes is the size above which files are not searched.
const DefaultMaxFileBytes = 4 << 20

// SearchOptions say where and how to search.
type SearchOptions struct {
	Path     string // file or directory, relative to the root or absolute inside it; "" is the root
	Language string // a language id or alias; "" infers it
	CompileOptions
	MaxFileBytes int64 // 0 means DefaultMaxFileBytes
	KeepSource   bool  // keep matched files' sources (rewrites need them)
	Workers      int   // 0 means one a core (cores)
	// MaxMatches, when positive, stops the search once that many matches
	// are found (no new file is started); the result is then Partial.
	MaxMatches int
	// MaxListed, when positive, is how many matches of each file get
	// their positions, text and captures; the rest are only counted
	// (FileMatches.Count), so a search's cost does not grow with
	// matches nobody reads. 0 details every match (rewrites need them).
	MaxListed int
	// Progress, if set, is called now and then with files done and total.
	Progress func(done, total int)
}

// Position is 1-based; Column counts characters.
type Position struct {
	Line   int `json:"line" jsonschema_description:"1-based line"`
	Column int `json:"column" jsonschema_description:"1-based column, in characters"`
}

// Found is one match with what a reader needs.
type Found struct {
	Span
	From, To Position
	Text     string // the match's first line
	Captured []NamedText
}

// NamedText is a capture's text.
type NamedText struct {
	Name string `json:"name" jsonschema_description:"metavariable name, without $"`
	Text string `json:"text" jsonschema_description:"captured source text"`
}

// FileMatches are the matches in one file.
type FileMatches struct {
	Path    string // slash-separated, relative to the root
	Abs     string
	Lang    *Language
	Src     []byte // only with KeepSource
	Matches []Found
	// Count is how many matches the file has: len(Matches), or more
	// when SearchOptions.MaxListed cut the detail.
	Count int
}

// SearchResult is a search's outcome.
type SearchResult struct {
	Patterns []*Pattern // one per language searched, by language id
	Rules    []*Rule    // for SearchRule instead: one per language, by id
	Skipped  []string   // languages present but skipped: "lang: why"
	// Deps are the node_modules directories under the searched path that
	// were not searched (root-relative; those .gitignore leaves out are
	// not listed).
	Deps []string
	// TooLarge are the files left out for being over MaxFileBytes.
	TooLarge []TooLargeFile
	// Unparsed are the files whose parse failed or was stopped at its
	// budget (a grammar that loops on them): not searched, in path order.
	Unparsed []UnparsedFile
	// NotText are the files that hold every literal of what was sought
	// but are not UTF-8 text (a Latin-1 comment, a NUL): not searched, in
	// path order, and not counted in Searched.
	NotText []string
	// MaxFileBytes is the size limit the search applied.
	MaxFileBytes int64
	Files        []FileMatches // files with matches, in path order
	Searched     int           // files whose language was searched
	Total        int           // matches
	// Partial says the search stopped at MaxMatches: Total is a lower
	// bound and Files cover only the files searched.
	Partial bool
}

// Search finds pattern under root.
func Search(ctx context.Context, root, pattern string, opts SearchOptions) (*SearchResult, error) {
	res, compiled, err := search(ctx, root, opts, lookFor{
		compile: func(l *Language) (finder, error) { return Compile(l, pattern, opts.CompileOptions) },
		none:    "the pattern does not parse in any language",
	})
	if err != nil {
		return nil, err
	}
	for _, l := range sortedLangs(compiled) {
		res.Patterns = append(res.Patterns, compiled[l].(*Pattern))
	}
	return res, nil
}

// A finder is what a search looks for in one language, compiled: a
// *Pattern or a *Rule.
type finder interface {
	// prefilter returns the language and the literals every match needs
	// in a file's code (see searchFile).
	prefilter() (*Language, []literal)
	// findIn parses src with p and returns the matches; stopped says the
	// search was cancelled. An error is a parse that failed (or was
	// stopped at its budget): the file was not searched.
	findIn(p *parser, src []byte, stopped func() bool) ([]Span, error)
}

func (pat *Pattern) prefilter() (*Language, []literal) { return pat.Lang, pat.literals }

// findIn parses only what pat needs parsed (see parseFor).
func (pat *Pattern) findIn(p *parser, src []byte, _ func() bool) ([]Span, error) {
	tree, err := p.parseFor(pat, src)
	if err != nil {
		return nil, err
	}
	return pat.Find(tree), nil
}

// lookFor says what one search looks for.
type lookFor struct {
	compile func(l *Language) (finder, error)
	// none begins the error when it compiles in no language found
	// ("the pattern does not parse in any language").
	none string
	// prefixFails puts each language's id before its reason in that
	// error (where its errors do not name it).
	prefixFails bool
}

// search is Search and SearchRule: it lists the files under opts.Path,
// compiles what q looks for in each language present (or the forced
// one), leaves out the files of languages it does not compile in and
// those too large, and searches the rest in parallel. It returns the
// compiled finders by language; the caller lists them in the result.
func search(ctx context.Context, root string, opts SearchOptions, q lookFor) (*SearchResult, map[*Language]finder, error) {
	var forced *Language
	if opts.Language != "" {
		var err error
		if forced, err = LanguageByName(opts.Language); err != nil {
			return nil, nil, err
		}
	}
	files, where, deps, err := listFiles(root, opts.Path, forced)
	if err != nil {
		return nil, nil, err
	}
	res := &SearchResult{Deps: deps}
	compiled, err := compileFor(res, files, forced, where, q)
	if err != nil {
		return nil, nil, err
	}
	kept := files[:0]
	for _, f := range files {
		if compiled[f.lang] != nil {
			kept = append(kept, f)
		}
	}
	files = dropTooLarge(res, kept, opts.MaxFileBytes)
	res.Searched = len(files)
	source := map[*Language]int64{}
	for _, f := range files {
		source[f.lang] += f.size
	}
	for l, n := range source {
		l.densify(n)
	}
	results, notText, unparsed, partial, err := searchFiles(ctx, files, compiled, opts)
	if err != nil {
		return nil, nil, err
	}
	res.Partial = partial
	res.NotText, res.Unparsed = notText, unparsed
	res.Searched -= len(res.NotText)
	for _, fm := range results {
		if fm != nil && fm.Count > 0 {
			res.Files = append(res.Files, *fm)
			res.Total += fm.Count
		}
	}
	return res, compiled, nil
}

// UnparsedFile is a file not searched because its parse did not finish.
type UnparsedFile struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// TooLargeFile is a file not searched because of its size.
type TooLargeFile struct {
	Path string `json:"path" jsonschema_description:"file, relative to the workspace root"`
	Size int64  `json:"size" jsonschema_description:"its size in bytes"`
}

// dropTooLarge removes from files those over the size limit (maxBytes, 0
// for the default), noting them in res.TooLarge and the limit in
// res.MaxFileBytes.
func dropTooLarge(res *SearchResult, files []searchedFile, maxBytes int64) []searchedFile {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFileBytes
	}
	res.MaxFileBytes = maxBytes
	kept := files[:0]
	for _, f := range files {
		if f.size > maxBytes {
			res.TooLarge = append(res.TooLarge, TooLargeFile{Path: f.rel, Size: f.size})
			continue
		}
		kept = append(kept, f)
	}
	return kept
}

// searchedFile is a file to search, with its language.
type searchedFile struct {
	abs, rel string
	lang     *Language
	size     int64 // from the walk; 0 when unknown
}

// listFiles resolves path under root and lists the files to search: the
// file itself, or those of the workspace walk below the directory whose
// language is known (forced, when not nil, keeps only that language's).
// where is the path relative to the root, for messages.
func listFiles(root, path string, forced *Language) (files []searchedFile, where string, deps []string, err error) {
	abs, rel, isDir, err := resolvePath(root, path)
	if err != nil {
		return nil, "", nil, err
	}
	if !isDir {
		lang := forced
		if lang == nil {
			if lang = LanguageForPath(abs); lang == nil {
				return nil, "", nil, fmt.Errorf("cannot tell the language of %s from its extension: pass language", rel)
			}
		}
		var size int64
		if info, err := os.Stat(abs); err == nil {
			size = info.Size()
		}
		return []searchedFile{{abs, rel, lang, size}}, rel, nil, nil
	}
	realRoot, _ := filepath.EvalSymlinks(root)
	workspace.WalkReporting(realRoot, abs, func(a, r string, e fs.DirEntry) error {
		if e.IsDir() {
			return nil
		}
		l := LanguageForPath(a)
		if l != nil && (forced == nil || l == forced) {
			var size int64
			if info, err := e.Info(); err == nil {
				size = info.Size()
			}
			files = append(files, searchedFile{a, r, l, size})
		}
		return nil
	}, func(r string) { deps = append(deps, r) })
	return files, rel, deps, nil
}

// compileFor compiles what q looks for in the forced language, or in
// each language present among files; a language it does not compile in
// is skipped and noted in res.Skipped, unless none compiles at all.
func compileFor(res *SearchResult, files []searchedFile, forced *Language, where string, q lookFor) (map[*Language]finder, error) {
	compiled := map[*Language]finder{}
	if forced != nil {
		f, err := q.compile(forced)
		if err != nil {
			return nil, err
		}
		compiled[forced] = f
		return compiled, nil
	}
	present := map[*Language]bool{}
	for _, f := range files {
		present[f.lang] = true
	}
	var fails []string
	for _, id := range sortedIDs(present) {
		l, _ := LanguageByName(id)
		f, err := q.compile(l)
		if err != nil {
			why := err.Error()
			if q.prefixFails {
				why = l.ID + ": " + why
			}
			fails = append(fails, why)
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s (%d files): %v", id, count(files, func(f searchedFile) bool { return f.lang == l }), err))
			continue
		}
		compiled[l] = f
	}
	if len(present) > 0 && len(compiled) == 0 {
		return nil, fmt.Errorf("%s found under %s: %s", q.none, displayPath(where), strings.Join(fails, " | "))
	}
	return compiled, nil
}

// cores is how many parsers run at once by default: GOMAXPROCS as the
// package is loaded, before cmd/agent-tools's main adds the spare P it
// runs with (see there).
var cores = runtime.GOMAXPROCS(0)

// searchFiles searches files in parallel (opts.Workers parsers, largest
// files first so no worker is left with a big one at the end) with the
// finder of each file's language, and returns each file's matches in
// files' order. partial says the search stopped at opts.MaxMatches with
// files left unsearched.
func searchFiles(ctx context.Context, files []searchedFile, compiled map[*Language]finder, opts SearchOptions) (results []*FileMatches, notText []string, unparsed []UnparsedFile, partial bool, err error) {
	maxBytes := opts.MaxFileBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFileBytes
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = cores
	}
	stopped := func() bool { return ctx.Err() != nil }
	results = make([]*FileMatches, len(files))
	failed := make([]error, len(files))
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return files[order[a]].size > files[order[b]].size })
	var next, done, found atomic.Int64
	var progressMu sync.Mutex // serialises Progress calls
	var wg sync.WaitGroup
	for range min(workers, max(len(files), 1)) {
		wg.Go(func() {
			p := newParser()
			defer p.close()
			for {
				if opts.MaxMatches > 0 && found.Load() >= int64(opts.MaxMatches) {
					return
				}
				k := int(next.Add(1) - 1)
				if k >= len(files) || ctx.Err() != nil {
					return
				}
				i := order[k]
				f := files[i]
				results[i], failed[i] = searchFile(p, compiled[f.lang], f.abs, f.rel, maxBytes, opts.KeepSource, opts.MaxListed, stopped)
				if results[i] != nil {
					found.Add(int64(results[i].Count))
				}
				if d := done.Add(1); opts.Progress != nil && (d%256 == 0 || int(d) == len(files)) {
					progressMu.Lock()
					opts.Progress(int(d), len(files))
					progressMu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, false, err
	}
	for i, err := range failed { // files are in path order
		switch {
		case errors.Is(err, errNotText):
			notText = append(notText, files[i].rel)
		case err != nil:
			unparsed = append(unparsed, UnparsedFile{Path: files[i].rel, Why: err.Error()})
		}
	}
	partial = opts.MaxMatches > 0 && found.Load() >= int64(opts.MaxMatches) && int(next.Load()) < len(files)
	return results, notText, unparsed, partial, nil
}

func count[T any](xs []T, f func(T) bool) int {
	n := 0
	for _, x := range xs {
		if f(x) {
			n++
		}
	}
	return n
}

// sortedLangs returns m's languages by id.
func sortedLangs[V any](m map[*Language]V) []*Language {
	ls := make([]*Language, 0, len(m))
	for l := range m {
		ls = append(ls, l)
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].ID < ls[j].ID })
	return ls
}

func displayPath(rel string) string {
	if rel == "." || rel == "" {
		return "the workspace root"
	}
	return rel
}

// searchFile reads, filters, parses and matches one file; nil when it was
// skipped or has no match, and the error of a parse that did not finish.
func searchFile(p *parser, f finder, abs, rel string, maxBytes int64, keep bool, listed int, stopped func() bool) (*FileMatches, error) {
	src, ok := p.read(abs, maxBytes)
	if !ok {
		return nil, nil
	}
	defer p.trim()
	lang, lits := f.prefilter()
	if !isText(src) {
		if holdsAll(src, lits) {
			return nil, errNotText
		}
		return nil, nil
	}
	if !inCodeAll(lang, src, lits) {
		return nil, nil
	}
	spans, err := f.findIn(p, src, stopped)
	if err != nil {
		return nil, err
	}
	return fileMatches(lang, abs, rel, src, spans, keep, listed), nil
}

// inCodeAll says src holds every literal a match needs, in code.
func inCodeAll(lang *Language, src []byte, literals []literal) bool {
	for _, lit := range literals {
		if !lit.inCode(lang, src) {
			return false
		}
	}
	return true
}

// isText says src is text tree-sitter reads: UTF-8, with no NUL in its
// first 8,000 bytes (a binary file).
func isText(src []byte) bool {
	return bytes.IndexByte(src[:min(len(src), 8000)], 0) < 0 && utf8.Valid(src)
}

// holdsAll says every literal occurs in src, in code or not.
func holdsAll(src []byte, literals []literal) bool {
	for _, l := range literals {
		if !l.in(src) {
			return false
		}
	}
	return true
}

// errNotText is searchFile's answer for a file that is not UTF-8 text but
// holds what a match needs: tree-sitter reads UTF-8, and the file is
// listed as not searched (ast-grep skips such files without a word).
var errNotText = errors.New("not UTF-8 text")

// fileMatches makes one file's result from its match spans; nil for none.
// Only the first listed spans (all when listed is 0) get positions, text
// and captures; each costs time bounded by its own text, not by its
// line's length.
func fileMatches(lang *Language, abs, rel string, src []byte, spans []Span, keep bool, listed int) *FileMatches {
	if len(spans) == 0 {
		return nil
	}
	fm := &FileMatches{Path: rel, Abs: abs, Lang: lang, Count: len(spans)}
	if keep {
		fm.Src = bytes.Clone(src)
	}
	if listed > 0 && listed < len(spans) {
		spans = spans[:listed]
	}
	lines := newLineIndex(src)
	fm.Matches = make([]Found, len(spans))
	for i, s := range spans {
		f := Found{Span: s, From: lines.pos(s.Start), To: lines.pos(s.End), Text: firstLine(src[s.Start:s.End])}
		for _, c := range s.Captures {
			f.Captured = append(f.Captured, NamedText{Name: c.Name, Text: clipBytes(src[c.Start:c.End], 1000)})
		}
		fm.Matches[i] = f
	}
	return fm
}

// parseFor parses src for matching pat. When pat allows it, only the
// subtrees around the occurrences of its rarest literal are flattened
// (every match holds a token with that literal's text), and in Python
// only the statements holding one of its whole-word occurrences are
// parsed (a token glued to a name, as A in xA, is a syntax error, and
// a file whose statements parse without error is read the same).
func (p *parser) parseFor(pat *Pattern, src []byte) (*Tree, error) {
	if pat.rootSyms == nil {
		return p.parse(pat.Lang, src, false)
	}
	best, rarest := -1, literal{} // best: which of p.offs holds the fewest offsets so far
	for _, lit := range pat.literals {
		slot, limit := 0, -1
		if best >= 0 {
			slot, limit = 1-best, len(p.offs[best])
		}
		p.offs[slot] = lit.occurrences(src, p.offs[slot][:0], limit, true)
		if best < 0 || len(p.offs[slot]) < len(p.offs[best]) {
			best, rarest = slot, lit
		}
	}
	stmtOffs := p.offs[best]
	if lx := lexers[pat.Lang.ID]; lx != nil && rarest.code {
		// A part whose occurrences all lie in comments or strings cannot
		// hold a match: headers and docstrings are full of parentheses.
		p.codeOffs = lx.inCodeOnly(src, stmtOffs, p.codeOffs[:0])
		if len(p.codeOffs) == 0 {
			return &Tree{Lang: pat.Lang, Src: src}, nil
		}
		stmtOffs = p.codeOffs
	}
	nb := &p.near
	*nb = nearby{roots: pat.rootSyms, depth: pat.depth, offs: p.offs[best], stmtOffs: stmtOffs, nest: pat.nestBlind,
		directive: pat.lineDirective}
	if pat.Lang.ID == "c" && splitsConditional(pat) {
		nb.stmtOffs = nil
	}
	if rarest.word {
		p.offs[2] = rarest.occurrences(src, p.offs[2][:0], -1, false)
		nb.offs = p.offs[2]
	}
	return p.parseNear(pat.Lang, src, nb)
}

// read reads a file into the parser's reusable buffer (valid until the
// next read); false for unreadable, empty or too large files.
func (p *parser) read(path string, maxBytes int64) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.Size() == 0 || info.Size() > maxBytes {
		return nil, false
	}
	n := int(info.Size())
	if cap(p.src) < n {
		p.src = make([]byte, n+n/4)
	}
	got, err := io.ReadFull(f, p.src[:n])
	if err != nil && got == 0 {
		return nil, false
	}
	return p.src[:got], true
}

// trim drops buffers grown for an unusually large file.
func (p *parser) trim() {
	if cap(p.buf) > 1<<20 {
		p.buf = nil
	}
	if cap(p.src) > 4<<20 {
		p.src = nil
	}
	if cap(p.blank) > 4<<20 {
		p.blank = nil
	}
}

// lineIndex maps byte offsets to positions in time independent of the
// line's length: runes holds, every runeStep bytes, the number of runes
// before that offset, so a column counts at most runeStep bytes.
type lineIndex struct {
	src    []byte
	starts []int
	runes  []uint32 // built on first use
}

const runeStep = 64

func newLineIndex(src []byte) *lineIndex {
	starts := []int{0}
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{src: src, starts: starts}
}

// runesBefore is the number of runes in src[:o].
func (l *lineIndex) runesBefore(o int) int {
	if l.runes == nil {
		l.runes = make([]uint32, len(l.src)/runeStep+1)
		n := 0
		for k := 1; k < len(l.runes); k++ {
			n += runeStarts(l.src[(k-1)*runeStep : k*runeStep])
			l.runes[k] = uint32(n)
		}
	}
	k := o / runeStep
	return int(l.runes[k]) + runeStarts(l.src[k*runeStep:o])
}

// runeStarts counts the bytes of b that start a rune: its runes, for
// valid UTF-8 (which searched files are), wherever b was cut.
func runeStarts(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

func (l *lineIndex) pos(off uint32) Position {
	o := int(off)
	line := sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > o }) - 1
	start := l.starts[line]
	if o-start <= runeStep {
		return Position{Line: line + 1, Column: utf8.RuneCount(l.src[start:o]) + 1}
	}
	return Position{Line: line + 1, Column: l.runesBefore(o) - l.runesBefore(start) + 1}
}

// maxLineText is the most bytes of a match's first line that firstLine
// reads: enough for its 160 bytes and the cut mark.
const maxLineText = 4 * 160

// firstLine is b's first line, trailing blanks trimmed, clipped to 160
// bytes; it reads at most maxLineText bytes of b.
func firstLine(b []byte) string {
	cut := len(b) > maxLineText
	if cut {
		b = b[:maxLineText]
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b, cut = b[:i], false
	}
	if !cut {
		b = bytes.TrimRight(b, " \t\r")
	}
	return clipBytes(b, 160)
}

// clipBytes is clip for a byte slice, copying at most n bytes.
func clipBytes(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…"
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// resolvePath confines p to root through workspace.Resolve ("" is the
// root) and says whether it is a directory; it must exist.
func resolvePath(root, p string) (abs, rel string, isDir bool, err error) {
	if p == "" {
		p = "."
	}
	abs, rel, err = workspace.Resolve(root, p)
	if err != nil {
		return "", "", false, err
	}
	info, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return "", "", false, fmt.Errorf("path %q does not exist under the workspace root", p)
	}
	if err != nil {
		return "", "", false, fmt.Errorf("path %q: %w", p, err)
	}
	return abs, rel, info.IsDir(), nil
}

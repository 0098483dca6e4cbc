package lspdiff

// Corpora and positions: a project drawn from the code this machine has,
// copied twice (one copy for lspbridge, one for the raw server, so that
// neither server's caches or indexes are the other's), and identifier
// positions drawn in it.

import (
	"context"
	"encoding/json"
	"fmt"
	"go/scanner"
	"go/token"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	corpora "github.com/agent-tools/agent-tools/internal/corpus"
	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/patterns"
)

// corpus is a drawn project: its two copies and the files positions are
// drawn from (relative, slash-separated).
type corpus struct {
	name      string // what was drawn, for the log
	ours, raw string // canonical roots
	files     []string
}

// copyFiles copies the files of src that keep accepts into dst, writable
// (the module cache's are read-only).
func copyFiles(t *testing.T, src, dst string, keep func(rel string) bool) {
	t.Helper()
	for _, rel := range corpora.Files(src, keep) {
		data, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func canonicalTemp(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// twoCopies copies src (the files keep accepts) into two fresh roots,
// each under sub, and runs extra on each root.
func twoCopies(t *testing.T, name, src, sub string, keep func(string) bool, extra func(root string)) *corpus {
	c := &corpus{name: name, ours: canonicalTemp(t), raw: canonicalTemp(t)}
	for _, root := range []string{c.ours, c.raw} {
		copyFiles(t, src, filepath.Join(root, sub), keep)
		if extra != nil {
			extra(root)
		}
	}
	return c
}

// goCorpus draws a module of the module cache with 3 to 200 Go files
// that builds offline: copied with its go.mod and go.sum, `go list` must
// find every package it needs in the cache (GOPROXY=off, set by the
// test). Up to 8 are tried.
func goCorpus(t *testing.T, rng *rand.Rand) (*corpus, string) {
	cache, _ := corpora.GoModCache()
	if cache == "" {
		return nil, "go env GOMODCACHE gave nothing"
	}
	cands := corpora.GoModules(cache, func(_ string, n int) bool { return n >= 3 && n <= 200 })
	slices.Sort(cands)
	if len(cands) == 0 {
		return nil, "no module with 3 to 200 Go files in " + cache
	}
	rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	var tried []string
	for _, src := range cands[:min(8, len(cands))] {
		mod := strings.TrimPrefix(src, cache+"/")
		c := twoCopies(t, fmt.Sprintf("%s (of %d modules)", mod, len(cands)), src, ".", func(rel string) bool {
			return filepath.Ext(rel) == ".go" || rel == "go.mod" || rel == "go.sum"
		}, nil)
		r, err := proc.Output(context.Background(), proc.Spec{Path: "go", Args: []string{"list", "./..."}, Dir: c.ours}, 2*time.Minute, 1<<20)
		if err != nil {
			tried = append(tried, mod+": "+lastLine(r.Stderr))
			continue
		}
		c.files = corpora.Files(c.ours, func(rel string) bool { return filepath.Ext(rel) == ".go" && !strings.Contains(rel, "testdata/") })
		return c, ""
	}
	return nil, "no drawn module builds offline: " + strings.Join(tried, "; ")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// pythonCorpus draws a pure-Python package of Debian's dist-packages with
// 4 to 40 modules, as a project of its own.
func pythonCorpus(t *testing.T, rng *rand.Rand) (*corpus, string) {
	const dist = corpora.DebianPython
	cands, err := corpora.PythonPackages(dist, 4, 40)
	if err != nil {
		return nil, err.Error()
	}
	if len(cands) == 0 {
		return nil, "no pure-Python package in " + dist
	}
	src := cands[rng.IntN(len(cands))]
	name := fmt.Sprintf("%s (of %d packages)", filepath.Base(src), len(cands))
	c := twoCopies(t, name, src, filepath.Base(src), corpora.Ext(".py"), func(root string) {
		writeFile(t, filepath.Join(root, "pyproject.toml"), "[project]\nname = \"diff\"\nversion = \"0\"\n")
	})
	c.files = corpora.Files(c.ours, corpora.Ext(".py"))
	return c, ""
}

// tsCorpus draws the src/ of an npm package (global, or the project's
// own third_party/npm) that ships 5 to 150 TypeScript sources, with a
// tsconfig over them.
func tsCorpus(t *testing.T, rng *rand.Rand) (*corpus, string) {
	var tops []string
	if global, err := corpora.NPMGlobalRoot(); err == nil {
		tops = append(tops, global)
	}
	if d, err := filepath.Abs("../../third_party/npm/node_modules"); err == nil {
		tops = append(tops, d)
	}
	for i := range tops {
		tops[i], _ = filepath.EvalSymlinks(tops[i])
	}
	cands := corpora.NPMSources(tops, 5, 150)
	if len(cands) == 0 {
		return nil, "no npm package with TypeScript sources in " + strings.Join(tops, ", ")
	}
	src := cands[rng.IntN(len(cands))]
	name := fmt.Sprintf("%s (of %d packages)", filepath.Base(filepath.Dir(src)), len(cands))
	c := twoCopies(t, name, src, "src", corpora.TSSource, func(root string) {
		writeFile(t, filepath.Join(root, "tsconfig.json"), corpora.TSConfig)
	})
	c.files = corpora.Files(c.ours, corpora.Ext(".ts"))
	return c, ""
}

// cCorpus draws a directory of 3 to 30 C sources vendored in a Go module
// and copies the tree around it (.c and .h files up to 300 KB) with a
// compile_flags.txt naming every header directory. The raw copy also gets
// the compile_commands.json such a project would have (clangd's
// background index covers only what a database lists); lspbridge makes
// its own from compile_flags.txt.
func cCorpus(t *testing.T, rng *rand.Rand) (*corpus, string) {
	cache, _ := corpora.GoModCache()
	if cache == "" {
		return nil, "go env GOMODCACHE gave nothing"
	}
	cands := corpora.CDirs(cache, 3, 30)
	if len(cands) == 0 {
		return nil, "no directory of C sources in " + cache
	}
	dir := cands[rng.IntN(len(cands))]
	src := filepath.Dir(dir)
	small := corpora.SmallC(src)
	keep := func(rel string) bool { return strings.Count(rel, "/") <= 3 && small(rel) }
	name := fmt.Sprintf("%s (of %d directories)", strings.TrimPrefix(dir, cache+"/"), len(cands))
	c := twoCopies(t, name, src, ".", keep, nil)
	flags := corpora.CFlags(c.ours)
	for _, root := range []string{c.ours, c.raw} {
		writeFile(t, filepath.Join(root, "compile_flags.txt"), strings.Join(flags, "\n")+"\n")
	}
	type command struct {
		Directory string   `json:"directory"`
		File      string   `json:"file"`
		Arguments []string `json:"arguments"`
	}
	var db []command
	for _, f := range corpora.Files(c.raw, corpora.Ext(".c")) {
		// -ferror-limit=0: lspbridge hands its clangd that flag (its
		// config.yaml), so that an error past clang's default 20 is still
		// seen; without it clang stops at the 20th error and what follows
		// in the file holds no reference (seed 1796603105439718597: only
		// ours had next at malloc.c:522, whose includes of musl's own
		// headers are missing). The raw server compiles the same command
		// line.
		argv := append(append([]string{"cc"}, flags...), "-ferror-limit=0", "-c", filepath.Join(c.raw, f))
		db = append(db, command{c.raw, filepath.Join(c.raw, f), argv})
	}
	data, _ := json.MarshalIndent(db, "", " ")
	writeFile(t, filepath.Join(c.raw, "compile_commands.json"), string(data))
	rel, _ := filepath.Rel(src, dir)
	c.files = corpora.Files(c.ours, func(f string) bool {
		return strings.HasPrefix(f, filepath.ToSlash(rel)+"/") && (filepath.Ext(f) == ".c" || filepath.Ext(f) == ".h")
	})
	return c, ""
}

// spot is a drawn position: an identifier at line:col (1-based; col in
// runes) of file, and its occurrence among the same name on the line as
// lspbridge counts them.
type spot struct {
	file       string
	line, col  int
	name       string
	occurrence int
}

func (p spot) String() string {
	return fmt.Sprintf("%s:%d:%d %s (occurrence %d)", p.file, p.line, p.col, p.name, p.occurrence)
}

// identifiers lists the identifiers of a file: go/scanner's for Go,
// else the tree-sitter nodes of the given kinds (through patterns).
func identifiers(t *testing.T, root, rel string, kinds []string) []spot {
	src, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	var out []spot
	add := func(line, col int) {
		if line < 1 || line > len(lines) {
			return
		}
		l := strings.TrimSuffix(lines[line-1], "\r")
		start := byteOfRune(l, col-1)
		end := start
		for end < len(l) {
			r, n := utf8.DecodeRuneInString(l[end:])
			if !isIdent(r) {
				break
			}
			end += n
		}
		name := l[start:end]
		if name == "" || name == "_" || unicode.IsDigit([]rune(name)[0]) {
			return
		}
		out = append(out, spot{file: rel, line: line, col: col, name: name, occurrence: occurrenceOf(l, start, name)})
	}
	if filepath.Ext(rel) == ".go" {
		fset := token.NewFileSet()
		f := fset.AddFile(rel, -1, len(src))
		var s scanner.Scanner
		s.Init(f, src, nil, 0)
		for {
			pos, tok, _ := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.IDENT {
				p := fset.Position(pos)
				add(p.Line, utf8.RuneCountInString(lineOf(lines, p.Line)[:p.Column-1])+1)
			}
		}
		return out
	}
	var anyOf []string
	for _, k := range kinds {
		anyOf = append(anyOf, fmt.Sprintf(`{"kind": %q}`, k))
	}
	spec, err := patterns.ParseRule(json.RawMessage(`{"any": [`+strings.Join(anyOf, ",")+`]}`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	lang := patterns.LanguageForPath(rel)
	res, err := patterns.SearchRule(context.Background(), root, spec, patterns.SearchOptions{Path: rel, Language: lang.ID, Workers: 1})
	if err != nil {
		t.Fatalf("identifiers of %s: %v", rel, err)
	}
	for _, fm := range res.Files {
		for _, m := range fm.Matches {
			add(m.From.Line, m.From.Column)
		}
	}
	return out
}

func lineOf(lines []string, n int) string {
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}

// isIdent and boundary say what lspbridge's locate takes for a name on
// a line (its position.go), so that occurrence picks the same one.
func isIdent(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func boundary(src string, start, end int) bool {
	if r, _ := utf8.DecodeLastRuneInString(src[:start]); start > 0 && isIdent(r) {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(src[end:]); end < len(src) && isIdent(r) {
		return false
	}
	return true
}

// occurrenceOf is the 1-based index of the name at byte start among its
// whole-name occurrences on line.
func occurrenceOf(line string, start int, name string) int {
	n := 1
	for i := 0; i < start; {
		j := strings.Index(line[i:start], name)
		if j < 0 {
			break
		}
		if boundary(line, i+j, i+j+len(name)) {
			n++
		}
		i += j + 1
	}
	return n
}

// drawSpots draws up to n positions from up to nfiles random files.
func drawSpots(t *testing.T, rng *rand.Rand, c *corpus, kinds []string, nfiles, n int) []spot {
	files := slices.Clone(c.files)
	rng.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	var all []spot
	for _, f := range files[:min(nfiles, len(files))] {
		all = append(all, identifiers(t, c.ours, f, kinds)...)
	}
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	all = all[:min(n, len(all))]
	slices.SortFunc(all, func(a, b spot) int {
		return strings.Compare(fmt.Sprintf("%s:%06d:%06d", a.file, a.line, a.col), fmt.Sprintf("%s:%06d:%06d", b.file, b.line, b.col))
	})
	return all
}

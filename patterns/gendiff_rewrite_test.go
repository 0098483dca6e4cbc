package patterns

// The generated rewrite differential: the generated suite's patterns
// (gendiff_test.go), each with a template made from its own metavariables
// (reversed on one line, or one a line), applied by our Rewrite and by
// the ast-grep CLI's --rewrite to the same real files; for every match
// both find at the same span, the replacement texts must be equal. Our
// documented differences from ast-grep's rewrite are left out of the
// comparison where they apply: a terminator or trailing children the
// pattern did not spell stay in the file (Span.tail, Span.keep), and
// lines after a replacement's first are indented like the matched line
// (counted apart: equal but for indentation).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

func TestGeneratedRewriteDifferential(t *testing.T) {
	bin, size, seed := genStart(t)
	cands := genCandidates()
	var summary []string
	for _, gl := range genLangs() {
		if gl.ag == "" {
			continue
		}
		t.Run(gl.lang, func(t *testing.T) {
			l, err := LanguageByName(gl.lang)
			if err != nil {
				t.Fatal(err)
			}
			testutil.NeedsFunc(t, gl.lang+" grammar", func() string { _, why := l.Available(); return why })
			rng := rand.New(rand.NewPCG(seed^0x5eed, uint64(len(gl.lang))*104729+uint64(gl.lang[0])))
			srcs, _ := genDraw(t, rng, l, cands[gl.lang], size.files)
			dir := t.TempDir()
			if keep := os.Getenv("AGENT_TOOLS_GEN_KEEP"); keep != "" { // to look at a failure's files
				dir = filepath.Join(keep, gl.lang)
				os.RemoveAll(dir)
				os.MkdirAll(dir, 0o755)
			}
			var trees []*Tree
			pr := newParser()
			defer pr.close()
			for i, src := range srcs {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d%s", i, gl.ext)), src, 0o644); err != nil {
					t.Fatal(err)
				}
				tree, err := pr.parse(l, src, true)
				if err != nil {
					t.Fatal(err)
				}
				trees = append(trees, tree)
			}
			cases, compared, same, reindented, listed := 0, 0, 0, 0, 0
			for tried := 0; cases < size.patterns && tried < size.patterns*40; tried++ {
				pat, _, ok := genPattern(rng, trees[rng.IntN(len(trees))])
				if !ok {
					continue
				}
				p, err := Compile(l, pat, CompileOptions{})
				if err != nil || len(p.Roots) != 1 {
					continue
				}
				metas := genMetas(pat)
				if len(metas) == 0 {
					continue
				}
				cases++
				tmpl := genTemplate(rng, metas)
				genBin, genAg, genExt = bin, gl.ag, gl.ext // for genPeerShape and genSpellsMore
				ours := genOurRewrites(t, dir, gl.lang, pat, tmpl)
				peer, perr := genPeerRewrites(bin, dir, gl.ag, pat, tmpl)
				if perr != "" {
					continue // ast-grep refuses the pattern: the match suite counts it
				}
				for key, want := range peer {
					got, ok := ours[key]
					if !ok {
						continue // a match only one side finds: the match suite's business
					}
					compared++
					if got == want {
						same++
						continue
					}
					if genUnindented(got) == genUnindented(want) {
						// README: lines after the first follow the matched
						// line's indentation, and multi-line captures are
						// re-indented; ast-grep writes them at column 0.
						reindented++
						continue
					}
					if genNoBlankLines(got) == genNoBlankLines(want) || genMoreBlanks(want, got) || genMoreBlanks(genUnindented(want), genUnindented(got)) ||
						(gl.lang == "yaml" || gl.lang == "toml") && genNoBlanks(got) == genNoBlanks(want) {
						// A capture ends at its last non-blank line (a Scala
						// body's trailing comments), ast-grep's keeps the
						// blank lines and the newline after it (want is got
						// with blanks added). A YAML or TOML block owns
						// them, and their indentation, and the newline that
						// ends them, before the template's next text.
						reindented++
						continue
					}
					if genCommentMoved(got, want) {
						// README (ast_edit): template text after a capture
						// that ends in a line comment goes on the next line;
						// ast-grep writes it into the comment.
						listed++
						continue
					}
					if l.blockLayout && genOwnLineBlock(got, want) {
						// README (ast_edit): where blocks go by
						// indentation, a capture that started its own line
						// as a nested block stays on one, with the comment
						// lines before it; ast-grep writes it after the
						// template's text and drops those comments.
						listed++
						continue
					}
					if gl.lang == "scala" && scalaDotted.MatchString(pat) || gl.lang == "python" && pyImportPath.MatchString(pat) {
						// README: a flat dotted path is read as a person
						// reads it: Scala's package $A.$B binds B to
						// tools.nsc in package scala.tools.nsc, Python's
						// from $A.$B import $C B to descriptors.excel in
						// from openpyxl.descriptors.excel import …;
						// ast-grep binds tools and descriptors, and its
						// rewrite drops the rest.
						listed++
						continue
					}
					if readsError, ok := genPeerReadsError(pat); ok && readsError {
						// ast-grep reads the pattern with an ERROR (Kotlin's
						// $A?\n.$B, which the grammar reads as one ?.), and
						// its captures are what its matcher made of that.
						listed++
						continue
					}
					if genPeerEmptied(t, dir, gl.lang, pat, tmpl, key, want, metas) {
						// ast-grep's capture of a metavariable is empty
						// where ours holds the node it matched (C#'s
						// (int i) => $A over (int i) => i: ast-grep
						// writes "" for $A).
						listed++
						continue
					}
					if genSpellsMore(l, pat, dir, key) {
						// README (ast_grep): of the ways a pattern matches,
						// ours takes one that spells every child; ast-grep
						// took one that leaves a child over (Scala's $C $$$
						// $D over depth += 1: ast-grep's D is the +=).
						listed++
						continue
					}
					t.Errorf("%q rewritten with %q at %s: ours %q, ast-grep %q", pat, tmpl, key, got, want)
				}
			}
			summary = append(summary, fmt.Sprintf("%-11s cases %3d  replacements compared %4d  equal %4d  equal but for blanks %3d  listed %2d",
				gl.lang, cases, compared, same, reindented, listed))
		})
	}
	t.Logf("generated rewrites against ast-grep (seed %d):\n%s", seed, strings.Join(summary, "\n"))
}

// genSpellsMore says that at key ("f02.scala:558-654") in dir the
// pattern, with what our metavariables and runs took written in, is the
// code (blanks aside), and with what ast-grep's took it is not: ours
// spells every child there, ast-grep left one over.
func genSpellsMore(l *Language, pat, dir, key string) bool {
	colon := strings.LastIndexByte(key, ':')
	var s [2]uint32
	if colon < 0 {
		return false
	}
	if _, err := fmt.Sscanf(key[colon+1:], "%d-%d", &s[0], &s[1]); err != nil {
		return false
	}
	src, err := os.ReadFile(filepath.Join(dir, key[:colon]))
	if err != nil || int(s[1]) > len(src) {
		return false
	}
	p, err := Compile(l, genNameRuns(pat), CompileOptions{})
	if err != nil {
		return false
	}
	ours, ok1 := genConcreteRuns(l, p, src, s)
	theirs, ok2 := genPeerConcrete(pat, src, s)
	code := genNoBlanks(string(src[s[0]:s[1]]))
	return ok1 && ok2 && genNoBlanks(ours) == code && genNoBlanks(theirs) != code
}

// genUnindented is s with the leading blanks of every line after the
// first taken off.
func genUnindented(s string) string {
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.TrimLeft(lines[i], " \t")
	}
	return strings.Join(lines, "\n")
}

// genNoBlankLines is genUnindented(s) without its blank lines and with no
// blanks at line ends.
func genNoBlankLines(s string) string {
	var keep []string
	for _, l := range strings.Split(genUnindented(s), "\n") {
		if l = strings.TrimRight(l, " \t"); l != "" {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// genPeerEmptied says ast-grep's replacement want at key is ours with
// one metavariable's capture written as nothing.
func genPeerEmptied(t *testing.T, dir, lang, pat, tmpl, key, want string, metas []string) bool {
	for _, m := range metas {
		if got, ok := genOurRewrites(t, dir, lang, pat, strings.ReplaceAll(tmpl, m, ""))[key]; ok && got == want {
			return true
		}
	}
	return false
}

// genMoreBlanks says b is a with some blanks and newlines left out.
func genMoreBlanks(a, b string) bool {
	i := 0
	for j := 0; j < len(b); j++ {
		for i < len(a) && a[i] != b[j] && isSpace(a[i]) {
			i++
		}
		if i == len(a) || a[i] != b[j] {
			return false
		}
		i++
	}
	return strings.TrimSpace(a[i:]) == ""
}

// genNoBlanks is s without blanks and newlines.
// genNoCommentLines is s without its lines that hold only a comment (#,
// // or --).
func genNoCommentLines(s string) string {
	lines := strings.Split(s, "\n")
	kept := lines[:0]
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "--") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

// genOwnLineBlock says got is want but for comment lines, blanks and
// line breaks, where a comment line in got may also have taken the text
// after it onto a line of its own (genCommentMoved's difference too).
func genOwnLineBlock(got, want string) bool {
	same := func(g string) bool { return genNoBlanks(genNoCommentLines(g)) == genNoBlanks(genNoCommentLines(want)) }
	if same(got) {
		return true
	}
	for i := 0; i < len(got); i++ {
		if got[i] == '\n' {
			line := strings.TrimSpace(got[strings.LastIndexByte(got[:i], '\n')+1 : i])
			if (strings.HasPrefix(line, "#") || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "--")) && same(got[:i]+" "+got[i+1:]) {
				return true
			}
		}
	}
	return false
}

func genNoBlanks(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// genCommentMoved says got is want with what follows a line comment on
// one of want's lines (#, // or --) moved to a line of its own: got with
// one of its newlines after a comment taken out is want, but for the
// indentation of lines.
func genCommentMoved(got, want string) bool {
	for i := 0; i < len(got); i++ {
		if got[i] != '\n' {
			continue
		}
		line := got[strings.LastIndexByte(got[:i], '\n')+1 : i]
		if !strings.Contains(line, "#") && !strings.Contains(line, "//") && !strings.Contains(line, "--") {
			continue
		}
		// The newline alone (the template's own blanks follow it), or
		// with the indentation written after it.
		rest := strings.TrimLeft(got[i+1:], " \t")
		for _, joined := range []string{got[:i] + got[i+1:], got[:i] + rest, got[:i] + " " + rest} {
			if joined == want || genUnindented(joined) == genUnindented(want) {
				return true
			}
		}
	}
	return false
}

// pyImportPath finds a Python import whose module path has a
// metavariable after a dot (from a.$B import c, from $A.$B import c).
var pyImportPath = regexp.MustCompile(`^(from|import)\s+[\w.$]*\.\$[A-Z_]`)

// scalaDotted finds a dotted path with a metavariable after a dot
// ($A.$B, import $A.tools.nsc.$B: soak seed 1796659043610611980).
var scalaDotted = regexp.MustCompile(`[\w$]\.\$[A-Z_]`)

// genMetas lists a pattern's named metavariables as written ($A, $$$B),
// each once, in order.
func genMetas(pat string) []string {
	var out []string
	for _, m := range genMetaName.FindAllString(pat, -1) {
		if m != "$$$" && !codeDollar(m) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// genTemplate is a template over metas: reversed on one line, or one a
// line (the indentation of captures and lines is then compared too).
func genTemplate(rng *rand.Rand, metas []string) string {
	rev := slices.Clone(metas)
	slices.Reverse(rev)
	if rng.IntN(2) == 0 {
		return "(" + strings.Join(rev, " ") + ")"
	}
	return strings.Join(rev, "\n")
}

// genOurRewrites is our replacement text per match span ("file:start-end"),
// for the matches whose replaced range is their whole span (no tail or
// kept children, which we leave in the file).
func genOurRewrites(t *testing.T, dir, lang, pat, tmpl string) map[string]string {
	res, err := Search(context.Background(), dir, pat, SearchOptions{Language: lang, KeepSource: true})
	if err != nil {
		t.Fatalf("search %q: %v", pat, err)
	}
	out := map[string]string{}
	for i := range res.Files {
		f := &res.Files[i]
		_, reps := Rewrite(f, tmpl)
		for _, m := range f.Matches {
			for _, r := range reps {
				if r.Start == m.Start && r.End == m.End {
					out[fmt.Sprintf("%s:%d-%d", f.Path, m.Start, m.End)] = r.Text
				}
			}
		}
	}
	return out
}

// genPeerRewrites is the CLI's replacement text per match span.
func genPeerRewrites(bin, dir, ag, pat, tmpl string) (map[string]string, string) {
	cmd := exec.Command(bin, "run", "--pattern="+pat, "--rewrite="+tmpl, "-l", ag, "--json=stream", ".")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil && len(stdout) == 0 && stderr.Len() > 0 && !strings.Contains(stderr.String(), "matched nothing") {
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		return nil, msg
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m struct {
			File string `json:"file"`
			agMatch
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Replacement != nil {
			f := filepath.ToSlash(filepath.Clean(m.File))
			out[fmt.Sprintf("%s:%d-%d", f, m.Range.ByteOffset.Start, m.Range.ByteOffset.End)] = *m.Replacement
		}
	}
	return out, ""
}

package patterns

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestIdentityRewriteKeepsTheSyntax rewrites real files with patterns
// nobody chose, each its own template: the generated suite's patterns
// (random subtrees of files drawn at random in every language, leaves
// made metavariables and runs of list elements $$$), with each $$$ named
// so that the template puts back what it took. Every match then becomes
// code of the same shape, so a file that parsed without an error must
// still parse without one. It found a template's closing line break
// written into an expression ($A.$B($C)⏎ over a.B(c) > 1) and before
// the value a #define $A⏎ leaves to its line, and code passed over inside
// a match dropped (type $A $B over type T[P any] struct{…} lost the
// struct; now kept, and code no template can place refuses the edit:
// TestRewriteKeepsOrRefusesUnspelledCode). (An empty $$$ written with its
// comma, g(, d), and JSON's {$$$, "a": 1} taking the ',' after its run,
// came from the generated differential: TestRewriteEmptyRunTakesItsComma.)
// Python and Scala, whose blocks go by indentation, found
// TestRewriteKeepsBlocksOnTheirLines once taken in; Python's rewritten
// files, and the drawn files' if, for and while blocks rewritten with
// templates that write the block after its header, are also read by
// python3, which must read the program it read before (pyMeaningKept:
// with the rule that keeps a block on its own line turned off, it finds
// 4 changed programs with AGENT_TOOLS_SOAK=1 and the CI seed). The template is the
// pattern's layout, not each match's: Haskell's patterns, cut at a
// column inside a layout block, and YAML's that match a key's first
// entries (the rest kept where they were) give templates whose lines
// land at other columns than the match's, so those two are left out
// (ast_edit refuses a rewrite that no longer parses).
// The draw follows the generated suite's seed (AGENT_TOOLS_GEN_SEED
// replays; CI draws a fixed one, AGENT_TOOLS_SOAK=1 a larger one from the
// clock).
func TestIdentityRewriteKeepsTheSyntax(t *testing.T) {
	size, seed, soak := genSampleSize()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("seed %d (replay: AGENT_TOOLS_GEN_SEED=%d, soak %v)", seed, seed, soak)
		}
	})
	cands := genCandidates()
	var summary []string
	for _, gl := range genLangs() {
		if gl.lang == "haskell" || gl.lang == "yaml" {
			continue
		}
		t.Run(gl.lang, func(t *testing.T) {
			l, err := LanguageByName(gl.lang)
			if err != nil {
				t.Fatal(err)
			}
			testutil.NeedsFunc(t, gl.lang+" grammar", func() string { _, why := l.Available(); return why })
			rng := rand.New(rand.NewPCG(seed^0x1de, uint64(len(gl.lang))*7919+uint64(gl.lang[0])))
			srcs, _ := genDraw(t, rng, l, cands[gl.lang], size.files)
			dir := t.TempDir()
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
			cases, rewritten, emptyRuns, refused := 0, 0, 0, 0
			var pyPairs []pyPair // Python's: checked by python3's own parser below
			for tried := 0; cases < size.patterns && tried < size.patterns*40; tried++ {
				pat, _, ok := genPattern(rng, trees[rng.IntN(len(trees))])
				if !ok {
					continue
				}
				named := genNameRuns(pat)
				cp, err := Compile(l, named, CompileOptions{})
				if err != nil || CheckTemplate([]*Pattern{cp}, named) != nil {
					// ast_edit refuses a template naming what the pattern
					// does not bind (Bash's "\$GOROOT" text reads as $GOROOT,
					// which no node of the pattern is).
					continue
				}
				cases++
				res, err := Search(context.Background(), dir, named, SearchOptions{Language: gl.lang, KeepSource: true})
				if err != nil {
					t.Fatalf("search %q: %v", named, err)
				}
				for i := range res.Files {
					f := &res.Files[i]
					src, err := os.ReadFile(filepath.Join(dir, f.Path))
					if err != nil {
						t.Fatal(err)
					}
					before, err := pr.parse(l, src, true)
					if err != nil {
						t.Fatal(err)
					}
					if _, broken := before.firstError(); broken {
						continue
					}
					for _, m := range f.Matches {
						for _, c := range m.Captures {
							if c.Multi && c.Start == c.End {
								emptyRuns++
							}
						}
					}
					out, reps := Rewrite(f, named)
					rewritten += len(reps)
					refuses := false
					for _, r := range reps {
						if len(r.Unspelled) > 0 {
							refused++ // ast_edit would refuse it (TestRewriteKeepsOrRefusesUnspelledCode)
							refuses = true
						}
					}
					if refuses {
						continue // the edit is refused whole: nothing is written
					}
					after, err := pr.parse(l, out, true)
					if err != nil {
						t.Fatal(err)
					}
					if (gl.lang == "python" || tsKinds[gl.lang] != "") && string(out) != string(src) {
						pyPairs = append(pyPairs, pyPair{Pattern: named, File: f.Path, Before: string(src), After: string(out)})
					}
					// Nor does the syntax check take an identity rewrite
					// for one the parser reads with the code around it.
					if c, err := checkRewrite(pr, f, out, reps); err != nil || len(c.errs) > 0 || len(c.semis) > 0 || c.unjoined {
						t.Errorf("%q as its own template, in %s: checked as changed (%v): %v, ';' added at lines %v, joins unchecked %v", named, f.Path, err, c.errs, c.semis, c.unjoined)
					}
					if at, broken := after.firstError(); broken {
						n := after.nodes[at]
						from, to := max(0, int(n.start)-60), min(len(out), int(n.end)+60)
						var changed []string
						for _, r := range reps {
							if was := string(src[r.Start:r.End]); was != r.Text {
								changed = append(changed, fmt.Sprintf("%d:%q→%q", r.Start, was, r.Text))
							}
						}
						t.Errorf("%q as its own template breaks %s at %d: …%q… (replacements that changed the text: %s)", named, f.Path, n.start, out[from:to], strings.Join(changed, ", "))
					}
				}
			}
			if gl.lang == "python" {
				// Templates that write each block after its header and
				// mean what the code did (python3's tree has no
				// parentheses): every block that started its own line
				// must stay on one.
				// And templates that drop parentheses, where some
				// grouping needs them: ast_edit must refuse those files
				// (and only those), as read with the code around.
				var blocks, joinedFiles int
				pyPairs, blocks, joinedFiles = rewriteEach(t, dir, "python", [][2]string{{"if $C: $$$B", "if ($C): $$$B"},
					{"for $X in $Y: $$$B", "for $X in ($Y): $$$B"}, {"while $C: $$$B", "while ($C): $$$B"},
					{"$A - ($B)", "$A - $B"}, {"not ($X)", "not $X"}, {"($A).$B", "$A.$B"}, {"$A * ($B)", "$A * $B"}}, pyPairs)
				pyMeaningKept(t, pyPairs)
				t.Logf("python3 read %d rewritten files (%d replacements staged; %d files refused as read with the code around)", len(pyPairs), blocks, joinedFiles)
			}
			if kind := tsKinds[gl.lang]; kind != "" {
				// Templates that write captures in new surroundings, and
				// mean what the code did (the reader leaves parentheses
				// out): a block laid out on lines of its own; one that
				// starts with a '(', which after a line with no ';' would
				// call that line (x = null⏎(a) && b), so ast_edit writes a
				// ';' before it; and templates that drop parentheses, where
				// some grouping needs them (ast_edit refuses those files).
				// ($A).$B → $A.$B and ($A as $T).$B → $A as $T.$B drop
				// the parentheses of a cast too, which the compiler then
				// reads as a cast to the type T.B and the grammar as a
				// cast and a member (castsMisread). (Not !($X) → !$X nor
				// ($F)(…): there the grammar and the compiler part ways
				// where no check follows the compiler: !(a = b) → !a = b
				// is to tree-sitter-typescript the same assignment,
				// (super)(x) a call.)
				var staged, joinedFiles int
				templates := [][2]string{{"if ($C) { $$$B }", "if (($C)) {\n$$$B\n}"}, {"return $X;", "return ($X);"},
					{"$A && $B", "($A) && ($B)"}, {"for ($$$H) { $$$B }", "for ($$$H) {\n  $$$B\n}"},
					{"$A - ($B)", "$A - $B"}, {"$A * ($B)", "$A * $B"}, {"$A + ($B)", "$A + $B"}, {"($A).$B", "$A.$B"}}
				if gl.lang != "javascript" {
					templates = append(templates, [2]string{"($A as $T).$B", "$A as $T.$B"})
				}
				pyPairs, staged, joinedFiles = rewriteEach(t, dir, gl.lang, templates, pyPairs)
				tsMeaningKept(t, kind, pyPairs)
				t.Logf("the TypeScript compiler's parser read %d rewritten files (%d replacements staged; %d files refused as read with the code around)", len(pyPairs), staged, joinedFiles)
			}
			summary = append(summary, fmt.Sprintf("%-11s cases %3d  replacements %5d  empty runs %4d  passing over code %3d", gl.lang, cases, rewritten, emptyRuns, refused))
		})
	}
	t.Logf("identity rewrites (seed %d):\n%s", seed, strings.Join(summary, "\n"))
}

// pyPair is a Python file before and after an identity rewrite.
//
// Other says ast_edit refused After as read with the code around a
// replacement (JOINED): the reader must read it otherwise too.
type pyPair struct {
	Pattern, File, Before, After string
	Other                        bool
}

// pyMeaningKept holds identity rewrites of Python to python3's own
// parser, a reference we did not write: where it reads the file before,
// the file after must give the same syntax tree (ast.dump: layout and
// comments aside). tree-sitter's parse, which the test checks above,
// took if not (x): a = 1 with b = 2 moved out of the if as well formed;
// the meaning had changed.
func pyMeaningKept(t *testing.T, pairs []pyPair) {
	t.Helper()
	testutil.Needs(t, "python3")
	const script = `
import ast, json, sys, warnings
warnings.simplefilter("ignore")
for p in json.load(sys.stdin) or []:
    try:
        before = ast.dump(ast.parse(p["Before"]))
    except Exception:
        continue  # not this python3's Python (2, or newer syntax)
    try:
        after = ast.dump(ast.parse(p["After"]))
    except Exception as e:
        if p["Other"]:
            continue  # refused, and read otherwise indeed
        n = getattr(e, "lineno", None) or 1
        print(json.dumps([p["Pattern"], p["File"], "no longer parses: " + str(e), p["After"].splitlines()[max(0, n-4):n+1]]))
        continue
    if before == after and p["Other"]:
        print(json.dumps([p["Pattern"], p["File"], "reads the same, but ast_edit refused it as read with the code around a replacement"]))
    if before != after and not p["Other"]:
        i = next(k for k in range(min(len(before), len(after))) if before[k] != after[k]) if before[:len(after)] != after[:len(before)] else min(len(before), len(after))
        print(json.dumps([p["Pattern"], p["File"], "another syntax tree, from: " + after[max(0, i-80):i+80]]))
`
	readerAgrees(t, "python3", exec.Command("python3", "-c", script), pairs)
}

// readerAgrees runs a parser we did not write (cmd, a script reading the
// pairs as JSON on its standard input and printing a line for each pair
// it reads otherwise after the rewrite) and fails the test for each line.
func readerAgrees(t *testing.T, reader string, cmd *exec.Cmd, pairs []pyPair) {
	t.Helper()
	in, err := json.Marshal(pairs)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", reader, err, stderr.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(string(outb)), "\n") {
		if line != "" {
			t.Errorf("identity rewrite changed what %s reads: %s", reader, line)
		}
	}
}

// rewriteEach rewrites dir's files of lang with each pair of pattern and
// template as ast_edit stages them, and adds each file's before and after
// to pairs: the staged text, or, where ast_edit refuses a file whose
// rewrite parses but is read with the code around a replacement (JOINED),
// the text refused, marked Other; not files it refuses otherwise (code
// passed over, syntax errors). It returns them, and how many replacements
// the staged files hold and how many files were refused as JOINED.
func rewriteEach(t *testing.T, dir, lang string, templates [][2]string, pairs []pyPair) (_ []pyPair, n, joinedFiles int) {
	t.Helper()
	pr := newParser()
	defer pr.close()
	for _, tm := range templates {
		res, err := Search(context.Background(), dir, tm[0], SearchOptions{Language: lang, KeepSource: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range res.Files {
			f := &res.Files[i]
			out, reps := Rewrite(f, tm[1])
			if slices.ContainsFunc(reps, func(r Replacement) bool { return len(r.Unspelled) > 0 }) || string(out) == string(f.Src) {
				continue
			}
			c, err := checkRewrite(pr, f, out, reps)
			if err != nil {
				t.Fatal(err)
			}
			staged, errs := c.text, c.errs
			if tsKinds[lang] != "" && nonNullMisread(t, pr, f) {
				continue
			}
			pair := pyPair{Pattern: tm[0] + " → " + tm[1], File: f.Path, Before: string(f.Src), After: string(staged)}
			switch {
			case len(errs) == 0:
				n += len(reps)
			case !slices.ContainsFunc(errs, func(e SyntaxError) bool { return e.Node != "JOINED" }):
				pair.After, pair.Other = string(out), true
				joinedFiles++
			default:
				continue // refused for a syntax error: never written
			}
			pairs = append(pairs, pair)
		}
	}
	return pairs, n, joinedFiles
}

// nonNullMisread says tree-sitter-typescript reads a non-null '!' in f
// otherwise than the compiler: as applying to a prefix, binary or update
// expression before it (p >= 0 && ++idx[p]! === n is to it (p >= 0 &&
// ++idx[p])! === n; to the compiler ++(idx[p]!)). ast_edit's checks read
// the grammar's tree, so a rewrite there is judged by a reading the
// compiler does not share; such files are left out of the comparison.
func nonNullMisread(t *testing.T, pr *parser, f *FileMatches) bool {
	t.Helper()
	tree, err := pr.parse(f.Lang, f.Src, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tree.nodes {
		n := &tree.nodes[i]
		if tree.Lang.kindName(tree.Lang.kind(n.sym)) != "non_null_expression" {
			continue
		}
		for c := uint32(i) + 1; c < n.next; c = tree.nodes[c].next {
			if cn := &tree.nodes[c]; cn.named() {
				switch tree.Lang.kindName(tree.Lang.kind(cn.sym)) {
				case "binary_expression", "unary_expression", "update_expression", "as_expression", "satisfies_expression", "await_expression":
					return true
				}
				break
			}
		}
	}
	return false
}

// tsKinds are the languages whose rewrites the TypeScript compiler's
// parser reads too, by its ScriptKind's name.
var tsKinds = map[string]string{"javascript": "JS", "typescript": "TS", "tsx": "TSX"}

// tsReadScript has the TypeScript module whose path is its first argument
// parse each pair's files (as the ScriptKind its second names) and print
// the pairs whose rewritten file reads with more syntax errors or as
// another tree: node kinds in order, with the text of names, literals and
// operators, positions and comments aside.
const tsReadScript = `
const ts = require(process.argv[1]);
const kind = ts.ScriptKind[process.argv[2]];
function read(text) {
  const f = ts.createSourceFile("f", text, ts.ScriptTarget.Latest, false, kind);
  const out = [];
  (function walk(n) {
    const k = ts.SyntaxKind[n.kind];
    if (ts.isParenthesizedExpression(n)) return n.forEachChild(walk); // the templates below add some
    out.push(n.kind >= ts.SyntaxKind.FirstToken && n.kind <= ts.SyntaxKind.LastToken || ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isLiteralExpression(n) ? k + " " + n.getText(f) : k);
    n.forEachChild(walk);
  })(f);
  return [f.parseDiagnostics.length, out.join("\n")];
}
let input = "";
process.stdin.setEncoding("utf8"); // a character split between two chunks stays whole
process.stdin.on("data", d => input += d).on("end", () => {
  for (const p of JSON.parse(input) || []) {
    const [be, before] = read(p.Before), [ae, after] = read(p.After);
    if (ae > be && !p.Other) { console.log(JSON.stringify([p.Pattern, p.File, "more syntax errors: " + be + " → " + ae])); continue; }
    if (be == 0 && before == after && p.Other) console.log(JSON.stringify([p.Pattern, p.File, "reads the same, but ast_edit refused it as read with the code around a replacement"]));
    if (be == 0 && before != after && !p.Other) {
      const a = before.split("\n"), b = after.split("\n");
      let i = 0;
      while (i < a.length && a[i] == b[i]) i++;
      console.log(JSON.stringify([p.Pattern, p.File, "another syntax tree, from: " + a.slice(i, i + 3).join(" | ") + " → " + b.slice(i, i + 3).join(" | ")]));
    }
  }
});
`

// tsMeaningKept is pyMeaningKept for JavaScript and TypeScript, with the
// TypeScript compiler's parser (the module the tsc on PATH runs).
func tsMeaningKept(t *testing.T, kind string, pairs []pyPair) {
	t.Helper()
	testutil.Needs(t, "node", "tsc")
	bin, err := exec.LookPath("tsc")
	if err == nil {
		bin, err = filepath.EvalSymlinks(bin)
	}
	if err != nil {
		t.Fatal(err)
	}
	readerAgrees(t, "the TypeScript compiler", exec.Command("node", "-e", tsReadScript, filepath.Dir(filepath.Dir(bin)), kind), pairs)
}

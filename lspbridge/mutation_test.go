package lspbridge

// Mutation tests of diagnostics on write (issue 23, "Done when" 2): on a
// corpus drawn at random (seeded, the seed printed) from the code this
// machine has — Go modules in the module cache, Debian's Python packages,
// C sources vendored in Go modules — random real edits are written
// (a signature changed, a declaration renamed, an import deleted, a typo,
// a fix that undoes an earlier edit), and the new errors didWrite reports
// are compared with the difference of the project checker's own findings
// before and after the edit (gopls check, the pyright CLI, gcc
// -fsyntax-only), positions aside.
//
// A mutation is wrong when a new error of the checker is missing from the
// answer (unless the answer says that file was not checked, or that more
// new ones in it were not shown) or when an
// error the checker had before is reported as new. At most 1 % of the
// mutations per language may be wrong. CI runs a small sample of one
// fixed draw per language;
// AGENT_TOOLS_SOAK=1 runs a larger one (AGENT_TOOLS_MUTATIONS=n sets its
// size); AGENT_TOOLS_SEED=n replays a draw.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agent-tools/agent-tools/internal/corpus"
	"github.com/agent-tools/agent-tools/internal/testutil"
	"github.com/agent-tools/agent-tools/patterns"
)

// finding is one checker or server diagnostic, positions aside.
type finding struct {
	path string // relative to the root, slash-separated
	msg  string // spaces normalised
	// warning marks a warning of a checker whose warnings are not
	// compared (mutLang.errorsOnly): it only shows that something new
	// happened in its file (gcc warns where clang errs: a main whose
	// second parameter is not char **).
	warning bool
}

func (f finding) String() string { return f.path + ": " + f.msg }

// mutLang is what a mutation test needs of a language.
type mutLang struct {
	name  string
	tools []string
	// corpus copies a random corpus into a temp dir and returns the root
	// and the files the mutations may edit; "" when nothing fits (the
	// test then skips, or fails under AGENT_TOOLS_REQUIRE_ALL=1).
	corpus func(t *testing.T, rng *rand.Rand) (root string, files []string, why string)
	// check runs the project checker over root: its errors and warnings.
	check func(t *testing.T, root string) []finding
	// decl matches a declaration whose name (group 1) others may use, and
	// whose parameter list opens right after the name.
	decl *regexp.Regexp
	// addParam is the text inserted after "(" of a declaration that
	// changes its signature, and the same when the list was empty.
	addParam, addOnly string
	// imp matches a line that imports something.
	imp *regexp.Regexp
	// comment matches a line that is a comment (no typo there).
	comment *regexp.Regexp
	// opts are the supervisor options for the language's server.
	opts *Options
	// exact says the checker and the server share their type checker, so
	// messages compare; else only the files with new errors do.
	exact bool
	// errorsOnly compares errors only (the checker's warnings are not the
	// server's: gcc's defaults are not clangd's).
	errorsOnly bool
	// second, when set, is a second checker: an answer the first calls
	// wrong is wrong only if the second's findings before and after the
	// write call it wrong too. For C, gcc and clang recover differently
	// after an error (gcc skips the body of a function whose parameter
	// list names an unknown type, clang reads on and finds a new error
	// there); where the two compilers disagree, no answer of clangd's can
	// satisfy both.
	second func(t *testing.T, root string) []finding
	// secondKey, when set, also compares the second checker's findings
	// message by message (as exact does, each message keyed by
	// secondKey): for C the second checker is clang 14, the compiler
	// inside clangd 14, whose messages are clangd's. Counted per file, a
	// write that adds an error to a file and takes others away (an
	// #include put back) looks as if nothing were new there, and its new
	// error was called old (seed 1796603777289654326, zstd's
	// lib/deprecated: clang's one new message was the one the answer
	// reported, twice).
	secondKey func(string) string
	// key, in an exact comparison, makes a message its key (nil: as is).
	key func(string) string
	// patLang is the language's id for ast_edit.
	patLang string
}

// bySecondKey is l compared exactly, each message keyed by secondKey.
func (l *mutLang) bySecondKey() *mutLang {
	m := *l
	m.exact, m.key = true, l.secondKey
	return &m
}

var identRe = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]{3,}\b`)

// mutationSeed is the seed of the draw: AGENT_TOOLS_SEED, else the clock
// for a soak (AGENT_TOOLS_SOAK=1 or AGENT_TOOLS_MUTATIONS), else ci: CI
// replays one draw, so that a class still open (see the report of issue
// 23) fails the soak, not every other CI run.
func mutationSeed(t *testing.T, ci uint64) uint64 {
	return testutil.Seed(t, ci, os.Getenv("AGENT_TOOLS_SOAK") == "1" || os.Getenv("AGENT_TOOLS_MUTATIONS") != "")
}

// mutationCount is the sample size: n in CI, soak under AGENT_TOOLS_SOAK=1,
// or AGENT_TOOLS_MUTATIONS.
func mutationCount(n, soak int) int {
	if m, err := strconv.Atoi(os.Getenv("AGENT_TOOLS_MUTATIONS")); err == nil && m > 0 {
		return m
	}
	if os.Getenv("AGENT_TOOLS_SOAK") == "1" {
		return soak
	}
	return n
}

// edit is one applied mutation: the file and its content before.
type edit struct {
	file, before, what string
}

// mutate applies a random mutation to one of files (or undoes an earlier
// one) and returns it; ok is false when the drawn kind did not apply.
func (l *mutLang) mutate(t *testing.T, rng *rand.Rand, root string, files []string, undo *[]edit) (edit, bool) {
	if len(*undo) > 0 && rng.IntN(3) == 0 {
		i := rng.IntN(len(*undo))
		e := (*undo)[i]
		*undo = slices.Delete(*undo, i, i+1)
		cur, _ := os.ReadFile(filepath.Join(root, e.file))
		writeFile(t, filepath.Join(root, e.file), e.before)
		return edit{e.file, string(cur), "undo " + e.what}, true
	}
	file := files[rng.IntN(len(files))]
	data, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var what string
	switch kind := rng.IntN(4); kind {
	case 0, 1: // rename a declaration, or change its signature
		i, m, ok := l.pickDecl(rng, lines)
		if !ok {
			return edit{}, false
		}
		name := lines[i][m[2]:m[3]]
		if kind == 0 {
			lines[i] = lines[i][:m[2]] + name + "Zq" + lines[i][m[3]:]
			what = fmt.Sprintf("rename %s to %sZq", name, name)
		} else {
			open := m[3] // the "(" after the name
			ins := l.addParam
			rest := lines[i][open+1:]
			if strings.HasPrefix(rest, ")") {
				ins = l.addOnly
			} else if self := regexp.MustCompile(`^(self|cls)\b`).FindString(rest); l.name == "Python" && self != "" {
				open += len(self) // after self: a parameter its callers lack
				ins = ", " + l.addOnly
			}
			lines[i] = lines[i][:open+1] + ins + lines[i][open+1:]
			what = fmt.Sprintf("change the signature of %s (line %d)", name, i+1)
		}
	case 2: // delete an import
		var at []int
		for i, ln := range lines {
			if l.imp.MatchString(ln) {
				at = append(at, i)
			}
		}
		if len(at) == 0 {
			return edit{}, false
		}
		i := at[rng.IntN(len(at))]
		what = fmt.Sprintf("delete import %q (line %d)", strings.TrimSpace(lines[i]), i+1)
		lines = slices.Delete(lines, i, i+1)
	case 3: // a typo in an identifier on an indented code line
		var at []int
		for i, ln := range lines {
			if (strings.HasPrefix(ln, "\t") || strings.HasPrefix(ln, "    ")) && !l.comment.MatchString(ln) && !strings.Contains(ln, `"`) && !strings.Contains(ln, `'`) && identRe.MatchString(ln) {
				at = append(at, i)
			}
		}
		if len(at) == 0 {
			return edit{}, false
		}
		i := at[rng.IntN(len(at))]
		ms := identRe.FindAllStringIndex(lines[i], -1)
		m := ms[rng.IntN(len(ms))]
		what = fmt.Sprintf("typo %s → %sq (line %d)", lines[i][m[0]:m[1]], lines[i][m[0]:m[1]], i+1)
		lines[i] = lines[i][:m[1]] + "q" + lines[i][m[1]:]
	}
	e := edit{file, string(data), what}
	writeFile(t, filepath.Join(root, file), strings.Join(lines, "\n"))
	*undo = append(*undo, e)
	return e, true
}

// pickDecl draws a line of lines that declares a name (l.decl): its
// index and the match (the name is group 1); ok is false when none does.
func (l *mutLang) pickDecl(rng *rand.Rand, lines []string) (int, []int, bool) {
	var at []int
	for i, ln := range lines {
		if l.decl.MatchString(ln) {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return 0, nil, false
	}
	i := at[rng.IntN(len(at))]
	return i, l.decl.FindStringSubmatchIndex(lines[i]), true
}

// renameMutate is toolMutate's lsp_rename: a random declaration of a
// random file gets the name with Zr added.
func (l *mutLang) renameMutate(t *testing.T, rng *rand.Rand, s *Supervisor, root string, files []string) (_ edit, _ *WriteResult, ok bool) {
	file := files[rng.IntN(len(files))]
	data, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	i, m, ok := l.pickDecl(rng, lines)
	if !ok {
		return edit{}, nil, false
	}
	name := lines[i][m[2]:m[3]]
	req := Request{Root: root, File: file, Line: i + 1, Symbol: name, IgnoreTextual: true}
	// The name may stand earlier on its line (a Go receiver's type
	// named like its method): the declaration's is the one renamed.
	word := regexp.MustCompile(`\b` + name + `\b`)
	if len(word.FindAllStringIndex(lines[i], -1)) > 1 {
		req.Occurrence = len(word.FindAllStringIndex(lines[i][:m[2]], -1)) + 1
	}
	r, err := s.Rename(testCtx(t), req, name+"Zr")
	if err != nil {
		t.Logf("  lsp_rename %s (%s:%d) refused: %v", name, file, i+1, err)
		return edit{}, nil, false
	}
	w := &WriteResult{Diagnostics: r.Diagnostics, Checked: r.Checked, Skipped: r.Skipped, Text: r.Text()}
	return edit{file: file, what: fmt.Sprintf("lsp_rename %s → %sZr (line %d, %d edits in %d files)", name, name, i+1, r.Edits, len(r.Files))}, w, true
}

// calleeRe is a callee name an ast_edit mutation renames (not a
// parenthesized or indexed expression).
var calleeRe = regexp.MustCompile(`^[A-Za-z_$][\w$]*$`)

// toolMutationCount is how many lsp_rename and resolve mutations follow
// n of didWrite: one of each in CI, a third as many in a soak.
func toolMutationCount(n int) int { return max(2, n/3) }

// toolMutate writes a mutation through one of our tools and returns its
// answer as a WriteResult: kind 0 renames a declaration with lsp_rename
// (ignore_textual set, so uses the server does not know keep the old
// name and break), kind 1 stages an ast_edit over the calls of a name
// drawn from the corpus's calls (renaming the callee, or adding an
// argument) and accepts it, and the answer is then didWrite's over the
// files written, as resolve's is. ok is false when the draw did not apply (no declaration,
// no call, a refusal, which is logged).
func (l *mutLang) toolMutate(t *testing.T, rng *rand.Rand, s *Supervisor, root string, files []string, kind int) (_ edit, _ *WriteResult, ok bool) {
	if kind == 0 {
		return l.renameMutate(t, rng, s, root, files)
	}
	// The callee is drawn from the calls themselves: a declaration's
	// name may have none.
	pattern := "$F($$$A)"
	if l.name != "C" && rng.IntN(2) == 0 {
		pattern = "$R." + pattern
	}
	calls, err := patterns.Search(testCtx(t), root, pattern, patterns.SearchOptions{Language: l.patLang, KeepSource: true})
	if err != nil {
		t.Fatalf("ast_grep %s: %v", pattern, err)
	}
	var names []string
	for _, f := range calls.Files {
		for _, m := range f.Matches {
			for _, c := range m.Captures {
				if n := string(f.Src[c.Start:c.End]); c.Name == "F" && calleeRe.MatchString(n) {
					names = append(names, n)
				}
			}
		}
	}
	if len(names) == 0 {
		return edit{}, nil, false
	}
	slices.Sort(names)
	names = slices.Compact(names)
	callee := names[rng.IntN(len(names))]
	pattern = strings.Replace(pattern, "$F", callee, 1)
	template := strings.Replace(pattern, callee, callee+"Zr", 1)
	if rng.IntN(2) == 0 {
		template = strings.Replace(pattern, "$$$A)", "$$$A, 0)", 1)
	}
	res, err := patterns.Search(testCtx(t), root, pattern, patterns.SearchOptions{Language: l.patLang, KeepSource: true})
	if err != nil || res.Total == 0 {
		t.Fatalf("ast_grep %s found %d (%v), though %s found the callee %s", pattern, res.Total, err, "$F($$$A)", callee)
	}
	st := patterns.NewStager()
	staged, err := st.Stage(res, template, false)
	if err != nil {
		t.Logf("  ast_edit %s → %s refused: %v", pattern, template, err)
		return edit{}, nil, false
	}
	if _, err := st.Resolve(staged.ID, "accept"); err != nil {
		t.Fatalf("resolve accept of %s → %s: %v", pattern, template, err)
	}
	var written []string
	for _, f := range staged.Files {
		written = append(written, f.Path)
	}
	w, err := s.DidWrite(testCtx(t), root, written)
	if err != nil {
		t.Fatalf("didWrite after resolve accept of %s → %s: %v", pattern, template, err)
	}
	return edit{file: strings.Join(written, ", "), what: fmt.Sprintf("ast_edit %s → %s and resolve accept (%d replacements)", pattern, template, staged.Replacements)}, w, true
}

// mutationVerdict compares one answer with the checker's difference; it
// returns what was wrong ("" when nothing) and what the server said
// beyond the checker (logged only: the server and the checker may differ).
func mutationVerdict(l *mutLang, w *WriteResult, before, after []finding) (wrong, extra string) {
	key := func(f finding) finding {
		if !l.exact {
			f.msg = ""
		} else if l.key != nil {
			f.msg = l.key(f.msg)
		}
		f.warning = false
		return f
	}
	// b and a count errors (and the warnings compared); bAll and aAll
	// also the warnings that are not.
	b, a, bAll, aAll := map[finding]int{}, map[finding]int{}, map[finding]int{}, map[finding]int{}
	for _, f := range before {
		bAll[key(f)]++
		if !f.warning {
			b[key(f)]++
		}
	}
	for _, f := range after {
		aAll[key(f)]++
		if !f.warning {
			a[key(f)]++
		}
	}
	// own leaves out a header's error that clangd shows at the #include of
	// a file including it ("In included file"): it stands for the errors
	// it causes there, but is the header's, so never an old error of the
	// includer's reported as new.
	reported, own := map[finding]int{}, map[finding]int{}
	for _, d := range w.Diagnostics {
		if d.Severity == "error" || d.Severity == "warning" && !l.errorsOnly {
			k := key(finding{path: d.Path, msg: msgKey(d.Message)})
			reported[k]++
			if !strings.HasPrefix(d.Message, "In included file") {
				own[k]++
			}
		}
	}
	unchecked := func(path string) bool {
		// Over the per-file cap: the answer says how many more it has.
		if strings.Contains(w.Text, "more new diagnostics in "+path+" not shown") {
			return true
		}
		// Past the server's error limit: the answer says the rest is not listed.
		if strings.Contains(w.Text, "stopped listing the errors of "+path+" at its limit") {
			return true
		}
		// A header's errors beyond the first one clangd shows: said too.
		if strings.HasSuffix(path, ".h") && strings.Contains(w.Text, "the headers' other errors are not listed") {
			return true
		}
		if slices.Contains(w.Checked, path) {
			return false
		}
		for _, s := range w.Skipped {
			if strings.HasPrefix(s, path+":") {
				return true
			}
		}
		return strings.Contains(w.Text, "more files mention") || strings.Contains(w.Text, "not checked")
	}
	// clangd reports a header's errors in the file that includes it ("In
	// included file: …"), gcc in the header.
	inIncluded := false
	for _, d := range w.Diagnostics {
		inIncluded = inIncluded || strings.HasPrefix(d.Message, "In included file")
	}
	// The files those name ("…/src/./wasm_store.c:1830:6: note: error
	// occurred here"): a .c file that another includes (go-tree-sitter's
	// lib.c includes every one) has its error there too.
	named := map[string]bool{}
	for _, d := range w.Diagnostics {
		if strings.HasPrefix(d.Message, "In included file") {
			for _, m := range occurredRe.FindAllStringSubmatch(d.Message, -1) {
				named[path.Clean(m[1])] = true
			}
		}
	}
	namedFile := func(p string) bool {
		for n := range named {
			if n == p || strings.HasSuffix(n, "/"+p) {
				return true
			}
		}
		return false
	}
	var missed, old, beyond []string
	for k, n := range a {
		if inIncluded && (strings.HasSuffix(k.path, ".h") || namedFile(k.path)) {
			continue
		}
		want := n - b[k]
		if l.exact && want > reported[k] || !l.exact && want > 0 && reported[k] == 0 {
			if !unchecked(k.path) {
				missed = append(missed, k.String())
			}
		}
	}
	for k, n := range own {
		news := max(0, a[k]-b[k])
		if l.exact && n > news && b[k] > 0 || !l.exact && news == 0 && b[k] > 0 && a[k] <= b[k] && aAll[k] <= bAll[k] {
			old = append(old, k.String())
		} else if n > news {
			beyond = append(beyond, k.String())
		}
	}
	slices.Sort(missed)
	slices.Sort(old)
	slices.Sort(beyond)
	if len(missed) > 0 {
		wrong += "missed: " + strings.Join(missed, "; ") + "\n"
	}
	if len(old) > 0 {
		wrong += "old reported as new: " + strings.Join(old, "; ") + "\n"
	}
	return wrong, strings.Join(beyond, "; ")
}

// TestMutationVerdictKeysLikeTheServer: the checker's message and the
// server's compare by the same key. gopls check printed staticcheck's
// "ineffective break statement. Did you mean to break out of the outer
// loop?" whole, the key of the server's copy has no suggestion, and the
// finding the answer listed was called missed (a Go mutation soak on
// blackfriday).
func TestMutationVerdictKeysLikeTheServer(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module m\n\ngo 1.22\n")
	writeFile(t, filepath.Join(root, "a.go"), "package m\n\nfunc f(xs []int) {\n\tfor range xs {\n\t\tswitch {\n\t\tdefault:\n\t\t\tbreak\n\t\t}\n\t}\n}\n")
	after := goplsCheck(t, root)
	var msg string
	for _, f := range after {
		if strings.Contains(f.msg, "ineffective break") {
			msg = f.msg
		}
	}
	if msg == "" {
		t.Fatalf("gopls check found no ineffective break: %v", after)
	}
	w := &WriteResult{Checked: []string{"a.go"}, Diagnostics: []Diag{{Path: "a.go", Line: 7, Severity: "warning",
		Message: "ineffective break statement. Did you mean to break out of the outer loop?"}}}
	if wrong, _ := mutationVerdict(goLang, w, nil, after); wrong != "" {
		t.Errorf("the answer lists the checker's finding %q; the verdict: %s", msg, wrong)
	}
}

// TestMutationVerdictCheckerWarning holds the C oracle's one use of gcc's
// warnings: clang's new error where gcc only warns (a main whose second
// parameter is not char **) is new, not an old error reported as new;
// the same error with nothing new from gcc in its file is old.
// TestGoplsCheckFindings holds the Go oracle's reading of gopls check to
// its output's shapes: a finding with no column (vet's tests analyzer)
// once read as the message's continuation, so two findings made one that
// no answer could match (soak seed 1796635289509698594).
func TestGoplsCheckFindings(t *testing.T) {
	out := "/r/string_array.go:33:2-42: should use copy(to, from) instead of a loop\n" +
		"/r/example_test.go:25: ExampleFlagSet_ShorthandLookup should be niladic\n" +
		"/r/a.go:3:5: undefined: x\n" +
		"/r/a.go:4:1: declared and not used: y\n" +
		"\tand more of its message\n"
	got := parseGoplsCheck("/r", out)
	want := []finding{
		{path: "string_array.go", msg: "should use copy(to, from) instead of a loop"},
		{path: "example_test.go", msg: "ExampleFlagSet_ShorthandLookup should be niladic"},
		{path: "a.go", msg: "undefined: x"},
		{path: "a.go", msg: normalizeMessage("declared and not used: y \tand more of its message")},
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n got  %q\n want %q", got, want)
	}
}

func TestMutationVerdictCheckerWarning(t *testing.T) {
	before := []finding{{path: "p/cli.c", msg: "unknown type name 'U32'"}}
	w := &WriteResult{Diagnostics: []Diag{{Path: "p/cli.c", Line: 310, Severity: "error", Message: "Second parameter of 'main' (argument array) must be of type 'char **'"}},
		Checked: []string{"p/cli.c"}}
	warned := append(slices.Clone(before), finding{path: "p/cli.c", msg: "second argument of 'main' should be 'char **'", warning: true})
	if wrong, _ := mutationVerdict(cLang, w, before, warned); wrong != "" {
		t.Errorf("gcc warned in p/cli.c after the write; the verdict: %s", wrong)
	}
	if wrong, _ := mutationVerdict(cLang, w, before, before); !strings.Contains(wrong, "old reported as new: p/cli.c") {
		t.Errorf("nothing new from gcc in p/cli.c; the verdict: %q, want an old error reported as new", wrong)
	}
	// A warning alone is no new error to miss.
	if wrong, _ := mutationVerdict(cLang, &WriteResult{Checked: []string{"p/cli.c"}}, before, warned); wrong != "" {
		t.Errorf("only a gcc warning is new; the verdict: %s", wrong)
	}
}

// TestMutationVerdictByClangMessage: where gcc's count of a file's errors
// did not grow, clang's messages still tell a new error from an old one.
// An #include put back removed errors from zbuff_decompress.c and added
// one; the answer listed that one (clangd capitalises it and appends its
// note).
func TestMutationVerdictByClangMessage(t *testing.T) {
	const file = "deprecated/zbuff_decompress.c"
	old := finding{path: file, msg: "unknown type name 'ZBUFF_DCtx'"}
	before := []finding{old, {path: file, msg: "use of undeclared identifier 'ZBUFF_isError'"}}
	after := []finding{{path: file, msg: "conflicting types for 'ZBUFF_createDCtx'"}}
	answer := func(msg string) *WriteResult {
		return &WriteResult{Diagnostics: []Diag{{Path: file, Line: 22, Severity: "error", Message: msg}}, Checked: []string{file}}
	}
	byMessage := cLang.bySecondKey()
	newOne := answer("Conflicting types for 'ZBUFF_createDCtx'\n\nzbuff.h:123:56: note: previous declaration is here")
	if wrong, _ := mutationVerdict(cLang, newOne, before, after); !strings.Contains(wrong, "old reported as new") {
		t.Errorf("counted per file, the verdict was %q; the test no longer shows the case it is about", wrong)
	}
	if wrong, _ := mutationVerdict(byMessage, newOne, before, after); wrong != "" {
		t.Errorf("the answer reported clang's one new message; by message the verdict is %q", wrong)
	}
	if wrong, _ := mutationVerdict(byMessage, answer("Unknown type name 'ZBUFF_DCtx'"), before, append(after, old)); !strings.Contains(wrong, "old reported as new") {
		t.Errorf("the answer reported an old message as new; by message the verdict is %q", wrong)
	}
	if wrong, _ := mutationVerdict(byMessage, &WriteResult{Checked: []string{file}}, before, after); !strings.Contains(wrong, "missed") {
		t.Errorf("the answer reported nothing while clang has a new error; by message the verdict is %q", wrong)
	}
}

// listFindings writes up to n of fs, for a wrong verdict's report (the
// checker's new findings in the files it names).
func listFindings(fs []finding, n int) string {
	var out []string
	for i, f := range fs {
		if i == n {
			out = append(out, fmt.Sprintf("and %d more", len(fs)-n))
			break
		}
		out = append(out, f.String())
	}
	return strings.Join(out, "; ")
}

// occurredRe finds the file clangd names in an "In included file" error.
var occurredRe = regexp.MustCompile(`(\S+\.\w+):\d+:\d+:\s*note: error occurred here`)

// msgKey is a message as the registry keys it (spaces normalised,
// pyright's partly inferred types made one placeholder).
func msgKey(s string) string { return keyMessage(s) }

// runMutations draws a corpus and n mutations for l and checks each.
func runMutations(t *testing.T, l *mutLang, n int, ciSeed uint64) {
	testutil.Needs(t, l.tools...)
	seed := mutationSeed(t, ciSeed)
	rng := rand.New(rand.NewPCG(seed, seed>>1|1))
	root, files, why := l.corpus(t, rng)
	testutil.NeedsFunc(t, "a "+l.name+" corpus on this machine", func() string { return why })
	t.Logf("corpus %s: %d files", root, len(files))
	commitAll(t, root)
	// The identifier finder cmd/agent-tools wires, for lsp_rename's
	// word search.
	var opts Options
	if l.opts != nil {
		opts = *l.opts
	}
	opts.Identifiers = grammarIdentifiers
	s := newSup(t, &opts)
	// The session's state before the edits: the server saw the files
	// (a first diagnostics of each file a mutation may touch is what an
	// agent's reading would have done).
	before := l.check(t, root)
	t.Logf("the checker finds %d errors and warnings before any edit", len(before))
	var before2 []finding
	if l.second != nil {
		before2 = l.second(t, root)
	}
	var undo []edit
	done, wrongs, excused := 0, 0, 0
	var slow []time.Duration
	// judge compares the answer w to mutation e, which took took, with
	// the checkers' findings before and after it.
	judge := func(e edit, w *WriteResult, took time.Duration) {
		slow = append(slow, took)
		after := l.check(t, root)
		wrong, extra := mutationVerdict(l, w, before, after)
		if l.second != nil {
			after2 := l.second(t, root)
			if wrong2, _ := mutationVerdict(l, w, before2, after2); wrong != "" && wrong2 == "" {
				t.Logf("  the checker calls the answer wrong and the second checker right: the two compilers disagree\n%s", wrong)
				wrong = ""
				excused++
			} else if wrong != "" && l.secondKey != nil {
				if wrong3, _ := mutationVerdict(l.bySecondKey(), w, before2, after2); wrong3 == "" {
					t.Logf("  the checker calls the answer wrong; the second checker's new messages are the ones the answer reported\n%s", wrong)
					wrong = ""
					excused++
				}
			}
			before2 = after2
		}
		t.Logf("mutation %d: %s in %s: %d new reported in %s; checker %d → %d", done, e.what, e.file, len(w.Diagnostics), took.Round(time.Millisecond), len(before), len(after))
		if extra != "" {
			t.Logf("  the server alone reports: %s", extra)
		}
		if os.Getenv("AGENT_TOOLS_MUTATION_ANSWERS") != "" {
			t.Logf("  answer:\n%s", w.Text)
		}
		if wrong != "" {
			wrongs++
			t.Errorf("seed %d, mutation %d (%s in %s) is wrong:\n%sthe checker's new findings: %s\nanswer:\n%s", seed, done, e.what, e.file, wrong, listFindings(slices.DeleteFunc(newFindings(before, after), func(f finding) bool { return !strings.Contains(wrong, f.path+":") }), 12), w.Text)
		}
		before = after
	}
	for tries := 0; done < n && tries < 4*n; tries++ {
		e, ok := l.mutate(t, rng, root, files, &undo)
		if !ok {
			continue
		}
		done++
		start := time.Now()
		w, err := s.DidWrite(testCtx(t), root, []string{e.file})
		if err != nil {
			t.Fatalf("seed %d, mutation %d (%s in %s): %v", seed, done, e.what, e.file, err)
		}
		judge(e, w, time.Since(start))
	}
	// Then the writes of the tools that report new errors the same way:
	// lsp_rename, and an ast_edit accepted by resolve. Their draw has a
	// stream of its own, so the edits above stay those of the seed.
	trng := rand.New(rand.NewPCG(seed^0x70015, seed>>1|1))
	tools, toolsDone := toolMutationCount(n), 0
	for tries := 0; toolsDone < tools && tries < 6*tools; tries++ {
		start := time.Now()
		e, w, ok := l.toolMutate(t, trng, s, root, files, toolsDone%2)
		if !ok {
			continue
		}
		toolsDone++
		done++
		judge(e, w, time.Since(start))
	}
	if toolsDone < tools {
		t.Errorf("seed %d: only %d of %d lsp_rename and resolve mutations applied", seed, toolsDone, tools)
	}
	n += tools
	slices.Sort(slow)
	if len(slow) > 0 {
		t.Logf("%s: %d mutations, %d wrong, %d where the second checker disagrees with the first; didWrite median %s, max %s", l.name, done, wrongs, excused, slow[len(slow)/2].Round(time.Millisecond), slow[len(slow)-1].Round(time.Millisecond))
	}
	if done < n {
		t.Errorf("seed %d: only %d of %d mutations applied", seed, done, n)
	}
}

// commitAll makes root a git repository with everything committed: the
// state of a project an agent works in (its files' committed versions
// are the baselines of their first writes).
func commitAll(t *testing.T, root string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "corpus"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v: %s", args[0], err, out)
		}
	}
}

// relFiles lists the files under root with one of exts, relative and
// slash-separated, sorted.
func relFiles(root string, exts ...string) []string { return corpus.Files(root, corpus.Ext(exts...)) }

// --- Go: modules in the module cache, checked by gopls check ---

// goCorpus copies a random module of the module cache that needs no other
// module and has 3 to 130 Go files.
func goCorpus(t *testing.T, rng *rand.Rand) (string, []string, string) {
	cache, err := corpus.GoModCache()
	if err != nil {
		return "", nil, "go env GOMODCACHE: " + err.Error()
	}
	cands := corpus.GoModules(cache, func(dir string, n int) bool {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		return err == nil && !regexp.MustCompile(`(?m)^require`).Match(data) && n >= 3 && n <= 130
	})
	if len(cands) == 0 {
		return "", nil, "no module without dependencies in " + cache
	}
	src := cands[rng.IntN(len(cands))]
	t.Logf("drew %s of %d modules", strings.TrimPrefix(src, cache+"/"), len(cands))
	dst := canonical(t.TempDir())
	copyTree(t, src, dst, nil)
	return dst, relFiles(dst, ".go"), ""
}

// (A finding with no column, as vet's tests analyzer on an Example
// function, is named by its line alone: x_test.go:25: msg.)
var goDiagRe = regexp.MustCompile(`^(/[^:]+\.go):(\d+(?::\d+)?)(?:-\d+(?::\d+)?)?: (.*)$`)

// goConfigRe is the build configuration gopls check names after a
// finding it also makes under other GOOS/GOARCH ("[windows]",
// "[aix,ppc64]"); the server reports the host's only.
var goConfigRe = regexp.MustCompile(` \[[a-z0-9]+(?:,[a-z0-9]+)?\]$`)

// goplsCheck runs gopls check over every Go file of root.
func goplsCheck(t *testing.T, root string) []finding {
	files := relFiles(root, ".go")
	for i, f := range files {
		files[i] = filepath.Join(root, f)
	}
	cmd := exec.Command("gopls", append([]string{"check"}, files...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Run() // it exits 1 when it found something
	return parseGoplsCheck(root, out.String())
}

// parseGoplsCheck reads gopls check's output: one finding a line (and the
// lines that continue its message), keyed by file and message.
func parseGoplsCheck(root, out string) []finding {
	var fs []finding
	var at []string // each finding's position
	cont := false   // the lines after a finding continue its message
	for _, ln := range strings.Split(out, "\n") {
		m := goDiagRe.FindStringSubmatch(ln)
		if m == nil {
			if cont && len(fs) > 0 && ln != "" {
				fs[len(fs)-1].msg = normalizeMessage(fs[len(fs)-1].msg + " " + ln)
			}
			continue
		}
		// "- other declaration of x": related information, not a finding.
		if cont = !strings.HasPrefix(m[3], "-"); !cont {
			continue
		}
		rel, err := filepath.Rel(root, m[1])
		if err != nil {
			continue
		}
		fs = append(fs, finding{path: filepath.ToSlash(rel), msg: normalizeMessage(m[3])})
		at = append(at, m[2])
	}
	// The host's build only: what gopls check finds under other build
	// configurations (a _darwin.go file here) the server does not check
	// for dependents either (a known limit, not measured here).
	seen := map[string]bool{}
	var out1 []finding
	for i, f := range fs {
		if goConfigRe.MatchString(f.msg) {
			continue
		}
		k := f.path + ":" + at[i] + ":" + f.msg
		if !seen[k] {
			seen[k] = true
			// Keyed as the server's messages are (a closing "Did you
			// mean …?" is no part of the key: staticcheck's SA4011 ends
			// in one).
			f.msg = msgKey(f.msg)
			out1 = append(out1, f)
		}
	}
	return out1
}

var goLang = &mutLang{
	name:     "Go",
	patLang:  "go",
	tools:    []string{"gopls", "go"},
	corpus:   goCorpus,
	check:    goplsCheck,
	decl:     regexp.MustCompile(`^func (?:\([^)]*\) )?([A-Za-z_]\w*)(?:\[[^\]]*\])?\(`),
	addParam: "zq int, ",
	addOnly:  "zq int",
	imp:      regexp.MustCompile(`^(?:import )?\s*(?:\w+ )?"[\w./-]+"\s*$`),
	comment:  regexp.MustCompile(`^\s*//`),
	exact:    true,
}

func TestMutationDiagnosticsGo(t *testing.T) {
	runMutations(t, goLang, mutationCount(5, 100), 1796164848870420036)
}

// --- Python: Debian's packages, checked by the pyright CLI ---

// pythonCorpus copies a random pure-Python package of Debian's
// dist-packages (4 to 40 modules) into a project: the root is library
// code, with the errors such code has for pyright.
func pythonCorpus(t *testing.T, rng *rand.Rand) (string, []string, string) {
	const dist = corpus.DebianPython
	cands, err := corpus.PythonPackages(dist, 4, 40)
	if err != nil {
		return "", nil, err.Error()
	}
	if len(cands) == 0 {
		return "", nil, "no pure-Python package in " + dist
	}
	src := cands[rng.IntN(len(cands))]
	t.Logf("drew %s of %d packages", filepath.Base(src), len(cands))
	dst := canonical(t.TempDir())
	copyTree(t, src, filepath.Join(dst, filepath.Base(src)), func(rel string, dir bool) bool { return dir && rel == "__pycache__" })
	writeFile(t, filepath.Join(dst, "pyproject.toml"), "[project]\nname = \"mut\"\nversion = \"0\"\n")
	return dst, relFiles(dst, ".py"), ""
}

// pythonAppCorpus is the root the Python examples had: code an
// agent works on beside the library code it imports, whose errors
// (hundreds, for pyright) are part of the project. A random pure-Python
// package of Debian's (6 to 40 modules) that imports another one (4 to 120) is
// copied with it; the mutations edit the importing package's files,
// and their dependents' search meets the library's.
func pythonAppCorpus(t *testing.T, rng *rand.Rand) (string, []string, string) {
	const dist = corpus.DebianPython
	apps, err := corpus.PythonPackages(dist, 6, 40)
	if err != nil {
		return "", nil, err.Error()
	}
	libs, _ := corpus.PythonPackages(dist, 4, 120)
	byName := map[string]string{}
	for _, l := range libs {
		byName[filepath.Base(l)] = l
	}
	importRe := regexp.MustCompile(`(?m)^\s*(?:from|import)\s+([A-Za-z_]\w*)`)
	defRe := regexp.MustCompile(`(?m)^\s*def `)
	var pairs [][2]string // app, library
	for _, a := range apps {
		var names []string
		defs := 0
		for _, f := range corpus.Files(a, corpus.Ext(".py")) {
			data, _ := os.ReadFile(filepath.Join(a, f))
			for _, m := range importRe.FindAllSubmatch(data, -1) {
				names = append(names, string(m[1]))
			}
			defs += len(defRe.FindAllIndex(data, -1))
		}
		if defs < 10 {
			continue // re-exports only (attrs of attr): nothing to mutate
		}
		slices.Sort(names)
		for _, n := range slices.Compact(names) {
			if lib := byName[n]; lib != "" && lib != a {
				pairs = append(pairs, [2]string{a, lib})
			}
		}
	}
	if len(pairs) == 0 {
		return "", nil, "no pure-Python package in " + dist + " imports another"
	}
	pair := pairs[rng.IntN(len(pairs))]
	t.Logf("drew %s with the library it imports, %s, of %d such pairs", filepath.Base(pair[0]), filepath.Base(pair[1]), len(pairs))
	dst := canonical(t.TempDir())
	for _, src := range pair {
		copyTree(t, src, filepath.Join(dst, filepath.Base(src)), func(rel string, dir bool) bool { return dir && rel == "__pycache__" })
	}
	writeFile(t, filepath.Join(dst, "pyproject.toml"), "[project]\nname = \"mut\"\nversion = \"0\"\n")
	var files []string
	for _, f := range relFiles(dst, ".py") {
		if strings.HasPrefix(f, filepath.Base(pair[0])+"/") {
			files = append(files, f)
		}
	}
	return dst, files, ""
}

// pyrightCheck runs the pyright CLI over root.
func pyrightCheck(t *testing.T, root string) []finding {
	cmd := exec.Command("pyright", "--outputjson")
	cmd.Dir = root
	out, _ := cmd.Output()
	var rep struct {
		GeneralDiagnostics []struct {
			File, Severity, Message string
		}
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("pyright --outputjson: %v: %.500s", err, out)
	}
	var fs []finding
	for _, d := range rep.GeneralDiagnostics {
		if d.Severity != "error" && d.Severity != "warning" {
			continue
		}
		rel, _ := filepath.Rel(root, d.File)
		fs = append(fs, finding{path: filepath.ToSlash(rel), msg: msgKey(d.Message)})
	}
	return fs
}

var pythonLang = &mutLang{
	name:     "Python",
	patLang:  "python",
	tools:    []string{"pyright", "pyright-langserver"},
	corpus:   pythonCorpus,
	check:    pyrightCheck,
	decl:     regexp.MustCompile(`^\s*def ([A-Za-z_]\w*)\(`),
	addParam: "zq, ",
	addOnly:  "zq",
	imp:      regexp.MustCompile(`^(?:import \w|from [\w.]+ import \w[\w, ]*$)`),
	comment:  regexp.MustCompile(`^\s*#`),
	exact:    true,
}

func TestMutationDiagnosticsPython(t *testing.T) {
	runMutations(t, pythonLang, mutationCount(5, 100), 1796163960447482374)
}

// TestMutationDiagnosticsPythonApp: the same, in a root that holds the
// library the edited package imports.
func TestMutationDiagnosticsPythonApp(t *testing.T) {
	l := *pythonLang
	l.name, l.corpus = "Python beside its library", pythonAppCorpus
	runMutations(t, &l, mutationCount(5, 100), 1796697000000000001)
}

// --- C: sources vendored in Go modules or unpacked from Debian, checked by gcc -fsyntax-only ---

// cCorpus copies the tree around a random directory of C sources (3 to
// 30 .c files, none over 300 KB; only .c and .h files), with a
// compile_flags.txt naming every header directory. The directories are
// those vendored in Go modules of the module cache and those of the
// Debian source packages install-tools.sh unpacks (zstd, lz4, brotli,
// xxhash): the module cache alone has one that compiles here.
func cCorpus(t *testing.T, rng *rand.Rand) (string, []string, string) {
	cache, err := corpus.GoModCache()
	if err != nil {
		return "", nil, "go env GOMODCACHE: " + err.Error()
	}
	debian, err := corpus.DebianCSources()
	if err != nil {
		return "", nil, err.Error()
	}
	cands := append(corpus.CDirs(cache, 3, 30), corpus.CDirs(debian, 3, 30)...)
	if len(cands) == 0 {
		return "", nil, "no directory of C sources in " + cache + " or " + debian
	}
	name := func(dir string) string {
		for _, top := range []string{cache, debian} {
			if r, err := filepath.Rel(top, dir); err == nil && !strings.HasPrefix(r, "..") {
				return r
			}
		}
		return dir
	}
	// Sources that compile here: code for another system (delve's darwin
	// files) stops gcc at its first missing header, and clangd at 20
	// errors, so their findings do not compare.
	rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	for _, dir := range cands {
		root, files := cCopy(t, dir)
		if n := len(slices.DeleteFunc(gccCheck(t, root), func(f finding) bool { return f.warning })); n > 0 {
			t.Logf("%s: gcc finds %d errors before any edit: drawn again", name(dir), n)
			continue
		}
		t.Logf("drew %s of %d directories", name(dir), len(cands))
		return root, files, ""
	}
	return "", nil, fmt.Sprintf("none of the %d directories of C sources in %s and %s compiles here", len(cands), cache, debian)
}

// cCopy copies the tree around dir (only .c and .h files) with a
// compile_flags.txt, and returns it and the files of dir.
func cCopy(t *testing.T, dir string) (string, []string) {
	src := filepath.Dir(dir)
	dst := canonical(t.TempDir())
	small := corpus.SmallC(src)
	copyTree(t, src, dst, func(rel string, isDir bool) bool {
		if isDir {
			return strings.Count(rel, "/") > 2
		}
		return !small(rel)
	})
	flags := corpus.CFlags(dst)
	writeFile(t, filepath.Join(dst, "compile_flags.txt"), strings.Join(flags, "\n")+"\n")
	rel, _ := filepath.Rel(src, dir)
	var files []string
	for _, f := range relFiles(dst, ".c", ".h") {
		if strings.HasPrefix(f, filepath.ToSlash(rel)+"/") {
			files = append(files, f)
		}
	}
	return dst, files
}

var gccDiagRe = regexp.MustCompile(`^([^:\s][^:]*\.[ch]):\d+:\d+: (error|fatal error|warning): (.*)$`)

// gccCheck runs gcc -fsyntax-only, with the flags of compile_flags.txt,
// on every .c file of root. An error in a macro's expansion is placed
// where the macro is used, as clang places it
// (-ftrack-macro-expansion=0), not in the macro's definition: a
// signature change of go-tree-sitter's _array__grow has its "too few
// arguments" in parser.c and query.c for both, not in array.h for gcc.
func gccCheck(t *testing.T, root string) []finding {
	return compilerCheck(t, root, "gcc", "-fsyntax-only", "-fmax-errors=0", "-ftrack-macro-expansion=0")
}

// clangCheck is gccCheck with clang 14, clangd's compiler: C's second
// checker (see mutLang.second).
func clangCheck(t *testing.T, root string) []finding {
	return compilerCheck(t, root, "clang-14", "-fsyntax-only", "-ferror-limit=0", "-fno-caret-diagnostics")
}

// clangdKey keys clang's message and clangd's copy of it alike: clangd
// capitalises the first letter and appends the notes.
func clangdKey(m string) string {
	m = msgKey(m)
	if r, n := utf8.DecodeRuneInString(m); n > 0 {
		return string(unicode.ToLower(r)) + m[n:]
	}
	return m
}

// compilerCheck runs a compiler (argv before the flags of
// compile_flags.txt) on every .c file of root and lists its errors and
// warnings (these marked warning).
func compilerCheck(t *testing.T, root string, argv ...string) []finding {
	data, err := os.ReadFile(filepath.Join(root, "compile_flags.txt"))
	if err != nil {
		t.Fatal(err)
	}
	flags := strings.Fields(string(data))
	seen := map[finding]bool{}
	var fs []finding
	for _, c := range relFiles(root, ".c") {
		cmd := exec.Command(argv[0], append(append(slices.Clone(argv[1:]), flags...), c)...)
		cmd.Dir = root
		out, _ := cmd.CombinedOutput()
		for _, ln := range strings.Split(string(out), "\n") {
			m := gccDiagRe.FindStringSubmatch(ln)
			if m == nil {
				continue
			}
			f := finding{path: filepath.ToSlash(filepath.Clean(m[1])), msg: normalizeMessage(m[3]), warning: m[2] == "warning"}
			// A header's error is gcc's once per file including it.
			if strings.HasSuffix(f.path, ".h") && seen[f] {
				continue
			}
			seen[f] = true
			fs = append(fs, f)
		}
	}
	return fs
}

var cLang = &mutLang{
	name:       "C",
	patLang:    "c",
	tools:      []string{"clangd", "gcc", "clang-14"},
	corpus:     cCorpus,
	check:      gccCheck,
	second:     clangCheck,
	secondKey:  clangdKey,
	decl:       regexp.MustCompile(`^(?:static\s+|inline\s+|const\s+|unsigned\s+)*[A-Za-z_]\w*[\s\*]+\**([A-Za-z_]\w*)\((?:[^;]*)$`),
	addParam:   "int zq, ",
	addOnly:    "int zq",
	imp:        regexp.MustCompile(`^#\s*include\s*"`),
	comment:    regexp.MustCompile(`^\s*(?://|/?\*)`),
	errorsOnly: true,
	// clangd rebuilds each includer's preamble after a header changed:
	// seconds each on a loaded machine.
	opts: &Options{DiagnosticCap: 30 * time.Second},
}

func TestMutationDiagnosticsC(t *testing.T) {
	isolateCache(t)
	runMutations(t, cLang, mutationCount(5, 100), 1796167163380010418)
}

// --- TypeScript: sources shipped in npm packages, checked by tsc ---

// tsCorpus copies the src/ of a random npm package in the global
// node_modules that ships 5 to 150 TypeScript sources (not declarations),
// with a strict tsconfig over them.
func tsCorpus(t *testing.T, rng *rand.Rand) (string, []string, string) {
	global, err := corpus.NPMGlobalRoot()
	if err != nil {
		return "", nil, "npm root -g: " + err.Error()
	}
	cands := corpus.NPMSources([]string{global}, 5, 150)
	if len(cands) == 0 {
		return "", nil, "no npm package with TypeScript sources in " + global
	}
	src := cands[rng.IntN(len(cands))]
	t.Logf("drew %s of %d packages", strings.TrimPrefix(filepath.Dir(src), global+"/"), len(cands))
	dst := canonical(t.TempDir())
	copyTree(t, src, filepath.Join(dst, "src"), func(rel string, dir bool) bool { return !dir && !corpus.TSSource(rel) })
	writeFile(t, filepath.Join(dst, "tsconfig.json"), corpus.TSConfig)
	return dst, relFiles(dst, ".ts"), ""
}

// tscProgramDiagnostics prints every error and warning of the program
// that root's tsconfig.json makes, one JSON object a line, through the
// TypeScript module whose path is its first argument. Not the tsc
// command: tsc leaves out every semantic error, in every file, while any
// file has a syntax error, so a typo that broke the syntax made the
// other files' old errors look new once it was undone. The language
// server reports both kinds at once, and so does getPreEmitDiagnostics.
const tscProgramDiagnostics = `
const path = require("path");
const ts = require(process.argv[1]);
const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic(d) {
  console.error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  process.exit(2);
} };
const cfg = ts.getParsedCommandLineOfConfigFile("tsconfig.json", {}, host);
const program = ts.createProgram({ rootNames: cfg.fileNames, options: cfg.options, projectReferences: cfg.projectReferences });
for (const d of ts.getPreEmitDiagnostics(program)) {
  if (!d.file || (d.category !== ts.DiagnosticCategory.Error && d.category !== ts.DiagnosticCategory.Warning)) continue;
  console.log(JSON.stringify({ file: path.relative(process.cwd(), d.file.fileName), msg: ts.flattenDiagnosticMessageText(d.messageText, "\n") }));
}
`

// tscCheck lists the errors and warnings tsc's own compiler finds in
// root's TypeScript sources, syntactic and semantic together (see
// tscProgramDiagnostics), with the typescript module the tsc on PATH
// runs.
func tscCheck(t *testing.T, root string) []finding {
	bin, err := exec.LookPath("tsc")
	if err == nil {
		bin, err = filepath.EvalSymlinks(bin)
	}
	if err != nil {
		t.Fatalf("tsc: %v", err)
	}
	module := filepath.Dir(filepath.Dir(bin)) // typescript/bin/tsc
	cmd := exec.Command("node", "-e", tscProgramDiagnostics, module)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("typescript's diagnostics of %s: %v: %s", root, err, stderr.String())
	}
	var fs []finding
	for _, ln := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var d struct{ File, Msg string }
		if ln == "" {
			continue
		}
		if err := json.Unmarshal([]byte(ln), &d); err != nil {
			t.Fatalf("typescript's diagnostics: %q: %v", ln, err)
		}
		if strings.HasSuffix(d.File, ".ts") {
			fs = append(fs, finding{path: filepath.ToSlash(d.File), msg: msgKey(d.Msg)})
		}
	}
	return fs
}

// TestTSCheckOracle holds the TypeScript oracle to what the language
// server reports: a semantic error in one file stays listed while
// another file has a syntax error (tsc's own command drops it).
func TestTSCheckOracle(t *testing.T) {
	testutil.Needs(t, "tsc", "node")
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "tsconfig.json"), corpus.TSConfig)
	writeFile(t, filepath.Join(root, "src", "a.ts"), "export const x: number = \"s\";\n")
	writeFile(t, filepath.Join(root, "src", "b.ts"), "export const y = 1;\nreturnq 2 +;\n")
	got := tscCheck(t, root)
	want := finding{path: "src/a.ts", msg: "Type 'string' is not assignable to type 'number'."}
	if !slices.Contains(got, want) || !slices.ContainsFunc(got, func(f finding) bool { return f.path == "src/b.ts" }) {
		t.Errorf("the oracle lists %v; want %v and b.ts's syntax errors", got, want)
	}
}

var tsLang = &mutLang{
	name:     "TypeScript",
	patLang:  "typescript",
	tools:    []string{"typescript-language-server", "tsc", "node"},
	corpus:   tsCorpus,
	check:    tscCheck,
	decl:     regexp.MustCompile(`^\s*(?:export )?(?:async )?function\s*\*?\s*([A-Za-z_$][\w$]*)(?:<[^>]*>)?\(`),
	addParam: "zq: number, ",
	addOnly:  "zq: number",
	imp:      regexp.MustCompile(`^import .* from ['"]`),
	comment:  regexp.MustCompile(`^\s*(?://|/?\*)`),
	exact:    true,
	// (Its diagnostics are asked of tsserver: no answer rests on a quiet
	// window, which at load 8 ended before a push had come, with the
	// default 1.5 s and with 5 s.)
}

func TestMutationDiagnosticsTS(t *testing.T) {
	runMutations(t, tsLang, mutationCount(4, 100), 1796165120111513311)
}

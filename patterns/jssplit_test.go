package patterns

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestSplitJS checks the JavaScript-family split on sources built to
// trip it: each case's cuts are the first lines listed, and where the
// scan cannot tell a regular expression, JSX or a template from code it
// cuts nowhere after that point.
func TestSplitJS(t *testing.T) {
	ts, jsx := splitJS(false), splitJS(true)
	for _, tt := range []struct {
		split splitter
		src   string
		want  []string // the first line of each part after the first
	}{
		{ts, "import a from 'a';\nexport const x = 1;\nfunction f() {\n  return 1;\n}\nclass C {}\ninterface I {}\ntype T = I;\n",
			[]string{"export const x = 1;", "function f() {", "class C {}", "interface I {}", "type T = I;"}},
		// Only after ';' or '}' at depth 0, and only listed words at column 0.
		{ts, "const a = 1 +\nfunction() {};\nlet b = 2\nconst c = 3;\n  const d = 4;\nelse;\nexport {a}\nfrom 'x';\nvar e;\n",
			[]string{"let b = 2", "export {a}", "var e;"}},
		{ts, "@d()\nexport class A {}\n@e\nclass B {}\n", []string{"@e"}},
		{ts, "if (a) {\n}\nelse {\n}\ntry {\n} catch {\n}\nfinally {}\ndo {}\nwhile (a);\ntest('x', () => {});\n$(1);\n",
			[]string{"try {", "do {}", "test('x', () => {});", "$(1);"}},
		{ts, "const s = `\nexport const no = ${ {a: `\n}\nconst no2 = 1;\n`} }`;\nconst yes = 1;\n", []string{"const yes = 1;"}},
		{ts, "const s = '\\\nconst no = 1;';\nconst r = /'/g;\nconst q = a / 2; // '\nconst yes = 1;\n",
			[]string{"const r = /'/g;", "const q = a / 2; // '", "const yes = 1;"}},
		{ts, "/* a\nconst no = 1;\n*/\nconst yes = 1;\nconst x = y! / 2;\nconst z = 1;\n", []string{"const yes = 1;", "const x = y! / 2;", "const z = 1;"}},
		{ts, "if (a) /'/.test(b);\nconst yes = 1;\nconst r = x.return / 2 / 3;\nconst y = 2;\n",
			[]string{"const yes = 1;", "const r = x.return / 2 / 3;", "const y = 2;"}},
		{ts, "export default /[(']/;\nconst a = `${ '}' }/${ /}/ }`;\nconst b = 1;\n", []string{"const a = `${ '}' }/${ /}/ }`;", "const b = 1;"}},
		// Unsure: a '/' after '}', ++ or await; nothing is cut past it.
		{ts, "const a = 1;\nconst b = {} / 2;\nconst no = 1;\n", []string{"const b = {} / 2;"}},
		{ts, "const a = 1;\nlet b = x++ / 2;\nconst no = 1;\n", []string{"let b = x++ / 2;"}},
		{ts, "const a = 1;\nasync function f() { await /'/; }\nconst no = 1;\n", []string{"async function f() { await /'/; }"}},
		// TypeScript has no JSX: a '<' is a type's or an operator.
		{ts, "const a = <T>(x: T) => x;\nconst b = 1;\n", []string{"const b = 1;"}},
		{jsx, "const a = 1;\nconst b = <div>{'</div>'}\nconst no = 1;\n</div>;\nconst no2 = 1;\n", []string{"const b = <div>{'</div>'}"}},
		{jsx, "const a = b < c;\nconst d = 1;\n", []string{"const d = 1;"}},
		{jsx, "#!/usr/bin/env node\nconst a = 1;\nmodule.exports = a;\n", []string{"const a = 1;", "module.exports = a;"}},
		// An unterminated string or comment: cuts before it only.
		{ts, "const a = 1;\nconst s = 'x\nconst no = 1;\n", []string{"const s = 'x"}},
		{ts, "const a = 1;\n/* x\nconst no = 1;\n", nil},
	} {
		checkSplit(t, tt.split, tt.src, tt.want, true)
	}
}

// jsPatterns are the bench's four TypeScript patterns and a few more.
var jsPatterns = []string{
	"if ($C) { $$$ }", "$X.$M($$$)", "return $X", "const $A = $B",
	"console.log($$$)", "function $F($$$) { $$$ }", "new $C($$$)", "$A === $B", "export const $A = $B",
	"$X => $Y",
}

// jsLangOf is the JavaScript-family language of a file name, or "".
func jsLangOf(path string) string {
	switch filepath.Ext(path) {
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "tsx"
	case ".js", ".mjs", ".cjs", ".jsx":
		return "javascript"
	}
	return ""
}

// TestSplitJSOnNpm is the TypeScript and JavaScript split's differential
// test: on the TS and JS files under the global npm root (rxjs' and
// zod's sources among them; every fifth file, all of them with
// AGENT_TOOLS_SOAK=1), each offset the split gives is where a top-level
// statement starts, and for each of jsPatterns the matches found on the
// partial parse (ranges, captures) equal those on the whole file's.
// Files with a syntax error are left out, as in C: there the parts that
// parse clean are read as written while the whole file's error recovery
// may read them otherwise.
func TestSplitJSOnNpm(t *testing.T) {
	testutil.Needs(t, "npm")
	out, err := exec.Command("npm", "root", "-g").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := strings.TrimSpace(string(out))
	every := 5
	if os.Getenv("AGENT_TOOLS_SOAK") == "1" {
		every = 1
	}
	pats := map[string][]*Pattern{}
	for _, id := range []string{"typescript", "tsx", "javascript"} {
		lang := mustLang(t, id)
		for _, s := range jsPatterns {
			p, err := Compile(lang, s, CompileOptions{})
			if err != nil {
				t.Fatalf("%s %q: %v", id, s, err)
			}
			pats[id] = append(pats[id], p)
		}
	}
	pr := newParser()
	defer pr.close()
	type count struct{ files, broken, cut, starts, matches int }
	counts := map[string]*count{}
	matches := make([]int, len(jsPatterns))
	seen := 0
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		id := jsLangOf(path)
		if err != nil || d.IsDir() || id == "" {
			return nil
		}
		if seen++; seen%every != 0 {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || len(src) > DefaultMaxFileBytes {
			return nil
		}
		c := counts[id]
		if c == nil {
			c = &count{}
			counts[id] = c
		}
		c.files++
		lang := mustLang(t, id)
		whole, err := pr.parse(lang, src, true)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if _, broken := whole.firstError(); broken {
			c.broken++
			return nil
		}
		starts, _ := splitters[id](src, nil)
		top := map[uint32]bool{}
		for n := uint32(1); n < uint32(len(whole.nodes)); n = whole.nodes[n].next {
			top[whole.nodes[n].start] = true
		}
		for _, s := range starts[1:] {
			if !top[s] {
				line, _, _ := strings.Cut(string(src[s:]), "\n")
				t.Errorf("%s:%d: the split starts a statement at %q, the parser does not", path, s, line)
			}
		}
		if len(starts) > 1 {
			c.cut++
			c.starts += len(starts) - 1
		}
		for i, p := range pats[id] {
			want := p.Find(whole)
			near, err := pr.parseFor(p, src)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if got := p.Find(near); !sameSpans(got, want) {
				t.Errorf("%s, %s %q: %d matches on the partial parse, %d on the whole file", path, id, p.Source, len(got), len(want))
			}
			matches[i] += len(want)
			c.matches += len(want)
		}
		return nil
	})
	total := 0
	for id, c := range counts {
		total += c.files
		t.Logf("%s: %d files (%d with a syntax error, left out), %d split (%d cuts), %d matches", id, c.files, c.broken, c.cut, c.starts, c.matches)
	}
	t.Logf("partial parses kept %d, redone whole %d; matches per pattern %v", pr.parts, pr.retries, matches)
	if total < 1000 {
		t.Fatalf("only %d TS and JS files under %s", total, root)
	}
	for i, n := range matches {
		if n == 0 {
			t.Errorf("%q matched nothing: the comparison proves little", jsPatterns[i])
		}
	}
	if pr.parts == 0 {
		t.Error("no partial parse was kept: the split was never tried")
	}
}

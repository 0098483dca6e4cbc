package patterns

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestGenDiffersClassify replays the two cases a CI run's draw met (seed
// 20261201 on the files that machine had) through the listed differences:
// each is classified by the entry that says why, and a made-up difference
// on the same files (a span of the same shape added to ours) by none, so
// an entry cannot swallow a matcher bug.
func TestGenDiffersClassify(t *testing.T) {
	bin := astGrepPath()
	testutil.NeedsFunc(t, "the ast-grep CLI", func() string {
		if bin == "" {
			return "not on PATH nor in third_party/npm (scripts/install-tools.sh)"
		}
		return ""
	})
	cases := []struct {
		lang, ag, ext, src, pat, want string
	}{
		{"javascript", "javascript", ".js", "const x = 1;\nexport { __iconNode, ChartArea as default };\n",
			"export { __iconNode, ChartArea as $A };", "grammar versions"},
		{"json", "json", ".json", "[\n  {\n    \"type\": \"\\\"\",\n    \"named\": false\n  }\n]\n",
			"{\n  \"type\": \"\\\"\",\n  \"named\": $A\n}", "metavariable the grammar has no place for"},
		// Those of the soak with seed 77.
		{"python", "python", ".py", "__all__ = [\"filter\", \"fnmatch\", \"fnmatchcase\", \"translate\"]\n",
			"__all__ = [$$$, $$$, \"$A\", \"$B\"]", "$$$ before a metavariable"},
		{"c", "c", ".c", "#ifndef X_H\n#define X_H\n#define Y 1\n#endif\n",
			"# define $A\n", "spaced directive"},
		{"c", "c", ".c", "int f(struct sockaddr_pn *spn) { return 0; }\n",
			"struct $A *spn", "sequence"},
		{"cpp", "cpp", ".cpp", "struct V { V & operator=(const V & rhs); };\n",
			"const $A & rhs", "sequence"},
		{"typescript", "typescript", ".ts", "expect(() => m.parse(new File([\"\"], \"test.txt\"))).toThrow;\n",
			"expect(() => m.$A(new $B([\"\"], \"test.txt\", $$$))).$C", "empty $$$ takes its comma"},
		// Those of the soak with seed 6.
		{"go", "go", ".go", "package p\n\ntype I interface {\n\tFoo() string\n\tBar()\n}\n",
			"interface {\n\t$A() string\n}", "more siblings before '}'"},
		{"c-sharp", "csharp", ".cs", "var filePath = args[0];\nfilePath = args[1];\n",
			"$A = $B", "pattern ast-grep reads as an error"},
		{"dart", "dart", ".dart", "class C<T> {\n  List<T> m() {\n    List<T> list = Collections.emptyList<T>();\n    return list;\n  }\n}\n",
			"List<$A> list = $B.emptyList<$A>()", "another grammar's kind names"},
		{"swift", "swift", ".swift", "var n = 0\nfunc f() -> Int {\n    return (_value0 != nil ? 1 : 0) + _pairs.count\n}\n",
			"$A.$B", "grammar versions"},
		// Seed 12.
		{"swift", "swift", ".swift", "import Foundation\nlet language = Language(language: tree_sitter_ruby())\n",
			"let $A = Language($A: tree_sitter_ruby())", "a repeated metavariable compares tokens"},
		{"go", "go", ".go", "package p\n\nfunc f() int {\n\tif x {\n\t\t// why\n\t\treturn 1\n\t}\n\treturn 0\n}\n",
			"{\n\treturn $A\n}", "comments skipped"},
		{"javascript", "javascript", ".js", "function f() {\n  g((0, /* c */ a.b));\n}\n",
			"(0, $A.$B)", "comments skipped"},
		{"dart", "dart", ".dart", "void main(List<String> args) {\n  if (args.length < 1) {\n    print('x');\n  }\n}\n",
			"($A.$B < $C)", "no such node in the other grammar"},
		{"c-sharp", "csharp", ".cs", "class C {\n  [return: MarshalAs(UnmanagedType.SafeArray, SafeArraySubType = VarEnum.VT_UNKNOWN)]\n  object F();\n}\n",
			"SafeArraySubType = $A.VT_UNKNOWN", "no such node in the other grammar"},
		{"c", "c", ".c", "int main(int argc, char *argv[]) { return 0; }\n",
			"$A *argv[]", "sequence"},
		// A literal matches only the same literal; ast-grep compares a
		// node's children and not the text between them.
		{"css", "css", ".css", "a { color: #eee; }\nb { color: #fff; }\n",
			"$A: #eee;", "text no child covers"},
		{"yaml", "yaml", ".yaml", "a: \"x\"\nb: \"y\"\n",
			"$K: \"x\"", "text no child covers"},
		{"kotlin", "kotlin", ".kt", "fun m() { f('a'); f('b') }\n",
			"f('a')", "text no child covers"},
		{"dart", "dart", ".dart", "class Person {\n  String name;\n  String getName() {\n    return this.name;\n  }\n}\n",
			"return $A.$B;", "the grammars read the code otherwise"},
		{"dart", "dart", ".dart", "void f() {\n  final results = <Future<void>>[];\n}\n",
			"$A results = <$B<void>>[]", "the grammars read the code otherwise"},
		// The soak with seed 17: a conditional after a sum, in a Dart file.
		{"dart", "dart", ".dart", "void f(List files, int i, int n) {\n  var end = i + n < files.length ? i + n : files.length;\n}\n",
			"$A + $B", "the grammars nest the code otherwise"},
		// Seed 19: a CSS block whose last declaration has no ';'.
		{"css", "css", ".css", "p,\nli {\n  max-width: 50rem;\n  word-wrap: break-word;\n}\n",
			"$A{max-width:$B}", "more siblings before '}'"},
		// A #define inside an enum, as glibc writes them (aio.h).
		{"c", "c", ".c", "enum\n{\n  AIO_CANCELED,\n#define AIO_CANCELED AIO_CANCELED\n  AIO_NOTCANCELED\n};\n",
			"#define $A $B", "a #define the whole file's parse loses"},
		{"c", "c", ".c", "enum e { A,\n#define A A\n};\n", "#define $A $B", "a #define the whole file's parse loses"},
		// The soak with seed 11 (gendiff's css draw).
		{"css", "css", ".css", "a {\n  background:#141414;\n  color: red;\n}\n",
			"$A:#141414", "pattern ast-grep reads only in a context"},
	}
	for _, c := range cases {
		t.Run(c.lang+"/"+c.want, func(t *testing.T) {
			l, err := LanguageByName(c.lang)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "f00"+c.ext), []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			ours := genOurs(t, dir, c.lang, c.pat)
			peer, perr := genPeer(bin, dir, c.ag, c.pat, "")
			if perr != "" {
				t.Fatalf("ast-grep refused %q: %s", c.pat, perr)
			}
			if genSame(ours, peer) {
				t.Fatalf("%q: no difference to classify (ours %v, ast-grep %v)", c.pat, ours, peer)
			}
			genDir, genBin, genAg, genExt = dir, bin, c.ag, c.ext
			classify := func(ours, peer genFileSpans) string {
				for _, d := range genDiffers {
					if d.applies(l, c.pat, ours, peer) {
						return d.name
					}
				}
				return ""
			}
			if got := classify(ours, peer); got != c.want {
				t.Errorf("%q: classified %q, want %q", c.pat, got, c.want)
			}
			// The first line of the file, as if ours had matched it too: a
			// difference nothing explains.
			fake := genFileSpans{}
			for f, ss := range ours {
				fake[f] = append(append([][2]uint32{}, ss...), [2]uint32{0, 11})
			}
			if got := classify(fake, peer); got != "" {
				t.Errorf("%q: a made-up extra span was classified %q", c.pat, got)
			}
		})
	}
}

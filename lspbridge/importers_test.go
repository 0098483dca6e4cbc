package lspbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/corpus"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// importersScript has python3's ast say, for each .py file of a package
// tree, which modules of that tree it imports: import a.b, from a.b import
// x, and from a import b where b is a module (the form the dependents
// search missed: debugpy's from debugpy.common import json, log), with
// relative imports resolved. It prints {"importer": ["module path", …]}.
const importersScript = `
import ast, json, os, sys
root = sys.argv[1]
top = os.path.dirname(root)
mods = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if f.endswith(".py"):
            p = os.path.join(d, f)
            name = os.path.relpath(p, top)[:-3].replace(os.sep, ".")
            if name.endswith(".__init__"):
                name = name[:-len(".__init__")]
            mods[name] = p
out = {}
for name, p in mods.items():
    try:
        tree = ast.parse(open(p, encoding="utf-8").read())
    except Exception:
        continue
    pkg = name if p.endswith("__init__.py") else name.rpartition(".")[0]
    got = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                if a.name in mods:
                    got.add(mods[a.name])
        elif isinstance(n, ast.ImportFrom):
            base = n.module or ""
            if n.level:
                parts = pkg.split(".")
                parts = parts[:len(parts) - (n.level - 1)] if n.level > 1 else parts
                base = ".".join(parts + ([n.module] if n.module else []))
            for a in n.names:
                if base + "." + a.name in mods:
                    got.add(mods[base + "." + a.name])
                elif base in mods:
                    got.add(mods[base])  # a name of base's own
    got.discard(p)
    if got:
        out[p] = sorted(got)
print(json.dumps(out))
`

// TestImportPatternAgreesWithPython compares the files the dependents
// search takes for importers of a file (importPattern, importedBy) with python3's own
// reading of the imports, over packages drawn from Debian's dist-packages
// (seeded; the seed is printed): every file that python3 says imports a
// module must match that module's pattern. (The pattern may match more:
// an extra file checked costs time, a missed one a missed error.)
func TestImportPatternAgreesWithPython(t *testing.T) {
	testutil.Needs(t, "python3")
	const dist = "/usr/lib/python3/dist-packages"
	entries, _ := os.ReadDir(dist)
	var pkgs []string
	for _, e := range entries {
		if e.IsDir() && !strings.Contains(e.Name(), ".") && !strings.HasPrefix(e.Name(), "_") {
			if _, err := os.Stat(filepath.Join(dist, e.Name(), "__init__.py")); err == nil {
				pkgs = append(pkgs, e.Name())
			}
		}
	}
	testutil.NeedsFunc(t, "Debian's python3 packages (scripts/install-tools.sh)", func() string {
		if len(pkgs) == 0 {
			return "no package under " + dist
		}
		return ""
	})
	slices.Sort(pkgs)
	seed := testutil.Seed(t, 20261207, os.Getenv("AGENT_TOOLS_SOAK") == "1")
	rng := rand.New(rand.NewPCG(seed, seed))
	rng.Shuffle(len(pkgs), func(i, j int) { pkgs[i], pkgs[j] = pkgs[j], pkgs[i] })
	pairs := 0
	for _, pkg := range pkgs[:min(6, len(pkgs))] {
		pairs += importersAgree(t, seed, "python", "python3's ast", exec.Command("python3", "-c", importersScript, filepath.Join(dist, pkg)))
	}
	t.Logf("%d importer-module pairs in %d packages agree (seed %d)", pairs, min(6, len(pkgs)), seed)
	if pairs == 0 {
		t.Fatalf("no import pairs drawn (seed %d): the test proved nothing", seed)
	}
}

// tsImporters has the TypeScript module whose path is its first argument
// read each file below the directory of its second (ts.preProcessFile)
// and resolve each import, export … from and import() to a file
// (ts.resolveModuleName, as the compiler does: './dir' is dir/index.ts,
// './a.js' is a.ts); it prints {"importer": ["imported file", …]} for
// the imported files inside that directory.
const tsImporters = `
const fs = require("fs"), path = require("path");
const ts = require(process.argv[1]);
const root = path.resolve(process.argv[2]);
const files = [];
(function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts")) files.push(p);
  }
})(root);
const options = { moduleResolution: ts.ModuleResolutionKind.Node10, allowJs: false };
const out = {};
for (const f of files) {
  const info = ts.preProcessFile(fs.readFileSync(f, "utf8"), true, true);
  const got = new Set();
  for (const imp of info.importedFiles) {
    const r = ts.resolveModuleName(imp.fileName, f, options, ts.sys).resolvedModule;
    if (r && r.resolvedFileName.startsWith(root + path.sep) && !r.resolvedFileName.endsWith(".d.ts") && r.resolvedFileName !== f) {
      got.add(r.resolvedFileName);
    }
  }
  if (got.size) out[f] = [...got].sort();
}
console.log(JSON.stringify(out));
`

// TestImportPatternAgreesWithTypeScript is TestImportPatternAgreesWithPython
// for TypeScript: over the sources of npm packages drawn from the global
// node_modules (seeded), every file the TypeScript compiler resolves an
// import of to a file must match that file's import pattern.
func TestImportPatternAgreesWithTypeScript(t *testing.T) {
	testutil.Needs(t, "node", "tsc")
	bin, err := exec.LookPath("tsc")
	if err == nil {
		bin, err = filepath.EvalSymlinks(bin)
	}
	if err != nil {
		t.Fatal(err)
	}
	module := filepath.Dir(filepath.Dir(bin)) // typescript/bin/tsc
	global, err := corpus.NPMGlobalRoot()
	var cands []string
	if err == nil {
		cands = corpus.NPMSources([]string{global}, 5, 300)
	}
	testutil.NeedsFunc(t, "npm packages with TypeScript sources (scripts/install-tools.sh)", func() string {
		if len(cands) == 0 {
			return fmt.Sprintf("none in the global node_modules (%v)", err)
		}
		return ""
	})
	seed := testutil.Seed(t, 20261207, os.Getenv("AGENT_TOOLS_SOAK") == "1")
	rng := rand.New(rand.NewPCG(seed, seed))
	rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	pairs, drawn := 0, min(6, len(cands))
	for _, src := range cands[:drawn] {
		pairs += importersAgree(t, seed, "typescript", "the TypeScript compiler", exec.Command("node", "-e", tsImporters, module, src))
	}
	t.Logf("%d importer-file pairs in %d packages agree (seed %d)", pairs, drawn, seed)
	if pairs == 0 {
		t.Fatalf("no import pairs drawn (seed %d): the test proved nothing", seed)
	}
}

// importersAgree runs cmd, a resolver we did not write that prints
// {"importer": ["imported file", …]}, and fails the test for each pair
// whose importer the dependents search would not take as importing that
// file (importPattern, importedBy); it returns how many pairs it checked.
func importersAgree(t *testing.T, seed uint64, lang, resolver string, cmd *exec.Cmd) int {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", resolver, err, stderr.String())
	}
	var importers map[string][]string
	if err := json.Unmarshal(out, &importers); err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for importer, files := range importers {
		data, err := os.ReadFile(importer)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			pairs++
			if !importedBy(f, importPattern(lang, f), importer, data) {
				t.Errorf("seed %d: %s imports %s (%s), but no line matches its import pattern", seed, importer, f, resolver)
			}
		}
	}
	return pairs
}

// TestImportPatternIndex: a TypeScript directory's index.ts is imported
// by the directory's name, or as '.' and '..' (the drawn packages use
// neither form, so the differential above does not meet them).
func TestImportPatternIndex(t *testing.T) {
	for _, c := range []struct {
		file, line string
		want       bool
	}{
		{"/r/src/utils/index.ts", "import { a } from './utils';", true},
		{"/r/src/utils/index.ts", "export * from \"../utils/\";", true},
		{"/r/src/utils/index.ts", "import { a } from './utils/index.js';", true},
		{"/r/src/index.ts", "import { a } from '.';", true},
		{"/r/src/index.ts", "import { a } from '..';", true},
		{"/r/src/utils/index.ts", "import { a } from './utilsx';", false},
		{"/r/src/utils/index.ts", "import { a } from './other';", false},
		{"/r/src/a.ts", "import { a } from '.';", false},
		{"/r/src/index.ts", "const x = require('..');", true},
		{"/r/src/index.ts", "const m = await import('.');", true},
		{"/r/src/index.ts", "const parts = name.split('.');", false},
		{"/r/src/index.ts", "return path.join(dir, '..');", false},
		{"/r/src/a.ts", "import { a } from './a.js';", true},
	} {
		if got := importPattern("typescript", c.file).MatchString(c.line); got != c.want {
			t.Errorf("import pattern of %s on %q: %v, want %v", c.file, c.line, got, c.want)
		}
	}
}

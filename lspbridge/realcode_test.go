package lspbridge

// Real code nobody here wrote, fetched the way any machine of this kind can
// (the Go module proxy, npm, Debian's own files), copied into a temp dir
// and only ever edited there. A fetch that fails skips the test locally
// and fails it under AGENT_TOOLS_REQUIRE_ALL=1.

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// Pinned versions: the figures the tests check were counted on these.
const (
	jsonrpc2Module   = "github.com/sourcegraph/jsonrpc2@v0.2.3"
	zerologModule    = "github.com/rs/zerolog@v1.35.1"
	treeSitterModule = "github.com/tree-sitter/go-tree-sitter@v0.25.0"
	rxjsPackage      = "rxjs@7.8.1"
	tabulatePath     = "/usr/lib/python3/dist-packages/tabulate.py"
)

var (
	fetchMu sync.Mutex
	fetched = map[string]string{} // what → directory, or "!why"
)

// fetchOnce runs get once per test binary for what and returns its
// directory, or skips/fails t with the reason get gave.
func fetchOnce(t *testing.T, what string, get func() (string, string)) string {
	t.Helper()
	fetchMu.Lock()
	dir, ok := fetched[what]
	if !ok {
		d, why := get()
		if why != "" {
			d = "!" + why
		}
		fetched[what], dir = d, d
	}
	fetchMu.Unlock()
	testutil.NeedsFunc(t, what, func() string { return whyOf(dir) })
	return dir
}

func whyOf(dir string) string {
	if strings.HasPrefix(dir, "!") {
		return dir[1:]
	}
	return ""
}

// goModuleDir returns a module's directory in the module cache, downloading
// it through the proxy when needed.
func goModuleDir(t *testing.T, mod string) string {
	t.Helper()
	return fetchOnce(t, "Go module "+mod, func() (string, string) {
		if _, err := exec.LookPath("go"); err != nil {
			return "", "go not on PATH"
		}
		out, err := exec.Command("go", "mod", "download", "-json", mod).Output()
		if err != nil {
			return "", "go mod download " + mod + ": " + err.Error()
		}
		var info struct{ Dir, Error string }
		if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
			return "", "go mod download " + mod + ": " + info.Error
		}
		return info.Dir, ""
	})
}

// copyTree copies src into dst (made writable), skipping paths (relative,
// slash-separated) for which skip says so.
func copyTree(t *testing.T, src, dst string, skip func(rel string, dir bool) bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && skip != nil && skip(rel, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, filepath.FromSlash(rel))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// jsonrpc2Tree copies sourcegraph/jsonrpc2 into a temp dir, with its one
// dependency (gorilla/websocket) in the module cache.
func jsonrpc2Tree(t *testing.T) string { return goModuleTree(t, jsonrpc2Module) }

// zerologTree copies rs/zerolog into a temp dir, with its dependencies in
// the module cache.
func zerologTree(t *testing.T) string { return goModuleTree(t, zerologModule) }

// goModuleTree copies a module from the module cache into a temp dir and
// downloads its dependencies (once per test binary).
func goModuleTree(t *testing.T, module string) string {
	src := goModuleDir(t, module)
	dst := canonical(t.TempDir())
	copyTree(t, src, dst, nil)
	fetchOnce(t, "the dependencies of "+module, func() (string, string) {
		cmd := exec.Command("go", "mod", "download")
		cmd.Dir = dst
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", "go mod download: " + err.Error() + ": " + string(out)
		}
		return dst, ""
	})
	return dst
}

// treeSitterTree copies the tree-sitter C runtime (include/, src/) with a
// compile_flags.txt and no compilation database.
func treeSitterTree(t *testing.T) string {
	isolateCache(t)
	src := goModuleDir(t, treeSitterModule)
	dst := canonical(t.TempDir())
	copyTree(t, src, dst, func(rel string, dir bool) bool {
		top, _, _ := strings.Cut(rel, "/")
		return top != "include" && top != "src"
	})
	writeFile(t, filepath.Join(dst, "compile_flags.txt"), "-std=c11\n-Iinclude\n-Isrc\n-D_POSIX_C_SOURCE=200112L\n-D_DEFAULT_SOURCE\n")
	return dst
}

// rxjsTree unpacks rxjs's TypeScript sources (src/) from its npm package
// with a tsconfig that includes them.
func rxjsTree(t *testing.T) string {
	t.Helper()
	tgz := fetchOnce(t, "npm package "+rxjsPackage, func() (string, string) {
		if _, err := exec.LookPath("npm"); err != nil {
			return "", "npm not on PATH"
		}
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir := filepath.Join(cache, "agent-tools-tests")
		file := filepath.Join(dir, "rxjs-7.8.1.tgz")
		if _, err := os.Stat(file); err == nil {
			return file, ""
		}
		os.MkdirAll(dir, 0o755)
		cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", dir, rxjsPackage)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", "npm pack " + rxjsPackage + ": " + err.Error() + ": " + string(out)
		}
		return file, ""
	})
	dst := canonical(t.TempDir())
	out, err := exec.Command("tar", "-xzf", tgz, "-C", dst, "--strip-components=1", "package/src").CombinedOutput()
	if err != nil {
		t.Fatalf("unpacking %s: %v: %s", tgz, err, out)
	}
	writeFile(t, filepath.Join(dst, "tsconfig.json"), `{
  "compilerOptions": {"strict": true, "target": "es2017", "lib": ["es2017", "dom"], "moduleResolution": "node", "noEmit": true, "skipLibCheck": true},
  "include": ["src/**/*.ts"]
}
`)
	return dst
}

// tabulateTree copies Debian's tabulate.py into a project with a
// pyproject.toml, plus app.py, a small user of it.
func tabulateTree(t *testing.T) string {
	t.Helper()
	testutil.NeedsFunc(t, "Debian's python3-tabulate", func() string {
		if _, err := os.Stat(tabulatePath); err != nil {
			return err.Error()
		}
		return ""
	})
	data, err := os.ReadFile(tabulatePath)
	if err != nil {
		t.Fatal(err)
	}
	dst := canonical(t.TempDir())
	writeFile(t, filepath.Join(dst, "tabulate.py"), string(data))
	writeFile(t, filepath.Join(dst, "pyproject.toml"), "[project]\nname = \"fx\"\nversion = \"0\"\n")
	writeFile(t, filepath.Join(dst, "app.py"), `from tabulate import tabulate, simple_separated_format


def report(rows: list[list[str]]) -> str:
    fmt = simple_separated_format("|")
    return tabulate(rows, headers=["name", "value"], tablefmt=fmt)
`)
	return dst
}

// lineOf returns the 1-based line of the first line of path containing
// sub.
func lineOf(t *testing.T, path, sub string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, sub) {
			return i + 1
		}
	}
	t.Fatalf("%q not in %s", sub, path)
	return 0
}

// replaceIn replaces old (which must occur) by new in path.
func replaceIn(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%q not in %s", old, path)
	}
	writeFile(t, path, strings.Replace(string(data), old, new, 1))
}

// isolateCache points the user cache directory (where clangd's generated
// compilation database and index go) at a temp dir for this test.
func isolateCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
}

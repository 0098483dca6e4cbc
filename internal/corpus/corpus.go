// Package corpus finds real projects on this machine for the tests that
// check answers on code nobody chose (internal/lspdiff's differential
// suite, lspbridge's mutation tests): Go modules in the module cache,
// Debian's pure-Python packages, the TypeScript sources npm packages ship,
// and directories of C sources vendored in Go modules or unpacked from
// Debian's source packages (DebianCSources).
//
// It lists candidates and their files; drawing one (seeded by the test),
// copying it and checking that it builds stay with each test, whose rules
// differ. Only tests import it.
package corpus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-tools/agent-tools/internal/proc"
)

// DebianPython is where Debian installs its Python packages.
const DebianPython = "/usr/lib/python3/dist-packages"

// TSConfig is the strict tsconfig.json over src/ that a TypeScript corpus
// is checked with.
const TSConfig = `{
  "compilerOptions": {"strict": true, "target": "es2020", "lib": ["es2020", "dom"], "module": "commonjs", "moduleResolution": "node", "noEmit": true, "skipLibCheck": true},
  "include": ["src/**/*.ts"]
}
`

// DebianCSources is the directory scripts/install-tools.sh unpacks the
// upstream sources of a few Debian C packages into (third_party/debian-src
// of this repository, found from the working directory up), or an error
// saying it is not there.
func DebianCSources() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			src := filepath.Join(dir, "third_party", "debian-src")
			if _, err := os.Stat(src); err != nil {
				return "", fmt.Errorf("no Debian C sources (run scripts/install-tools.sh): %w", err)
			}
			return src, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}

// maxCSize is the size from which a C file is too big to take.
const maxCSize = 300 << 10

// Files lists the regular files below root that keep accepts, as
// slash-separated paths relative to root, sorted.
func Files(root string, keep func(rel string) bool) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if keep(filepath.ToSlash(rel)) {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// Ext accepts a name that ends in one of exts (".go").
func Ext(exts ...string) func(string) bool {
	return func(rel string) bool { return slices.Contains(exts, filepath.Ext(rel)) }
}

// output runs a short command and returns its trimmed stdout.
func output(name string, args ...string) (string, error) {
	r, err := proc.Output(context.Background(), proc.Spec{Path: name, Args: args}, 0, 1<<16)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(r.Stdout)), nil
}

// GoModCache returns `go env GOMODCACHE`.
func GoModCache() (string, error) { return output("go", "env", "GOMODCACHE") }

// NPMGlobalRoot returns `npm root -g`, the global node_modules.
func NPMGlobalRoot() (string, error) { return output("npm", "root", "-g") }

// GoModules lists the modules of the module cache (the directories of a
// go.mod whose path has a version, at most four levels down, outside
// cache/) that keep accepts, given the module's directory and how many Go
// files it holds; in the order of the walk.
func GoModules(cache string, keep func(dir string, goFiles int) bool) []string {
	var out []string
	filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "cache" && filepath.Dir(p) == cache || strings.Count(strings.TrimPrefix(p, cache), "/") > 4) {
			return filepath.SkipDir
		}
		if d.Name() != "go.mod" || !strings.Contains(p, "@") {
			return nil
		}
		dir := filepath.Dir(p)
		if keep(dir, len(Files(dir, Ext(".go")))) {
			out = append(out, dir)
		}
		return nil
	})
	return out
}

// PythonPackages lists the pure-Python packages of dist (a directory
// with an __init__.py and no .so below it) with lo to hi modules, in
// name order.
func PythonPackages(dist string, lo, hi int) ([]string, error) {
	ents, err := os.ReadDir(dist)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		dir := filepath.Join(dist, e.Name())
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "__init__.py")); err != nil || len(Files(dir, Ext(".so"))) > 0 {
			continue
		}
		if n := len(Files(dir, Ext(".py"))); n >= lo && n <= hi {
			out = append(out, dir)
		}
	}
	return out, nil
}

// TSSource is a TypeScript source an npm package ships: a .ts file that is
// not a declaration and not a test.
func TSSource(rel string) bool {
	return filepath.Ext(rel) == ".ts" && !strings.HasSuffix(rel, ".d.ts") && !strings.Contains(rel, "test")
}

// NPMSources lists the src/ directories of the npm packages below tops
// (each src/ beside a package.json, one per name@version) that hold lo
// to hi [TSSource] files, sorted.
func NPMSources(tops []string, lo, hi int) []string {
	seen := map[string]bool{} // name@version: the same package nested twice
	var out []string
	for _, top := range tops {
		filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() || d.Name() != "src" {
				return nil
			}
			data, err := os.ReadFile(filepath.Join(filepath.Dir(p), "package.json"))
			if err != nil {
				return filepath.SkipDir
			}
			var meta struct{ Name, Version string }
			if json.Unmarshal(data, &meta) != nil || seen[meta.Name+"@"+meta.Version] {
				return filepath.SkipDir
			}
			if n := len(Files(p, TSSource)); n >= lo && n <= hi {
				seen[meta.Name+"@"+meta.Version] = true
				out = append(out, p)
			}
			return filepath.SkipDir
		})
	}
	slices.Sort(out)
	return out
}

// CDirs lists the directories of the module cache (outside cache/ and
// testdata/) holding lo to hi .c files and no .c file of 300 KB or more,
// sorted.
func CDirs(cache string, lo, hi int) []string {
	perDir := map[string]int{}
	filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "cache" && filepath.Dir(p) == cache || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if filepath.Ext(p) == ".c" {
			if fi, err := d.Info(); err == nil && fi.Size() < maxCSize {
				perDir[filepath.Dir(p)]++
			} else {
				perDir[filepath.Dir(p)] -= 1000 // a big file: not this directory
			}
		}
		return nil
	})
	var out []string
	for d, n := range perDir {
		if n >= lo && n <= hi {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// SmallC accepts a .c or .h file of src no bigger than 300 KB (rel is
// relative to src).
func SmallC(src string) func(rel string) bool {
	return func(rel string) bool {
		if filepath.Ext(rel) != ".c" && filepath.Ext(rel) != ".h" {
			return false
		}
		fi, err := os.Stat(filepath.Join(src, rel))
		return err == nil && fi.Size() <= maxCSize
	}
}

// CFlags is the compile_flags.txt of a copied C tree at root: GNU C11,
// _DEFAULT_SOURCE, and -I for every directory holding a header and every
// directory above one ("tree_sitter/api.h" is found from include/, the
// parent), sorted.
func CFlags(root string) []string {
	flags := []string{"-std=gnu11", "-D_DEFAULT_SOURCE"}
	incs := map[string]bool{}
	for _, h := range Files(root, Ext(".h")) {
		for d := filepath.Dir(h); d != "." && d != "/"; d = filepath.Dir(d) {
			incs[d] = true
		}
	}
	for d := range incs {
		flags = append(flags, "-I"+d)
	}
	slices.Sort(flags[2:])
	return flags
}

// This file is the Python counterpart of golaunch.go: a .py file of a
// package that imports its siblings relatively (from .util import x)
// cannot run as a script ("attempted relative import with no known parent
// package"); it runs as its module, as python -m pkg.main would.

package dapbridge

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// relativeImport matches a relative import statement at a line's start.
var relativeImport = regexp.MustCompile(`^\s*from\s+\.+[\w.]*\s+import\s`)

// pyModule returns the module to run program (absolute, a .py file) as,
// and the directory to put on sys.path for it, when the file uses a
// relative import inside a package (a directory with __init__.py); "" when
// it runs as a script.
func pyModule(program string) (module, base string) {
	if filepath.Ext(program) != ".py" || !usesRelativeImport(program) {
		return "", ""
	}
	dir := filepath.Dir(program)
	if !isFile(filepath.Join(dir, "__init__.py")) {
		return "", ""
	}
	parts := []string{strings.TrimSuffix(filepath.Base(program), ".py")}
	if parts[0] == "__main__" {
		parts = nil
	}
	for {
		parts = append([]string{filepath.Base(dir)}, parts...)
		parent := filepath.Dir(dir)
		if parent == dir || !isFile(filepath.Join(parent, "__init__.py")) {
			return strings.Join(parts, "."), parent
		}
		dir = parent
	}
}

func usesRelativeImport(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if relativeImport.MatchString(sc.Text()) {
			return true
		}
	}
	return false
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// pyModuleNote says, for the answer, that the file ran as its module.
func pyModuleNote(root, program, module string) string {
	return fmt.Sprintf("ran %s as the module %s (python -m), since it imports relatively", relTo(root, program), module)
}

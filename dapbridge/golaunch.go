// This file decides what delve builds when the program is one .go file:
// the file's whole package when the file belongs to it, as `go run .`
// would need (dlv given one file compiles that file alone, and a package
// of several files then fails with "undefined: Shout").

package dapbridge

import (
	"errors"
	"fmt"
	"go/build"
	"path/filepath"
	"strings"
)

// goBuildTarget returns what to hand delve for program (absolute, a .go
// file): its directory when the file is one of several files of a main
// package, the file itself otherwise (a lone file, or one the build
// constraints leave out of its package, such as a //go:build ignore
// script). note says, for the answer, what was built instead of the
// file; an error says what to pass instead.
func goBuildTarget(root, program string) (target, note string, err error) {
	if filepath.Ext(program) != ".go" {
		return program, "", nil
	}
	name := filepath.Base(program)
	if strings.HasSuffix(name, "_test.go") {
		return "", "", fmt.Errorf("argument 'program': %s is a test file; launch runs a main package (a directory or one of its non-test files)", relTo(root, program))
	}
	dir := filepath.Dir(program)
	pkg, err := build.ImportDir(dir, build.ImportComment)
	var multi *build.MultiplePackageError
	switch {
	case errors.As(err, &multi):
		return program, "", nil // files of several packages side by side: the file alone, as dlv does
	case err != nil && pkg == nil:
		return program, "", nil
	}
	inPkg := false
	for _, f := range append(append([]string{}, pkg.GoFiles...), pkg.CgoFiles...) {
		inPkg = inPkg || f == name
	}
	if !inPkg {
		return program, "", nil // excluded by its build constraints: a script run on its own
	}
	if pkg.Name != "main" {
		return "", "", fmt.Errorf("argument 'program': %s is in package %s, not main: launch the directory or a file of a main package", relTo(root, program), pkg.Name)
	}
	n := len(pkg.GoFiles) + len(pkg.CgoFiles)
	if n == 1 {
		return program, "", nil
	}
	rel := relTo(root, dir)
	if rel == dir || rel == "" {
		rel = "."
	}
	return dir, fmt.Sprintf("built the package %s (%s and %s), not %s alone", pkgPath(rel), name, plural(n-1, "other file"), name), nil
}

// pkgPath spells a package directory relative to the root as go does: ./cmd/app.
func pkgPath(rel string) string {
	if rel == "." || strings.HasPrefix(rel, "./") {
		return rel
	}
	return "./" + rel
}

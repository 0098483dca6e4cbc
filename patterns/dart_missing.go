//go:build !dart

// This file stands in for the Dart grammar when the binary was built
// without it (a plain `go build`, without the npm sources): dart is then
// reported as not built in.

package patterns

import "unsafe"

func dartGrammar() (unsafe.Pointer, string) {
	return nil, "not built in: run make (it fetches the tree-sitter-dart sources into third_party/npm and builds with -tags dart)"
}

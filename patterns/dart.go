//go:build dart

// This file builds the Dart grammar from the npm package's generated
// sources, which scripts/install-tools.sh puts in third_party/npm (ignored
// by git). `make` adds -tags dart when they are present.

package patterns

/*
#cgo CFLAGS: -std=c11 -fPIC -w -I${SRCDIR}/../third_party/npm/node_modules/tree-sitter-dart/src
#include "../third_party/npm/node_modules/tree-sitter-dart/src/parser.c"
#include "../third_party/npm/node_modules/tree-sitter-dart/src/scanner.c"
static const void *pt_dart_language(void) { return tree_sitter_dart(); }
*/
import "C"

import "unsafe"

func dartGrammar() (unsafe.Pointer, string) {
	return unsafe.Pointer(C.pt_dart_language()), ""
}

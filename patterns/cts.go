// This file is the only cgo boundary of the engine: it parses a source
// with tree-sitter's C library and flattens the tree into a Go slice in one
// call, so matching never crosses into C per node.
//
// Two measured costs are avoided here (see the treesitter-perf anchor):
// go-tree-sitter routes every C allocation through Go callbacks, which we
// undo once with ts_set_allocator (tree-sitter memory is never handed to Go),
// and walking nodes one cgo call at a time, which we replace with one C walk
// per file.

package patterns

/*
#include <stdlib.h>
#include "tsapi.h"

typedef struct {
	uint32_t start, end, next;
	uint16_t sym;
	uint8_t flags;
	uint8_t pad;
} pt_node;

enum { PT_NAMED = 1, PT_EXTRA = 2, PT_MISSING = 4, PT_ERROR = 8 };

static void pt_use_libc_allocator(void) {
	ts_set_allocator(malloc, calloc, realloc, free);
}

static uint32_t pt_count(TSTree *t) {
	return ts_node_descendant_count(ts_tree_root_node(t));
}

// pt_flatten writes the tree in pre-order; next is the index just past a
// node's subtree. It returns the number of nodes written (at most cap).
static uint32_t pt_flatten(TSTree *t, pt_node *out, uint32_t cap) {
	TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(t));
	uint32_t n = 0, depth = 0, stackCap = 64;
	uint32_t *stack = malloc(stackCap * sizeof(uint32_t));
	for (;;) {
		TSNode node = ts_tree_cursor_current_node(&c);
		if (n >= cap) break;
		pt_node *o = &out[n];
		o->start = ts_node_start_byte(node);
		o->end = ts_node_end_byte(node);
		o->sym = ts_node_symbol(node);
		o->flags = (ts_node_is_named(node) ? PT_NAMED : 0) |
			(ts_node_is_extra(node) ? PT_EXTRA : 0) |
			(ts_node_is_missing(node) ? PT_MISSING : 0) |
			(ts_node_is_error(node) ? PT_ERROR : 0);
		o->next = n + 1;
		if (depth == stackCap) {
			stackCap *= 2;
			stack = realloc(stack, stackCap * sizeof(uint32_t));
		}
		stack[depth++] = n++;
		if (ts_tree_cursor_goto_first_child(&c)) continue;
		for (;;) {
			out[stack[--depth]].next = n;
			if (ts_tree_cursor_goto_next_sibling(&c)) break;
			if (!ts_tree_cursor_goto_parent(&c)) goto done;
		}
	}
done:
	while (depth > 0) out[stack[--depth]].next = n;
	free(stack);
	ts_tree_cursor_delete(&c);
	return n;
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	// The tree-sitter C runtime is compiled and linked by this package; we
	// call it directly through tsapi.h.
	_ "github.com/tree-sitter/go-tree-sitter"
)

func init() {
	// Undo go-tree-sitter's Go-callback allocator: every malloc would cross
	// C→Go→C (a third of the parse time on the Go corpus). Safe because its
	// callbacks only wrap libc's malloc family, so memory allocated before
	// this point is freed by the same allocator.
	C.pt_use_libc_allocator()
}

// Node flags, as written by pt_flatten.
const (
	flagNamed   = 1
	flagExtra   = 2
	flagMissing = 4
	flagError   = 8
)

// node is one syntax node, laid out exactly as the C pt_node.
type node struct {
	start, end uint32 // byte offsets
	next       uint32 // index just past this node's subtree (pre-order)
	sym        uint16 // the grammar's symbol (aliases applied)
	flags      uint8
	_          uint8
}

func (n *node) named() bool { return n.flags&flagNamed != 0 }

// skipped reports nodes matching ignores on both sides: extras (comments)
// and zero-width MISSING nodes inserted by error recovery.
func (n *node) skipped() bool { return n.flags&(flagExtra|flagMissing) != 0 }

// Tree is a parsed source flattened in pre-order: node 0 is the root, the
// children of i start at i+1 and follow each other by next.
type Tree struct {
	Lang  *Language
	Src   []byte
	nodes []node
}

// hasError reports whether any node is ERROR or MISSING, and the first one.
func (t *Tree) firstError() (int, bool) {
	for i := range t.nodes {
		if t.nodes[i].flags&(flagError|flagMissing) != 0 {
			return i, true
		}
	}
	return -1, false
}

// parser is one tree-sitter parser; not safe for concurrent use.
type parser struct {
	p    *C.TSParser
	lang *Language // the parser's current language
	buf  []node    // reused between parses
	src  []byte    // reused between file reads
}

func newParser() *parser { return &parser{p: C.ts_parser_new()} }

func (p *parser) close() {
	if p.p != nil {
		C.ts_parser_delete(p.p)
		p.p = nil
	}
}

var emptySource = []byte{0}

// parse parses src with lang. The returned tree's nodes alias the parser's
// buffer when keep is false (valid until the next parse).
func (p *parser) parse(lang *Language, src []byte, keep bool) (*Tree, error) {
	if lang.ptr == nil {
		return nil, fmt.Errorf("language %s is not built in: %s", lang.ID, lang.missing)
	}
	if p.lang != lang {
		if !C.ts_parser_set_language(p.p, (*C.TSLanguage)(lang.ptr)) {
			return nil, fmt.Errorf("language %s: grammar ABI %d is not supported by this tree-sitter", lang.ID, lang.abi())
		}
		p.lang = lang
	}
	data := src
	if len(data) == 0 {
		data = emptySource
	}
	tree := C.ts_parser_parse_string(p.p, nil, (*C.char)(unsafe.Pointer(&data[0])), C.uint32_t(len(src)))
	if tree == nil {
		C.ts_parser_reset(p.p)
		return nil, fmt.Errorf("parsing %s: tree-sitter gave up", lang.ID)
	}
	defer C.ts_tree_delete(tree)
	count := int(C.pt_count(tree))
	nodes := p.buf
	if keep || cap(nodes) < count {
		nodes = make([]node, count)
		if !keep {
			p.buf = nodes
		}
	}
	nodes = nodes[:count]
	n := int(C.pt_flatten(tree, (*C.pt_node)(unsafe.Pointer(&nodes[0])), C.uint32_t(count)))
	return &Tree{Lang: lang, Src: src, nodes: nodes[:n]}, nil
}

// symbolTable reads a grammar's symbols: their names and whether named.
func symbolTable(ptr unsafe.Pointer) (names []string, named []bool) {
	lang := (*C.TSLanguage)(ptr)
	n := int(C.ts_language_symbol_count(lang))
	names = make([]string, n)
	named = make([]bool, n)
	for i := range n {
		names[i] = C.GoString(C.ts_language_symbol_name(lang, C.TSSymbol(i)))
		named[i] = C.ts_language_symbol_type(lang, C.TSSymbol(i)) == C.TSSymbolTypeRegular
	}
	return names, named
}

func abiVersion(ptr unsafe.Pointer) int {
	return int(C.ts_language_abi_version((*C.TSLanguage)(ptr)))
}

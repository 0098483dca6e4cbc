// This file is the only cgo boundary of the engine: it parses a source
// with tree-sitter's C library and flattens the tree into a Go slice in one
// call, so matching never crosses into C per node.
//
// Two measured costs are avoided here (see the treesitter-perf anchor):
// go-tree-sitter routes every C allocation through Go callbacks, which we
// undo once with ts_set_allocator (tree-sitter memory is never handed to Go),
// and walking nodes one cgo call at a time, which we replace with one C walk
// per file. The walk can also skip what cannot hold a match (pt_flatten),
// and the parse can cover only some byte ranges (pt_parse).

package patterns

/*
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tsapi.h"

typedef struct {
	uint32_t start, end, next;
	uint16_t sym;
	uint8_t flags;
	uint8_t field; // the field the node is in below its parent (0: none; 255: an id past 254)
} pt_node;

enum { PT_NAMED = 1, PT_EXTRA = 2, PT_MISSING = 4, PT_ERROR = 8, PT_INNER = 16 };

// An arena serves every allocation tree-sitter makes while one file is
// parsed: the parser is created, used and dropped inside it, so nothing
// allocated there outlives pt_arena_reset. Bumping a pointer replaces
// malloc, free is a no-op, and the tree is never walked to be freed.
typedef struct pt_chunk {
	struct pt_chunk *prev;
	char *end;  // one past the chunk's last usable byte
	char *next; // the next free byte, 16-aligned
	char data[];
} pt_chunk;

typedef struct {
	pt_chunk *top;    // newest chunk; older ones follow prev
	size_t handed;    // bytes handed out since the last reset
	size_t asked;     // bytes asked for since the last reset, libc's too
	size_t limit;     // past it, allocations go to libc
	int spilled;      // a libc block was handed out inside the arena
} pt_arena;

// The arena of the cgo call running on this thread, if any. Set on entry
// to the calls below and cleared before they return, so a goroutine that
// moves between threads between calls never finds a stale one.
static __thread pt_arena *pt_active;

enum { PT_CHUNK = 1 << 20, PT_KEEP = 32 << 20 };

static pt_chunk *pt_chunk_new(size_t want, pt_chunk *prev) {
	size_t size = PT_CHUNK;
	if (prev) {
		size_t last = (size_t)(prev->end - prev->data);
		if (last * 2 > size) size = last * 2;
	}
	if (size < want + 16) size = want + 16;
	pt_chunk *c = malloc(sizeof(pt_chunk) + size);
	if (!c) return NULL;
	c->prev = prev;
	c->next = (char *)(((uintptr_t)c->data + 15) & ~(uintptr_t)15);
	c->end = c->data + size;
	return c;
}

static void *pt_bump(pt_arena *a, size_t n) {
	n = (n + 15) & ~(size_t)15;
	if (n == 0) n = 16;
	a->asked += n;
	if (a->handed + n > a->limit) {
		a->spilled = 1;
		return malloc(n);
	}
	pt_chunk *c = a->top;
	if (!c || (size_t)(c->end - c->next) < n) {
		c = pt_chunk_new(n, c);
		if (!c) {
			a->spilled = 1;
			return malloc(n);
		}
		a->top = c;
	}
	void *p = c->next;
	c->next += n;
	a->handed += n;
	return p;
}

// pt_owner returns the chunk holding p, or NULL for a libc block.
static pt_chunk *pt_owner(pt_arena *a, const void *p) {
	for (pt_chunk *c = a->top; c; c = c->prev) {
		if ((const char *)p >= c->data && (const char *)p < c->end) return c;
	}
	return NULL;
}

static void *pt_malloc(size_t n) {
	pt_arena *a = pt_active;
	return a ? pt_bump(a, n) : malloc(n);
}

static void *pt_calloc(size_t n, size_t size) {
	pt_arena *a = pt_active;
	if (!a) return calloc(n, size);
	if (size && n > (size_t)-1 / size) return NULL;
	void *p = pt_bump(a, n * size);
	if (p) memset(p, 0, n * size);
	return p;
}

static void pt_free(void *p) {
	pt_arena *a = pt_active;
	if (p && (!a || !pt_owner(a, p))) free(p);
}

static void *pt_realloc(void *p, size_t n) {
	pt_arena *a = pt_active;
	if (!a) return realloc(p, n);
	if (!p) return pt_bump(a, n);
	pt_chunk *c = pt_owner(a, p);
	if (!c) return realloc(p, n);
	// The block's old size is not recorded; copying up to n bytes (or to
	// the chunk's end) covers it, and what lies past the old block is
	// undefined in the new one anyway.
	size_t avail = (size_t)(c->end - (char *)p);
	void *q = pt_bump(a, n);
	if (q) memcpy(q, p, n < avail ? n : avail);
	return q;
}

static void pt_use_allocator(void) {
	ts_set_allocator(pt_malloc, pt_calloc, pt_realloc, pt_free);
}

static pt_arena *pt_arena_new(size_t limit) {
	pt_arena *a = calloc(1, sizeof(pt_arena));
	if (a) a->limit = limit;
	return a;
}

// pt_arena_reset forgets everything handed out, keeping the newest chunk
// for the next file when it is not too large.
static void pt_arena_reset(pt_arena *a) {
	pt_chunk *keep = a->top;
	if (keep && (size_t)(keep->end - keep->data) > PT_KEEP) keep = NULL;
	for (pt_chunk *c = a->top; c;) {
		pt_chunk *prev = c->prev;
		if (c != keep) free(c);
		c = prev;
	}
	if (keep) {
		keep->prev = NULL;
		keep->next = (char *)(((uintptr_t)keep->data + 15) & ~(uintptr_t)15);
	}
	a->top = keep;
	a->handed = 0;
	a->asked = 0;
	a->spilled = 0;
}

static void pt_arena_delete(pt_arena *a) {
	a->limit = 0;
	pt_arena_reset(a);
	free(a->top);
	free(a);
}

// pt_input hands tree-sitter the whole source at once.
typedef struct {
	const char *s;
	uint32_t n;
} pt_input;

static const char *pt_read(void *payload, uint32_t byte, TSPoint at, uint32_t *read) {
	pt_input *in = payload;
	if (byte >= in->n) {
		*read = 0;
		return "";
	}
	*read = in->n - byte;
	return in->s + byte;
}

// pt_deadline stops a parse that runs past its time or memory (the CPU
// time of the parsing thread, so that a loaded machine stretches nothing:
// a cgo call stays on its thread): some
// grammars loop forever on some inputs (tree-sitter-dart on a top-level
// declaration missing its ';', allocating 200 MB a second), and a parse
// in C cannot be interrupted otherwise.
typedef struct {
	struct timespec until;
	size_t mem_cap;
	pt_arena *arena;
	unsigned calls;
	int expired; // 1: time, 2: memory
} pt_deadline;

static bool pt_progress(TSParseState *st) {
	pt_deadline *d = st->payload;
	if (d->arena->asked > d->mem_cap) {
		d->expired = 2;
		return true;
	}
	if (++d->calls % 32 != 0) {
		return false; // the thread's CPU clock is a system call: read it now and then
	}
	struct timespec now;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	if (now.tv_sec > d->until.tv_sec || (now.tv_sec == d->until.tv_sec && now.tv_nsec >= d->until.tv_nsec)) {
		d->expired = 1;
		return true; // halt
	}
	return false;
}

// pt_parse parses s with a parser made for this call inside arena a; the
// tree lives in a until pt_release. NULL when the parser refused the
// language (*lang_ok = 0), gave up, or ran past budget_us microseconds
// (*expired = 1) or mem_cap bytes asked for (*expired = 2). With nranges > 0, only those byte ranges of s are
// parsed; ranges holds five numbers per range: start byte, end byte,
// start row, end row, end column (a range starts at column 0).
// *has_error says whether the tree holds ERROR or MISSING.
static TSTree *pt_parse(pt_arena *a, const TSLanguage *lang, const char *s, uint32_t n,
		const uint32_t *ranges, uint32_t nranges, uint64_t budget_us, size_t mem_cap, int *lang_ok, uint32_t *count, int *has_error, int *expired) {
	pt_active = a;
	TSTree *t = NULL;
	TSParser *p = ts_parser_new();
	*lang_ok = ts_parser_set_language(p, lang);
	int ok = *lang_ok;
	if (ok && nranges > 0) {
		TSRange *r = malloc(nranges * sizeof(TSRange));
		for (uint32_t i = 0; i < nranges; i++) {
			const uint32_t *v = &ranges[5 * i];
			r[i] = (TSRange){{v[2], 0}, {v[3], v[4]}, v[0], v[1]};
		}
		ok = ts_parser_set_included_ranges(p, r, nranges);
		free(r);
	}
	pt_deadline d = {{0, 0}, mem_cap, a, 0, 0};
	if (ok) {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &d.until);
		d.until.tv_sec += budget_us / 1000000;
		d.until.tv_nsec += (budget_us % 1000000) * 1000;
		if (d.until.tv_nsec >= 1000000000) {
			d.until.tv_sec++;
			d.until.tv_nsec -= 1000000000;
		}
		pt_input in = {s, n};
		TSInput input = {&in, pt_read, TSInputEncodingUTF8, NULL};
		TSParseOptions opts = {&d, pt_progress};
		t = ts_parser_parse_with_options(p, NULL, input, opts);
	}
	*expired = d.expired;
	// Deleting the parser frees little (arena frees are no-ops) but runs
	// the grammar's external scanner destructor, whose memory may come
	// from libc directly.
	ts_parser_delete(p);
	*count = t ? ts_node_descendant_count(ts_tree_root_node(t)) : 0;
	*has_error = t ? ts_node_has_error(ts_tree_root_node(t)) : 0;
	pt_active = NULL;
	return t;
}

// The layout of a grammar's TSLanguage (tree_sitter/parser.h, which
// every generated parser.c includes): ABI 14's fields end with
// primary_state_ids, ABI 15 adds those after it. Only the parse-table
// fields are read or written here; the rest stand for their sizes.
typedef struct {
	uint32_t abi_version, symbol_count, alias_count, token_count, external_token_count,
		state_count, large_state_count, production_id_count, field_count;
	uint16_t max_alias_sequence_length;
	const uint16_t *parse_table;
	const uint16_t *small_parse_table;
	const uint32_t *small_parse_table_map;
	const void *parse_actions, *symbol_names, *field_names, *field_map_slices, *field_map_entries,
		*symbol_metadata, *public_symbol_map, *alias_map, *alias_sequences, *lex_modes;
	void (*lex_fn)(void), (*keyword_lex_fn)(void);
	uint16_t keyword_capture_token;
	struct {
		const void *states, *symbol_map;
		void (*create)(void), (*destroy)(void), (*scan)(void), (*serialize)(void), (*deserialize)(void);
	} external_scanner;
	const void *primary_state_ids;
	// ABI 15
	const char *name;
	const void *reserved_words;
	uint16_t max_reserved_word_set_size;
	uint32_t supertype_count;
	const void *supertype_symbols, *supertype_map_slices, *supertype_map_entries;
	uint8_t metadata[3];
} pt_language;

// pt_dense_size is how many bytes the dense parse table of lang takes,
// 0 when it has one already or its ABI is not 14 or 15.
static size_t pt_dense_size(const TSLanguage *lang) {
	const pt_language *l = (const void *)lang;
	if (l->abi_version < 14 || l->abi_version > 15 || l->large_state_count >= l->state_count) return 0;
	return (size_t)l->state_count * l->symbol_count * sizeof(uint16_t);
}

// pt_dense returns a copy of lang whose parse table has a full row for
// every state, or NULL. A generated grammar keeps full rows only for
// its first large_state_count states; a lookup in any other state scans
// that state's list of (value, symbols) groups, and tree-sitter's error
// recovery (0.25) asks every state it tries about every token. Here
// each small state's groups are written into its row, the first value
// for a symbol winning as in the scan, so every lookup answers what it
// answered before, from one read; nothing else of the grammar changes
// (its lexer, scanner and metadata are shared). Never freed.
static const TSLanguage *pt_dense(const TSLanguage *lang) {
	size_t size = pt_dense_size(lang);
	if (size == 0) return NULL;
	const pt_language *l = (const void *)lang;
	size_t nsym = l->symbol_count;
	uint16_t *table = calloc(1, size);
	uint8_t *seen = malloc(nsym);
	pt_language *copy = calloc(1, sizeof(pt_language));
	if (!table || !seen || !copy) {
		free(table);
		free(seen);
		free(copy);
		return NULL;
	}
	memcpy(table, l->parse_table, (size_t)l->large_state_count * nsym * sizeof(uint16_t));
	for (uint32_t st = l->large_state_count; st < l->state_count; st++) {
		const uint16_t *d = &l->small_parse_table[l->small_parse_table_map[st - l->large_state_count]];
		uint16_t *row = &table[(size_t)st * nsym];
		memset(seen, 0, nsym);
		uint16_t groups = *d++;
		for (uint16_t g = 0; g < groups; g++) {
			uint16_t value = *d++, n = *d++;
			for (uint16_t k = 0; k < n; k++, d++) {
				if (*d < nsym && !seen[*d]) {
					seen[*d] = 1;
					row[*d] = value;
				}
			}
		}
	}
	free(seen);
	memcpy(copy, l, l->abi_version >= 15 ? sizeof(pt_language) : offsetof(pt_language, name));
	copy->parse_table = table;
	copy->large_state_count = l->state_count;
	return (const TSLanguage *)copy;
}

// pt_release drops t and everything else in a.
static void pt_release(pt_arena *a, TSTree *t) {
	if (a->spilled && t) {
		// Some blocks came from libc: a real delete frees them (and skips
		// the arena's).
		pt_active = a;
		ts_tree_delete(t);
		pt_active = NULL;
	}
	pt_arena_reset(a);
}

typedef struct {
	uint32_t *v;
	uint32_t len, cap;
} pt_stack;

// A pt_cut limits what pt_subtree writes below a match candidate: nodes
// deeper than depth (when > 0) are left out, and a node of a root symbol
// below the top is flagged PT_INNER (it gets a subtree of its own).
typedef struct {
	uint32_t depth;
	const uint8_t *root;
	uint32_t nroot;
} pt_cut;

// pt_subtree writes the subtree at the cursor's node in pre-order into
// out from index n, and returns the index past it; next is the index
// just past a node's subtree. named[sym] says whether a symbol is named
// (ERROR, past the table, is). The cursor ends where it started. *full is
// set when cap was reached (the subtree is then cut short).
static uint32_t pt_subtree(TSTreeCursor *c, const uint8_t *named, uint32_t nsyms, pt_cut cut, pt_node *out, uint32_t n, uint32_t cap, pt_stack *st, int *full) {
	uint32_t base = st->len, depth = 0;
	for (;;) {
		if (n >= cap) {
			*full = 1;
			while (st->len > base) out[st->v[--st->len]].next = n;
			return n;
		}
		TSNode node = ts_tree_cursor_current_node(c);
		pt_node *o = &out[n];
		TSSymbol sym = ts_node_symbol(node);
		o->start = ts_node_start_byte(node);
		o->end = ts_node_end_byte(node);
		o->sym = sym;
		o->flags = ((sym >= nsyms || named[sym]) ? PT_NAMED : 0) |
			(ts_node_is_extra(node) ? PT_EXTRA : 0) |
			(ts_node_is_missing(node) ? PT_MISSING : 0) |
			(sym == (TSSymbol)-1 ? PT_ERROR : 0) |
			(depth > 0 && cut.depth > 0 && sym < cut.nroot && cut.root[sym] ? PT_INNER : 0);
		o->next = n + 1;
		TSFieldId fid = depth > 0 ? ts_tree_cursor_current_field_id(c) : 0;
		o->field = fid > 254 ? 255 : (uint8_t)fid;
		if (st->len == st->cap) {
			st->cap *= 2;
			st->v = realloc(st->v, st->cap * sizeof(uint32_t));
		}
		st->v[st->len++] = n++;
		if ((cut.depth == 0 || depth < cut.depth) && ts_tree_cursor_goto_first_child(c)) {
			depth++;
			continue;
		}
		for (;;) {
			out[st->v[--st->len]].next = n;
			if (depth == 0) return n;
			if (ts_tree_cursor_goto_next_sibling(c)) break;
			ts_tree_cursor_goto_parent(c);
			depth--;
		}
	}
}

// pt_flatten writes the tree in pre-order (see pt_subtree) and returns
// the number of nodes written.
//
// With offs (noff sorted byte offsets), it writes only the subtrees that
// can hold a match: the outermost nodes whose symbol is marked in root
// (nroot entries) and whose range holds one of the offsets; the walk does
// not enter a node that holds none. Those subtrees follow each other in
// the output, each in pre-order. With depth > 0, each is written only
// that deep, and the walk goes on inside it for the nodes of a root
// symbol below its top (flagged PT_INNER where the outer one has them),
// which get subtrees of their own.
static uint32_t pt_flatten(pt_arena *a, TSTree *t, const uint8_t *named, uint32_t nsyms,
		const uint8_t *root, uint32_t nroot, uint32_t depth, const uint32_t *offs, uint32_t noff, pt_node *out, uint32_t cap) {
	pt_active = a;
	TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(t));
	pt_stack st = {malloc(64 * sizeof(uint32_t)), 0, 64};
	uint32_t n = 0, ai = 0;
	int full = 0;
	pt_cut cut = {depth, root, nroot};
	if (!offs) {
		pt_cut whole = {0, NULL, 0};
		n = pt_subtree(&c, named, nsyms, whole, out, 0, cap, &st, &full);
		goto done;
	}
	for (;;) {
		TSNode node = ts_tree_cursor_current_node(&c);
		uint32_t start = ts_node_start_byte(node);
		while (ai < noff && offs[ai] < start) ai++;
		if (ai == noff) break;
		if (offs[ai] < ts_node_end_byte(node)) {
			TSSymbol sym = ts_node_symbol(node);
			if (sym < nroot && root[sym]) {
				n = pt_subtree(&c, named, nsyms, cut, out, n, cap, &st, &full);
				if (full) break;
				if (depth > 0 && ts_tree_cursor_goto_first_child(&c)) continue;
			} else if (ts_tree_cursor_goto_first_child(&c)) {
				continue;
			}
		}
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) goto done;
		}
	}
done:
	free(st.v);
	ts_tree_cursor_delete(&c);
	pt_active = NULL;
	return n;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	// The tree-sitter C runtime is compiled and linked by this package; we
	// call it directly through tsapi.h.
	_ "github.com/tree-sitter/go-tree-sitter"
)

func init() {
	// Replace go-tree-sitter's Go-callback allocator (every malloc would
	// cross C→Go→C, a third of the parse time on the Go corpus) with
	// pt_malloc & co.: libc outside a parse, a per-parser arena inside
	// one. Safe because its callbacks only wrap libc's malloc family and
	// nothing has been allocated through them before this runs, so every
	// block older than this is a libc block, freed by libc.
	C.pt_use_allocator()
}

// arenaLimit is how much one parse may take from its arena before further
// allocations go to libc (and the tree is then freed the slow way).
const arenaLimit = 1 << 30

// Node flags, as written by pt_flatten.
const (
	flagNamed   = 1
	flagExtra   = 2
	flagMissing = 4
	flagError   = 8
	flagInner   = 16 // a root symbol inside a cut subtree: matched in its own
)

// node is one syntax node, laid out exactly as the C pt_node.
type node struct {
	start, end uint32 // byte offsets
	next       uint32 // index just past this node's subtree (pre-order)
	sym        uint16 // the grammar's symbol (aliases applied)
	flags      uint8
	field      uint8 // the field id below the parent (0 none, 255 unknown), see fieldID
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

// parser parses one file at a time; not safe for concurrent use. Each
// parse makes a fresh tree-sitter parser inside the parser's arena, so
// nothing carries over between files but the arena's memory.
type parser struct {
	arena *C.pt_arena
	buf   []node // reused between parses
	src   []byte // reused between file reads
	offs  [3][]uint32
	// codeOffs are the rarest literal's offsets outside comments and
	// strings (see parseFor).
	codeOffs []uint32
	near     nearby
	stmts    []uint32 // statement starts, for ranges
	// splitDone says stmts already holds this file's split (made by
	// parseDirectives) and splitOK what the splitter answered; parseNear
	// clears it.
	splitDone, splitOK bool
	lang               string   // the language ranges splits (set by parseNear)
	nest               pyNest   // nested statements left out, for ranges
	rng                []uint32 // ranges to parse, five numbers each
	blank              []byte   // a source with gaps blanked (see parseDirectives)
	pad                []byte   // a source with a line break after it (Language.endsLine)
	// parts and retries count the partial parses kept and redone whole
	// (for tests and measurements).
	parts, retries int
	directives     int // partial parses of directive lines (see parseDirectives)
	// sparse parses with the grammar's own parse table even where a
	// dense one was made (the test that holds the two to one answer).
	sparse bool
}

func newParser() *parser { return newParserLimit(arenaLimit) }

// newParserLimit makes a parser whose arena hands out at most limit bytes
// per parse (tests use a small one to exercise the libc fallback).
func newParserLimit(limit int) *parser {
	return &parser{arena: C.pt_arena_new(C.size_t(limit))}
}

func (p *parser) close() {
	if p.arena != nil {
		C.pt_arena_delete(p.arena)
		p.arena = nil
	}
}

var emptySource = []byte{0}

// parse parses src with lang. The returned tree's nodes alias the parser's
// buffer when keep is false (valid until the next parse).
func (p *parser) parse(lang *Language, src []byte, keep bool) (*Tree, error) {
	return p.parseIn(lang, src, keep, nil, nil)
}

// nearby says what of a file can hold a match of a single-node pattern:
// subtrees rooted at a symbol marked in roots that hold a token starting
// at one of offs (sorted), and only depth levels of each (0: all).
// stmtOffs are the offsets to split statements around (see parseNear).
type nearby struct {
	roots          []uint8
	depth          int
	offs, stmtOffs []uint32
	nest           bool          // leave out nested statements too (see pyNest)
	directive      lineDirective // parse only the directive lines (see parseDirectives)
}

// parseNear is parse keeping only the outermost subtrees that can hold a
// match (see nearby), one after another; with depth > 0 a root node
// inside another gets a subtree of its own and is flagged inner where
// the outer one has it.
//
// For a language that can split a file into independent top-level
// statements (Python, Go, C, the JavaScript family), only the
// statements holding one of stmtOffs are parsed, and for a C or C++
// line directive only the directive lines holding one (parseDirectives);
// if that parse has a syntax error, or the split is unsure, the whole
// file is.
func (p *parser) parseNear(lang *Language, src []byte, nb *nearby) (*Tree, error) {
	split := true
	p.splitDone = false
	defer func() { p.splitDone = false }()
	if nb.directive != notDirective && len(nb.stmtOffs) > 0 {
		t, verdict, err := p.parseDirectives(lang, src, nb)
		if verdict == linesOK {
			return t, err
		}
		split = verdict == linesSplit
	}
	if split && len(nb.stmtOffs) > 0 {
		if split := splitters[lang.ID]; split != nil {
			p.lang = lang.ID
			if ranges, ok := p.ranges(src, nb.stmtOffs, split, nb.nest); ok {
				t, err := p.parseIn(lang, src, false, nb, ranges)
				if err != errRetry {
					p.parts++
					return t, err
				}
				p.retries++
			}
		}
	}
	return p.parseIn(lang, src, false, nb, nil)
}

// ErrParseTimeout is a parse stopped at its budget (parseBudget).
var ErrParseTimeout = errors.New("parse stopped")

// parseBudget is how much CPU time a parse of n bytes may take and how
// much memory it may ask for: far more than any grammar needs (a few
// megabytes a second, tens of bytes per source byte), so that only a
// parse that loops is stopped.
func parseBudget(n int) (time.Duration, int) {
	return parseBudgetBase + time.Duration(n)*5*time.Microsecond, 256<<20 + 256*n
}

// parseBudgetBase is the CPU time budget of an empty source (shortened by
// tests).
var parseBudgetBase = 3 * time.Second

// errRetry says a parse of part of a file must be redone on all of it.
var errRetry = errors.New("parse the whole file")

func (p *parser) parseIn(lang *Language, src []byte, keep bool, nb *nearby, ranges []uint32) (*Tree, error) {
	lang.load()
	if lang.ptr == nil {
		return nil, fmt.Errorf("language %s is not built in: %s", lang.ID, lang.missing)
	}
	if nb != nil && len(nb.offs) == 0 {
		return &Tree{Lang: lang, Src: src}, nil // nothing can match
	}
	data, n := src, len(src)
	if lang.endsLine && n > 0 && src[n-1] != '\n' && len(ranges) == 0 {
		p.pad = append(append(p.pad[:0], src...), '\n')
		data, n = p.pad, n+1
	}
	if len(data) == 0 {
		data = emptySource
	}
	var langOK, hasError, expired C.int
	var count C.uint32_t
	var rp *C.uint32_t
	if len(ranges) > 0 {
		rp = (*C.uint32_t)(unsafe.Pointer(&ranges[0]))
	}
	budget, memCap := parseBudget(len(src))
	grammar := lang.parsePtr()
	if p.sparse {
		grammar = lang.ptr
	}
	tree := C.pt_parse(p.arena, (*C.TSLanguage)(grammar), (*C.char)(unsafe.Pointer(&data[0])), C.uint32_t(n),
		rp, C.uint32_t(len(ranges)/5), C.uint64_t(budget.Microseconds()), C.size_t(memCap), &langOK, &count, &hasError, &expired)
	defer C.pt_release(p.arena, tree)
	if err := parseFailure(lang, len(src), langOK != 0, int(expired), budget, memCap); err != nil {
		return nil, err
	}
	if len(ranges) > 0 && (tree == nil || hasError != 0) {
		return nil, errRetry
	}
	if tree == nil {
		return nil, fmt.Errorf("parsing %s: tree-sitter gave up", lang.ID)
	}
	t := p.flattenTree(lang, src, tree, int(count), keep, nb)
	if n > len(src) { // the line break added for endsLine belongs to no node
		end := uint32(len(src))
		for i := range t.nodes {
			t.nodes[i].start, t.nodes[i].end = min(t.nodes[i].start, end), min(t.nodes[i].end, end)
		}
	}
	return t, nil
}

// parseFailure is why a parse of n bytes has no tree to use: a grammar
// this tree-sitter cannot run, or a parse stopped at its CPU (expired 1)
// or memory (expired 2) budget.
func parseFailure(lang *Language, n int, langOK bool, expired int, budget time.Duration, memCap int) error {
	if !langOK {
		return fmt.Errorf("language %s: grammar ABI %d is not supported by this tree-sitter", lang.ID, lang.abi())
	}
	switch expired {
	case 1:
		return fmt.Errorf("%w: the %s grammar was still parsing after %s of CPU time (%d bytes); tree-sitter loops on some inputs, often incomplete code",
			ErrParseTimeout, lang.ID, budget.Round(time.Millisecond), n)
	case 2:
		return fmt.Errorf("%w: the %s grammar had asked for %d MB parsing %d bytes; tree-sitter loops on some inputs, often incomplete code",
			ErrParseTimeout, lang.ID, memCap>>20, n)
	}
	return nil
}

// flattenTree writes tree's count nodes into a Tree (into the parser's
// buffer unless keep), only those near nb's roots when they fit.
func (p *parser) flattenTree(lang *Language, src []byte, tree *C.TSTree, count int, keep bool, nb *nearby) *Tree {
	nodes := p.buf
	if keep || cap(nodes) < count {
		nodes = make([]node, count)
		if !keep {
			p.buf = nodes
		}
	}
	nodes = nodes[:count]
	named := lang.namedSyms
	flatten := func(depth int) int {
		var root *C.uint8_t
		var off *C.uint32_t
		var nroot, noff int
		if nb != nil {
			root, nroot = (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(nb.roots))), len(nb.roots)
			off, noff = (*C.uint32_t)(unsafe.Pointer(&nb.offs[0])), len(nb.offs)
		}
		return int(C.pt_flatten(p.arena, tree, (*C.uint8_t)(unsafe.Pointer(&named[0])), C.uint32_t(len(named)),
			root, C.uint32_t(nroot), C.uint32_t(depth), off, C.uint32_t(noff),
			(*C.pt_node)(unsafe.Pointer(&nodes[0])), C.uint32_t(count)))
	}
	if nb != nil && nb.depth > 0 {
		// Nodes near nested roots are written once per root, so the cut
		// subtrees may not fit where the whole tree does; then they are
		// written whole.
		if n := flatten(nb.depth); n < count {
			return &Tree{Lang: lang, Src: src, nodes: nodes[:n]}
		}
	}
	n := flatten(0)
	return &Tree{Lang: lang, Src: src, nodes: nodes[:n]}
}

// denseTableBytes is how big the dense parse table of the grammar at ptr
// would be (0: it needs none).
func denseTableBytes(ptr unsafe.Pointer) int {
	return int(C.pt_dense_size((*C.TSLanguage)(ptr)))
}

// denseCopy is a copy of the grammar at ptr with a dense parse table
// (pt_dense), or nil.
func denseCopy(ptr unsafe.Pointer) unsafe.Pointer {
	return unsafe.Pointer(C.pt_dense((*C.TSLanguage)(ptr)))
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

// fieldID returns the grammar's id of a field name (0: no such field).
func fieldID(ptr unsafe.Pointer, name string) uint16 {
	if name == "" {
		return 0
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return uint16(C.ts_language_field_id_for_name((*C.TSLanguage)(ptr), cs, C.uint32_t(len(name))))
}

func abiVersion(ptr unsafe.Pointer) int {
	return int(C.ts_language_abi_version((*C.TSLanguage)(ptr)))
}

// This file is the language table: ids, aliases, file extensions, the
// metavariable character each grammar accepts, and the scaffold ladder a
// pattern is parsed in.

package patterns

import (
	"fmt"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Language is one built-in grammar.
type Language struct {
	ID      string
	Aliases []string
	Exts    []string // lower-case, with the dot
	// expando replaces '$' in patterns before parsing, for grammars whose
	// identifiers cannot contain '$' (as ast-grep does): "µ", "𐀀" or "_".
	// Empty means '$' is kept.
	expando    string
	ladder     []scaffold
	braceFirst bool   // try the expression context first for patterns starting with '{' (JS object literals)
	module     string // Go module of the grammar, for doctor

	once      sync.Once
	ptr       unsafe.Pointer // nil when not built in
	missing   string         // why not built in
	kinds     []int32        // symbol → canonical kind (same name and namedness ⇒ same kind)
	kindNames []string       // canonical kind → name
	comment   []bool         // canonical kind → is a comment
	namedSyms []uint8        // symbol → 1 when named, for pt_flatten
	// dense is ptr with a dense parse table, once a search has made one
	// (densify).
	denseOnce sync.Once
	dense     atomic.Pointer[grammar]
	// selectorKind is Dart's named "selector" kind (a member-chain link a
	// metavariable may absorb, see matcher.memberChain); -1 elsewhere.
	selectorKind int32
	keywords     map[string]bool // words the grammar has as anonymous tokens
	quoteMeta    bool            // metavariables are parsed as quoted strings (TOML, JSON)
	// quotedContent: with quoteMeta, a metavariable the user quoted
	// ("$V") is a string's content, matching strings only (JSON, as
	// ast-grep reads it); an unquoted one matches any value.
	quotedContent bool
	// altPrefix, put before a metavariable's placeholder, makes it the
	// token a grammar wants in some places: a PHP variable ($), a Ruby
	// constant (X). Tried when the plain reading fails.
	altPrefix string
	// trimsBlankTail: a match ends at its last non-space byte, not at the
	// node's end (TOML's tables own the blank lines after them).
	trimsBlankTail bool
	// endsLine: the grammar's external scanner loops for ever when the
	// source ends in the middle of a line (tree-sitter-kotlin 1.1.0: an
	// annotation cut short, @Bar(1, skips to the next space or line
	// break, and at the end of the input it never comes); a parse is given
	// the source with a line break after it, which no node keeps.
	endsLine bool
	// wordsAcross: the grammar gives the same code other kinds by context
	// inside the same node kind (C++'s qualified_identifier holds an
	// identifier in an expression, a type_identifier in a type or base
	// clause, and vector<T> is a template_function or a template_type, so
	// $A::size_type read alone did not match the _Alloc::size_type it was
	// cut from); a pattern's node then matches code of any kind of its
	// family (family: the named *identifier kinds, 1; template_function,
	// template_type and template_method, 2).
	wordsAcross bool
	// blockLayout says a block's lines are told apart by their
	// indentation alone (Python, YAML, Haskell, Scala 3): a rewrite keeps a
	// capture that started its own line as a nested block on a line of its
	// own (see ownLine).
	blockLayout bool
	// columnBlocks says a block is held to the column its first token is
	// at, not to its line's indentation (YAML's entry after a '- ',
	// Haskell's bindings after let): a rewrite's template lines go under
	// the match's column.
	columnBlocks bool
	// headerLine are the kinds of statement that cannot follow another's
	// header on its line (Python's compound statements: if c: def f():
	// ... does not parse): a rewrite keeps such a block on its own line
	// even when it is one line.
	headerLine []string
	family     []uint8 // canonical kind → its family, 0 for none (with wordsAcross)
	// wrappers are kinds that the grammar puts around a node in some
	// contexts and not in others (see wrapperKinds); one holding a single
	// node matches as that node, when that node's kind is wrapped (canonical
	// kind → true).
	wrappers []int32
	wrapped  []bool
}

// wrapperKinds are, per language, the kinds that wrap a node in some
// contexts only, and which kinds they wrap: C and C++ read L1 in
// a<L1>::b as an expression's identifier where the pattern alone is an
// expression, and as a type_descriptor holding a type_identifier in a
// type; Swift's unowned var $A: $B has its ownership_modifier bare in a
// function body and inside modifiers in a class.
var wrapperKinds = map[string]struct {
	wrappers []string
	wraps    func(name string) bool
}{
	"c":     {[]string{"type_descriptor"}, isWordOrTemplate},
	"cpp":   {[]string{"type_descriptor"}, isWordOrTemplate},
	"swift": {[]string{"modifiers"}, func(name string) bool { return strings.HasSuffix(name, "_modifier") || name == "attribute" }},
}

// isWordOrTemplate says a C or C++ kind is a word or a template's name
// with arguments (the wordsAcross families).
func isWordOrTemplate(name string) bool {
	return strings.HasSuffix(name, "identifier") || name == "template_type" || name == "template_function" || name == "template_method"
}

// A scaffold is one context of the ladder: the pattern is parsed as
// prefix + pattern + suffix (pattern lines after the first get indent).
type scaffold struct {
	name           string // statement, expression, member, declaration, type
	prefix, suffix string
	indent         string
	// when, if set, says the scaffold is for this pattern: a Go pattern
	// that opens with case is read as a select case where it sends or
	// receives (<-), as a switch case elsewhere (a switch reads case c
	// <- v: as c < -v).
	when func(pattern string) bool
	// single says the scaffold reads only a pattern that parses cleanly
	// into one node: a TypeScript interface holds a member named by any
	// word, so there type $A would be a member named type and an ERROR.
	single bool
	// sequenceWins says a reading of several nodes side by side in this
	// scaffold is taken at once, before a later scaffold's single node
	// (Dart's function declarations: see its ladder).
	sequenceWins bool
}

// dartFunctionDecl reports a Dart pattern that declares a function with
// a body: a return type, a name, parameters, then { or =>.
func dartFunctionDecl(pattern string) bool { return dartFunc.MatchString(pattern) }

// dartSignature reports a Dart pattern that is a method's signature
// alone: a return type, a name, maybe type parameters, parameters.
func dartSignature(pattern string) bool { return dartSig.MatchString(pattern) }

var dartSig = regexp.MustCompile(`^\s*[\w$][\w$<>?,. ]*\s+[\w$]+\s*(<[^()]*>)?\s*\([^{};]*\)\s*$`)

var dartFunc = regexp.MustCompile(`^\s*[\w$][\w$<>?,. ]*\s+[\w$]+\s*\([^{};]*\)\s*(async\*?|sync\*)?\s*(\{|=>)`)

// testsDefined reports a C or C++ pattern that uses the preprocessor's
// defined operator: defined(X) or defined X.
func testsDefined(pattern string) bool { return definedOp.MatchString(pattern) }

var definedOp = regexp.MustCompile(`(^|[^\w$])defined\s*(\(|[A-Za-z_$])`)

// sendsOrReceives reports a Go pattern with a channel operator.
func sendsOrReceives(pattern string) bool { return strings.Contains(pattern, "<-") }

// startsCase reports a pattern that opens with case or default: only
// such a one is read as a case (others' errors do not name the context).
func startsCase(pattern string) bool {
	t := strings.TrimSpace(pattern)
	return strings.HasPrefix(t, "case") || strings.HasPrefix(t, "default")
}

const errorKind = -1

// grammar is a TSLanguage made here (C memory, never freed).
type grammar struct{ ptr unsafe.Pointer }

// parsePtr is the grammar a parse uses: its copy with a dense parse table
// once a search has made one (densify), the grammar itself before.
func (l *Language) parsePtr() unsafe.Pointer {
	if d := l.dense.Load(); d != nil {
		return d.ptr
	}
	return l.ptr
}

// densify gives the grammar a dense parse table (pt_dense in cts.go) when
// a search is about to read at least twice as many bytes of its source
// as the table takes. Parses then answer the same, and spend less time
// looking up their parse table: on the C of the c-src bench corpus,
// whose OpenSSL headers send tree-sitter into error recovery, about 10%
// less (a fifth less in the files with errors), a few percent on source
// without errors. Building the table costs about 1.5 ns an entry (C: 0.7
// million entries, 1 ms; Scala, the largest, 7 million, 11 ms) and it
// stays for the life of the process (C 1.4 MB, TypeScript 4.2 MB), so a
// search of less source than that goes without.
func (l *Language) densify(srcBytes int64) {
	l.load()
	if l.ptr == nil {
		return
	}
	if size := denseTableBytes(l.ptr); size == 0 || srcBytes < 2*int64(size) {
		return
	}
	l.denseOnce.Do(func() {
		if d := denseCopy(l.ptr); d != nil {
			l.dense.Store(&grammar{d})
		}
	})
}

func (l *Language) load() {
	l.once.Do(func() {
		if l.ID == "dart" {
			l.ptr, l.missing = dartGrammar()
		} else if g, ok := moduleGrammars[l.ID]; ok {
			l.ptr = g.load()
			l.module = g.module
		} else {
			l.missing = "not built in"
		}
		if l.ptr == nil {
			return
		}
		names, named := symbolTable(l.ptr)
		canon := map[string]int32{}
		l.kinds = make([]int32, len(names))
		l.namedSyms = make([]uint8, len(names)+1) // never empty
		for i, name := range names {
			key := name
			if named[i] {
				key += "\x00named"
				l.namedSyms[i] = 1
			}
			k, ok := canon[key]
			if !ok {
				k = int32(len(l.kindNames))
				canon[key] = k
				l.kindNames = append(l.kindNames, name)
				l.comment = append(l.comment, strings.Contains(name, "comment"))
			}
			l.kinds[i] = k
		}
		if w, ok := wrapperKinds[l.ID]; ok {
			for _, name := range w.wrappers {
				if k, ok := canon[name+"\x00named"]; ok {
					l.wrappers = append(l.wrappers, k)
				}
			}
			l.wrapped = make([]bool, len(l.kindNames))
			for i, name := range names {
				if named[i] && w.wraps(name) {
					l.wrapped[l.kinds[i]] = true
				}
			}
		}
		if l.wordsAcross {
			l.family = make([]uint8, len(l.kindNames))
			for i, name := range names {
				switch {
				case !named[i]:
				case strings.HasSuffix(name, "identifier"):
					l.family[l.kinds[i]] = 1
				case name == "template_function" || name == "template_type" || name == "template_method":
					l.family[l.kinds[i]] = 2
				}
			}
		}
		l.keywords = map[string]bool{}
		for i, name := range names {
			if !named[i] && isWord(name) {
				l.keywords[name] = true
			}
		}
		l.selectorKind = -1
		if l.ID == "dart" {
			for i, name := range names {
				if name == "selector" && named[i] {
					l.selectorKind = l.kinds[i]
				}
			}
		}
	})
}

// Available reports whether the grammar is built into this binary, and
// why not.
func (l *Language) Available() (bool, string) {
	l.load()
	return l.ptr != nil, l.missing
}

func (l *Language) abi() int {
	if l.ptr == nil {
		return 0
	}
	return abiVersion(l.ptr)
}

// kind returns the canonical kind of a symbol; ERROR is errorKind.
func (l *Language) kind(sym uint16) int32 {
	if int(sym) < len(l.kinds) {
		return l.kinds[sym]
	}
	return errorKind
}

// kindOf returns the canonical kind with this name and namedness.
func (l *Language) kindOf(name string, named bool) (int32, bool) {
	for sym, k := range l.kinds {
		if l.kindNames[k] == name && l.namedSyms[sym] == 1 == named {
			return k, true
		}
	}
	return 0, false
}

func (l *Language) kindName(k int32) string {
	if k < 0 || int(k) >= len(l.kindNames) {
		return "ERROR"
	}
	return l.kindNames[k]
}

// Version describes the grammar for doctor: module version and ABI.
func (l *Language) Version() string {
	l.load()
	if l.ptr == nil {
		return ""
	}
	v := "npm tree-sitter-dart (third_party/npm)"
	if l.module != "" {
		v = l.module + " " + moduleVersion(l.module)
	}
	return fmt.Sprintf("%s, ABI %d", v, l.abi())
}

func moduleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown version)"
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			return d.Version
		}
	}
	return "(unknown version)"
}

// Scaffolds shared by the C family: a statement is tried with a ';'
// appended first, so `free($P)` parses as a call statement.
func cLike(fn, member string) []scaffold {
	return []scaffold{
		// A pattern that tests defined(X) is an #if's condition, where
		// the grammar reads defined as an operator (preproc_defined) and
		// the operators around it as the directive's own.
		{name: "condition", prefix: "#if ", suffix: "\n#endif\n", when: testsDefined},
		{name: "statement", prefix: fn + " {\n", suffix: ";\n}"},
		{name: "statement", prefix: fn + " {\n", suffix: "\n}"},
		{name: "expression", prefix: "int _ = ", suffix: ";\n"},
		{name: "member", prefix: member + " {\n", suffix: "\n};"},
		{name: "declaration", suffix: "\n"},
		// A declarator alone ($F(int $A), *$P), as a declaration's.
		{name: "declaration", prefix: "int ", suffix: ";\n"},
	}
}

func classLike(method, expr string) []scaffold {
	return []scaffold{
		{name: "statement", prefix: "class X_ { " + method + " {\n", suffix: ";\n} }"},
		{name: "statement", prefix: "class X_ { " + method + " {\n", suffix: "\n} }"},
		{name: "expression", prefix: "class X_ { " + expr, suffix: "; }"},
		{name: "member", prefix: "class X_ {\n", suffix: "\n}"},
		{name: "declaration", suffix: "\n"},
		annotation("class X_ {\n", "\nvoid x_() {}\n}"),
		// A type alone (List<$T>, Map<$K, $V>), as a field's: no other
		// reading takes it, and the answer called it a syntax error.
		{name: "type", prefix: "class X_ { ", suffix: " x_; }", single: true},
		// A parameter list alone ((String $A)), as a method's.
		{name: "member", prefix: "class X_ { void x_", suffix: " {} }"},
	}
}

func jsLike() []scaffold {
	return []scaffold{
		{name: "statement", prefix: "function _() {\n", suffix: "\n}"},
		{name: "expression", prefix: "_ = (", suffix: "\n)"},
		{name: "member", prefix: "class _ {\n", suffix: "\n}"},
		{name: "declaration", suffix: "\n"},
		annotation("class X_ {\n", "\nx_() {}\n}"),
		// A JSX opening tag alone (<div {...$A} $$$>), as an element's
		// whose closing tag the grammar does not hold to its name.
		{name: "expression", prefix: "_ = (", suffix: "</x>\n)"},
		// A parameter list alone ((...$A), ($A, ...$B)), which is no
		// expression: a function's.
		{name: "declaration", prefix: "function _", suffix: " {}\n"},
	}
}

// tsLike is jsLike with TypeScript's own contexts: an interface's member
// (a call signature ($A: string): number, a construct signature new
// ($$$): T, which no class holds) and a type.
func tsLike() []scaffold {
	l := jsLike()
	at := slices.IndexFunc(l, func(s scaffold) bool { return s.name == "member" }) + 1
	l = slices.Insert(l, at, scaffold{name: "member", prefix: "interface _ {\n", suffix: "\n}", single: true})
	// Type parameters alone (<$A, $B>, as ast-grep reads them: a
	// function's), else type arguments (<typeof $A>, a call's).
	return append(l, scaffold{name: "type", prefix: "type _ = ", suffix: ";\n"},
		scaffold{name: "declaration", prefix: "function f", suffix: "() {}\n"}, scaffold{name: "type", prefix: "f", suffix: "();\n"})
}

// annotation is the context of a decorator, annotation or attribute
// written alone (@Override, @property): it is parsed on a declaration and
// selected there.
func annotation(prefix, suffix string) scaffold {
	return scaffold{name: "annotation", prefix: prefix, suffix: suffix}
}

var top = []scaffold{{name: "declaration", suffix: "\n"}}

// languages is the table, sorted by id.
var languages = []*Language{
	{ID: "bash", Aliases: []string{"sh", "shell"}, Exts: []string{".sh", ".bash"}, ladder: []scaffold{
		{name: "statement", suffix: "\n"},
		// An array element alone (BASH_REMATCH[$A], ${#a[@]} without its
		// braces) is held by an expansion: the subscript of ${a[1]} and of
		// a[1]=x is one kind. Only for a subscript: a keyword alone (fi,
		// done) would read there as a variable's name.
		{name: "expression", prefix: "_=${", suffix: "}\n", when: func(p string) bool { return strings.Contains(p, "[") }},
	}},
	{ID: "c", Exts: []string{".c", ".h"}, expando: "𐀀", ladder: cLike("void _(void)", "struct _"), wordsAcross: true},
	{ID: "c-sharp", Aliases: []string{"csharp", "cs"}, Exts: []string{".cs"}, expando: "µ", ladder: classLike("void x_()", "object x_ = ")},
	{ID: "cpp", Aliases: []string{"c++"}, Exts: []string{".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".c++", ".h++"}, expando: "𐀀", ladder: append(cLike("void _()", "class _"),
		// A lambda's capture list alone ([&$A, $B]), as a lambda's.
		scaffold{name: "expression", prefix: "auto _ = ", suffix: "() {};\n", single: true}), wordsAcross: true},
	{ID: "css", Exts: []string{".css"}, expando: "-_", ladder: []scaffold{
		{name: "member", prefix: "a {\n", suffix: "\n}"},
		{name: "declaration", suffix: "\n"},
		// A selector alone (.btn, a:hover, #main > $A) is the head of
		// a rule set. A pattern that is a pseudo-class selector also
		// reads as a member, a declaration (a:hover as property a):
		// ladderFor puts this scaffold first for those (see
		// cssSelectorFirst).
		{name: "selector", suffix: " {}\n"},
		// A value alone (rgba($$$), calc($A + $B)): a declaration's.
		{name: "expression", prefix: "a { b: ", suffix: " }\n"},
	}},
	{ID: "dart", Exts: []string{".dart"}, ladder: []scaffold{
		// A function written out (void $F($$$A) { $$$B }) is read as
		// a top-level one, a signature and a body side by side, which
		// also finds the local functions (whose lambda_expression holds
		// the two); read as a statement it was only a local function,
		// and main and every top-level function were missed.
		{name: "declaration", suffix: "\n", when: dartFunctionDecl, sequenceWins: true},
		{name: "statement", prefix: "void _() {\n", suffix: ";\n}"},
		{name: "statement", prefix: "void _() {\n", suffix: "\n}"},
		{name: "expression", prefix: "var _ = ", suffix: ";\n"},
		{name: "member", prefix: "class _ {\n", suffix: "\n}"},
		// A method's signature alone (Widget build($A $B)), which an
		// abstract method ends with a ';' (only for a type, a name and
		// parameters: print($A) would be a constructor's signature).
		{name: "member", prefix: "class _ {\n", suffix: ";\n}", when: dartSignature},
		{name: "declaration", suffix: "\n"},
		annotation("", "\nclass X_ {}\n"),
	}},
	{ID: "go", Aliases: []string{"golang"}, Exts: []string{".go"}, expando: "µ", ladder: []scaffold{
		{name: "statement", prefix: "package p\nfunc _() {\n", suffix: "\n}"},
		{name: "expression", prefix: "package p\nvar _ = ", suffix: "\n"},
		{name: "member", prefix: "package p\ntype _ struct {\n", suffix: "\n}"},
		{name: "declaration", prefix: "package p\n", suffix: "\n"},
		{name: "type", prefix: "package p\nvar _ ", suffix: "\n"},
		// A select or switch case alone (case $X := <-$C:).
		{name: "case", prefix: "package p\nfunc _() {\nswitch {\n", suffix: "\n}\n}", when: func(p string) bool { return startsCase(p) && !sendsOrReceives(p) }},
		{name: "case", prefix: "package p\nfunc _() {\nselect {\n", suffix: "\n}\n}", when: func(p string) bool { return startsCase(p) && sendsOrReceives(p) }},
	}},
	{ID: "haskell", blockLayout: true, columnBlocks: true, Aliases: []string{"hs"}, Exts: []string{".hs"}, expando: "µ", altPrefix: "X", ladder: []scaffold{
		// A function, not a bind (_ = do), holds the do: ast-grep, given
		// this scaffold with --selector bind, selects the statement.
		{name: "statement", prefix: "x_ _ = do\n  ", suffix: "\n", indent: "  "},
		{name: "expression", prefix: "_ = ", suffix: "\n"},
		{name: "declaration", suffix: "\n"},
		// A pattern that is no expression ((~($A, a), $A), !$A, a view
		// pattern), as a case alternative's.
		{name: "pattern", prefix: "x_ = case _ of\n  ", suffix: " -> _\n", indent: "  "},
		// Names a signature declares together ((<), (<=), $A), as a
		// signature's.
		{name: "declaration", suffix: " :: x_\n", single: true},
	}},
	{ID: "html", Exts: []string{".html", ".htm"}, expando: "z", ladder: []scaffold{
		{name: "declaration", suffix: "\n"},
		// A start tag alone (<$A>, <div class="$C">), whose element a
		// parent's end tag closes.
		{name: "declaration", prefix: "<div>", suffix: "</div>\n", single: true},
	}},
	{ID: "java", Exts: []string{".java"}, ladder: classLike("void x_()", "Object x_ = ")},
	{ID: "javascript", Aliases: []string{"js", "jsx"}, Exts: []string{".js", ".mjs", ".cjs", ".jsx"}, ladder: jsLike(), braceFirst: true},
	{ID: "json", Exts: []string{".json"}, expando: "µ", quoteMeta: true, quotedContent: true, ladder: []scaffold{
		{name: "declaration", suffix: "\n"},
		{name: "member", prefix: "{\n", suffix: "\n}\n"},
	}},
	{ID: "kotlin", Aliases: []string{"kt"}, Exts: []string{".kt", ".kts"}, expando: "µ", endsLine: true, ladder: []scaffold{
		{name: "statement", prefix: "fun _() {\n", suffix: "\n}"},
		{name: "expression", prefix: "val _ = ", suffix: "\n"},
		{name: "member", prefix: "class _ {\n", suffix: "\n}"},
		// A property's accessor stands after its property: private
		// get() = $A, public set(value) { … }.
		{name: "member", prefix: "class _ {\nvar _x = 0\n", suffix: "\n}"},
		{name: "declaration", suffix: "\n"},
		annotation("", "\nclass X_\n"),
	}},
	{ID: "lua", Exts: []string{".lua"}, ladder: []scaffold{
		{name: "statement", prefix: "function _()\n", suffix: "\nend"},
		{name: "expression", prefix: "local _ = ", suffix: "\n"},
		{name: "declaration", suffix: "\n"},
		// A method named without its call (tbl:$M): only a call holds
		// one.
		{name: "expression", prefix: "local _ = ", suffix: "()\n"},
	}},
	{ID: "php", Exts: []string{".php"}, expando: "µ", altPrefix: "$", ladder: []scaffold{
		{name: "statement", prefix: "<?php\nfunction _() {\n", suffix: ";\n}"},
		{name: "statement", prefix: "<?php\nfunction _() {\n", suffix: "\n}"},
		{name: "expression", prefix: "<?php\n$_ = ", suffix: ";\n"},
		{name: "member", prefix: "<?php\nclass _ {\n", suffix: "\n}"},
		{name: "declaration", prefix: "<?php\n", suffix: "\n"},
		annotation("<?php\n", "\nclass X_ {}\n"),
	}},
	{ID: "python", blockLayout: true, headerLine: []string{"function_definition", "class_definition", "decorated_definition",
		"if_statement", "for_statement", "while_statement", "try_statement", "with_statement", "match_statement"}, Aliases: []string{"py"}, Exts: []string{".py", ".pyi"}, expando: "µ", ladder: []scaffold{
		{name: "statement", prefix: "def _():\n    ", suffix: "\n", indent: "    "},
		{name: "expression", prefix: "_ = (", suffix: "\n)\n"},
		{name: "member", prefix: "class _:\n    ", suffix: "\n", indent: "    "},
		{name: "declaration", suffix: "\n"},
		annotation("", "\ndef _(): pass\n"),
	}},
	{ID: "ruby", Aliases: []string{"rb"}, Exts: []string{".rb", ".rake", ".gemspec"}, expando: "µ", altPrefix: "X", ladder: []scaffold{
		{name: "statement", prefix: "def _\n", suffix: "\nend\n"},
		{name: "expression", prefix: "_ = ", suffix: "\n"},
		{name: "member", prefix: "class X_\n", suffix: "\nend\n"},
		{name: "declaration", suffix: "\n"},
	}},
	{ID: "rust", Aliases: []string{"rs"}, Exts: []string{".rs"}, expando: "µ", ladder: []scaffold{
		{name: "statement", prefix: "fn _() {\n", suffix: "\n}"},
		{name: "expression", prefix: "const _: () = ", suffix: ";\n"},
		{name: "member", prefix: "impl _ {\n", suffix: "\n}"},
		{name: "declaration", suffix: "\n"},
		{name: "type", prefix: "type _ = ", suffix: ";\n"},
	}},
	{ID: "scala", blockLayout: true, Exts: []string{".scala", ".sc"}, ladder: []scaffold{
		{name: "statement", prefix: "object _ { def _() = {\n", suffix: "\n} }"},
		{name: "expression", prefix: "object _ { val _ = ", suffix: "\n}"},
		{name: "member", prefix: "class _ {\n", suffix: "\n}"},
		{name: "declaration", suffix: "\n"},
		annotation("", "\nclass X_\n"),
		// An expression whose lines start with an operator (a⏎  || b),
		// which the grammar reads only inside brackets, where newlines
		// end nothing.
		{name: "expression", prefix: "object _ { val _ = (", suffix: "\n) }"},
	}},
	{ID: "swift", Exts: []string{".swift"}, expando: "µ", ladder: []scaffold{
		{name: "statement", prefix: "func _() {\n", suffix: "\n}"},
		{name: "expression", prefix: "let _ = ", suffix: "\n"},
		{name: "member", prefix: "class X_ {\n", suffix: "\n}"},
		{name: "declaration", suffix: "\n"},
		annotation("", "\nclass X_ {}\n"),
		// A type alone ($A<ImageResponse, $B>), as a variable's.
		{name: "type", prefix: "var _: ", suffix: "\n", single: true},
	}},
	{ID: "toml", Exts: []string{".toml"}, expando: "µ", quoteMeta: true, trimsBlankTail: true, ladder: top},
	{ID: "tsx", Exts: []string{".tsx"}, ladder: tsLike(), braceFirst: true},
	{ID: "typescript", Aliases: []string{"ts"}, Exts: []string{".ts", ".mts", ".cts"}, ladder: tsLike(), braceFirst: true},
	{ID: "yaml", blockLayout: true, columnBlocks: true, Aliases: []string{"yml"}, Exts: []string{".yaml", ".yml"}, ladder: top},
}

var (
	byName = map[string]*Language{}
	byExt  = map[string]*Language{}
)

func init() {
	for _, l := range languages {
		byName[l.ID] = l
		for _, a := range l.Aliases {
			byName[a] = l
		}
		for _, e := range l.Exts {
			byExt[e] = l
		}
	}
}

// Languages returns the language table, sorted by id.
func Languages() []*Language { return languages }

// LanguageByName finds a language by id or alias (case-insensitive).
func LanguageByName(name string) (*Language, error) {
	if l, ok := byName[strings.ToLower(strings.TrimSpace(name))]; ok {
		return l, nil
	}
	ids := make([]string, len(languages))
	for i, l := range languages {
		ids[i] = l.ID
	}
	return nil, fmt.Errorf("unknown language %q: want one of %s", name, strings.Join(ids, ", "))
}

// LanguageForPath returns the language a file name maps to by extension,
// or nil.
func LanguageForPath(path string) *Language {
	return byExt[strings.ToLower(filepath.Ext(path))]
}

// contextNames lists the distinct context names of the ladder, in order.
func (l *Language) contextNames() []string {
	var names []string
	for _, s := range l.ladder {
		if !slices.Contains(names, s.name) {
			names = append(names, s.name)
		}
	}
	return names
}

// sortedIDs returns the ids of a set of languages, sorted.
func sortedIDs(ls map[*Language]bool) []string {
	var ids []string
	for l := range ls {
		ids = append(ids, l.ID)
	}
	sort.Strings(ids)
	return ids
}

// mayBeWrapped says code may hold a node of pattern kind k inside one of
// the language's wrappers.
func (l *Language) mayBeWrapped(k int32) bool {
	return k >= 0 && int(k) < len(l.wrapped) && l.wrapped[k]
}

// kindMatches says code of kind code matches a pattern node of kind pat:
// the same kind, or one of its family (see wordsAcross), at a pattern's
// root as below it.
func (l *Language) kindMatches(code, pat int32) bool {
	return code == pat || l.family != nil && l.sameFamily(code, pat)
}

// hasFamily says kind k is of a family (see wordsAcross).
func (l *Language) hasFamily(k int32) bool {
	return l.family != nil && k >= 0 && int(k) < len(l.family) && l.family[k] != 0
}

// sameFamily says kinds a and b are of one family of a grammar that gives
// the same code several kinds by context (wordsAcross).
func (l *Language) sameFamily(a, b int32) bool {
	return l.family != nil && a >= 0 && b >= 0 && int(a) < len(l.family) && int(b) < len(l.family) && l.family[a] != 0 && l.family[a] == l.family[b]
}

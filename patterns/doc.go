// Package patterns is agent-tools' structural search and rewrite engine on
// tree-sitter: the grammar registry, the pattern compiler, the matcher,
// workspace search, staged edits, and the ast_grep, ast_edit and resolve
// tools.
//
// Only tools.go adapts it to package rpc; the rest is a plain Go API.
//
// # Map
//
// A pattern goes through the files in this order: it is compiled for a
// language, a search picks the files and the parts of them worth parsing,
// each is parsed and flattened, the matcher walks the flat tree, and a
// rewrite is staged and later resolved.
//
//	languages.go   the language table: ids, extensions, the metavariable
//	               placeholder, the scaffold ladder, per-language data
//	grammars.go    the grammars that are Go modules
//	dart.go        the Dart grammar, built in with -tags dart
//	dart_missing.go  what stands for it without the tag
//	cts.go         the only cgo: parse with tree-sitter, flatten the tree
//	               into a Go slice (Tree) in one call
//	compile.go     Compile: the table of a pattern's readings
//	               (compileReadings) run by one loop, the pattern's nodes
//	               built (pnode) from the parse
//	scaffold.go    one reading's parse in the ladder's scaffolds, its
//	               errors judged and located, the scaffold peeled off
//	metavars.go    metavariables rewritten to a grammar's placeholder and
//	               recognised in a node's text
//	match.go       Pattern.Find: the matcher; the skip policy is skips, the
//	               language hooks are flatPath and memberChain
//	rule.go        ast-grep's rule language read from JSON (RuleSpec)
//	rulematch.go   a rule compiled for one language and run over a tree
//	search.go      Search and SearchRule's one search: the walk, one
//	               compile per language, the literal prefilter, parallel
//	               parse and match (a finder: *Pattern or *Rule), results
//	rulesearch.go  a rule's side of the search, and what tools ask of rules
//	lexical.go     a pattern's literals, and the prefilter's test that one
//	               occurs in code, not only in comments or strings
//	split.go       a file split into top-level statements (Python, Go, C),
//	               so only those holding the rarest literal are parsed
//	jssplit.go     the same split for TypeScript, TSX and JavaScript: cuts
//	               only where the scan is sure (no cut past an unsure '/'
//	               or a JSX '<')
//	directive.go   C and C++: a pattern that is one directive line
//	               (#define, #include) parses only those lines
//	pyscan.go      the one Python lexical scanner, under split.go and
//	               pynest.go
//	pynest.go      Python only: nested statements that cannot hold a match
//	               left out of the parse too
//	identifiers.go where a name is written as an identifier in one file
//	               (lsp_rename's check for uses the server did not edit)
//	rewrite.go     templates filled from captures, re-indented, applied
//	stage.go       staged edits: hashes at staging, all-or-nothing accept
//	joined.go      a rewrite that parses but is read with the code around
//	               it (JavaScript's automatic ';', a lost grouping)
//	dump.go        trees shown to people (ast_grep's dump option)
//	tools.go       the ast_grep, ast_edit and resolve tools, config, doctor
//
// # Where a language quirk goes
//
// Prefer the first place that can hold it, and say in its comment which
// language it serves and the pattern that needs it:
//
//  1. Data on Language (languages.go), when a value says it: the
//     placeholder for '$' (expando), metavariables read as strings
//     (quoteMeta, TOML and JSON), a prefix that makes a metavariable the
//     token the grammar wants (altPrefix: PHP's $X = $Y reads $X as a
//     variable), the ladder's scaffolds and their order (braceFirst).
//  2. A row of compileReadings (compile.go), when the pattern's text
//     must be rewritten before the grammar reads it as meant: the row's
//     rewrite changes the text, its fix undoes in the compiled pattern
//     what the rewrite added, and its applies names the language. Swift
//     reads switch $X { $$$ } as a call with a trailing closure; its row
//     parses the body as default: $$$ and then hoists the $$$ back out.
//  3. compiler.build (compile.go), when the text parses but the tree is
//     not the one a person means: dartBlock turns Dart's { $$$ } after if
//     (…), a set literal to the grammar, into a block.
//  4. A language hook of the matcher (match.go), when the target's tree
//     keeps flat what a reader sees as one node: memberChain lets a $X
//     take Dart's selectors (b.c in $X.dispose()), keyed by
//     Language.selectorKind; flatPath lets a final $X take a dotted path
//     (Scala's import a.b.c).
//
// What the matcher may pass over (a target's token or sibling, a
// pattern's ';' or ',') is decided in one place, matcher.skips, for every
// language: a change there is checked against ast-grep by the
// differential suites (TestDifferential*, TestGeneratedDifferential).
// Search-speed shortcuts that depend on a language (split.go's
// splitters, pynest.go, lexical.go, directive.go) must never change what
// matches; each falls back to a whole-file parse when unsure. One
// deliberate exception, in files with a syntax error only: directive.go
// reads a #define that the whole file's parse, around its error, reads
// as no definition (one inside an enum's body), so it finds more than
// ast-grep there, never less.
package patterns

// Package patterns is agent-tools' structural search and rewrite engine on
// tree-sitter: the grammar registry, the pattern compiler, the matcher,
// workspace search, staged edits, and the ast_grep, ast_edit and resolve
// tools.
//
// Only tools.go adapts it to package rpc; the rest is a plain Go API.
package patterns

// Package lspbridge connects agent-tools to language servers: the server
// registry (root markers and commands), one supervised server per
// (server, root), document sync, the diagnostics store, and the lsp and
// lsp_rename tools with diagnostics on write.
//
// Only tools.go adapts it to package rpc; the rest is a plain Go API.
package lspbridge

// Package lspbridge connects agent-tools to language servers: the server
// registry (root markers and commands), one supervised server per
// (server, root), document sync, the diagnostics store, and the lsp and
// lsp_rename tools with diagnostics on write.
//
// Call [NewSupervisor] (options from [ParseConfig]), then the actions —
// [Supervisor.Locations], [Supervisor.Hover], [Supervisor.Symbols],
// [Supervisor.CodeActions], [Supervisor.Diagnostics], [Supervisor.Status],
// [Supervisor.Reload], [Supervisor.Rename], [Supervisor.DidWrite] — and
// [Supervisor.Close] at exit. Only tools.go adapts it to package rpc; the
// rest is a plain Go API, tested against real servers.
//
// # Files
//
//   - protocol.go: the hand-written LSP 3.17 subset, with spec links.
//   - conn.go: JSON-RPC over Content-Length framing (sourcegraph/jsonrpc2,
//     reading through framing.go's bounded codec: 64 MiB per message),
//     $/cancelRequest when a caller gives up.
//   - server.go: one server: its state, start, initialize, exit, stop.
//     notify.go: what it sends unasked (its requests, publications,
//     progress). calls.go: requests and the send lock, bounded by the
//     request timeout and its exit. sync.go: document sync (open, change,
//     save, reopen, close). wait.go: the wait for a file's diagnostics
//     (diagnosticsSilent, the one entry point; it says whether the answer
//     rests on silence); pull.go: pulled diagnostics (pyright's, asked
//     for and answered once checked). versions.go: whether the server
//     echoes document versions. ready.go: loading, readiness and index
//     waits. serverversion.go: which version of the server runs.
//   - supervisor.go: lazy start, failures, crashes, status, reload.
//     config.go: the built-in servers and the config section. clangd.go:
//     a compilation database for a compile_flags.txt project. paths.go:
//     confinement to the root, server roots by markers, URIs. disk.go and
//     changed.go: the servers' view kept equal to the disk, and changes
//     made behind their backs reported.
//   - position.go: line + symbol → position in the negotiated encoding.
//   - nav.go, hierarchy.go (hierwalk.go walks it), symbols.go,
//     diagnostics.go, checker.go: the lsp actions (newdiags.go:
//     diagnostics since git HEAD or the previous answer); outline.go
//     shapes an outline (document order, declarations), wsymbols.go runs
//     and ranks workspace symbols, pointed.go lets read actions follow an
//     answer to a file outside the root.
//   - result.go: the tools' results and their text for models.
//   - probe.go: doctor's probe of each server (initialize in a temp dir).
//   - didwrite.go, registry.go: diagnostics on write and the registry of
//     what was already reported; dependents.go: the files that use what
//     a write changed; before.go: a file's text and diagnostics before
//     it. rename.go: lsp_rename, transactional; textual.go: its word
//     search for the uses a server did not see.
//
// # Goroutines
//
// Each server's connection has jsonrpc2's read loop, which records
// publishDiagnostics and $/progress inline (under the server's mutex) and
// answers the server's own requests (workspace/configuration,
// client/registerCapability, ...) on a goroutine each, so an answer never
// waits behind a tool call. The configuration handler exists before the
// first byte is sent (no start-up race). Tool calls run on the rpc
// session's goroutines; a start is shared by concurrent callers (the
// others wait for it); DidWrite and Rename sync files concurrently.
// internal/proc owns every process.
package lspbridge

// Package lspdiff holds differential tests of the lsp tool against the
// raw language servers (issue 23, "Done when" 1); it has no code outside
// its tests.
//
// Each test draws (seeded) a real project of one language from what the
// machine has — a Go module of the module cache, a Debian Python package,
// the TypeScript sources of an npm package, C sources vendored in a Go
// module — copies it twice, and draws identifier positions in it. At each
// position it asks lspbridge's Supervisor (what the lsp tool calls) for
// definition, type_definition, references, implementation, hover and
// both call hierarchies, and asks the same server binary, started by the
// test on the other copy and driven by a minimal LSP client of the
// test's own, the same request once that server says it has settled.
// Answers compare after format conversion: locations as path:line:col
// sets, hover as text containing the raw server's signature. Where ours
// has fewer results than the raw answer, its text must say that it may
// be incomplete; any other difference fails too, unless it is a listed
// one (a behaviour of the server itself, with the check that tells it).
//
// CI runs a small sample of one fixed draw per language; AGENT_TOOLS_SOAK=1
// draws from the clock and asks at more positions (AGENT_TOOLS_POSITIONS=n
// sets how many); AGENT_TOOLS_SEED=n replays a draw.
package lspdiff

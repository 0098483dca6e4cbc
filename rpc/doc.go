// Package rpc is agent-tools' MCP server: newline-delimited JSON-RPC 2.0
// over stdio, on github.com/sourcegraph/jsonrpc2, behind one handler.
//
// Build a [Registry], add tools made with [NewTool], and call
// [Server.Serve] with stdin and stdout:
//
//	reg := rpc.NewRegistry()
//	reg.Add(rpc.NewTool(rpc.Spec{Name: "lsp", Tier: rpc.TierRead, Description: "..."}, s.lsp))
//	rpc.NewServer(reg, &rpc.Options{Version: v}).Serve(ctx, os.Stdin, os.Stdout)
//
// # Revisions
//
// The initialize-based MCP revisions (2025-11-25, 2025-06-18,
// 2025-03-26) and the stateless one, [Stateless] (2026-07-28), are served
// side by side; the request decides. A request whose _meta names the
// stateless revision is served without initialize, under the
// capabilities and options in its own _meta (see stateless.go):
// server/discover answers what initialize would; every answer carries
// resultType; ask_user reaches the person through a multi round-trip
// result whose requestState we sign and verify ([Session.Elicit],
// mrtr.go); tools/list_changed goes only to subscriptions/listen streams
// (listen.go); and with the Tasks extension, a call of a [Spec] Long tool
// that runs past [Options].TaskAfter is answered with a task (tasks.go).
// A session that sent initialize keeps its revision's behaviour exactly.
//
// # Framing
//
// sourcegraph/jsonrpc2 drops the connection on one undecodable line, so
// our own line reader stands in front of it: garbage gets -32700, a batch
// or a non-message -32600 (id null), an over-long line -32600, and the
// session goes on. Only lines jsonrpc2 will decode reach it.
//
// # Concurrency
//
// jsonrpc2's read loop calls [Session.Handle], which never blocks:
// notifications and the quick lifecycle requests (initialize, ping,
// tools/list, agent-tools/setMode) run inline and in order; each tools/call
// runs on its own goroutine with a context that notifications/cancelled
// cancels, and a cancelled call gets no response (so does
// subscriptions/listen, registered and acknowledged inline first). Responses to our own
// requests to the client ([Session.Elicit], [Session.CallClientTool]) are
// routed by the read loop, so a tool waiting on the client never stalls it.
//
// # Results
//
// What reaches the model is what counts. Claude Code and Codex show their
// model the JSON of structuredContent instead of the text (and Codex drops
// images next to it), so by default a result is its content blocks only
// (the text, then images) and tools/list has no outputSchema. A client
// opts in to structured results with
// capabilities.experimental["agent-tools"].structured in initialize (or
// the server's --structured flag); see [Mode].
//
// Each session has an output budget ([OutputBudget]; 10 KB unless
// maxOutputBytes or --max-output-bytes says otherwise). Listing tools stop
// there themselves; as a last resort the server cuts a longer text at a
// line boundary, keeping the head, and ends it with a line saying what was
// left out and how to get it. Structured content is never cut.
//
// A call that came with a progressToken gets a heartbeat
// notifications/progress ("still running (15 s)") every
// [Options].ProgressInterval until it returns, on the same strictly
// increasing counter as the tool's own [ReportProgress].
//
// # Errors
//
// A tool's failure, and arguments that fail its schema, are isError
// results naming the JSON field; only framing, unknown methods, unknown
// tools, malformed protocol params and calls before initialize are
// JSON-RPC errors ([WireError], converted in one place). A panicking handler
// yields an error result; the server keeps serving. Argument keys that an
// agent CLI injects into every tool (Gemini CLI's wait_for_previous; the
// list is injectedKeys) are dropped and logged, not refused.
//
// # Visibility
//
// Every tool has a [Tier]. A session's [Surface] caps the tier it sees
// (plan and readonly see only read tools), and [Requirement]s hide tools
// until vibe mode is on or the client can elicit. A hidden tool is absent
// from tools/list; a call of it by name is an isError result saying why
// and which tools are available (Codex never re-lists, so its model keeps
// calling a tool that was hidden after it listed), while a name no tool
// has is -32602, also listing the available tools. agent-tools/setMode
// changes surface and vibe and sends notifications/tools/list_changed when
// the visible list changed.
package rpc

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
// cancels, and a cancelled call gets no response. Responses to our own
// requests to the client ([Session.Elicit], [Session.CallClientTool]) are
// routed by the read loop, so a tool waiting on the client never stalls it.
//
// # Errors
//
// A tool's failure, and arguments that fail its schema, are isError
// results naming the JSON field; only framing, unknown methods, unknown or
// hidden tools, malformed protocol params and calls before initialize are
// JSON-RPC errors ([WireError], converted in one place). A panicking handler
// yields an error result; the server keeps serving.
//
// # Visibility
//
// Every tool has a [Tier]. A session's [Surface] caps the tier it sees
// (plan and readonly see only read tools), and [Requirement]s hide tools
// until vibe mode is on or the client can elicit. A hidden tool is refused
// by name exactly like an unknown one. agent-tools/setMode changes surface
// and vibe and sends notifications/tools/list_changed when the visible list
// changed.
package rpc

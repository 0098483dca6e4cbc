// Package workers asks the person questions (ask_user) and runs background
// worker processes (the vibe_* tools).
//
// # ask_user
//
// [Ask] turns a [Question] into an MCP elicitation (a numbered card as the
// message, a flat requestedSchema: a titled enum for a single choice, an
// array of enums for several, a string for free text), sends it through an
// [Asker] and reads the answer. A skip (decline or cancel) is an answer
// whose text tells the agent to continue on a stated assumption; a timeout
// is an error carrying the same instruction. The Asker is an interface so
// that the 2026 "input required" flow can replace elicitation/create later.
//
// # Workers
//
// Call [NewPool] with the configured commands and options, then
// [Pool.Spawn], [Pool.Send], [Pool.Wait], [Pool.Kill] and [Pool.List];
// [Pool.Close] stops every worker at the end of the run. A worker is a
// command run with /bin/sh -c in the run's root, started through
// internal/proc (own process group, dies with agent-tools). Its brief goes
// to stdin, its identity to AGENT_TOOLS_WORKER_* variables, and its result
// is the final message on stdout: plain text, or the last assistant/result
// message of a JSON-lines stream (see [Extractor]).
//
// Goroutines, per attempt: a reader owns its stdout and feeds each line to
// the attempt's log and [Extractor] until EOF; a monitor waits for the
// process and the reader (bounded), records the outcome under [Pool]'s
// mutex and closes the attempt's done channel; a feeder writes the brief to
// stdin and closes it. Everything else runs on the caller's goroutine.
// A simple worker command is exec'd by sh so that the agent CLI leads its
// process group and gets SIGTERM itself (see [Pool.Kill]).
//
// Only tools.go adapts the package to rpc; the rest is a plain Go API.
package workers

// Package conformance is agent-tools' transcript format, its recorder and
// its replayer. It drives the server binary over stdio and never imports
// the server's code.
//
// # Format
//
// A transcript is a txtar archive (see [Parse]):
//
//	What this transcript pins, and which past bugs.
//	-- flags --
//	--surface plan
//	-- ws/go.mod --
//	module x
//	-- client --
//	{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}
//	-- server --
//	{
//		"jsonrpc": "2.0",
//		"id": 1,
//		"result": {}
//	}
//
// The client section holds one message per line, sent byte for byte; a line
// that is not JSON is sent as is, to test garbage handling. The server
// section holds the expected messages as a stream of tab-indented JSON values.
//
// # Replay
//
// [Replay] is the test entry point and [Run] the engine underneath. Run makes
// the exchange deterministic against a server that handles calls
// concurrently: it sends a request only once every earlier request has been
// answered or cancelled, and a response only once the server has asked for
// it. The rules are on [Run]. Server messages are normalised before they are
// compared (see [Normalize]).
//
// Set [UpdateFlag], or the environment variable UPDATE_TRANSCRIPTS=1, to make
// Replay rewrite the server section of a transcript that does not match.
//
// # Recording
//
// [Recorder] writes a live session (agent-tools serve --record FILE) in the
// same format, so a recording is already a test once its workspace files
// are added.
//
// # Goroutines
//
// Run starts one goroutine that reads the server's stdout until EOF; it
// shares its state with the sending side through a mutex-guarded tracker.
// Recorder methods may be called from any goroutine.
package conformance

// Package dapbridge drives debug adapters over the Debug Adapter Protocol:
// the adapter registry ([Adapters]), the DAP client (conn.go), one debug
// session per conversation ([Supervisor]) and the debug tool (tools.go,
// the only file that imports rpc).
//
// Call [NewSupervisor], then [Supervisor.Do] with a conversation id, the
// run's root and a [Request]; [Supervisor.Close] ends every session. Each
// conversation has at most one live session; a second launch or attach is
// rejected, calls of one conversation are serialized, and a session is
// terminated when its TTL expires.
//
// # Handshake
//
// The same sequence works for delve, debugpy and lldb-dap (measured):
// initialize → launch/attach sent without waiting for its answer → wait
// for the initialized event → replay the conversation's breakpoint table
// (setBreakpoints per file, full line list) → configurationDone → collect
// the launch/attach answer → wait for stopped, terminated or exited.
//
// # Goroutines
//
//   - one reader per adapter connection (conn.readLoop): it owns the
//     read side, routes responses to their waiters by request_seq, feeds
//     events to the session's state machine (under the session's mutex,
//     never blocking) and answers reverse requests with success:false;
//   - one TTL timer per live session (time.AfterFunc), which terminates
//     the session under the conversation's call lock;
//   - the tool call's own goroutine, which holds the conversation's call
//     lock while it talks to the adapter;
//   - one probe per interpreter whose debugpy import is being checked
//     (resolver.checkImport), started by the first call that needs or
//     warms it and shared by every call that waits for it.
//
// Child processes (the adapters; the debuggees are their children) are
// started and stopped through internal/proc only.
//
// # Paths, config and log
//
// Every path an agent gives (the breakpoints file, the program to launch
// or attach to) is confined to the root by internal/workspace.Resolve; the
// adapters op's search for root markers uses internal/workspace.Walk (it
// honours .gitignore). The debug section of --config is decoded by
// internal/config. The supervisor writes adapter starts and exits, session
// ends, TTL expiries, kills and unanswered requests to the logger given
// to [NewSupervisor].
package dapbridge

// Package kernel runs persistent Python and JavaScript interpreters for the
// eval tool: one supervised interpreter per language with an embedded
// driver script (driver/python_kernel.py, driver/node_kernel.js), a
// newline-JSON protocol on extra file descriptors, the tool() bridge and
// the idle budget.
//
// Call [NewPool] with the decoded config ([ParseConfig]) and a logger
// (nil discards; the pool logs each kernel's start, interrupts, kills,
// exits and resets), and [Pool.Eval] per cell; [Pool.Close] stops the
// kernels. [Start] and [Kernel.Run] are the layer underneath, usable
// without a pool.
//
// # Interpreters
//
// [FindInterpreter] chooses at each kernel start as a person would: the
// configured binary, else the project's own environment, an activated
// one, else python3 (node) on PATH (interp.go). The first cell of a kernel
// carries a status line naming it; a cell of just %kernel asks again; a
// ModuleNotFoundError is followed by which other interpreters found here
// have the module and the config line that selects one (status.go).
//
// # Protocol
//
// The interpreter gets the request pipe as fd 3 and the message pipe as
// fd 4 (the table in protocol.go lists the messages). The driver replaces
// sys.stdout/sys.stderr (process.stdout/stderr in node) with writers that
// send "out" messages, so a cell's own output is ordered with its
// display() calls and can never corrupt the protocol. What child processes
// and C code write to fd 1 and 2 arrives on the kernel's stdout pipe; at
// the end of a cell the driver writes a per-cell marker there and sends a
// "sync" message, and the runner reads the pipe up to the marker before it
// takes the value, so that output comes first.
//
// # Goroutines
//
// Per kernel: readMessages (owns the message pipe) and readStdout (owns
// the stdout pipe) feed channels that only the goroutine running the
// current cell reads. Per cell: that goroutine owns the output
// accumulator and the idle budget; each tool() call runs on its own
// goroutine and hands its answer back over a channel (the budget is paused
// while any call is pending). A pool slot's one-token semaphore serializes
// the cells of a language; its holder owns the slot's kernel.
//
// Only tools.go adapts the package to rpc; the rest is a plain Go API.
package kernel

// This file defines the server, its options and the stdio serve loop.

package rpc

import (
	"context"
	"crypto/rand"
	"io"
	"time"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"
)

// Mode is a session's run options: set from flags, overridable by the
// client in initialize (capabilities.experimental["agent-tools"]) and, for
// Surface and Vibe, by agent-tools/setMode.
type Mode struct {
	Surface      Surface
	Vibe         bool
	Conversation string // the harness's conversation id; may be empty
	Root         string // absolute path of the workspace root

	// Structured makes tool results carry structuredContent and
	// tools/list carry outputSchema. Off by default: Claude Code and
	// Codex show their model the JSON of structuredContent instead of
	// our text (and Codex drops images next to it), so by default a
	// result is its content blocks only. A client that reads structured
	// results opts in (capabilities.experimental["agent-tools"].structured
	// in initialize, or serve --structured).
	Structured bool

	// MaxOutputBytes is the session's output budget (see [OutputBudget]):
	// 0 means [DefaultOutputBudget], a negative value means no budget.
	MaxOutputBytes int
}

// OutputBudget is the budget MaxOutputBytes stands for, in bytes;
// [NoBudget] when there is none.
func (m Mode) OutputBudget() int {
	switch {
	case m.MaxOutputBytes == 0:
		return DefaultOutputBudget
	case m.MaxOutputBytes < 0:
		return NoBudget
	}
	return m.MaxOutputBytes
}

// Options configures a [Server]. The zero value is usable: defaults are
// filled in by [NewServer].
type Options struct {
	Name    string // serverInfo.name; default "agent-tools"
	Version string // serverInfo.version; default "devel"

	Mode Mode // defaults for each session; Surface defaults to full

	// Logger receives the server's logs. nil discards them. It must not
	// write to the protocol stream.
	Logger *zerolog.Logger

	// OnRecv and OnSend see every raw line read and written (garbage
	// included), for --record. They are called from the read loop and
	// under the write lock respectively, and must be quick.
	OnRecv, OnSend func(line []byte)

	// MaxMessageBytes is the longest accepted line;
	// 0 means [DefaultMaxMessageBytes].
	MaxMessageBytes int

	// ProgressInterval is how often a tools/call that came with a
	// progressToken and is still running sends a heartbeat
	// notifications/progress; 0 means [DefaultProgressInterval].
	ProgressInterval time.Duration

	// TaskAfter is how long a call of a long tool ([Spec] Long) runs
	// before it is answered with a task, for a client that declares the
	// Tasks extension; 0 means [DefaultTaskAfter].
	TaskAfter time.Duration
}

// drainTimeout bounds how long Serve waits for in-flight calls to return
// after their contexts are cancelled at shutdown.
const drainTimeout = 5 * time.Second

// Server serves the MCP tool protocol for a [Registry].
type Server struct {
	reg  *Registry
	opts Options
	log  zerolog.Logger

	// stateKey signs the requestStates of multi round-trip requests; it
	// is drawn at start and never leaves the process.
	stateKey [32]byte
}

// NewServer returns a server for reg. opts may be nil.
func NewServer(reg *Registry, opts *Options) *Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = "agent-tools"
	}
	if o.Version == "" {
		o.Version = "devel"
	}
	if o.Mode.Surface == "" {
		o.Mode.Surface = SurfaceFull
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = DefaultProgressInterval
	}
	if o.TaskAfter <= 0 {
		o.TaskAfter = DefaultTaskAfter
	}
	log := zerolog.Nop()
	if o.Logger != nil {
		log = *o.Logger
	}
	srv := &Server{reg: reg, opts: o, log: log}
	rand.Read(srv.stateKey[:])
	return srv
}

// Serve runs one session over r and w (stdin and stdout in production)
// until r reaches end of input or ctx is done. Then it cancels every
// in-flight call, waits for their answers to be written (bounded by
// drainTimeout), closes the connection and returns.
func (srv *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := newLineStream(r, w, srv.opts.MaxMessageBytes)
	stream.onRecv, stream.onSend = srv.opts.OnRecv, srv.opts.OnSend
	stream.onDrop = func(reason string, line []byte) {
		srv.log.Warn().Str("reason", reason).Int("bytes", len(line)).Msg("dropped a message from the client")
	}
	sess := newSession(srv, ctx)
	sess.stream = stream
	// The session hears of registry changes before the connection reads
	// its first message: registered after, a tool added right after the
	// client's first tools/list could go unannounced when this goroutine
	// was slow to get there (a loaded machine). Before initialize a
	// change sends nothing, so no message needs the connection yet.
	defer srv.reg.onChange(sess.registryChanged)()
	conn := jsonrpc2.NewConn(ctx, stream, sess, jsonrpc2.SetLogger(logAdapter{srv.log}))
	sess.conn.Store(conn)

	select {
	case <-stream.inputEnded:
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
	}
	sess.shutdown() // in-flight calls are cancelled and answer
	close(stream.release)
	stream.closed.Store(true) // as jsonrpc2 refuses to send once closed
	conn.Close()
	return nil
}

// logAdapter routes jsonrpc2's own log lines to zerolog (its default
// logger writes to stderr with the standard library's format).
type logAdapter struct{ log zerolog.Logger }

func (a logAdapter) Printf(format string, v ...any) {
	a.log.Debug().Msgf(format, v...)
}

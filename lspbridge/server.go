// This file defines one running language server: its state, start and
// initialize, how it ended, and stop. What it sends us is notify.go's,
// what we send it calls.go's and sync.go's, the waits wait.go's (its
// diagnostics) and ready.go's (loading, indexing).

package lspbridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/internal/proc"
)

// server is one running language server for one root.
//
// Goroutines: conn's read loop updates diags and progress through
// onNotify (under mu) and answers the server's requests on goroutines of
// their own; callers send document changes under the send lock so that
// versions reach the server in order.
//
// No lock is held while waiting for the server: mu is only held to read or
// update fields, and every wait (an answer, a publication, the send lock,
// a write to the server's stdin) selects on the caller's context, the
// request timeout and the server's exit. See [server.exclusive].
type server struct {
	cfg     *ServerConfig
	root    string
	opts    *Options
	proc    *proc.Process
	conn    *conn
	caps    ServerCapabilities
	enc     encoding
	started time.Time
	hangs   atomic.Bool    // stopped by us for not answering: restart at once
	stopped atomic.Bool    // stopped by us (shutdown, reload or a hang): its exit is no crash
	exitAt  atomic.Int64   // when its exit was seen (Unix ns; 0 before): a crash's backoff counts from it
	setup   string         // what was prepared for it (a generated compilation database), for status
	info    ServerInfo     // what it said of itself in initialize (may be empty)
	log     zerolog.Logger // with the server's name, root and pid

	// sendLock is held (a token in the channel) while document changes
	// are written to the server, so that versions arrive in order. It is a
	// channel so that waiting for it can select on a context.
	sendLock chan struct{}

	includes includeIndex // the #include lines of the translation units (headerctx.go)

	lift idleLift // its idle-priority threads, lifted while a call waits on them (starve.go)

	mu          sync.Mutex // guards the fields below; never held while waiting
	docs        map[string]*document
	seen        map[string]stamp     // files the server has seen, as they were then (see disk.go)
	dirs        map[string]time.Time // directories of open files, with their modification times
	epoch       uint64               // document changes sent so far
	diags       map[string]*published
	progress    map[string]string // work-done tokens begun and not ended → their titles
	begun       bool              // some work-done progress has begun
	passes      int               // diagnosis passes begun (ServerConfig.DiagnosisProgress)
	firstOpen   time.Time         // when the first document was opened
	progressed  bool              // some work-done progress has ended
	published   bool              // some diagnostics were published
	lastPublish time.Time         // when the last publication (any file) arrived
	unversioned bool              // some were published without a version for an open document
	clearing    map[string]int    // didClose sent, its clearing publication not seen yet
	failed      map[string]string // work-done progress that reports a failure → what it says
	pullSeen    bool              // it registered textDocument/diagnostic at least once
	changed     chan struct{}     // closed and replaced when diags, progress or registrations change
}

// document is what the server was last told about an open file.
type document struct {
	version int32
	text    string
	stamp   stamp     // the file on disk when text was read from it
	sentAt  time.Time // when this version was sent
	epoch   uint64    // the server's epoch after this version was sent
}

// published is the latest diagnostics publication for a file.
type published struct {
	version *int32 // as published; nil when the server sends none
	seq     uint64 // publications so far for this file
	diags   []Diagnostic
}

// startServer starts cfg's binary in root and initializes it. On failure
// the error carries the stderr tail. log gets the start, a failed
// initialize and the server's exit.
func startServer(ctx context.Context, cfg *ServerConfig, root, bin string, opts *Options, log zerolog.Logger) (*server, error) {
	args := slices.Clone(cfg.Command[1:])
	note := ""
	var env []string // nil: ours
	if cfg.Name == "clangd" {
		var err error
		if args, note, err = clangdDatabase(root, args); err != nil {
			return nil, err
		}
		home, err := clangdConfigHome()
		if err != nil {
			return nil, err
		}
		env = withEnv(os.Environ(), "XDG_CONFIG_HOME", home)
	}
	p, err := proc.Start(proc.Spec{Name: cfg.Name, Path: bin, Args: args, Dir: root, Env: env, Stdin: true, Stdout: true})
	if err != nil {
		log.Warn().Str("server", cfg.Name).Str("root", root).Err(err).Msg("language server did not start")
		return nil, err
	}
	log = log.With().Str("server", cfg.Name).Str("root", root).Int("pid", p.Pid()).Logger()
	s := &server{cfg: cfg, root: root, opts: opts, proc: p, started: time.Now(), setup: note, log: log,
		sendLock: make(chan struct{}, 1), docs: map[string]*document{}, seen: map[string]stamp{}, dirs: map[string]time.Time{}, diags: map[string]*published{}, progress: map[string]string{}, clearing: map[string]int{}, failed: map[string]string{}, changed: make(chan struct{})}
	s.conn = newConn(context.Background(), p.Stdout(), p.Stdin(), connHandler{notify: s.onNotify, request: s.onRequest})
	ictx, cancel := context.WithTimeout(ctx, opts.InitTimeout)
	defer cancel()
	if err := s.initialize(ictx); err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			// It never answered: a shutdown request would only wait out
			// its own timeout too.
			err = initTimeoutError{opts.InitTimeout}
			s.stopped.Store(true)
			s.proc.Stop(context.WithoutCancel(ctx), nil)
			s.conn.close()
		} else {
			s.shutdown(context.WithoutCancel(ctx))
		}
		log.Warn().Err(err).Str("status", exitStatus(p)).Str("stderr", p.StderrExcerpt(stderrHead, logStderrLines)).Msg("language server did not initialize")
		return nil, &initError{err: err, stderr: p.StderrExcerpt(stderrHead, stderrTail)}
	}
	if cfg.PullDiagnostics && !s.awaitPullRegistration(ictx) {
		log.Warn().Dur("waited", opts.InitTimeout).Msg("language server did not register pulled diagnostics: waiting for its pushes instead")
	}
	log.Info().Dur("took", time.Since(s.started)).Msg("language server started")
	go s.logExit()
	return s, nil
}

// initError is a failed initialize, with what the server wrote to stderr.
type initError struct {
	err    error
	stderr string // its first and last lines (StderrExcerpt)
}

func (e *initError) Error() string {
	return fmt.Sprintf("initialize failed: %v%s", e.err, tail(e.stderr))
}

func (e *initError) Unwrap() error { return e.err }

// initTimeoutError is an initialize the server never answered (a binary
// that waits on something else, or is not a language server), said in
// words rather than as "context deadline exceeded".
type initTimeoutError struct{ d time.Duration }

func (e initTimeoutError) Error() string { return fmt.Sprintf("no answer within %s", e.d) }

func (e initTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// logStderrLines is how many of the last lines of a server's stderr a log
// line shows (after its first stderrHead lines).
const logStderrLines = 5

// logExit waits for the server's exit and logs it: a warning with its
// status and last stderr lines when nobody asked it to stop.
func (s *server) logExit() {
	<-s.proc.Done()
	s.exitAt.Store(time.Now().UnixNano())
	switch {
	case s.hangs.Load():
		s.log.Info().Str("status", exitStatus(s.proc)).Msg("language server stopped after it hung; the next call starts a fresh one")
	case s.stopped.Load():
		// stop logs it, once the process is gone.
	default:
		s.log.Warn().Str("status", exitStatus(s.proc)).Str("stderr", s.proc.StderrExcerpt(stderrHead, logStderrLines)).
			Msg("language server exited on its own; the next call restarts it")
	}
}

// exitStatus is how a finished process ended ("exit status 2", "signal:
// killed"), or "running".
func exitStatus(p *proc.Process) string {
	select {
	case <-p.Done():
	default:
		return "running"
	}
	if err := p.Err(); err != nil {
		return err.Error()
	}
	return "exit status 0"
}

// stderrNote is what a child wrote to stderr, for an error message: its
// first lines (the cause, usually) and its last (the end of a backtrace).
func stderrNote(p *proc.Process) string {
	return tail(p.StderrExcerpt(stderrHead, stderrTail))
}

// How many lines of a server's stderr an error message shows, from its
// start and from its end.
const (
	stderrHead = 3
	stderrTail = 6
)

// tail formats a child's stderr excerpt for an error message.
func tail(stderr string) string {
	if stderr == "" {
		return " (no stderr output)"
	}
	return "; stderr: " + strings.ReplaceAll(stderr, "\n", "\n  ")
}

// initialize runs the LSP handshake.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#initialize
func (s *server) initialize(ctx context.Context) error {
	params := InitializeParams{
		ProcessID:             os.Getpid(),
		ClientInfo:            ClientInfo{Name: "agent-tools"},
		RootURI:               fileURI(s.root),
		RootPath:              s.root,
		WorkspaceFolders:      s.folders(),
		InitializationOptions: s.cfg.InitializationOptions,
		Capabilities:          s.clientCapabilities(),
	}
	var res struct {
		Capabilities ServerCapabilities `json:"capabilities"`
		ServerInfo   ServerInfo         `json:"serverInfo"`
	}
	errc := make(chan error, 1)
	go func() { errc <- s.conn.call(ctx, "initialize", params, &res) }()
	select {
	case err := <-errc:
		if err != nil {
			return err
		}
	case <-s.proc.Done():
		// A binary that exits at once (a rustup shim) never answers.
		return fmt.Errorf("the server exited before answering initialize (%v)", s.proc.Err())
	}
	s.caps = res.Capabilities
	s.info = res.ServerInfo
	s.enc = encoding(strings.ToLower(res.Capabilities.PositionEncoding))
	if s.enc == "" {
		s.enc = utf16Enc
	}
	return s.conn.notify(ctx, "initialized", struct{}{})
}

// folders is the one workspace folder the server serves: the root.
func (s *server) folders() []WorkspaceFolder {
	return []WorkspaceFolder{{URI: fileURI(s.root), Name: filepath.Base(s.root)}}
}

// clientCapabilities is what we tell servers we support. It stays a map,
// not typed structs: it is declared data, sent as written and never read
// back (pull.go adds to a copy for servers that pull).
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#clientCapabilities
var clientCapabilities = map[string]any{
	"general": map[string]any{"positionEncodings": []string{"utf-16", "utf-8"}},
	"workspace": map[string]any{
		"configuration":    true,
		"workspaceFolders": true,
		"workspaceEdit":    map[string]any{"documentChanges": true},
		"symbol":           map[string]any{},
	},
	"textDocument": map[string]any{
		"synchronization":    map[string]any{"didSave": true},
		"publishDiagnostics": map[string]any{"versionSupport": true},
		"definition":         map[string]any{"linkSupport": true},
		"typeDefinition":     map[string]any{"linkSupport": true},
		"implementation":     map[string]any{"linkSupport": true},
		"references":         map[string]any{},
		"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
		"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
		"codeAction": map[string]any{"codeActionLiteralSupport": map[string]any{"codeActionKind": map[string]any{
			"valueSet": []string{"", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source", "source.organizeImports", "source.fixAll"}}}},
		"rename":        map[string]any{"prepareSupport": true},
		"diagnostic":    map[string]any{},
		"callHierarchy": map[string]any{},
		"typeHierarchy": map[string]any{},
	},
	"window": map[string]any{"workDoneProgress": true},
}

// exitTime is when the server's exit was seen, or now when not yet.
func (s *server) exitTime() time.Time {
	if ns := s.exitAt.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Now()
}

// exited reports whether the server process is gone.
func (s *server) exited() bool {
	select {
	case <-s.proc.Done():
		return true
	default:
		return false
	}
}

// exitErr says that the server exited, with its stderr tail.
func (s *server) exitErr() error {
	return fmt.Errorf("%s exited%s", s.cfg.Name, stderrNote(s.proc))
}

// stop shuts the server down: shutdown and exit, then the proc stop
// sequence.
func (s *server) stop(ctx context.Context) error {
	running := !s.exited() // a crash was logged when it happened
	err := s.shutdown(ctx)
	if err != nil {
		s.log.Warn().Err(err).Msg("language server did not stop")
	} else if running && !s.hangs.Load() {
		s.log.Info().Str("status", exitStatus(s.proc)).Msg("language server stopped")
	}
	return err
}

// shutdown is stop without the log line.
func (s *server) shutdown(ctx context.Context) error {
	s.stopped.Store(true)
	defer s.conn.close()
	return s.proc.Stop(ctx, func(ctx context.Context) error {
		if err := s.conn.call(ctx, "shutdown", nil, nil); err != nil {
			return err
		}
		return s.conn.notify(ctx, "exit", nil)
	})
}

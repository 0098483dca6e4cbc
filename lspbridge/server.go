// This file defines one running language server: start and initialize,
// answering its requests, document sync, the diagnostics it publishes and
// its readiness.

package lspbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"

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

	mu          sync.Mutex // guards the fields below; never held while waiting
	docs        map[string]*document
	seen        map[string]stamp     // files the server has seen, as they were then (see disk.go)
	dirs        map[string]time.Time // directories of open files, with their modification times
	epoch       uint64               // document changes sent so far
	diags       map[string]*published
	progress    map[string]string // work-done tokens begun and not ended → their titles
	begun       bool              // some work-done progress has begun
	firstOpen   time.Time         // when the first document was opened
	progressed  bool              // some work-done progress has ended
	published   bool              // some diagnostics were published
	lastPublish time.Time         // when the last publication (any file) arrived
	unversioned bool              // some were published without a version for an open document
	clearing    map[string]int    // didClose sent, its clearing publication not seen yet
	failed      map[string]string // work-done progress that reports a failure → what it says
	pullRegs    map[string]bool   // ids of its textDocument/diagnostic registrations
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
	if cfg.Name == "clangd" {
		var err error
		if args, note, err = clangdDatabase(root, args); err != nil {
			return nil, err
		}
	}
	p, err := proc.Start(proc.Spec{Name: cfg.Name, Path: bin, Args: args, Dir: root, Stdin: true, Stdout: true})
	if err != nil {
		log.Warn().Str("server", cfg.Name).Str("root", root).Err(err).Msg("language server did not start")
		return nil, err
	}
	log = log.With().Str("server", cfg.Name).Str("root", root).Int("pid", p.Pid()).Logger()
	s := &server{cfg: cfg, root: root, opts: opts, proc: p, started: time.Now(), setup: note, log: log,
		sendLock: make(chan struct{}, 1), docs: map[string]*document{}, seen: map[string]stamp{}, dirs: map[string]time.Time{}, diags: map[string]*published{}, progress: map[string]string{}, clearing: map[string]int{}, failed: map[string]string{}, pullRegs: map[string]bool{}, changed: make(chan struct{})}
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
	params := map[string]any{
		"processId":             os.Getpid(),
		"clientInfo":            map[string]any{"name": "agent-tools"},
		"rootUri":               fileURI(s.root),
		"rootPath":              s.root,
		"workspaceFolders":      s.folders(),
		"initializationOptions": s.cfg.InitializationOptions,
		"capabilities":          s.clientCapabilities(),
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

func (s *server) folders() []map[string]string {
	return []map[string]string{{"uri": fileURI(s.root), "name": filepath.Base(s.root)}}
}

// clientCapabilities is what we tell servers we support.
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

// onRequest answers the server's requests. Unknown ones get "method not
// found", which servers tolerate.
func (s *server) onRequest(_ context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "workspace/configuration":
		return s.configuration(params), nil
	case "client/registerCapability", "client/unregisterCapability":
		s.onRegistration(method, params)
		return nil, nil
	case "window/workDoneProgress/create",
		"window/showMessageRequest", "workspace/diagnostic/refresh", "workspace/codeLens/refresh",
		"workspace/semanticTokens/refresh", "workspace/inlayHint/refresh", "workspace/inlineValue/refresh":
		return nil, nil
	case "workspace/workspaceFolders":
		return s.folders(), nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false, "failureReason": "agent-tools applies edits only through lsp_rename"}, nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "agent-tools does not serve " + method}
}

// configuration answers workspace/configuration from cfg.Settings.
// https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#workspace_configuration
func (s *server) configuration(params json.RawMessage) []any {
	var p struct {
		Items []struct {
			Section string `json:"section"`
		} `json:"items"`
	}
	json.Unmarshal(params, &p)
	var settings map[string]any
	json.Unmarshal(s.cfg.Settings, &settings)
	out := make([]any, len(p.Items))
	for i, it := range p.Items {
		var v any = settings
		for _, part := range strings.Split(it.Section, ".") {
			m, ok := v.(map[string]any)
			if !ok || part == "" {
				if part != "" {
					v = nil
				}
				break
			}
			v = m[part]
		}
		out[i] = v
	}
	return out
}

// onNotify records what the server publishes. It runs on the read loop and
// only takes mu.
func (s *server) onNotify(method string, params json.RawMessage) {
	switch method {
	case "textDocument/publishDiagnostics":
		var p PublishDiagnosticsParams
		if json.Unmarshal(params, &p) != nil {
			return
		}
		path := uriPath(p.URI)
		s.mu.Lock()
		if p.Version == nil && s.clearing[path] > 0 {
			// The publication for a file we closed (pyright sends an empty
			// one after didClose, also when we reopen at once; gopls its
			// errors on disk, without a version, and at load after the
			// reopen): not an answer for what is open now. Only servers
			// with versions are sent a close and open in a row.
			s.clearing[path]--
			s.mu.Unlock()
			return
		}
		prev := s.diags[path]
		seq := uint64(1)
		if prev != nil {
			seq = prev.seq + 1
		}
		s.diags[path] = &published{version: p.Version, seq: seq, diags: p.Diagnostics}
		s.published = true
		s.lastPublish = time.Now()
		// Only an open document's publication tells whether the server
		// echoes versions: gopls and pyright publish for files they were
		// never sent (other files of a package, of the workspace) without
		// one, as the protocol allows, and those say nothing about the
		// versions of open documents.
		if _, open := s.docs[path]; open && p.Version == nil {
			s.unversioned = true
		}
		s.broadcastLocked()
		s.mu.Unlock()
	case "$/progress":
		var p ProgressParams
		if json.Unmarshal(params, &p) != nil {
			return
		}
		tok := string(p.Token)
		s.mu.Lock()
		switch p.Value.Kind {
		case "begin":
			s.begun = true
			if failureTitle(p.Value.Title) {
				// Not work under way but a failure shown as progress
				// (gopls: "Error loading workspace", open until fixed):
				// waits for the index end on it, saying why.
				s.failed[tok] = strings.TrimSpace(p.Value.Title + ": " + p.Value.Message)
				s.progressed = true
				break
			}
			s.progress[tok] = p.Value.Title
		case "report":
			if _, ok := s.failed[tok]; ok && p.Value.Message != "" {
				s.failed[tok] = strings.SplitN(s.failed[tok], ":", 2)[0] + ": " + p.Value.Message
			}
		case "end":
			delete(s.progress, tok)
			delete(s.failed, tok)
			s.progressed = true
		}
		s.broadcastLocked()
		s.mu.Unlock()
	}
}

// failureTitle reports whether a work-done progress title announces a
// failure rather than work (gopls's "Error loading workspace").
func failureTitle(title string) bool {
	t := strings.ToLower(title)
	return strings.HasPrefix(t, "error") || strings.Contains(t, "failed")
}

// failure is what the server's open failure progress says ("" when none).
func (s *server) failure() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []string
	for _, f := range s.failed {
		all = append(all, f)
	}
	slices.Sort(all)
	return strings.Join(all, "; ")
}

func (s *server) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
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

// loading reports whether the server is still loading: no diagnostics
// published yet and work-done progress still open (or never seen).
func (s *server) loading() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.published && (len(s.progress) > 0 || !s.progressed)
}

// exitErr says that the server exited, with its stderr tail.
func (s *server) exitErr() error {
	return fmt.Errorf("%s exited%s", s.cfg.Name, stderrNote(s.proc))
}

// hung stops a server that did not answer or read within RequestTimeout
// and says so. A hung server would not honour a goodbye or SIGTERM, so
// its group is killed at once; the reaping goes on in the background (the
// caller returns at once).
func (s *server) hung(what string) error {
	s.hangs.Store(true)
	s.log.Warn().Str("request", what).Dur("timeout", s.opts.RequestTimeout).Msg("language server did not answer in time: killing it")
	s.proc.Signal(syscall.SIGKILL)
	go s.proc.Stop(context.Background(), nil)
	return fmt.Errorf("%s did not %s within %s: it was stopped and starts afresh on next use%s",
		s.cfg.Name, what, s.opts.RequestTimeout, stderrNote(s.proc))
}

// call is conn.call bounded by the caller's ctx, RequestTimeout and the
// server's exit, whichever comes first. A server that does not answer
// within RequestTimeout is taken to hang: it is stopped (the next call
// starts a fresh one). A cancelled call returns at once; the server gets
// $/cancelRequest and stays usable.
func (s *server) call(ctx context.Context, method string, params, result any) error {
	rctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	// conn.call only watches its context: make the server's exit cancel it.
	go func() {
		select {
		case <-s.proc.Done():
			cancel()
		case <-rctx.Done():
		}
	}()
	err := s.conn.call(rctx, method, params, result)
	if err == nil || ctx.Err() != nil {
		return err
	}
	select {
	case <-s.conn.disconnected():
		// The server closed its end: it is exiting, but proc may not have
		// reaped it yet. Wait a little so the error can say it exited.
		select {
		case <-s.proc.Done():
		case <-time.After(500 * time.Millisecond):
		}
	default:
	}
	switch {
	case s.exited():
		return s.exitErr()
	case rctx.Err() != nil:
		return s.hung("answer " + method)
	}
	return err
}

// exclusive runs fn holding the send lock, on a goroutine of its own, and
// waits for it, ctx, RequestTimeout or the server's exit, whichever comes
// first. fn keeps the lock until it returns, so what it sends reaches the
// server in order even when its caller gave up; fn must update the
// documents before it writes, so that they describe what is in flight. A
// write that does not finish within RequestTimeout means a server that no
// longer reads its input: it is stopped, which also ends the write.
func (s *server) exclusive(ctx context.Context, fn func() error) error {
	select {
	case s.sendLock <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.proc.Done():
		return s.exitErr()
	}
	done := make(chan error, 1)
	go func() {
		defer func() { <-s.sendLock }()
		done <- fn()
	}()
	t := time.NewTimer(s.opts.RequestTimeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-s.proc.Done():
		return s.exitErr()
	case <-t.C:
		return s.hung("read what was sent to it")
	}
}

// notify sends a notification; used only inside exclusive (a write may
// block while the server does not read).
func (s *server) notify(method string, params any) error {
	return s.conn.notify(context.Background(), method, params)
}

// syncResult says what sync told the server.
type syncResult struct {
	version int32
	text    string
	changed bool   // opened or changed: fresh diagnostics will follow
	seq     uint64 // publications for the file before the change
	epoch   uint64 // the server's epoch after this sync
}

// sync makes the server's view of path equal to the file on disk: didOpen
// the first time, else a full-text didChange (version+1) and didSave when
// the content differs.
func (s *server) sync(ctx context.Context, path string) (syncResult, error) {
	text, st, err := readStamped(path)
	if err != nil {
		return syncResult{}, fmt.Errorf("reading %s: %w", displayPath(s.root, path), err)
	}
	return s.syncText(ctx, path, text, st, false)
}

// syncText sends text as path's content. With touch, an unchanged text is
// sent again as a new version, so that the server analyses the file anew
// (after a file it depends on changed) and publishes for that version.
func (s *server) syncText(ctx context.Context, path, text string, st stamp, touch bool) (syncResult, error) {
	var res syncResult
	err := s.exclusive(ctx, func() error {
		uri := fileURI(path)
		s.mu.Lock()
		var seq uint64
		if p := s.diags[path]; p != nil {
			seq = p.seq
		}
		d := s.docs[path]
		if d != nil && d.text == text && !touch {
			d.stamp = st
			s.seen[path] = st // so refresh compares with this stamp, not reading the file again
			res = syncResult{version: d.version, text: text, seq: seq, epoch: d.epoch}
			s.mu.Unlock()
			return nil
		}
		s.epoch++
		if d == nil {
			if s.firstOpen.IsZero() {
				s.firstOpen = time.Now()
			}
			d = &document{version: 1, text: text, stamp: st, sentAt: time.Now(), epoch: s.epoch}
			s.docs[path] = d
			s.seen[path] = st
			res = syncResult{version: 1, text: text, changed: true, seq: seq, epoch: s.epoch}
			s.mu.Unlock()
			s.seeSiblings(path)
			err := s.notify("textDocument/didOpen", map[string]any{"textDocument": TextDocumentItem{
				URI: uri, LanguageID: s.cfg.languageID(path), Version: 1, Text: text}})
			if err != nil {
				return fmt.Errorf("opening %s in %s: %w", displayPath(s.root, path), s.cfg.Name, err)
			}
			return nil
		}
		// Unchanged content is not rebuilt by every server (clangd skips
		// identical inputs): close and open it again instead. Not for a
		// server without versions: the empty publication that clears a
		// closed file could not be told from the answer.
		reopen := touch && d.text == text && !(s.cfg.Unversioned || s.unversioned)
		if reopen {
			s.clearing[path]++
		}
		d.version++
		d.text, d.stamp, d.sentAt, d.epoch = text, st, time.Now(), s.epoch
		s.seen[path] = st
		v := d.version
		res = syncResult{version: v, text: text, changed: true, seq: seq, epoch: s.epoch}
		s.mu.Unlock()
		if reopen {
			err := s.notify("textDocument/didClose", map[string]any{"textDocument": TextDocumentIdentifier{URI: uri}})
			if err == nil {
				err = s.notify("textDocument/didOpen", map[string]any{"textDocument": TextDocumentItem{
					URI: uri, LanguageID: s.cfg.languageID(path), Version: v, Text: text}})
			}
			if err != nil {
				return fmt.Errorf("reopening %s in %s: %w", displayPath(s.root, path), s.cfg.Name, err)
			}
			return nil
		}
		err := s.notify("textDocument/didChange", DidChangeParams{
			TextDocument:   VersionedTextDocumentIdentifier{URI: uri, Version: &v},
			ContentChanges: []ContentChange{{Text: text}},
		})
		if err == nil && s.caps.saveSupported() {
			err = s.notify("textDocument/didSave", map[string]any{"textDocument": TextDocumentIdentifier{URI: uri}})
		}
		if err != nil {
			return fmt.Errorf("syncing %s with %s: %w", displayPath(s.root, path), s.cfg.Name, err)
		}
		return nil
	})
	if err != nil {
		// fn may still be running (exclusive gave up on ctx, the timeout
		// or the server's exit): res is its to write, not ours to read.
		return syncResult{}, err
	}
	return res, nil
}

// closeDoc tells the server a file is gone.
func (s *server) closeDoc(ctx context.Context, path string) error {
	return s.exclusive(ctx, func() error {
		s.mu.Lock()
		_, open := s.docs[path]
		delete(s.docs, path)
		delete(s.seen, path)
		if open {
			s.epoch++
			s.clearing[path]++
		}
		s.mu.Unlock()
		if !open {
			return nil
		}
		return s.notify("textDocument/didClose", map[string]any{"textDocument": TextDocumentIdentifier{URI: fileURI(path)}})
	})
}

// errNoFreshDiagnostics is returned when the server published nothing for
// the new version within the cap.
var errNoFreshDiagnostics = errors.New("diagnostics not available yet")

// waitState says what a diagnostics answer rests on.
type waitState int

const (
	settled   waitState = iota // a publication for the version, and the settle window after it
	silent                     // an unversioned server published nothing for the version within its quiet window
	unsettled                  // the limit came while the server was still publishing for the version
)

// diagnosticsSilent returns the file's diagnostics for the version sync sent:
// pulled when the server offers pull diagnostics, else the first matching
// push (same version; from a server that sends no version, any later
// push) plus what follows within the settle window, bounded by limit.
//
// A server without versions that stays silent (typescript-language-server
// does not republish unchanged diagnostics, and publishes nothing for a
// clean file it just opened) is taken to mean "unchanged" once it is ready
// and quiet for the quiet window after the version was sent.
// It also reports what the answer rests on.
func (s *server) diagnosticsSilent(ctx context.Context, path string, sr syncResult, limit time.Duration) ([]Diagnostic, waitState, error) {
	ds, err := s.awaitDiagnostics(ctx, path, sr, limit)
	switch {
	case errors.Is(err, errSilent):
		return ds, silent, nil
	case errors.Is(err, errUnsettled):
		return ds, unsettled, nil
	}
	return ds, settled, err
}

// errSilent is awaitDiagnostics' way to say its answer rests on silence.
var errSilent = errors.New("silent")

// errUnsettled is awaitDiagnostics' way to say the server may publish
// more for the version: the limit came within its settle window.
var errUnsettled = errors.New("unsettled")

// awaitDiagnostics is diagnosticsSilent's wait: pulled diagnostics, else
// the publication already there when the content did not change, else
// the wait for a fresh push.
func (s *server) awaitDiagnostics(ctx context.Context, path string, sr syncResult, limit time.Duration) ([]Diagnostic, error) {
	if ds, ok, err := s.pullDiagnostics(ctx, path, sr.version, limit); ok || err != nil {
		return ds, err
	}
	var sentAt time.Time
	s.mu.Lock()
	if d := s.docs[path]; d != nil {
		sentAt = d.sentAt
	}
	p := s.diags[path]
	s.mu.Unlock()
	if !sr.changed {
		if p != nil && (p.version == nil || *p.version == sr.version) {
			return p.diags, nil
		}
		sr.seq = 0 // nothing published for this version yet: wait for it below
	}
	w := &pushWait{s: s, path: path, sr: sr, sentAt: sentAt}
	return w.run(ctx, limit)
}

// pushWait is one wait for a file's pushed diagnostics after a sync: the
// timers it arms as publications arrive and the server goes quiet.
type pushWait struct {
	s       *server
	path    string
	sr      syncResult
	sentAt  time.Time        // when the version was sent
	lastSeq uint64           // the last fresh publication seen; 0 while none
	settleC <-chan time.Time // the settle window after a fresh publication
	quietC  <-chan time.Time // the quiet window of a ready unversioned server
	wakeC   <-chan time.Time // the end of an unversioned server's ready budget
}

// run waits until the publication settles, an unversioned server stays
// quiet, limit passes, ctx ends or the server exits.
func (w *pushWait) run(ctx context.Context, limit time.Duration) ([]Diagnostic, error) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		changed := w.arm()
		select {
		case <-changed:
		case <-w.wakeC:
		case <-w.settleC:
			return w.latest(), nil
		case <-w.quietC:
			if w.lastSeq == 0 {
				return w.latest(), errSilent
			}
		case <-deadline.C:
			return w.timedOut(limit)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-w.s.proc.Done():
			return nil, w.s.exitErr()
		}
	}
}

// arm reads the server's state and arms the timers it calls for. It
// returns the channel closed at the server's next change.
func (w *pushWait) arm() <-chan struct{} {
	s := w.s
	s.mu.Lock()
	p := s.diags[w.path]
	changed := s.changed
	unversioned := s.cfg.Unversioned || s.unversioned
	// Silence means "clean" only from a server that is done loading: one
	// that has published, or ended its progress and had the ready budget
	// to load (a fresh typescript-language-server ends its progress long
	// before it has checked the file).
	loaded := s.progressed && len(s.progress) == 0
	ready := s.published || loaded && time.Since(s.started) > s.opts.ReadyTimeout
	lastPublish := s.lastPublish
	s.mu.Unlock()
	if unversioned && loaded && !ready && w.wakeC == nil {
		w.wakeC = time.After(time.Until(s.started.Add(s.opts.ReadyTimeout)) + time.Millisecond)
	}
	if p != nil && p.seq > w.sr.seq && (p.version == nil || *p.version == w.sr.version) && p.seq != w.lastSeq {
		w.lastSeq = p.seq
		settle := s.opts.SettleWindow
		if s.cfg.Republishes {
			settle = s.opts.QuietWindow // a second publication may follow for this version
		} else if p.version != nil {
			settle = s.opts.VersionedSettle // the version already proves freshness
		}
		w.settleC = time.After(settle)
	}
	if unversioned && ready && w.lastSeq == 0 {
		// Quiet since the version was sent or the server's last
		// publication for any file, whichever is later: a file opened a
		// while ago and never published for is clean, but a server still
		// publishing for other files is still at work.
		since := lastPublish
		if w.sentAt.After(since) {
			since = w.sentAt
		}
		w.quietC = time.After(max(0, s.opts.QuietWindow-time.Since(since)))
	}
	return changed
}

// unversionedNow reports whether the server was seen publishing without
// a version for an open document.
func (s *server) unversionedNow() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unversioned
}

// latest is the file's latest publication.
func (w *pushWait) latest() []Diagnostic {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	if p := w.s.diags[w.path]; p != nil {
		return p.diags
	}
	return nil
}

// timedOut is the answer at the limit: what was published if something
// fresh was, else errNoFreshDiagnostics.
func (w *pushWait) timedOut(limit time.Duration) ([]Diagnostic, error) {
	if w.lastSeq != 0 {
		// Published for the version, but the limit came within the settle
		// window: a server that publishes in steps (syntax, then
		// semantics) may not have sent its last.
		if w.s.cfg.Republishes || w.s.cfg.Unversioned || w.s.unversionedNow() {
			return w.latest(), errUnsettled
		}
		return w.latest(), nil
	}
	s := w.s
	hint := ""
	if s.busy() {
		hint = " (it is still analysing; ask again later)"
	}
	return nil, fmt.Errorf("%w: %s published nothing for %s (version %d) within %s%s", errNoFreshDiagnostics, s.cfg.Name, displayPath(s.root, w.path), w.sr.version, limit, hint)
}

// latestDiagnostics returns the file's most recent publication when it is
// for the version sr sent (or the server sends no versions) and newer than
// the sync; ok is false otherwise (pulled diagnostics, or nothing newer).
func (s *server) latestDiagnostics(path string, sr syncResult) ([]Diagnostic, bool) {
	if s.pullsNow() {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.diags[path]
	if p == nil || p.seq <= sr.seq || (p.version != nil && *p.version != sr.version) {
		return nil, false
	}
	return p.diags, true
}

// waitReady waits, up to budget, until the server has published
// diagnostics for path (or for anything, when path is "") or has ended all
// the work-done progress it began: the readiness signals of gopls,
// pyright, clangd and typescript-language-server (which publishes nothing
// for a clean file). gopls ends its progress before it has type-checked,
// but it holds navigation requests until then. It reports whether the
// server is ready.
func (s *server) waitReady(ctx context.Context, path string, budget time.Duration) bool {
	if s.pullsNow() {
		return s.pulledReady(ctx, path, budget)
	}
	t := time.NewTimer(budget)
	defer t.Stop()
	for {
		s.mu.Lock()
		ready := s.published && path == "" || s.diags[path] != nil || s.progressed && len(s.progress) == 0
		ch := s.changed
		s.mu.Unlock()
		if ready {
			return true
		}
		select {
		case <-ch:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		case <-s.proc.Done():
			return false
		}
	}
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

// textOf returns the text the server has for path, or the file on disk.
func (s *server) textOf(path string) (string, error) {
	s.mu.Lock()
	d := s.docs[path]
	s.mu.Unlock()
	if d != nil {
		return d.text, nil
	}
	data, err := os.ReadFile(path)
	return string(data), err
}

// doc returns a copy of what the server was told about path, or nil.
func (s *server) doc(path string) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.docs[path]; d != nil {
		c := *d
		return &c
	}
	return nil
}

// publications returns a copy of the latest publication per file.
func (s *server) publications() map[string]*published {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]*published, len(s.diags))
	for p, d := range s.diags {
		out[p] = d
	}
	return out
}

// busy reports whether the server has work-done progress open (analysing,
// indexing).
func (s *server) busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.progress) > 0
}

// outdated reports whether other documents were changed after path's
// current version was sent.
func (s *server) outdated(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[path]
	return d != nil && d.epoch < s.epoch
}

// indexGrace is how long after its first file is opened a server that
// indexes in the background (clangd) may take to announce it: until then
// "no progress" does not mean "indexed".
const indexGrace = 3 * time.Second

// waitIndexed waits, up to budget, until the server has no work-done
// progress open (loading, indexing): references, implementations,
// renames and workspace symbols are complete only then. report is told
// once what is awaited. It returns the titles of the progress still open
// when the budget ran out, "" when the server is done.
func (s *server) waitIndexed(ctx context.Context, budget time.Duration, report func(string)) string {
	t := time.NewTimer(budget)
	defer t.Stop()
	told := false
	for {
		s.mu.Lock()
		var open []string
		for _, title := range s.progress {
			if title == "" {
				title = "working"
			}
			open = append(open, strings.ToLower(title))
		}
		announced := s.begun || !s.cfg.BackgroundIndex || !s.firstOpen.IsZero() && time.Since(s.firstOpen) > indexGrace
		ch := s.changed
		s.mu.Unlock()
		slices.Sort(open)
		open = slices.Compact(open)
		if len(open) == 0 && announced {
			return ""
		}
		if len(open) == 0 {
			open = []string{"starting its index"}
		}
		if !told && report != nil {
			report(fmt.Sprintf("waiting for %s: %s", s.cfg.Name, strings.Join(open, ", ")))
			told = true
		}
		var grace <-chan time.Time
		if !announced {
			grace = time.After(100 * time.Millisecond)
		}
		select {
		case <-ch:
		case <-grace:
		case <-t.C:
			return strings.Join(open, ", ")
		case <-ctx.Done():
			return strings.Join(open, ", ")
		case <-s.proc.Done():
			return "exited"
		}
	}
}

// This file defines the Supervisor: one language server per (server,
// root), started lazily, restarted with backoff after a crash, remembered
// as failed (with the reason) after a failed start, and stopped at exit.

package lspbridge

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/workspace"
)

// Supervisor owns the run's language servers. Call [NewSupervisor], then
// the actions ([Supervisor.Locations], [Supervisor.DidWrite], ...), and
// [Supervisor.Close] at exit.
type Supervisor struct {
	opts Options
	reg  *registry
	log  zerolog.Logger // starts, failed starts, crashes, restarts, hangs

	mu      sync.Mutex // guards servers
	servers map[serverKey]*entry

	pointed pointedFiles // files outside the root that servers named (pointed.go)
	answers answers      // this session's diagnostics answers, for since last (newdiags.go)
	// reported holds the diagnostics write answers named as new that
	// may still be there (reported.go).
	reported reported
}

type serverKey struct{ name, root string }

// entry is the state of one (server, root).
type entry struct {
	cfg      *ServerConfig
	srv      *server       // nil unless running
	starting chan struct{} // non-nil while a start runs; closed when it ends
	err      error         // the last failed start or crash
	retryAt  time.Time     // no new start before this
	restarts int           // restarts after crashes
	crash    string        // what the last crash looked like, for status
	restart  bool          // the next start replaces a server that crashed or hung
}

// NewSupervisor returns a Supervisor; nil opts means the built-in servers
// and default timings. log gets the servers' lifecycle; nil discards it.
func NewSupervisor(opts *Options, log *zerolog.Logger) *Supervisor {
	s := &Supervisor{opts: opts.withDefaults(), reg: newRegistry(), servers: map[serverKey]*entry{}}
	if log != nil {
		s.log = *log
	}
	return s
}

// configFor returns the server that handles path.
func (s *Supervisor) configFor(path string) (*ServerConfig, error) {
	for i := range s.opts.Servers {
		c := &s.opts.Servers[i]
		if !c.Disabled && c.languageID(path) != "" {
			return c, nil
		}
	}
	return nil, fmt.Errorf("no language server handles %q files (%s)", filepath.Ext(path), s.known())
}

func (s *Supervisor) known() string {
	var exts []string
	for _, c := range s.opts.Servers {
		if !c.Disabled {
			for e := range c.Extensions {
				exts = append(exts, e)
			}
		}
	}
	slices.Sort(exts)
	return "known: " + strings.Join(exts, " ")
}

// serverFor returns the running server for file (canonical, inside
// runRoot), starting it if needed.
func (s *Supervisor) serverFor(ctx context.Context, runRoot, file string) (*server, error) {
	srv, err := s.serverAsIs(ctx, runRoot, file)
	if err != nil {
		return nil, err
	}
	// The server must see the disk as it is now: files changed by other
	// tools since it saw them are re-sent first (see disk.go).
	if err := srv.refresh(ctx); err != nil {
		return nil, err
	}
	return srv, nil
}

// serverAsIs is serverFor without the refresh: the server's view of the
// files is left as it was (diagnostics on write reads it first).
func (s *Supervisor) serverAsIs(ctx context.Context, runRoot, file string) (*server, error) {
	cfg, err := s.configFor(file)
	if err != nil {
		return nil, err
	}
	root := findRoot(cfg, canonical(runRoot), file)
	if root == "" {
		return nil, fmt.Errorf("%s not started for %s: no marker (%s) in its directory or any parent inside the root",
			cfg.Name, displayPath(runRoot, file), strings.Join(cfg.allMarkers(), ", "))
	}
	return s.get(ctx, cfg, root)
}

// canonical resolves symlinks in a root; on error it returns it unchanged.
// Roots are few and their symlinks do not change during a run, so the
// answer is cached.
func canonical(root string) string {
	if r, ok := canonicalRoots.Load(root); ok {
		return r.(string)
	}
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return root
	}
	canonicalRoots.Store(root, r)
	return r
}

var canonicalRoots sync.Map // root → its canonical form

// get returns the running server for (cfg, root), starting it when it is
// not running and no recent failure forbids it.
func (s *Supervisor) get(ctx context.Context, cfg *ServerConfig, root string) (*server, error) {
	k := serverKey{cfg.Name, root}
	for {
		s.mu.Lock()
		e := s.servers[k]
		if e == nil {
			e = &entry{cfg: cfg}
			s.servers[k] = e
		}
		s.noteExitLocked(e, cfg)
		if e.srv != nil {
			srv := e.srv
			s.mu.Unlock()
			return srv, nil
		}
		if ch := e.starting; ch != nil {
			s.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if e.err != nil && time.Now().Before(e.retryAt) {
			err := fmt.Errorf("%w; next start attempt in %s (or use action reload)", e.err, time.Until(e.retryAt).Round(100*time.Millisecond))
			s.mu.Unlock()
			return nil, err
		}
		bin, err := proc.LookPath(cfg.Command[0])
		if err != nil {
			s.mu.Unlock()
			return nil, fmt.Errorf("%s not started: binary missing (tried %s on PATH)", cfg.Name, cfg.Command[0])
		}
		e.starting = make(chan struct{})
		if e.restart {
			e.restart = false
			s.log.Info().Str("server", cfg.Name).Str("root", root).Int("restarts", e.restarts).Str("after", e.crash).Msg("restarting the language server")
		}
		s.mu.Unlock()
		return s.start(ctx, e, cfg, root, bin)
	}
}

// noteExitLocked forgets e's server when it exited, recording why and
// when it may start again: at once after a hang we stopped, after a
// backoff after a crash. The caller holds s.mu.
func (s *Supervisor) noteExitLocked(e *entry, cfg *ServerConfig) {
	if e.srv == nil || !e.srv.exited() {
		return
	}
	e.restarts++
	e.restart = true
	if e.srv.hangs.Load() {
		// Stopped by us for hanging: the caller was told; start afresh.
		e.crash = fmt.Sprintf("%s stopped after it did not answer within %s", cfg.Name, s.opts.RequestTimeout)
		e.srv = nil
		return
	}
	e.err = fmt.Errorf("%s crashed (%v)%s", cfg.Name, e.srv.proc.Err(), stderrNote(e.srv.proc))
	e.crash = e.err.Error()
	// The backoff counts from the crash, not from this call: a
	// server that died a while ago restarts now, as status says.
	e.retryAt = e.srv.exitTime().Add(min(time.Duration(1<<min(e.restarts-1, 6))*500*time.Millisecond, s.opts.RetryDelay))
	e.srv = nil
}

// start starts e's server, which e.starting (made by the caller) says is
// under way, and records the outcome in e.
func (s *Supervisor) start(ctx context.Context, e *entry, cfg *ServerConfig, root, bin string) (*server, error) {
	// The start is shared with other callers: it is bounded by
	// InitTimeout, not by this caller's ctx.
	srv, err := startServer(context.WithoutCancel(ctx), cfg, root, bin, &s.opts, s.log)
	s.mu.Lock()
	defer s.mu.Unlock()
	close(e.starting)
	e.starting = nil
	if err != nil {
		e.err = fmt.Errorf("%s %w", cfg.Name, err)
		e.retryAt = time.Now().Add(s.opts.RetryDelay)
		return nil, e.err
	}
	e.srv, e.err = srv, nil
	return srv, nil
}

// ServerStatus is the state of one (server, root).
type ServerStatus struct {
	Server    string `json:"server" jsonschema_description:"server name, e.g. gopls"`
	Language  string `json:"language" jsonschema_description:"the language it serves"`
	Root      string `json:"root,omitempty" jsonschema_description:"its root, relative to the run's root (. for the root itself); empty when no marker was found"`
	State     string `json:"state" jsonschema_description:"running, starting, failed, crashed or not started"`
	Loading   bool   `json:"loading,omitempty" jsonschema_description:"running but still loading the workspace"`
	Pid       int    `json:"pid,omitempty" jsonschema_description:"process id while running"`
	ElapsedMs int64  `json:"elapsedMs,omitempty" jsonschema_description:"milliseconds since it started, while running"`
	Reason    string `json:"reason,omitempty" jsonschema_description:"why it is not running: no marker, binary missing (names tried), initialize failed (stderr tail), crashed"`
	Restarts  int    `json:"restarts,omitempty" jsonschema_description:"how many times it was restarted after a crash"`
	Setup     string `json:"setup,omitempty" jsonschema_description:"what was prepared for it, e.g. a compilation database generated for clangd"`
}

func (st ServerStatus) line() string {
	root := st.Root
	if root == "" {
		root = "-"
	}
	s := fmt.Sprintf("%s  %s  root %s  %s", st.Server, st.Language, root, st.State)
	if st.State == "running" {
		load := "ready"
		if st.Loading {
			load = "loading"
		}
		s += fmt.Sprintf(" (pid %d, up %s, %s)", st.Pid, (time.Duration(st.ElapsedMs) * time.Millisecond).Round(time.Second), load)
	}
	if st.Reason != "" {
		s += ": " + st.Reason
	}
	if st.Setup != "" {
		s += "; " + st.Setup
	}
	return s
}

// Status reports every configured server: for each root with its marker
// under runRoot, whether it runs, and why not.
func (s *Supervisor) Status(runRoot string) []ServerStatus {
	runRoot = canonical(runRoot)
	var out []ServerStatus
	var cfgs []*ServerConfig
	for i := range s.opts.Servers {
		if !s.opts.Servers[i].Disabled {
			cfgs = append(cfgs, &s.opts.Servers[i])
		}
	}
	dirs := markerDirsOf(cfgs, runRoot)
	for _, cfg := range cfgs {
		roots := slices.Clone(dirs[cfg])
		s.mu.Lock()
		for k := range s.servers {
			if k.name == cfg.Name && workspace.Within(runRoot, k.root) && !slices.Contains(roots, k.root) {
				roots = append(roots, k.root)
			}
		}
		s.mu.Unlock()
		slices.Sort(roots)
		if len(roots) == 0 {
			out = append(out, ServerStatus{Server: cfg.Name, Language: cfg.Language, State: "not started",
				Reason: fmt.Sprintf("no marker (%s) under the root", strings.Join(cfg.allMarkers(), ", "))})
			continue
		}
		for _, r := range roots {
			out = append(out, s.status(cfg, runRoot, r))
		}
	}
	return out
}

func (s *Supervisor) status(cfg *ServerConfig, runRoot, root string) ServerStatus {
	st := ServerStatus{Server: cfg.Name, Language: cfg.Language, Root: displayRoot(runRoot, root)}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.servers[serverKey{cfg.Name, root}]
	if e != nil {
		st.Restarts = e.restarts
	}
	switch {
	case e != nil && e.srv != nil && !e.srv.exited():
		st.State, st.Pid, st.Loading, st.Setup = "running", e.srv.proc.Pid(), e.srv.loading(), e.srv.setup
		st.ElapsedMs = time.Since(e.srv.started).Milliseconds()
		if e.restarts > 0 {
			st.Reason = fmt.Sprintf("restarted %d times; last crash: %s", e.restarts, e.crash)
		}
	case e != nil && e.starting != nil:
		st.State = "starting"
	case e != nil && e.srv != nil:
		st.State, st.Reason = "crashed", fmt.Sprintf("exited (%v)%s; restarts on next use", e.srv.proc.Err(), stderrNote(e.srv.proc))
	case e != nil && e.err != nil:
		st.State, st.Reason = "failed", e.err.Error()
		if d := time.Until(e.retryAt); d > 0 {
			st.Reason += fmt.Sprintf("; retried on use after %s", d.Round(time.Second))
		}
	default:
		st.State = "not started"
		if _, err := proc.LookPath(cfg.Command[0]); err != nil {
			st.Reason = fmt.Sprintf("binary missing (tried %s on PATH)", cfg.Command[0])
		} else {
			st.Reason = "starts on first use"
		}
	}
	return st
}

func displayRoot(runRoot, root string) string {
	if root == runRoot {
		return "."
	}
	return displayPath(runRoot, root)
}

// Reload restarts the servers of runRoot (only file's server when file is
// not ""): shutdown with a timeout, kill, fresh initialize. A failed
// server is retried at once.
func (s *Supervisor) Reload(ctx context.Context, runRoot, file string) ([]ServerStatus, error) {
	runRoot = canonical(runRoot)
	var keys []serverKey
	if file != "" {
		cfg, err := s.configFor(file)
		if err != nil {
			return nil, err
		}
		root := findRoot(cfg, runRoot, file)
		if root == "" {
			return nil, fmt.Errorf("%s has no root for %s: no marker (%s)", cfg.Name, displayPath(runRoot, file), strings.Join(cfg.allMarkers(), ", "))
		}
		keys = append(keys, serverKey{cfg.Name, root})
	} else {
		s.mu.Lock()
		for k := range s.servers {
			if workspace.Within(runRoot, k.root) {
				keys = append(keys, k)
			}
		}
		s.mu.Unlock()
		slices.SortFunc(keys, func(a, b serverKey) int { return strings.Compare(a.name+a.root, b.name+b.root) })
	}
	if len(keys) == 0 {
		return nil, errors.New("no server has been started for this root yet: nothing to reload (servers start on first use)")
	}
	var out []ServerStatus
	var errs []error
	for _, k := range keys {
		cfg := s.stopKey(ctx, k)
		if cfg == nil {
			if c, err := s.configFor(file); err == nil {
				cfg = c
			} else {
				continue
			}
		}
		if _, err := s.get(ctx, cfg, k.root); err != nil {
			errs = append(errs, err)
		}
		out = append(out, s.status(cfg, runRoot, k.root))
	}
	return out, errors.Join(errs...)
}

// stopKey stops the server of k (if running) and forgets its failures. It
// returns its config, or nil when k was never seen.
func (s *Supervisor) stopKey(ctx context.Context, k serverKey) *ServerConfig {
	s.mu.Lock()
	e := s.servers[k]
	var srv *server
	if e != nil {
		srv, e.srv, e.err, e.retryAt = e.srv, nil, nil, time.Time{}
	}
	s.mu.Unlock()
	if srv != nil {
		s.log.Info().Str("server", k.name).Str("root", k.root).Msg("reloading the language server")
		srv.stop(ctx)
	}
	if e == nil {
		return nil
	}
	return e.cfg
}

// Close stops every server.
func (s *Supervisor) Close(ctx context.Context) error {
	s.mu.Lock()
	var srvs []*server
	for _, e := range s.servers {
		if e.srv != nil {
			srvs = append(srvs, e.srv)
			e.srv = nil
		}
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(srvs))
	for i, srv := range srvs {
		wg.Go(func() { errs[i] = srv.stop(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

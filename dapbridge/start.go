// This file defines how a session starts: the adapter's transport (stdio,
// delve dialling a listener we own, or a TCP connection to a process that
// listens) and the handshake that works for every adapter.

package dapbridge

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-dap"
	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/internal/proc"
)

// startSpec says what to start.
type startSpec struct {
	adapter  *adapterDef
	bin      binary
	root     string
	attach   bool
	program  string // absolute; launch (and optionally lldb attach)
	build    string // delve: what it builds (a .go program's package directory), else program
	note     string // delve: what was built instead of the program, for the answer
	pyModule string // debugpy: the module to run the program as (it imports relatively), else ""
	pyBase   string // debugpy: the directory that module is importable from
	args     []string
	port     int
	pid      int
	dir      string // the directory holding the marker (delve: the go.mod dir)
	marker   string // the marker found there
	launchTO time.Duration
	trace    func(command string) // sees every request sent (tests)
	log      zerolog.Logger       // the supervisor's log
	// exceptions are the exception filters to set, nil for the adapter's
	// defaults (those it advertises as default: debugpy's uncaught).
	exceptions []string
}

// connect starts the adapter (or dials the listening process) and returns
// a session with its connection up.
func connect(ctx context.Context, sp startSpec) (*session, error) {
	s := newSession(sp.adapter, sp.root)
	s.attached = sp.attach
	s.log = sp.log.With().Str("adapter", sp.adapter.id).Logger()
	var err error
	switch {
	case sp.attach && (sp.adapter.id == "delve" || sp.adapter.id == "debugpy"):
		err = s.dial(ctx, sp.port)
	case sp.adapter.id == "delve":
		err = s.startDelve(ctx, sp)
	default:
		err = s.startStdio(sp)
	}
	if err != nil {
		s.log.Warn().Err(err).Msg("debug adapter did not start")
		return nil, err
	}
	s.conn.onSend = sp.trace
	s.conn.log = s.log
	if s.proc != nil {
		s.log.Info().Int("pid", s.proc.Pid()).Str("path", sp.bin.path).Msg("debug adapter started")
	} else {
		s.log.Info().Int("port", sp.port).Msg("connected to a listening debug adapter")
	}
	go s.watchConn()
	return s, nil
}

// dial connects to a process that listens for a DAP client: a debugpy
// --listen endpoint or a headless dlv server.
func (s *session) dial(ctx context.Context, port int) error {
	d := net.Dialer{Timeout: 5 * time.Second}
	nc, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("connecting to port %d: %w (is the program listening for a debugger there?)", port, err)
	}
	s.conn = newConn(nc, nc, nc, s.onEvent, s.onResponse)
	return nil
}

// startDelve runs dlv dap in the go.mod directory and lets it dial a
// listener we own (no port race, no stdout parsing).
func (s *session) startDelve(ctx context.Context, sp startSpec) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening for dlv: %w", err)
	}
	defer ln.Close()
	p, err := proc.Start(proc.Spec{
		Name:     "dlv",
		Path:     sp.bin.path,
		Args:     append(append([]string{}, sp.bin.args...), "--client-addr", ln.Addr().String()),
		Dir:      sp.dir,
		Timeouts: stopTimeouts,
	})
	if err != nil {
		return err
	}
	type accepted struct {
		c   net.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		ch <- accepted{c, err}
	}()
	t := time.NewTimer(20 * time.Second)
	defer t.Stop()
	var a accepted
	select {
	case a = <-ch:
	case <-p.Done():
		a.err = fmt.Errorf("dlv exited before connecting: %s", oneLine(p.StderrTail(5)))
	case <-t.C:
		a.err = errors.New("dlv did not connect within 20s")
	case <-ctx.Done():
		a.err = ctx.Err()
	}
	if a.err != nil {
		ln.Close()
		if a.c != nil {
			a.c.Close()
		}
		p.Stop(context.Background(), nil)
		return fmt.Errorf("starting dlv dap: %w", a.err)
	}
	s.proc = p
	s.conn = newConn(a.c, a.c, a.c, s.onEvent, s.onResponse)
	return nil
}

// startStdio runs an adapter that speaks DAP on its stdin and stdout.
func (s *session) startStdio(sp startSpec) error {
	name := sp.adapter.id
	p, err := proc.Start(proc.Spec{
		Name:     name,
		Path:     sp.bin.path,
		Args:     sp.bin.args,
		Dir:      sp.root,
		Stdin:    true,
		Stdout:   true,
		Timeouts: stopTimeouts,
	})
	if err != nil {
		return err
	}
	s.proc = p
	s.conn = newConn(p.Stdout(), p.Stdin(), p.Stdin(), s.onEvent, s.onResponse)
	return nil
}

// launchArgs are the adapter-specific launch or attach arguments.
func (s *session) launchArgs(sp startSpec) (map[string]any, error) {
	if sp.attach {
		return attachArgs(sp)
	}
	args := sp.args
	if args == nil {
		args = []string{}
	}
	switch sp.adapter.id {
	case "delve":
		return s.delveLaunchArgs(sp, args)
	case "debugpy":
		return debugpyLaunchArgs(sp, args), nil
	case "lldb":
		a := map[string]any{"program": sp.program, "args": args, "cwd": sp.root}
		if sp.marker == "Cargo.toml" {
			if cmds := rustFormatters(); cmds != nil {
				a["initCommands"] = cmds
			}
		}
		return a, nil
	}
	return nil, fmt.Errorf("launch is not supported for %s", sp.adapter.id)
}

// attachArgs are the adapter-specific attach arguments.
func attachArgs(sp startSpec) (map[string]any, error) {
	switch sp.adapter.id {
	case "delve":
		return map[string]any{"mode": "remote"}, nil
	case "debugpy":
		return map[string]any{"justMyCode": true}, nil
	case "lldb":
		a := map[string]any{}
		if sp.pid > 0 {
			a["pid"] = sp.pid
		} else {
			a["gdb-remote-port"] = sp.port
			a["gdb-remote-hostname"] = "127.0.0.1"
		}
		if sp.program != "" {
			a["program"] = sp.program
		}
		return a, nil
	}
	return nil, fmt.Errorf("attach is not supported for %s", sp.adapter.id)
}

// delveLaunchArgs runs a built binary as it is, and builds Go sources (a
// package directory or a .go file) into a temporary directory that the
// session removes when it ends.
func (s *session) delveLaunchArgs(sp startSpec, args []string) (map[string]any, error) {
	program := sp.program
	if sp.build != "" {
		program = sp.build
	}
	a := map[string]any{"program": program, "args": args, "cwd": sp.root, "outputMode": "remote", "stopOnEntry": false}
	if fi, err := os.Stat(program); err == nil && (fi.IsDir() || filepath.Ext(program) == ".go") {
		dir, err := os.MkdirTemp("", "agent-tools-dlv-")
		if err != nil {
			return nil, err
		}
		s.tmpDir = dir
		a["mode"], a["output"] = "debug", filepath.Join(dir, "__debug_bin")
	} else {
		a["mode"] = "exec"
	}
	return a, nil
}

// debugpyLaunchArgs runs a script, or a module (importable from its
// package's parent) when the plan found one; the working directory stays
// the root.
func debugpyLaunchArgs(sp startSpec, args []string) map[string]any {
	a := map[string]any{
		"program": sp.program, "args": args, "cwd": sp.root, "python": []string{sp.bin.python},
		"justMyCode": true, "console": "internalConsole", "stopOnEntry": false,
	}
	if sp.pyModule != "" {
		delete(a, "program")
		a["module"] = sp.pyModule
		path := sp.pyBase
		if old := os.Getenv("PYTHONPATH"); old != "" {
			path += string(os.PathListSeparator) + old
		}
		a["env"] = map[string]string{"PYTHONPATH": path}
	}
	return a
}

// handshake runs the sequence that works for delve, debugpy and lldb-dap:
// initialize → launch/attach (not awaited) → initialized → breakpoints →
// configurationDone → the launch/attach answer. It returns the
// breakpoints as the adapter placed them.
func (s *session) handshake(ctx context.Context, sp startSpec, table map[string][]LineSpec) ([]Breakpoint, error) {
	init := dap.InitializeRequestArguments{
		ClientID: "agent-tools", ClientName: "agent-tools", AdapterID: sp.adapter.id,
		PathFormat: "path", LinesStartAt1: true, ColumnsStartAt1: true,
		SupportsVariableType: true, SupportsVariablePaging: true, Locale: "en-us",
	}
	if err := s.conn.call(ctx, "initialize", init, requestTimeout, &s.caps); err != nil {
		return nil, err
	}
	args, err := s.launchArgs(sp)
	if err != nil {
		return nil, err
	}
	command := "launch"
	if sp.attach {
		command = "attach"
	}
	launched, err := s.conn.send(command, args)
	if err != nil {
		return nil, err
	}
	answered, err := s.awaitInitialized(ctx, sp, command, launched)
	if err != nil {
		return nil, err
	}
	bps, err := s.configure(ctx, sp, table)
	if err != nil {
		return nil, err
	}
	if !answered {
		if _, err := s.conn.await(ctx, command, launched, sp.launchTO); err != nil {
			return nil, fmt.Errorf("%w%s", err, s.outputHint())
		}
	}
	s.mu.Lock()
	if s.state == stateStarting {
		s.state = stateRunning
	}
	s.mu.Unlock()
	return bps, nil
}

// awaitInitialized waits for the adapter's initialized event. The launch
// answer may come before it (delve, lldb) or only after configurationDone
// (debugpy); a failure may come first. answered says whether the launch
// answer (a success) has come.
func (s *session) awaitInitialized(ctx context.Context, sp startSpec, command string, launched <-chan *message) (answered bool, err error) {
	t := time.NewTimer(sp.launchTO)
	defer t.Stop()
	pending := launched // nil once answered, so select stops watching it
	for {
		select {
		case <-s.initialized:
			return answered, nil
		case m, ok := <-pending:
			if !ok {
				return false, fmt.Errorf("%s: %w", command, s.conn.closedErr())
			}
			if !m.Success {
				return false, fmt.Errorf("%s%s", errorText(m), s.outputHint())
			}
			answered, pending = true, nil
		case <-s.conn.done:
			return false, fmt.Errorf("%s: %w", command, s.conn.closedErr())
		case <-t.C:
			return false, fmt.Errorf("%s: the adapter did not get ready within %v", command, sp.launchTO)
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// configure sends the configuration an initialized adapter waits for:
// the breakpoint table, the exception filters, then configurationDone.
// It returns the breakpoints as the adapter placed them.
func (s *session) configure(ctx context.Context, sp startSpec, table map[string][]LineSpec) ([]Breakpoint, error) {
	bps, err := s.replayBreakpoints(ctx, table)
	if err != nil {
		return nil, err
	}
	if err := s.applyExceptionFilters(ctx, sp.exceptions); err != nil {
		return nil, err
	}
	if !s.caps.SupportsConfigurationDoneRequest {
		return bps, nil
	}
	if err := s.conn.call(ctx, "configurationDone", nil, requestTimeout, nil); err != nil {
		if sp.attach && sp.adapter.id == "delve" && strings.Contains(err.Error(), "running") {
			err = fmt.Errorf("%w (start the headless dlv without --continue: it must wait, halted, for the debugger)", err)
		}
		return nil, err
	}
	return bps, nil
}

// outputHint is what the adapter printed, for failed launches (delve
// reports build errors as output events).
func (s *session) outputHint() string {
	s.mu.Lock()
	chunks, _ := s.out.take()
	s.mu.Unlock()
	text := ""
	for _, c := range chunks {
		if c.Category != "console" {
			text += c.Text
		}
	}
	if text = lastLines(text, 10); text != "" {
		return " (adapter output: " + text + ")"
	}
	return ""
}

// rel shows a path relative to the root when it is inside it.
func (s *session) rel(path string) string {
	return relTo(s.root, path)
}

func relTo(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(r) {
		return filepath.ToSlash(r)
	}
	return path
}

// rustFormatters are the lldb commands that load Rust's own data
// formatters (Vec and String shown as such, not as raw structs), or nil
// when rustc is not installed.
func rustFormatters() []string {
	rustc, err := proc.LookPath("rustc")
	if err != nil {
		return nil
	}
	out, err := probe(context.Background(), rustc, "--print", "sysroot")
	if err != nil {
		return nil
	}
	etc := filepath.Join(strings.TrimSpace(out), "lib", "rustlib", "etc")
	if _, err := os.Stat(filepath.Join(etc, "lldb_lookup.py")); err != nil {
		return nil
	}
	return []string{
		"command script import " + filepath.Join(etc, "lldb_lookup.py"),
		"command source -s 1 " + filepath.Join(etc, "lldb_commands"),
	}
}

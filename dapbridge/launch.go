// This file defines the launch and attach ops: choosing the adapter,
// refusing a second session, starting one and arming its TTL.

package dapbridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// start runs launch or attach.
func (s *Supervisor) start(ctx context.Context, c *conversation, root string, r Request) (*Result, error) {
	if c.sess != nil && !c.sess.ended() {
		return nil, fmt.Errorf("op %s: rejected: this conversation already has a debug session, %s (%s); call terminate first", r.Op, c.sess.label, c.sess.snap().state)
	}
	sp, err := s.plan(ctx, root, r)
	if err != nil {
		return nil, fmt.Errorf("op %s: %w", r.Op, err)
	}
	if f, ok := c.exceptions[sp.adapter.id]; ok {
		sp.exceptions = append([]string{}, f...) // non-nil: exactly these
	}
	sess, bps, err := s.open(ctx, c, root, r, sp)
	if err != nil {
		return nil, fmt.Errorf("op %s: %w", r.Op, err)
	}
	gen := s.adopt(c, sess)
	// An attach without breakpoints has nothing to wait for: the program
	// was running before us and goes on (a launch waits, for a crash
	// stopped by the exception filters, or the end).
	wait := s.opts.StopWait
	if sp.attach && len(c.bps) == 0 {
		wait = 0
	} else {
		r.progress(fmt.Sprintf("running; waiting up to %v for a stop", wait))
	}
	started := time.Now()
	stopped, idle, err := sess.waitStop(ctx, gen, wait)
	waited := time.Since(started).Round(100 * time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("op %s: %w", r.Op, err)
	}
	res := s.result(ctx, c, r.Op)
	res.Breakpoints = bps
	res.Marker = relTo(root, filepath.Join(sp.dir, sp.marker))
	if !stopped {
		res.Notice = runningNotice(sp.attach, len(c.bps) > 0, idle, wait, waited)
	}
	res.Notice = joinNotes(res.Notice, startNotes(sp, sess))
	return res, nil
}

// open starts the adapter and runs the handshake, both under one deadline
// (the adapter's start, delve's build, every handshake request), so that
// the call answers within LaunchTimeout + StopWait: 135 s by default,
// under Codex's 300 s. A session whose handshake fails is finished, and the
// error carries the end of the adapter's stderr.
func (s *Supervisor) open(ctx context.Context, c *conversation, root string, r Request, sp startSpec) (*session, []Breakpoint, error) {
	hctx, cancel := context.WithTimeout(ctx, s.opts.LaunchTimeout)
	defer cancel()
	if fi, err := os.Stat(sp.build); err == nil && sp.adapter.id == "delve" && (fi.IsDir() || filepath.Ext(sp.build) == ".go") {
		r.progress(fmt.Sprintf("delve is building %s (a cold build can take a minute)", relTo(root, sp.build)))
	}
	sess, err := connect(hctx, sp)
	if err != nil {
		return nil, nil, startTimeout(ctx, hctx, err, s.opts.LaunchTimeout)
	}
	sess.label = label(root, sp)
	bps, err := sess.handshake(hctx, sp, c.bps)
	if err != nil {
		err = startTimeout(ctx, hctx, err, s.opts.LaunchTimeout)
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		sess.log.Warn().Str("session", sess.label).Err(err).Msg("debug session did not start")
		sess.finish(stopCtx, "the start failed")
		if sess.proc != nil {
			if tail := oneLine(sess.proc.StderrTail(5)); tail != "" && !strings.Contains(err.Error(), tail) {
				err = fmt.Errorf("%w (adapter stderr: %s)", err, tail)
			}
		}
		return nil, nil, err
	}
	return sess, bps, nil
}

// adopt makes sess the conversation's session: its TTL is armed, Close
// knows it, and it is finished when its adapter ends. It returns the
// configuration generation to wait for a stop from.
func (s *Supervisor) adopt(c *conversation, sess *session) int {
	c.sess = sess
	c.timer = time.AfterFunc(s.opts.TTL, func() { s.expire(c, sess) })
	s.track(sess)
	go sess.finishWhenEnded()
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.configGen
}

// runningNotice says why a program that did not stop within the wait is
// still running: no breakpoints, none hit yet, or blocked (idle > 0).
func runningNotice(attach, haveBreakpoints bool, idle, wait, waited time.Duration) string {
	switch {
	case attach && !haveBreakpoints:
		return "attached; no breakpoints are set, so the program runs on: set breakpoints, or pause"
	case !haveBreakpoints && idle > 0:
		return fmt.Sprintf("no breakpoints are set, so the program runs until it ends or you pause it; still running after %v, and %s", waited, blockedWords(idle))
	case !haveBreakpoints:
		return fmt.Sprintf("no breakpoints are set, so the program runs until it ends or you pause it; still running after %v", wait)
	case idle > 0:
		return fmt.Sprintf("still running after %v: no breakpoint hit yet, and %s; call status later, or pause", waited, blockedWords(idle))
	}
	return fmt.Sprintf("still running after %v: no breakpoint hit yet; call status later, or pause", wait)
}

// startNotes are what a start tells besides the program's state: the
// plan's note, exception filters the adapter does not have, and (for a
// launch) the filters it stops on.
func startNotes(sp startSpec, sess *session) []string {
	var notes []string
	if sp.note != "" {
		notes = append(notes, sp.note)
	}
	if bad := sess.unknownFilters(sp.exceptions); len(bad) > 0 {
		notes = append(notes, fmt.Sprintf("%s does not advertise the exception filter(s) %s (it has: %s); they were not set", sp.adapter.id, strings.Join(bad, ", "), sess.filterIDs()))
	}
	if f := sess.filterList(); len(f) > 0 && !sp.attach {
		var on []string
		for _, e := range f {
			if e.Enabled {
				on = append(on, e.ID)
			}
		}
		if len(on) == 0 {
			on = []string{"none"}
		}
		notes = append(notes, fmt.Sprintf("stops on exceptions: %s (change with op exceptions)", strings.Join(on, ", ")))
	}
	return notes
}

// joinNotes puts notice (may be empty) and notes into one notice.
func joinNotes(notice string, notes []string) string {
	if len(notes) == 0 {
		return notice
	}
	if notice != "" {
		notes = append([]string{notice}, notes...)
	}
	return strings.Join(notes, "; ")
}

// startTimeout words a start that ran out of its deadline (hctx, while
// the call's own ctx still runs) as what to do about it.
func startTimeout(ctx, hctx context.Context, err error, d time.Duration) error {
	if ctx.Err() != nil || !errors.Is(hctx.Err(), context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("the debug session did not start within %v (debug launch_timeout in --config; delve builds the program first: build it once with go build to warm the cache, then launch again): %w", d, err)
}

// expire ends a session whose TTL passed. The next call says so.
func (s *Supervisor) expire(c *conversation, sess *session) {
	c.lock <- struct{}{}
	defer func() { <-c.lock }()
	if c.sess != sess || sess.ended() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	why := fmt.Sprintf("terminated: its TTL of %v expired", s.opts.TTL)
	sess.log.Info().Str("session", sess.label).Dur("ttl", s.opts.TTL).Msg("debug session's TTL expired")
	sess.finish(ctx, why)
	c.timer = nil
	c.notice = fmt.Sprintf("the debug session %s was %s", sess.label, why)
}

func label(root string, sp startSpec) string {
	switch {
	case !sp.attach:
		return fmt.Sprintf("%s launch %s", sp.adapter.id, relTo(root, sp.program))
	case sp.pid > 0:
		return fmt.Sprintf("%s attach pid %d", sp.adapter.id, sp.pid)
	}
	return fmt.Sprintf("%s attach port %d", sp.adapter.id, sp.port)
}

// plan decides the adapter and checks the intersection rule: a marker and
// a binary that resolves.
func (s *Supervisor) plan(ctx context.Context, root string, r Request) (startSpec, error) {
	sp := startSpec{root: root, attach: r.Op == "attach", args: r.Args, port: r.Port, pid: r.Pid, launchTO: s.opts.LaunchTimeout, trace: s.trace, log: s.log}
	dir := root
	if r.Program != "" {
		p, err := agentPath(root, "program", r.Program)
		if err != nil {
			return sp, err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return sp, fmt.Errorf("argument 'program': %s does not exist", r.Program)
		}
		sp.program = p
		dir = p
		if !fi.IsDir() {
			dir = filepath.Dir(p)
		}
	} else if !sp.attach {
		return sp, errors.New("argument 'program' is required: the file or directory to debug, relative to the root")
	}
	a, err := s.chooseAdapter(ctx, root, r, sp.program)
	if err != nil {
		return sp, err
	}
	sp.adapter = a
	if a.id == "delve" && !sp.attach {
		if sp.build, sp.note, err = goBuildTarget(root, sp.program); err != nil {
			return sp, err
		}
	}
	if a.id == "debugpy" && !sp.attach {
		if sp.pyModule, sp.pyBase = pyModule(sp.program); sp.pyModule != "" {
			sp.note = pyModuleNote(root, sp.program, sp.pyModule)
		}
	}
	if sp.attach {
		if err := checkAttach(a, r); err != nil {
			return sp, err
		}
	}
	// The intersection rule: a root marker and a binary; say which half
	// is missing, or both.
	var why []string
	if sp.dir, sp.marker = findMarker(a, root, dir); sp.dir == "" {
		where := "the root"
		if dir != root {
			where = relTo(root, dir) + " or a parent directory inside the root"
		}
		why = append(why, fmt.Sprintf("no %s in %s", markerList(a), where))
	}
	sp.bin = s.res.resolve(ctx, a, root)
	if sp.bin.why != "" {
		why = append(why, sp.bin.why)
	}
	if len(why) > 0 {
		return sp, fmt.Errorf("%s is not usable here: %s", a.id, strings.Join(why, "; "))
	}
	return sp, nil
}

func checkAttach(a *adapterDef, r Request) error {
	switch {
	case a.id == "dart":
		return errors.New("attach is not supported for dart (its debugger attaches by VM service URI, not a port)")
	case r.Port <= 0 && r.Pid <= 0:
		return errors.New("attach needs 'port' (or 'pid' for lldb)")
	case r.Pid > 0 && a.id != "lldb":
		return fmt.Errorf("attach by pid is only supported for lldb; %s attaches to a port", a.id)
	}
	return nil
}

// chooseAdapter: the adapter argument, else by the program's kind, else
// (attach without program) the one adapter usable in the root.
func (s *Supervisor) chooseAdapter(ctx context.Context, root string, r Request, program string) (*adapterDef, error) {
	if r.Adapter != "" {
		a := adapterByID(r.Adapter)
		if a == nil {
			return nil, fmt.Errorf("argument 'adapter': unknown adapter %q (want dart, debugpy, delve or lldb)", r.Adapter)
		}
		return a, nil
	}
	if program != "" {
		return adapterForProgram(program), nil
	}
	var usable []string
	sc := scanMarkers(root)
	for _, a := range adapterDefs {
		if st := s.res.status(ctx, a, root, sc.found[a.id]); st.Usable {
			usable = append(usable, a.id)
		}
	}
	if len(usable) == 1 {
		return adapterByID(usable[0]), nil
	}
	return nil, fmt.Errorf("argument 'adapter' is needed: %d adapters are usable here (%s)", len(usable), strings.Join(usable, ", "))
}

// adapterForProgram picks the adapter by what the program is: Go source
// or a Go package directory → delve, .py → debugpy, .dart → dart, anything
// else (a native binary) → lldb.
func adapterForProgram(p string) *adapterDef {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		if m, _ := filepath.Glob(filepath.Join(p, "*.go")); len(m) > 0 {
			return adapterByID("delve")
		}
		if m, _ := filepath.Glob(filepath.Join(p, "*.py")); len(m) > 0 {
			return adapterByID("debugpy")
		}
	}
	ext := filepath.Ext(p)
	for _, a := range adapterDefs {
		for _, e := range a.exts {
			if e == ext {
				return a
			}
		}
	}
	if isGoBinary(p) {
		return adapterByID("delve")
	}
	return adapterByID("lldb")
}

// This file defines running one attempt of a worker: starting its
// command, feeding it the brief, reading its stdout into its log and its
// result, and publishing how it ended.

package workers

import (
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
)

// stopTimeouts: a worker has already read its brief, so closing stdin
// means nothing to it; SIGTERM follows almost at once, SIGKILL 3 s later.
var stopTimeouts = proc.Timeouts{Grace: 10 * time.Millisecond, Term: 3 * time.Second, Kill: 2 * time.Second}

// stdoutLinger bounds how long the monitor waits, after the worker exited,
// for its stdout to reach EOF (only a process that left the worker's group
// can still hold it).
const stdoutLinger = 2 * time.Second

// maxLine bounds one stdout line; the rest of a longer line is dropped.
const maxLine = 1 << 20

// lockedTail is a tail written by an attempt's stdout reader and read by
// vibe_wait at any time.
type lockedTail struct {
	mu sync.Mutex // guards t
	t  tail
}

func (l *lockedTail) line(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Write([]byte(s + "\n"))
}

func (l *lockedTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.t.String()
}

// startLocked starts the worker's next attempt. A command that cannot
// start gives a failed attempt, not an error: the table stays consistent.
func (p *Pool) startLocked(w *worker, root string) {
	a := &attempt{n: len(w.attempts) + 1, started: time.Now(), state: Running, done: make(chan struct{}),
		log: &lockedTail{t: tail{max: p.opts.LogBytes}}}
	w.attempts = append(w.attempts, a)
	env := append(os.Environ(),
		"AGENT_TOOLS_WORKER_ID="+w.id,
		"AGENT_TOOLS_WORKER_LABEL="+w.label,
		"AGENT_TOOLS_WORKER_TIER="+w.tier,
		"AGENT_TOOLS_WORKER_ATTEMPT="+strconv.Itoa(a.n),
	)
	creds := credentialsFor(p.opts.Commands[w.tier])
	pr, err := proc.Start(proc.Spec{
		Name:        "worker " + w.id,
		Path:        "/bin/sh",
		Args:        []string{"-c", shellCommand(p.opts.Commands[w.tier])},
		Dir:         root,
		Env:         env,
		Credentials: creds, // its agent CLI's own key; see credentials.go
		Stdin:       true,
		Stdout:      true,
		StderrTail:  p.opts.LogBytes,
		Timeouts:    &stopTimeouts,
	})
	if err != nil {
		a.state, a.exit, a.ended = Failed, err.Error(), time.Now()
		p.log.Warn().Str("worker", w.id).Int("attempt", a.n).Err(err).Msg("worker did not start")
		close(a.done)
		return
	}
	a.proc = pr
	p.log.Info().Str("worker", w.id).Str("tier", w.tier).Int("attempt", a.n).Int("pid", pr.Pid()).Msg("worker started")
	if len(creds) > 0 {
		p.log.Debug().Str("worker", w.id).Strs("credentials", creds).Msg("the worker's agent CLI may inherit these credentials")
	}
	go feed(pr.Stdin(), w.fullBrief())
	go p.monitor(w.id, a)
}

// shellCommand returns the script sh -c runs for a worker command. A
// simple command is exec'd, so that the agent CLI itself leads the process
// group and gets SIGTERM first: a shell leader would die of it at once, and
// its group would be SIGKILLed with it (see internal/proc).
func shellCommand(cmd string) string {
	if strings.ContainsAny(cmd, ";&|()<>`\n") || strings.HasPrefix(strings.TrimSpace(cmd), "exec ") {
		return cmd
	}
	return "exec " + cmd
}

// feed writes the brief to the worker's stdin and closes it.
func feed(w io.WriteCloser, brief string) {
	io.WriteString(w, brief)
	w.Close()
}

// monitor reads the attempt's stdout, waits for it to exit and publishes
// the outcome.
func (p *Pool) monitor(id string, a *attempt) {
	var ex Extractor
	stdout := a.proc.Stdout()
	read := make(chan struct{})
	go func() {
		defer close(read)
		readLines(stdout, func(line string) {
			a.log.line(line)
			ex.Line(line)
		})
	}()
	<-a.proc.Done()
	t := time.NewTimer(stdoutLinger)
	select {
	case <-read:
	case <-t.C:
		stdout.Close() // a process outside the group holds it: stop reading
		<-read
	}
	t.Stop()
	stdout.Close()

	p.mu.Lock()
	defer p.mu.Unlock()
	a.ended = time.Now()
	a.result = ex.Final()
	switch err := a.proc.Err(); {
	case a.stopReason != "":
		a.state = Killed
	case err == nil:
		a.state = Done
	default:
		a.state, a.exit = Failed, exitText(err)
	}
	ev := p.log.Info()
	if a.state == Failed {
		ev = p.log.Warn().Str("exit", a.exit).Str("stderr", a.proc.StderrTail(5))
	}
	ev.Str("worker", id).Int("attempt", a.n).Str("state", string(a.state)).Dur("ran", a.ended.Sub(a.started)).Msg("worker ended")
	close(a.done)
}

// readLines calls line for each line of r (without its newline), cutting
// lines longer than maxLine.
func readLines(r io.Reader, line func(string)) {
	buf := make([]byte, 0, 64<<10)
	chunk := make([]byte, 32<<10)
	over := false
	for {
		n, err := r.Read(chunk)
		data := chunk[:n]
		for len(data) > 0 {
			i := slices.Index(data, '\n')
			if i < 0 {
				if !over {
					buf = append(buf, data[:min(len(data), maxLine-len(buf))]...)
					over = len(buf) >= maxLine
				}
				break
			}
			if !over {
				buf = append(buf, data[:min(i, maxLine-len(buf))]...)
			}
			line(string(buf))
			buf, over, data = buf[:0], false, data[i+1:]
		}
		if err != nil {
			if len(buf) > 0 {
				line(string(buf))
			}
			return
		}
	}
}

// exitText says how an attempt's process ended: "exit status 3",
// "killed by signal SIGSEGV (segmentation fault)".
func exitText(err error) string { return proc.Describe(err) }

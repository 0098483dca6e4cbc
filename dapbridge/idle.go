// This file tells a running program that waits from one that works: a
// debuggee whose threads (and children) have used no CPU for a while is
// blocked — on a lock, input, the network or a sleep — and a wait for its
// next stop can answer early rather than spend the whole stop_wait.

package dapbridge

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// idleWindow is how long a debuggee must use no CPU before a wait for a
// stop answers early; idlePoll is how often its CPU time is read.
var (
	idleWindow = 3 * time.Second
	idlePoll   = 250 * time.Millisecond
)

// cpuSample is a debuggee's CPU time in clock ticks, summed over its
// threads and its children's threads (and the adapter's, which works on
// the program while it is stopped for a logpoint); ok when some task
// was read. held says a task of the debuggee was in a tracing stop: the
// debugger holds it without a stop event (lldb reading a library's
// symbols at each load, which on a busy machine can take seconds of
// waiting on the disk and no CPU), so the program is not blocked.
type cpuSample struct {
	ticks int64
	ok    bool
	held  bool
}

// sampleCPU reads /proc for pid and its direct children.
func sampleCPU(pid int) cpuSample {
	var s cpuSample
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*"))
	for _, task := range tasks {
		s.add(task)
		kids, _ := os.ReadFile(filepath.Join(task, "children"))
		for _, k := range strings.Fields(string(kids)) {
			sub, _ := filepath.Glob(filepath.Join("/proc", k, "task", "*"))
			for _, t := range sub {
				s.add(t)
			}
		}
	}
	return s
}

// add adds one task's utime + stime from its /proc stat.
func (s *cpuSample) add(task string) {
	b, err := os.ReadFile(filepath.Join(task, "stat"))
	if err != nil {
		return
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 13 {
		return
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	s.ticks += u + k
	s.ok = true
	s.held = s.held || f[0] == "t"
}

// waitStop is waitChange that also answers when the debuggee has been
// idle (no more CPU than idleShare) for idleWindow: it reports whether a
// stop or the end came, and otherwise for how long the program had been
// idle when it answered (0: it was busy until the wait ran out).
func (s *session) waitStop(ctx context.Context, gen int, d time.Duration) (bool, time.Duration, error) {
	if d <= idleWindow || s.attached {
		ok, err := s.waitChange(ctx, gen, d)
		return ok, 0, err
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	poll := time.NewTicker(idlePoll)
	defer poll.Stop()
	var last cpuSample
	var lastAt time.Time
	idleSince := time.Now()
	for {
		sn := s.snap()
		if sn.gen > gen || sn.state == stateEnded {
			return true, 0, nil
		}
		select {
		case <-sn.changed:
		case <-poll.C:
			// The debuggee's pid comes with the process event, which
			// debugpy may send after the handshake: read it each time.
			s.mu.Lock()
			pid := s.debuggee
			s.mu.Unlock()
			var cur cpuSample
			if pid > 0 {
				cur = sampleCPU(pid)
				// A debugger at work keeps its program stopped
				// without a stop event: lldb-dap evaluating a
				// logpoint at every hit, loading symbols, dlv
				// building. Its CPU counts as the program's.
				if s.proc != nil && s.proc.Pid() != pid {
					a := sampleCPU(s.proc.Pid())
					cur.ticks += a.ticks
				}
			}
			if debugIdle != nil {
				debugIdle(pid, cur)
			}
			now := time.Now()
			if !cur.ok || !last.ok || cur.held || cur.ticks-last.ticks > idleTicks(now.Sub(lastAt)) {
				idleSince = now
			}
			last, lastAt = cur, now
			if idle := time.Since(idleSince); idle >= idleWindow {
				return false, idle, nil
			}
		case <-deadline.C:
			return false, 0, nil
		case <-ctx.Done():
			return false, 0, ctx.Err()
		}
	}
}

// idleShare is the share of one CPU a debuggee may use and still count
// as idle: debugpy's own threads in it wake a few times a second, and on
// a slow host they used 5–8 % of a CPU beside a deadlock (every sample
// then differed, and a deadlock was never taken as idle). A program at
// work uses a whole CPU.
const idleShare = 0.15

// idleTicks is how many clock ticks (100 a second, USER_HZ) an idle
// debuggee may use in d.
func idleTicks(d time.Duration) int64 { return int64(d.Seconds() * idleShare * 100) }

// blockedWords is how an answer says that an idle program is blocked.
func blockedWords(idle time.Duration) string {
	return "it has used no CPU for " + idle.Round(100*time.Millisecond).String() + ": blocked on a lock (a deadlock?), input, the network or a sleep"
}

// debugIdle, when set, sees each sample (tests).
var debugIdle func(int, cpuSample)

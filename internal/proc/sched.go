//go:build linux

// This file reads and changes how the kernel schedules a child: which of
// its threads run at idle priority, moving them back to normal priority,
// and how busy the machine is. A server whose work runs at idle priority
// makes no progress while other processes keep every CPU busy: a caller
// waiting on that work lifts it, and an answer says so when it cannot.

package proc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// schedIdle is SCHED_IDLE, the policy whose threads run only when no
// other thread wants the CPU (sched(7)).
const schedIdle = 5

// IdleThreads counts p's threads that run under SCHED_IDLE at this
// moment (clangd 14 moves its background-index workers there while they
// index); 0 when /proc cannot say.
func (p *Process) IdleThreads() int {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", p.pid))
	if err != nil {
		return 0
	}
	n := 0
	for _, t := range tasks {
		if policy, ok := statField(t, 41); ok && policy == schedIdle {
			n++
		}
	}
	return n
}

// LiftIdleThreads moves p's threads that run under SCHED_IDLE to
// SCHED_OTHER, the normal policy, at the nice value they have, and returns how many it moved. The
// kernel lets a process leave SCHED_IDLE only with CAP_SYS_NICE or an
// RLIMIT_NICE that allows its nice value (sched(7)); err is the first
// refusal then, and the threads stay where they are. A thread that ends
// meanwhile is no error.
func (p *Process) LiftIdleThreads() (moved int, err error) {
	tasks, gerr := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", p.pid))
	if gerr != nil {
		return 0, nil
	}
	for _, t := range tasks {
		if policy, ok := statField(t, 41); !ok || policy != schedIdle {
			continue
		}
		tid, cerr := strconv.Atoi(filepath.Base(filepath.Dir(t)))
		if cerr != nil {
			continue
		}
		nice, _ := statField(t, 19) // kept as it is
		switch serr := unix.SchedSetAttr(tid, &unix.SchedAttr{Policy: unix.SCHED_NORMAL, Nice: int32(nice)}, 0); {
		case serr == nil:
			moved++
		case serr == unix.ESRCH:
		case err == nil:
			err = fmt.Errorf("moving thread %d of %s out of SCHED_IDLE: %w", tid, p.name, serr)
		}
	}
	return moved, err
}

// statField returns field n (1-based, as proc(5) numbers them) of a
// stat file, as an integer.
func statField(path string, n int) (int, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	// pid (comm) state …: comm may hold spaces and parentheses, so the
	// fields are counted from the last ')', which ends field 2.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, false
	}
	fields := bytes.Fields(data[i+1:])
	if n-3 < 0 || n-3 >= len(fields) {
		return 0, false
	}
	v, err := strconv.Atoi(string(fields[n-3]))
	return v, err == nil
}

// Load returns the 1-minute load average and the CPUs this process may
// run on; ok is false when the system cannot say.
func Load() (load1 float64, cpus int, ok bool) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, 0, false
	}
	f := bytes.Fields(data)
	if len(f) == 0 {
		return 0, 0, false
	}
	load1, err = strconv.ParseFloat(string(f[0]), 64)
	return load1, runtime.NumCPU(), err == nil
}

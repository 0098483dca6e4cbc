// This file holds the process checks that tests of supervision share:
// whether a pid still runs, waiting for pids to be gone, and listing the
// processes /proc shows (those working in a test's directory, a process's
// descendants).

package testutil

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Alive reports whether pid is a running process. A pid that does not
// exist, or a zombie (dead, not yet reaped by whoever inherited it), is
// not.
func Alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) == syscall.ESRCH {
		return false
	}
	state, _, ok := stat(pid)
	if !ok {
		return false
	}
	return state != 'Z' && state != 'X'
}

// stat reads a process's state letter and parent pid from /proc/PID/stat;
// ok is false when it cannot be read. An unparsable line reads as running
// with no parent.
func stat(pid int) (state byte, ppid int, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 || i+2 >= len(s) {
		return 'R', 0, true
	}
	f := strings.Fields(s[i+1:])
	if len(f) >= 2 {
		ppid, _ = strconv.Atoi(f[1])
	}
	return s[i+2], ppid, true
}

// WaitGone waits until none of pids is alive. Each one still alive after
// within fails t and is SIGKILLed, so a failing test leaves nothing behind.
func WaitGone(t testing.TB, within time.Duration, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(within)
	for _, pid := range pids {
		if !Poll(time.Until(deadline), func() bool { return !Alive(pid) }) {
			t.Errorf("pid %d still alive %v later", pid, within)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// Process is a live process as /proc shows it.
type Process struct {
	Pid, PPid int
	Cwd       string // its working directory ("" when unreadable)
	Cmdline   string // its arguments joined by spaces
}

// Processes lists the live processes, other than this test's own, that
// keep accepts (all of them when keep is nil), by pid.
func Processes(keep func(Process) bool) map[int]Process {
	ents, _ := os.ReadDir("/proc")
	out := map[int]Process{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || !Alive(pid) {
			continue
		}
		_, ppid, _ := stat(pid)
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		p := Process{Pid: pid, PPid: ppid, Cwd: cwd, Cmdline: Cmdline(pid)}
		if keep == nil || keep(p) {
			out[pid] = p
		}
	}
	return out
}

// Cmdline returns pid's command line, its arguments joined by spaces ("" for
// a process that is gone).
func Cmdline(pid int) string {
	raw, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(strings.ReplaceAll(string(raw), "\x00", " "))
}

// Within reports whether path is dir or below it.
func Within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// ProcessesIn lists the live processes (other than this test's own) whose
// working directory is dir or below it: what a test started in its
// workspace, and what those started.
func ProcessesIn(dir string) []int {
	var out []int
	for pid := range Processes(func(p Process) bool { return Within(p.Cwd, dir) }) {
		out = append(out, pid)
	}
	slices.Sort(out)
	return out
}

// Descendants returns pid, when alive, and its live descendants.
func Descendants(pid int) map[int]Process {
	all := Processes(nil)
	children := map[int][]int{}
	for _, p := range all {
		children[p.PPid] = append(children[p.PPid], p.Pid)
	}
	out := map[int]Process{}
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		if p, ok := all[queue[0]]; ok {
			out[p.Pid] = p
			queue = append(queue, children[p.Pid]...)
		}
	}
	return out
}

// WaitNoneIn waits until no process runs in dir (see [ProcessesIn]). Each
// one still there after within fails t, named with its command line, and
// is SIGKILLed, so a failing test leaves nothing behind.
func WaitNoneIn(t testing.TB, dir string, within time.Duration) {
	t.Helper()
	var left []int
	if Poll(within, func() bool { left = ProcessesIn(dir); return len(left) == 0 }) {
		return
	}
	for _, pid := range left {
		t.Errorf("pid %d still running in %s %v later: %q", pid, dir, within, Cmdline(pid))
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

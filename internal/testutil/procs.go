// This file holds the process checks that tests of supervision share:
// whether a pid still runs, and waiting for pids to be gone.

package testutil

import (
	"os"
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
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 || i+2 >= len(s) {
		return true
	}
	return s[i+2] != 'Z' && s[i+2] != 'X'
}

// WaitGone waits until none of pids is alive. Each one still alive after
// within fails t and is SIGKILLed, so a failing test leaves nothing behind.
func WaitGone(t testing.TB, within time.Duration, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(within)
	for _, pid := range pids {
		for Alive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("pid %d still alive %v later", pid, within)
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

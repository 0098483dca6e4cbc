//go:build linux

package proc_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
	"golang.org/x/sys/unix"
)

// TestIdleThreads: a child that chrt puts under SCHED_IDLE counts as
// idle, one started plainly does not; lifting moves the idle one's
// thread back to the normal policy, or, where the kernel refuses that
// (no CAP_SYS_NICE, RLIMIT_NICE below 20), says so and leaves it.
func TestIdleThreads(t *testing.T) {
	testutil.Needs(t, "chrt", "sleep")
	for _, c := range []struct {
		argv []string
		idle bool
	}{{[]string{"chrt", "--idle", "0", "sleep", "300"}, true}, {[]string{"sleep", "300"}, false}} {
		p, err := proc.Start(proc.Spec{Name: c.argv[0], Path: c.argv[0], Args: c.argv[1:]})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Stop(context.Background(), nil) })
		// chrt sets the policy, then execs sleep: wait for the exec.
		got := 0
		testutil.Poll(testutil.IntegrationTimeout(), func() bool {
			got = p.IdleThreads()
			return got > 0 == c.idle
		})
		if got > 0 != c.idle {
			t.Fatalf("%v: %d threads under SCHED_IDLE", c.argv, got)
		}
		moved, err := p.LiftIdleThreads()
		t.Logf("%v: lifted %d, err %v", c.argv, moved, err)
		switch {
		case !c.idle && (moved != 0 || err != nil):
			t.Errorf("%v: lifting a child with no idle thread moved %d, err %v", c.argv, moved, err)
		case c.idle && err == nil:
			if moved != 1 || p.IdleThreads() != 0 {
				t.Errorf("%v: lifted %d threads, %d still idle", c.argv, moved, p.IdleThreads())
			}
		case c.idle:
			if !errors.Is(err, unix.EPERM) || moved != 0 || p.IdleThreads() != 1 {
				t.Errorf("%v: a refused lift moved %d (err %v), %d still idle", c.argv, moved, err, p.IdleThreads())
			}
			if unix.Geteuid() == 0 {
				t.Errorf("root was refused: %v", err)
			}
		}
	}
	if load, cpus, ok := proc.Load(); !ok || cpus < 1 || load < 0 {
		t.Errorf("Load() = %v, %d, %v", load, cpus, ok)
	}
}

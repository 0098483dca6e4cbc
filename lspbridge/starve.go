// This file keeps a server's background work from starving while a call
// waits for it. clangd 14 indexes under SCHED_IDLE, a policy whose
// threads get CPU only when no other thread wants it: on a machine that
// other processes keep busy, its index makes no progress at all (a
// `make test` beside four busy loops found clangd still indexing after
// five minutes). While waitIndexed waits, such threads are moved back to
// the normal policy; where the kernel refuses that, an answer cut short
// says why the work may not finish.

package lspbridge

import (
	"fmt"
	"sync"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
)

// liftEvery is how often a wait looks for threads gone idle again:
// clangd sets the policy anew for each file it indexes.
const liftEvery = 50 * time.Millisecond

// idleLift is what lifting a server's idle threads has come to.
type idleLift struct {
	mu     sync.Mutex
	moved  int   // threads moved so far
	denied error // the kernel's refusal; no more tries after one
}

// liftIdle moves the server's idle-priority threads to the normal
// policy, unless the kernel has refused it before.
func (s *server) liftIdle() {
	s.lift.mu.Lock()
	defer s.lift.mu.Unlock()
	if s.lift.denied != nil {
		return
	}
	moved, err := s.proc.LiftIdleThreads()
	if moved > 0 && s.lift.moved == 0 {
		s.log.Debug().Int("threads", moved).Msg("waiting on the server's background work: its idle-priority threads run at normal priority meanwhile")
	}
	s.lift.moved += moved
	if err != nil {
		s.lift.denied = err
		s.log.Info().Err(err).Msg("cannot lift the server's idle-priority threads while a call waits on them; on a busy machine its background work may not progress")
	}
}

// liftDenied returns the kernel's refusal to lift the server's threads,
// nil when it was never refused.
func (s *server) liftDenied() error {
	s.lift.mu.Lock()
	defer s.lift.mu.Unlock()
	return s.lift.denied
}

// machineLoad is proc.Load; tests set another.
var machineLoad = proc.Load

// starvedNote says, for an answer given while srv's work is pending,
// when that work cannot progress: some of its threads run at idle
// priority, the kernel refused to lift them, and the machine's load keeps
// every CPU busy. "" otherwise.
func starvedNote(srv *server) string {
	denied := srv.liftDenied()
	if denied == nil {
		return ""
	}
	idle := srv.proc.IdleThreads()
	load, cpus, ok := machineLoad()
	if idle == 0 || !ok || load < float64(cpus) {
		return ""
	}
	return fmt.Sprintf("; the machine is busy (load %.1f on %d CPUs) and %d of %s's threads run at idle priority (SCHED_IDLE), which gets CPU only when nothing else wants it, so it may not finish while that load lasts (agent-tools could not move them to normal priority: %v; that needs CAP_SYS_NICE or an RLIMIT_NICE of 20)",
		load, cpus, idle, srv.cfg.Name, denied)
}

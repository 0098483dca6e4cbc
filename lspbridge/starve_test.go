package lspbridge

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
	"golang.org/x/sys/unix"
)

// TestIndexLiftedUnderLoad: clangd 14 runs its background index under
// SCHED_IDLE, so beside processes that keep every CPU busy the index
// makes no progress (a `make test` beside four busy loops: clangd was
// still indexing after 5 minutes). The test keeps the CPUs busy itself,
// with twice as many shell loops as CPUs, has clangd index the
// tree-sitter runtime, sees its threads go idle, and needs the index
// finished within the loaded machine's budget: the wait lifts them.
// (Without the lift it does not finish: see the note of the session
// that added it.)
func TestIndexLiftedUnderLoad(t *testing.T) {
	testutil.Needs(t, "clangd", "sh", "chrt", "sleep")
	testutil.NeedsFunc(t, "the right to lift a thread out of SCHED_IDLE (root, CAP_SYS_NICE or RLIMIT_NICE 20)", func() string {
		if err := canLift(t); err != nil {
			return err.Error()
		}
		return ""
	})
	root := treeSitterTree(t)
	s := newSup(t, &Options{IndexTimeout: indexBudget()})
	ctx := indexCtx(t)
	file := filepath.Join(root, "src", "parser.c")
	srv, err := s.serverFor(ctx, root, file)
	if err != nil {
		t.Fatal(err)
	}
	var idle atomic.Int64
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
				if n := srv.proc.IdleThreads(); n > 0 {
					idle.Store(int64(n))
					return
				}
			}
		}
	}()
	for i := range 2 * runtime.NumCPU() {
		busyLoop(t, i)
	}
	if _, err := s.Diagnostics(ctx, Request{Root: root, File: "src/parser.c"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	pending := srv.waitIndexed(ctx, indexBudget(), nil)
	close(stop)
	<-watched
	load, cpus, _ := proc.Load()
	srv.lift.mu.Lock()
	moved := srv.lift.moved
	srv.lift.mu.Unlock()
	t.Logf("index wait %s beside %d busy loops (load %.1f on %d CPUs); %d threads lifted", time.Since(start).Round(time.Millisecond), 2*runtime.NumCPU(), load, cpus, moved)
	if idle.Load() == 0 {
		t.Fatal("no clangd thread ran at idle priority while it indexed: the premise does not hold for this clangd")
	}
	if pending != "" {
		t.Fatalf("clangd still %s after %s beside the busy loops", pending, indexBudget())
	}
	if moved == 0 || srv.liftDenied() != nil {
		t.Errorf("the wait lifted %d threads (refused: %v)", moved, srv.liftDenied())
	}
}

// TestStarvedNote: when the kernel refused the lift, an answer given
// while the server's idle threads wait on a busy machine says why the
// work may not finish; with a light load, or with the lift allowed, it
// says nothing of it.
func TestStarvedNote(t *testing.T) {
	testutil.Needs(t, "chrt", "sleep")
	idler, err := proc.Start(proc.Spec{Name: "idler", Path: "chrt", Args: []string{"--idle", "0", "sleep", "300"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idler.Stop(context.Background(), nil) })
	if !testutil.Poll(testutil.IntegrationTimeout(), func() bool { return idler.IdleThreads() > 0 }) {
		t.Fatal("chrt --idle started no idle thread")
	}
	srv := &server{cfg: &ServerConfig{Name: "clangd"}, proc: idler}
	t.Cleanup(func() { machineLoad = proc.Load })
	for _, c := range []struct {
		load   float64
		denied error
		want   bool
	}{{4, unix.EPERM, true}, {0.3, unix.EPERM, false}, {4, nil, false}} {
		machineLoad = func() (float64, int, bool) { return c.load, 2, true }
		srv.lift.denied = c.denied
		got := incompleteNote(srv, "indexing", "references")
		if strings.Contains(got, "SCHED_IDLE") != c.want {
			t.Errorf("load %.1f on 2 CPUs, lift refused %v: %s", c.load, c.denied, got)
		}
		if c.want {
			mustContain(t, got, "clangd is still busy (indexing): references may be incomplete",
				"the machine is busy (load 4.0 on 2 CPUs) and 1 of clangd's threads run at idle priority",
				"may not finish while that load lasts", "could not move them to normal priority: operation not permitted")
		}
	}
}

// canLift reports whether this process may move a thread out of
// SCHED_IDLE: nil when a chrt child's could be.
func canLift(t *testing.T) error {
	p, err := proc.Start(proc.Spec{Name: "idler", Path: "chrt", Args: []string{"--idle", "0", "sleep", "300"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(context.Background(), nil)
	if !testutil.Poll(testutil.IntegrationTimeout(), func() bool { return p.IdleThreads() > 0 }) {
		t.Fatal("chrt --idle started no idle thread")
	}
	if _, err := p.LiftIdleThreads(); err != nil {
		return err
	}
	if p.IdleThreads() != 0 {
		return errors.New("the thread stayed idle")
	}
	return nil
}

// busyLoop starts a shell loop that keeps a CPU busy until the test ends.
func busyLoop(t *testing.T, i int) {
	p, err := proc.Start(proc.Spec{Name: fmt.Sprintf("busy%d", i), Path: "sh", Args: []string{"-c", "while :; do :; done"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(context.Background(), nil) })
}

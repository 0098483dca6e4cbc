package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fatalfTB records Fatalf instead of stopping the goroutine.
type fatalfTB struct {
	testing.TB
	failed bool
	msg    string
}

func (r *fatalfTB) Helper() {}
func (r *fatalfTB) Fatalf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
}

func TestEventuallyReturnsWhenTrue(t *testing.T) {
	calls := 0
	rec := &fatalfTB{TB: t}
	start := time.Now()
	Eventually(rec, func() bool { calls++; return calls == 3 }, "never")
	if rec.failed || calls != 3 {
		t.Errorf("failed %v (%q) after %d calls; want success on the 3rd call", rec.failed, rec.msg, calls)
	}
	// Two pauses (5 ms, 10 ms) were needed, not the bound of a minute.
	if d := time.Since(start); d > IntegrationTimeout()/2 {
		t.Errorf("returned after %v", d)
	}
}

func TestEventuallyFailsAtTheBound(t *testing.T) {
	t.Setenv(timeoutEnv, "60ms")
	rec := &fatalfTB{TB: t}
	start := time.Now()
	calls := 0
	Eventually(rec, func() bool { calls++; return false }, "the %s never came", "answer")
	if d := time.Since(start); d < 60*time.Millisecond {
		t.Errorf("gave up after %v, before the 60ms bound", d)
	}
	if !rec.failed || !strings.Contains(rec.msg, "the answer never came") || !strings.Contains(rec.msg, "60ms") {
		t.Errorf("failed %v with %q; want the message and the bound", rec.failed, rec.msg)
	}
	if calls < 2 {
		t.Errorf("cond called %d times", calls)
	}
}

func TestPoll(t *testing.T) {
	if !Poll(0, func() bool { return true }) {
		t.Error("Poll(0, true) = false: a true condition must be seen even with no time left")
	}
	if Poll(20*time.Millisecond, func() bool { return false }) {
		t.Error("Poll(false) = true")
	}
}

func TestLogBuffer(t *testing.T) {
	var b LogBuffer
	log := b.Logger()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() { log.Info().Int("n", i).Str("who", "writer").Msg("wrote") })
	}
	wg.Wait()
	entries := b.Entries(t)
	if len(entries) != 8 {
		t.Fatalf("%d entries, want 8:\n%s", len(entries), b.String())
	}
	var ns []int
	for _, e := range entries {
		ns = append(ns, int(e["n"].(float64)))
	}
	slices.Sort(ns)
	if !slices.Equal(ns, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Errorf("entries %v", ns)
	}
	if !b.HasLine(`"n":3`, `"message":"wrote"`) {
		t.Error("HasLine misses a line holding both parts")
	}
	if b.HasLine(`"n":3`, `"n":4`) {
		t.Error("HasLine matched parts that stand on two lines")
	}
	rec := &fatalfTB{TB: t}
	b.Write([]byte("not json\n"))
	b.Entries(rec)
	if !rec.failed {
		t.Error("Entries took a line that is not JSON")
	}
}

func TestProcessesInAndDescendants(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// A shell in sub whose child sleeps: both work below dir.
	cmd := exec.Command("sh", "-c", "sleep 60 & echo started; wait")
	cmd.Dir = sub
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	buf := make([]byte, 8)
	out.Read(buf) // "started": the sleep has been forked
	sh := cmd.Process.Pid
	// "started" comes after the fork, maybe before the child's exec (at
	// load 8 the child was still "sh -c …"): wait for the sleep itself.
	var desc map[int]Process
	var sleep int
	Eventually(t, func() bool {
		desc, sleep = Descendants(sh), 0
		for pid, p := range desc {
			if pid != sh && p.PPid == sh && strings.HasPrefix(p.Cmdline, "sleep 60") {
				sleep = pid
			}
		}
		return sleep != 0 && len(ProcessesIn(dir)) == 2
	}, "the shell and its sleep in %s: %v", dir, ProcessesIn(dir))
	if _, ok := desc[sh]; !ok || sleep == 0 || len(desc) != 2 {
		t.Fatalf("descendants of the shell %d: %v", sh, desc)
	}
	if got := ProcessesIn(dir); !slices.Equal(got, []int{min(sh, sleep), max(sh, sleep)}) {
		t.Errorf("ProcessesIn = %v, want the shell %d and the sleep %d", got, sh, sleep)
	}
	if got := ProcessesIn(filepath.Join(dir, "elsewhere")); len(got) != 0 {
		t.Errorf("ProcessesIn of an empty dir: %v", got)
	}
	rec := &recordingErrorf{TB: t}
	WaitNoneIn(rec, dir, 30*time.Millisecond) // they sleep a minute: killed
	if len(rec.msgs) != 2 || !strings.Contains(strings.Join(rec.msgs, "\n"), "sleep 60") {
		t.Errorf("WaitNoneIn reported %q; want the shell and the sleep", rec.msgs)
	}
	WaitNoneIn(t, dir, IntegrationTimeout()) // SIGKILLed: gone
}

type recordingErrorf struct {
	testing.TB
	msgs []string
}

func (r *recordingErrorf) Helper() {}
func (r *recordingErrorf) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

type logfTB struct {
	fatalfTB
	logs []string
}

func (r *logfTB) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func TestSeed(t *testing.T) {
	rec := &logfTB{fatalfTB: fatalfTB{TB: t}}
	t.Setenv(seedEnv, "")
	if got := Seed(rec, 7, false); got != 7 {
		t.Errorf("CI seed = %d, want 7", got)
	}
	if got := Seed(rec, 7, true); got == 7 {
		t.Error("a soak took the CI seed")
	}
	t.Setenv(seedEnv, "42")
	if got := Seed(rec, 7, true); got != 42 || rec.logs[len(rec.logs)-1] != "seed 42 (replay with AGENT_TOOLS_SEED=42)" {
		t.Errorf("replayed seed = %d, logged %q", got, rec.logs)
	}
	t.Setenv(seedEnv, "x")
	Seed(rec, 7, false)
	if !rec.failed || !strings.Contains(rec.msg, `AGENT_TOOLS_SEED="x"`) {
		t.Errorf("a bad AGENT_TOOLS_SEED: failed %v, %q", rec.failed, rec.msg)
	}
}

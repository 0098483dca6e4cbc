package lspbridge

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// slowChecker is a server whose checker starts a grandchild that holds
// the output pipe, writes its pid to pidFile, and runs far past any
// timeout (cargo check's rustc processes, in small).
func slowChecker(pidFile string) ServerConfig {
	return ServerConfig{
		Name: "slow", Language: "slow", Command: []string{"true"},
		Extensions: map[string]string{".slow": "slow"}, Markers: []string{"slow.marker"},
		Checker:       []string{"sh", "-c", "sleep 60 & echo $! > " + pidFile + "; sleep 60"},
		CheckerFormat: "gcc",
	}
}

// TestCheckerTimeoutGrandchild: a 1 s checker timeout with a grandchild
// holding the pipe ends the call in about 1 s (it took 4.3 s through
// os/exec, which waited for the grandchild), says so, and leaves no
// process behind.
func TestCheckerTimeoutGrandchild(t *testing.T) {
	testutil.Needs(t, "sh", "sleep")
	saved := checkerTimeout
	checkerTimeout = time.Second
	t.Cleanup(func() { checkerTimeout = saved })
	root := canonical(t.TempDir())
	writeFile(t, filepath.Join(root, "slow.marker"), "")
	pidFile := filepath.Join(t.TempDir(), "pid")
	s := newSup(t, &Options{Servers: []ServerConfig{slowChecker(pidFile)}})

	begin := time.Now()
	r, err := s.Diagnostics(testCtx(t), Request{Root: root, File: "*"})
	took := time.Since(begin)
	if err == nil {
		mustContain(t, r.Text(), "did not finish within 1s: stopped")
	} else if !strings.Contains(err.Error(), "did not finish within 1s: stopped") {
		t.Fatalf("err = %v", err)
	}
	t.Logf("diagnostics \"*\" with a 1 s checker timeout returned after %v", took)
	if took > 2500*time.Millisecond {
		t.Errorf("a 1 s checker timeout returned after %v", took)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	testutil.WaitGone(t, 2*time.Second, pid)
}

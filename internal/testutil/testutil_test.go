package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

func TestVerdict(t *testing.T) {
	tests := []struct {
		name       string
		requireAll bool
		wantFail   bool
	}{
		{name: "local skips", requireAll: false, wantFail: false},
		{name: "CI fails", requireAll: true, wantFail: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := verdict(missingToolsMsg([]string{"gopls", "dlv"}), tt.requireAll)
			if d.fail != tt.wantFail {
				t.Errorf("fail = %v, want %v", d.fail, tt.wantFail)
			}
			for _, want := range []string{"gopls, dlv", "not found in PATH", "scripts/install-tools.sh", "AGENT_TOOLS_REQUIRE_ALL=1"} {
				if !strings.Contains(d.msg, want) {
					t.Errorf("message %q lacks %q", d.msg, want)
				}
			}
		})
	}
}

// recordingTB stands in for a testing.TB to observe Skip and Fatal; unlike the
// real ones, its Skip and Fatal return.
type recordingTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recordingTB) Helper()          {}
func (r *recordingTB) Skip(args ...any) { r.skipped, r.msg = true, args[0].(string) }
func (r *recordingTB) Fatal(args ...any) {
	r.failed, r.msg = true, args[0].(string)
}

func TestNeeds(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "present-tool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	tests := []struct {
		name        string
		requireAll  string
		tools       []string
		wantSkip    bool
		wantFail    bool
		wantMissing string
	}{
		{name: "all present", tools: []string{"present-tool"}},
		{name: "missing skips", tools: []string{"present-tool", "absent-tool"}, wantSkip: true, wantMissing: "needs absent-tool:"},
		{name: "missing fails in CI", requireAll: "1", tools: []string{"absent-tool", "other-absent"}, wantFail: true, wantMissing: "needs absent-tool, other-absent:"},
		{name: "present in CI", requireAll: "1", tools: []string{"present-tool"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(requireAllEnv, tt.requireAll)
			rec := &recordingTB{TB: t}
			Needs(rec, tt.tools...)
			if rec.skipped != tt.wantSkip || rec.failed != tt.wantFail {
				t.Errorf("skipped, failed = %v, %v; want %v, %v (msg %q)", rec.skipped, rec.failed, tt.wantSkip, tt.wantFail, rec.msg)
			}
			if !strings.Contains(rec.msg, tt.wantMissing) {
				t.Errorf("message %q lacks %q", rec.msg, tt.wantMissing)
			}
		})
	}
}

func TestNeedsFunc(t *testing.T) {
	t.Setenv(requireAllEnv, "")
	rec := &recordingTB{TB: t}
	NeedsFunc(rec, "python3 with debugpy", func() string { return "No module named 'debugpy'" })
	if !rec.skipped || !strings.Contains(rec.msg, "needs python3 with debugpy: No module named 'debugpy'") {
		t.Errorf("skipped = %v, msg = %q", rec.skipped, rec.msg)
	}
	rec = &recordingTB{TB: t}
	NeedsFunc(rec, "anything", func() string { return "" })
	if rec.skipped || rec.failed {
		t.Errorf("NeedsFunc with a passing check: skipped = %v, failed = %v", rec.skipped, rec.failed)
	}
}

func TestWriteTree(t *testing.T) {
	dir := t.TempDir()
	WriteTree(t, dir, `A comment that is not a file.
-- go.mod --
module example.com/m
-- pkg/a/a.go --
package a
-- empty.txt --
`)
	want := map[string]string{
		"go.mod":     "module example.com/m\n",
		"pkg/a/a.go": "package a\n",
		"empty.txt":  "",
	}
	got := make(map[string]string)
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		got[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func TestWriteTreeRejects(t *testing.T) {
	tests := []struct {
		name, archive, want string
	}{
		{name: "parent dir", archive: "-- ../escape.txt --\nx\n", want: `"../escape.txt" is an invalid path`},
		{name: "absolute", archive: "-- /etc/x --\nx\n", want: `"/etc/x" is an invalid path`},
		{name: "duplicate", archive: "-- a --\n-- a --\n", want: `duplicate path "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := writeTree(t.TempDir(), txtar.Parse([]byte(tt.archive)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("writeTree error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestParseTimeout(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 60 * time.Second},
		{"90s", 90 * time.Second},
		{"2m", 2 * time.Minute},
		{"soon", 60 * time.Second},
		{"-5s", 60 * time.Second},
	}
	for _, tt := range tests {
		if got := parseTimeout(tt.in); got != tt.want {
			t.Errorf("parseTimeout(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestAliveAndWaitGone(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Error("Alive(self) = false")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if !Alive(pid) {
		t.Error("a running sleep is not Alive")
	}
	cmd.Process.Kill()
	// Not reaped yet: a zombie, which is not alive.
	WaitGone(t, 5*time.Second, pid)
	cmd.Wait()
	if Alive(pid) || Alive(-1) {
		t.Error("a reaped pid or -1 is Alive")
	}
}

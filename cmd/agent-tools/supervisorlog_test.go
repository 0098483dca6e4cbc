package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestSupervisorsLog checks that a capability's supervisor writes its
// events to the run's log on stderr, tagged with the capability, through
// `agent-tools call`: a worker's start and end, and a debug adapter's
// start and its session's end.
func TestSupervisorsLog(t *testing.T) {
	tests := []struct {
		name  string
		needs []string
		tree  string
		args  []string
		want  []string
	}{
		{
			name: "workers",
			args: []string{"--vibe", "--worker", `fast=sh -c "echo hi; exit 3"`, "vibe_spawn", `{"brief":"do x","label":"l"}`},
			want: []string{"worker started", "worker ended", "capability=workers", "worker=w1"},
		},
		{
			name:  "debug",
			needs: []string{"python3"},
			tree:  "-- requirements.txt --\n-- app.py --\nprint(1)\n",
			args:  []string{"debug", `{"op":"launch","program":"app.py"}`},
			want:  []string{"debug adapter started", "debug session ended", "capability=debug", "adapter=debugpy"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testutil.Needs(t, tt.needs...)
			root := t.TempDir()
			testutil.WriteTree(t, root, tt.tree)
			args := append([]string{"call", "--root", root, "--log-level", "info"}, tt.args...)
			cmd := testBinaryCmd(t.Context(), args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if out, err := cmd.Output(); err != nil {
				t.Fatalf("call: %v\n%s\n%s", err, out, stderr.String())
			}
			for _, want := range tt.want {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
			// The debug lines carry the capability: one line holds both.
			if tt.name == "debug" && !lineWith(stderr.String(), "debug adapter started", "capability=debug") {
				t.Errorf("no line has both the adapter's start and capability=debug:\n%s", stderr.String())
			}
		})
	}
}

func lineWith(s string, parts ...string) bool {
	for _, line := range strings.Split(s, "\n") {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(line, p)
		}
		if ok {
			return true
		}
	}
	return false
}

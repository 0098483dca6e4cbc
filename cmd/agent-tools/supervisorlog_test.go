package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestSupervisorsLog checks that a capability's supervisor writes its
// events to the run's log on stderr, tagged with the capability, through
// `agent-tools call`: a worker's start and end; a kernel's start and its
// crash during a cell.
func TestSupervisorsLog(t *testing.T) {
	tests := []struct {
		name  string
		needs func(*testing.T)
		args  func(t *testing.T, root string) []string
		fails bool // the call's result is an error (exit status 1)
		want  []string
	}{
		{
			name: "workers",
			args: func(*testing.T, string) []string {
				return []string{"--vibe", "--worker", `fast=sh -c "echo hi; exit 3"`, "vibe_spawn", `{"brief":"do x","label":"l"}`}
			},
			want: []string{"worker started", "worker ended", "capability=workers", "worker=w1"},
		},
		{
			name:  "eval",
			needs: needsEvalTools,
			args: func(t *testing.T, root string) []string {
				cfg := writeFile(t, root, "config.json", `{"eval":{"python":"`+evalPython+`"}}`)
				return []string{"--config", cfg, "eval", `{"code":"import os\nos._exit(3)","description":"end the kernel"}`}
			},
			fails: true,
			want: []string{
				"INF kernel started capability=eval chosen=configured interpreter=" + evalPython + " lang=python pid=",
				"WRN the kernel exited while running a cell capability=eval cell=1 lang=python pid=",
				`status="exit status 3"`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needs != nil {
				tt.needs(t)
			}
			root := t.TempDir()
			args := append([]string{"call", "--root", root, "--log-level", "info"}, tt.args(t, root)...)
			cmd := testBinaryCmd(t.Context(), args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if ee, ok := errors.AsType[*exec.ExitError](err); tt.fails && ok && ee.ExitCode() == 1 {
				err = nil
			}
			if err != nil {
				t.Fatalf("call: %v\n%s\n%s", err, out, stderr.String())
			}
			for _, want := range tt.want {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
		})
	}
}

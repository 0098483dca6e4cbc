package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestSupervisorsLog checks that a capability's supervisor writes its
// events to the run's log on stderr, tagged with the capability: here a
// worker's start and end, through `agent-tools call`.
func TestSupervisorsLog(t *testing.T) {
	cmd := testBinaryCmd(t.Context(), "call", "--root", t.TempDir(), "--vibe", "--log-level", "info",
		"--worker", `fast=sh -c "echo hi; exit 3"`, "vibe_spawn", `{"brief":"do x","label":"l"}`)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("call: %v\n%s\n%s", err, out, stderr.String())
	}
	for _, want := range []string{"worker started", "worker ended", "capability=workers", "worker=w1"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

package main

import (
	"context"
	"os"
	"testing"

	"github.com/agent-tools/agent-tools/internal/proc"
)

// TestMain doubles as the agent-tools binary: with AGENT_TOOLS_TEST_MAIN=1
// the test binary runs run() with the test-only tools of testtools_test.go
// registered, so tests drive the real server path through real pipes
// without a separate build step (see STYLE.md R22).
func TestMain(m *testing.M) {
	proc.RunReaperIfAsked()
	if os.Getenv("AGENT_TOOLS_BENCH_PEER") == "1" {
		os.Exit(runSDKPeer())
	}
	if os.Getenv("AGENT_TOOLS_TEST_MAIN") == "1" {
		extraTools = testTools
		if os.Getenv("AGENT_TOOLS_TEST_SPINE_ONLY") == "1" {
			// The spine's transcripts pin protocol behaviour with the
			// test tools alone, so that adding or changing a capability
			// tool does not rewrite them.
			capabilities = nil
		}
		os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

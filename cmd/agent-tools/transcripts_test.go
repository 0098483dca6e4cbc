package main

import (
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/conformance"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

func init() {
	conformance.UpdateFlag = flag.Bool("update", false, "rewrite the -- server -- side of the golden transcripts")
}

// testToolName finds a test-only tool's name in a transcript.
var testToolName = regexp.MustCompile(`"test_(echo|write|spawn|block|status|panic)"`)

// TestTranscripts replays every golden transcript under
// conformance/testdata (except the replayer's own unit fixtures) against
// this binary.
func TestTranscripts(t *testing.T) {
	root := filepath.Join("..", "..", "conformance", "testdata")
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "unit" {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".txtar") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts found")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(path, root+string(filepath.Separator)), ".txtar")
		a, err := conformance.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// Transcripts that pin the server spine run with the test tools
		// only (AGENT_TOOLS_TEST_SPINE_ONLY), and say so in their header;
		// the capability transcripts run with every tool that attaches.
		env := []string{"AGENT_TOOLS_TEST_MAIN=1"}
		if a.NeedsTestTools() {
			env = append(env, "AGENT_TOOLS_TEST_SPINE_ONLY=1")
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if !a.NeedsTestTools() && (slices.ContainsFunc(a.Client, isTestTool) || slices.ContainsFunc(a.Server, isTestTool)) {
				t.Errorf("%s uses a test-only tool but its header lacks the line %q: agent-tools replay could not run it", path, conformance.NeedsTestTools)
			}
			conformance.Replay(t, path, startBinary(exe, env), loadedOptions(replayOptions(path)))
		})
	}
}

func isTestTool(msg json.RawMessage) bool { return testToolName.Match(msg) }

// loadedOptions gives each wait of a replay the integration tests' bound
// (60 s, AGENT_TOOLS_TEST_TIMEOUT) rather than replay's 20 s: at load 8 a
// pyright rename waited past 20 s for its first answer.
func loadedOptions(o *conformance.Options) *conformance.Options {
	var out conformance.Options
	if o != nil {
		out = *o
	}
	out.Timeout = max(out.Timeout, testutil.IntegrationTimeout())
	return &out
}

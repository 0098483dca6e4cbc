package main

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/conformance"
)

func init() {
	conformance.UpdateFlag = flag.Bool("update", false, "rewrite the -- server -- side of the golden transcripts")
}

// spineAreas are the transcript folders that pin the server spine. They
// run with the test tools only (AGENT_TOOLS_TEST_SPINE_ONLY); the
// capability folders run with every tool that attaches.
var spineAreas = map[string]bool{"lifecycle": true, "surfaces": true, "errors": true, "cancel": true}

// areaOptions are the replay options of the transcript folders that need
// more than the built-in normalisation.
var areaOptions = map[string]*conformance.Options{
	"eval": {Normalize: interpreterVersions}, // eval_test.go
}

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
		env := []string{"AGENT_TOOLS_TEST_MAIN=1"}
		if spineAreas[strings.SplitN(name, "/", 2)[0]] {
			env = append(env, "AGENT_TOOLS_TEST_SPINE_ONLY=1")
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			conformance.Replay(t, path, startBinary(exe, env), areaOptions[strings.SplitN(name, "/", 2)[0]])
		})
	}
}

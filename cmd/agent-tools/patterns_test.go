package main

// This file tests the patterns capability end to end through the re-executed
// binary: progress notifications for a large tree with the official MCP Go
// SDK client, the config section, and a bad config section in doctor.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

func TestPatternsProgressAndConfig(t *testing.T) {
	root := t.TempDir()
	const files = 600
	for i := range 10 {
		os.Mkdir(filepath.Join(root, fmt.Sprintf("pkg%d", i)), 0o755)
	}
	for i := range files {
		writeFile(t, root, fmt.Sprintf("pkg%d/f%d.go", i%10, i), fmt.Sprintf("package p\n\nfunc f() error { return fmt.Errorf(\"e%d\") }\n", i))
	}
	cfg := writeFile(t, t.TempDir(), "cfg.json", `{"patterns": {"workers": 1, "max_file_bytes": 100000}}`)
	ctx, cancel := context.WithTimeout(t.Context(), testutil.IntegrationTimeout())
	defer cancel()
	cmd := testBinaryCmd(ctx, "serve", "--log-level", "warn", "--root", root, "--config", cfg)
	cmd.Stderr = t.Output()
	var progress atomic.Int64
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk-patterns", Version: "v0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.Add(1) },
	})
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	defer session.Close()
	params := &mcp.CallToolParams{Name: "ast_grep", Arguments: map[string]any{"pattern": "fmt.Errorf($$$A)", "max_results": 2}}
	params.SetProgressToken("p1")
	res, err := session.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.Contains(text, "2 of 600 matches shown (600 files matched, 600 searched)") {
		t.Errorf("ast_grep answered (isError %v):\n%s", res.IsError, text)
	}
	if progress.Load() == 0 {
		t.Error("no progress notification for a 600-file search with a progressToken")
	}
}

func TestPatternsBadConfigSection(t *testing.T) {
	cfg := writeFile(t, t.TempDir(), "cfg.json", `{"patterns": {"threads": 2}}`)
	out, _ := testBinaryCmd(t.Context(), "doctor", "--root", t.TempDir(), "--config", cfg).CombinedOutput()
	if !strings.Contains(string(out), `config patterns: unknown key "threads" (known: max_file_bytes, workers)`) {
		t.Errorf("doctor with a bad patterns section:\n%s", out)
	}
}

// TestPatternsDoctorGrammars checks doctor lists the grammars with their
// module versions (dart is listed either way: built, or "run make").
func TestPatternsDoctorGrammars(t *testing.T) {
	out, err := testBinaryCmd(t.Context(), "doctor", "--root", t.TempDir()).CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"grammar go", "tree-sitter-go v0.25.0", "grammar python", "grammar dart"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
}

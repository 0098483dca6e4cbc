package lspbridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestChangedOnDiskReported pins issue 24's "every other harness" half on
// gopls: a write behind the servers' backs (an agent CLI's own edit tool,
// sed) that breaks a caller in another file is reported by the next
// answer, once; the fix is reported as clean; breaking it again reports it
// again.
func TestChangedOnDiskReported(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	root := jsonrpc2Tree(t)
	s := newSup(t, nil)
	ctx := testCtx(t)
	ts := &toolSet{sup: s, root: root}
	stream := filepath.Join(root, "stream.go")
	if _, err := s.Hover(ctx, Request{Root: root, File: "stream.go", Line: lineOf(t, stream, "func NewPlainObjectStream("), Symbol: "NewPlainObjectStream"}); err != nil {
		t.Fatal(err)
	}
	if got := ts.checkChanged(ctx, root); got != "" {
		t.Fatalf("nothing changed yet, but the report says:\n%s", got)
	}
	orig, _ := os.ReadFile(stream)
	broken := strings.Replace(string(orig), "func NewPlainObjectStream(conn io.ReadWriteCloser) ObjectStream {", "func NewPlainObjectStream(conn io.ReadWriteCloser, bufSize int) ObjectStream {", 1)
	writeFile(t, stream, broken) // as sed -i would: no didWrite
	got := ts.checkChanged(ctx, root)
	mustContain(t, got, "changed on disk since the language servers last saw them: stream.go", "new errors and warnings after this write:", "conn_test.go:", "not enough arguments in call to jsonrpc2.NewPlainObjectStream")
	if again := ts.checkChanged(ctx, root); again != "" {
		t.Errorf("the same change was reported twice:\n%s", again)
	}

	// Fixed: said so. Broken again: reported again, not deduplicated away.
	writeFile(t, stream, string(orig))
	r, err := ts.written(ctx, root, lspArgs{Action: "written"})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, r.Text(), "changed on disk since the language servers last saw them: stream.go", "no new errors or warnings")
	writeFile(t, stream, broken)
	r, err = ts.written(ctx, root, lspArgs{Action: "written", File: "stream.go", Format: "claude_hook"})
	if err != nil {
		t.Fatal(err)
	}
	var hook struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(r.Text()), &hook); err != nil {
		t.Fatalf("the claude_hook answer is not JSON: %v\n%s", err, r.Text())
	}
	if hook.HookSpecificOutput.HookEventName != "PostToolUse" {
		t.Errorf("hookEventName = %q, want PostToolUse", hook.HookSpecificOutput.HookEventName)
	}
	mustContain(t, hook.HookSpecificOutput.AdditionalContext, "conn_test.go:", "not enough arguments in call to jsonrpc2.NewPlainObjectStream")

	// A file no server checks: the hook has nothing to add.
	writeFile(t, filepath.Join(root, "NOTES.md"), "# notes\n")
	r, err = ts.written(ctx, root, lspArgs{Action: "written", File: "NOTES.md", Format: "claude_hook"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text() != "{}" {
		t.Errorf("a Markdown file's hook answer = %q, want {}", r.Text())
	}
}

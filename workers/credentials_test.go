package workers

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

func TestCredentialsFor(t *testing.T) {
	for cmd, want := range map[string][]string{
		"claude -p --output-format stream-json --verbose": {"ANTHROPIC_*", "CLAUDE_CODE_OAUTH_TOKEN"},
		"exec /usr/local/bin/codex exec --json -":         {"OPENAI_*", "CODEX_*"},
		"FOO=1 gemini -p go":                              {"GEMINI_*", "GOOGLE_*"},
		"npx -y @openai/codex@0.169.0 exec -":             {"OPENAI_*", "CODEX_*"},
		"sh ./fakeagent.sh":                               nil,
		"my-agent --fast":                                 nil,
	} {
		if got := credentialsFor(cmd); !slices.Equal(got, want) {
			t.Errorf("credentialsFor(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestWorkerCredentials: a worker whose agent CLI is claude inherits
// ANTHROPIC_API_KEY and nothing else that looks like a credential; a
// worker running another program inherits neither.
func TestWorkerCredentials(t *testing.T) {
	testutil.Needs(t, "sh", "env")
	bin := t.TempDir()
	// A stand-in for the claude CLI (none is installed here): it prints
	// the environment it got as its result.
	script := "#!/bin/sh\ncat >/dev/null\nenv | grep -E '^(ANTHROPIC_API_KEY|FOO_API_KEY|GOFLAGS)=' | sort | tr '\\n' ' '\n"
	for _, name := range []string{"claude", "other-agent"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("ANTHROPIC_API_KEY", "for-claude")
	t.Setenv("FOO_API_KEY", "for-nobody")
	t.Setenv("GOFLAGS", "-mod=mod")
	cfg, err := ParseConfig(nil, map[string]string{"fast": "claude -p", "good": "other-agent"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPool(&cfg, nil)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testutil.IntegrationTimeout())
		defer cancel()
		p.Close(ctx)
	})
	root := t.TempDir()
	for tier, want := range map[string]string{
		"fast": "ANTHROPIC_API_KEY=for-claude GOFLAGS=-mod=mod",
		"good": "GOFLAGS=-mod=mod",
	} {
		st, err := p.Spawn(root, "print your environment", tier, tier)
		if err != nil {
			t.Fatal(err)
		}
		if r := waitDone(t, p, st.ID); r.State != Done || r.Result != want {
			t.Errorf("the %s worker (%s) saw %q, want %q", tier, cfg.Commands[tier], r.Result, want)
		}
	}
}

// This file decides which credentials a worker's agent CLI gets: children
// started through internal/proc inherit none by default, but an agent CLI
// cannot run without its model provider's key.

package workers

import (
	"path/filepath"
	"strings"
)

// cliCredentials maps an agent CLI's program name to the variables (exact,
// or a prefix followed by "*") it reads its model credentials from, per
// each CLI's documentation. A worker whose program is not listed gets
// none of ours beyond the run-wide pass list (the env section of
// --config).
var cliCredentials = map[string][]string{
	// Claude Code: ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN, and the
	// long-lived token of `claude setup-token`.
	"claude": {"ANTHROPIC_*", "CLAUDE_CODE_OAUTH_TOKEN"},
	// Codex: OPENAI_API_KEY, and CODEX_API_KEY for codex exec.
	"codex": {"OPENAI_*", "CODEX_*"},
	// Gemini CLI: GEMINI_API_KEY, or GOOGLE_API_KEY /
	// GOOGLE_APPLICATION_CREDENTIALS for Vertex AI.
	"gemini": {"GEMINI_*", "GOOGLE_*"},
	// opencode reads the key of whichever provider its config names; these
	// are the common ones.
	"opencode": {"OPENCODE_*", "ANTHROPIC_*", "OPENAI_*", "GEMINI_*", "GOOGLE_*", "OPENROUTER_*"},
	"amp":      {"AMP_*"},
}

// npmNames maps the npm packages of the CLIs (run through npx) to their
// program names.
var npmNames = map[string]string{
	"@anthropic-ai/claude-code": "claude",
	"@openai/codex":             "codex",
	"@google/gemini-cli":        "gemini",
	"opencode-ai":               "opencode",
	"@sourcegraph/amp":          "amp",
}

// credentialsFor returns the credentials the agent CLI a worker command
// runs needs: the CLI is the first word that is not a VAR=value
// assignment, exec, env or npx (and npx's flags), by its base name or its
// npm package.
func credentialsFor(command string) []string {
	for _, w := range strings.Fields(command) {
		w = strings.Trim(w, `"'`)
		switch {
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "-"), w == "exec", w == "env", w == "npx", w == "bunx",
			strings.HasPrefix(w, "-"):
			continue
		}
		if at := strings.LastIndex(w, "@"); at > 0 {
			w = w[:at] // @openai/codex@0.169.0
		}
		if name, ok := npmNames[w]; ok {
			return cliCredentials[name]
		}
		return cliCredentials[filepath.Base(w)]
	}
	return nil
}

//go:build linux

package proc_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

func TestIsCredential(t *testing.T) {
	for _, name := range []string{
		"ANTHROPIC_API_KEY", "CLAUDE_CODE_MESSAGING_TOKEN", "OPENAI_API_KEY", "GITHUB_TOKEN", "GH_TOKEN",
		"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID", "GOOGLE_APPLICATION_CREDENTIALS",
		"AZURE_CLIENT_SECRET", "TWINE_PASSWORD", "PGPASSWORD", "NPM_CONFIG__AUTH", "NPM_CONFIG__AUTHTOKEN",
		"AZURE_DEVOPS_EXT_PAT", "TOKEN", "API_KEY", "foo_api_key", "HF_TOKEN", "STRIPE_APIKEY",
	} {
		if !proc.IsCredential(name) {
			t.Errorf("IsCredential(%q) = false, want true", name)
		}
	}
	for _, name := range []string{
		"PATH", "HOME", "USER", "SHELL", "TERM", "LANG", "LC_ALL", "TMPDIR", "PWD",
		"GOPATH", "GOFLAGS", "GOPROXY", "GOPRIVATE", "GONOSUMDB", "GOAUTH", "GOROOT", "GOCACHE", "GOTOOLCHAIN", "CGO_ENABLED",
		"PYTHONPATH", "LD_LIBRARY_PATH", "NODE_PATH", "VIRTUAL_ENV", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN",
		"SSH_AUTH_SOCK", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY",
		"NODE_OPTIONS", "TOKENIZERS_PARALLELISM", "GIT_ASKPASS", "KEYBOARD", "CLAUDECODE", "AGENT_TOOLS_WORKER_ID",
		"SECRETS_DIR", "TOKEN_FILE_PATH",
	} {
		if proc.IsCredential(name) {
			t.Errorf("IsCredential(%q) = true, want false", name)
		}
	}
}

func TestCheckNames(t *testing.T) {
	if err := proc.CheckNames([]string{"HF_TOKEN", "AWS_*", "_X1"}); err != nil {
		t.Errorf("CheckNames of good names: %v", err)
	}
	for _, bad := range []string{"*", "", "1ABC", "A-B", "A*B", "A B"} {
		if err := proc.CheckNames([]string{bad}); err == nil {
			t.Errorf("CheckNames(%q) = nil, want an error", bad)
		}
	}
	if err := proc.SetEnvPolicy(proc.EnvPolicy{Pass: []string{"NOT VALID"}}); err == nil {
		t.Error("SetEnvPolicy accepted a bad name")
	}
}

// setPolicy sets p for the test and restores the default after it, and
// returns what its Withheld hook was told.
func setPolicy(t *testing.T, pass ...string) func() map[string][]string {
	t.Helper()
	var mu sync.Mutex
	told := map[string][]string{}
	err := proc.SetEnvPolicy(proc.EnvPolicy{Pass: pass, Withheld: func(child string, names []string) {
		mu.Lock()
		defer mu.Unlock()
		told[child] = names
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.SetEnvPolicy(proc.EnvPolicy{}) })
	return func() map[string][]string {
		mu.Lock()
		defer mu.Unlock()
		return told
	}
}

// childEnv runs env through Output with spec's name and environment and
// returns the variables it saw.
func childEnv(t *testing.T, spec proc.Spec) map[string]string {
	t.Helper()
	spec.Path, spec.Args = "env", nil
	res, err := proc.Output(t.Context(), spec, testutil.IntegrationTimeout(), 0)
	if err != nil {
		t.Fatalf("env: %v", err)
	}
	seen := map[string]string{}
	for _, l := range strings.Split(string(res.Stdout), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			seen[k] = v
		}
	}
	return seen
}

func TestChildDoesNotInheritCredentials(t *testing.T) {
	testutil.Needs(t, "env")
	t.Setenv("FOO_API_KEY", "sekrit-1")
	t.Setenv("CLAUDE_CODE_MESSAGING_TOKEN", "sekrit-2")
	t.Setenv("PASSED_TOKEN", "handed-on")
	t.Setenv("GOFLAGS", "-mod=mod")
	told := setPolicy(t, "PASSED_TOKEN")

	seen := childEnv(t, proc.Spec{Name: "kernel"})
	for _, name := range []string{"FOO_API_KEY", "CLAUDE_CODE_MESSAGING_TOKEN"} {
		if _, ok := seen[name]; ok {
			t.Errorf("the child sees %s", name)
		}
	}
	if seen["PASSED_TOKEN"] != "handed-on" {
		t.Errorf("PASSED_TOKEN, passed by the policy, = %q in the child", seen["PASSED_TOKEN"])
	}
	if seen["GOFLAGS"] != "-mod=mod" || seen["PATH"] == "" || seen["HOME"] == "" {
		t.Errorf("the child lost GOFLAGS, PATH or HOME: %v", seen)
	}
	names := told()["kernel"]
	if !slices.Contains(names, "FOO_API_KEY") || !slices.Contains(names, "CLAUDE_CODE_MESSAGING_TOKEN") || slices.Contains(names, "PASSED_TOKEN") {
		t.Errorf("the Withheld hook was told %v", names)
	}
	for _, n := range names {
		if strings.Contains(n, "sekrit") {
			t.Errorf("the Withheld hook was given a value: %q", n)
		}
	}
	if w := proc.Withheld(); !slices.Contains(w, "FOO_API_KEY") || slices.Contains(w, "PASSED_TOKEN") {
		t.Errorf("Withheld() = %v", w)
	}
}

func TestCredentialsOfOneChild(t *testing.T) {
	testutil.Needs(t, "env")
	t.Setenv("ANTHROPIC_API_KEY", "for-claude")
	t.Setenv("FOO_API_KEY", "for-nobody")
	setPolicy(t)

	seen := childEnv(t, proc.Spec{Name: "worker", Credentials: []string{"ANTHROPIC_*"}})
	if seen["ANTHROPIC_API_KEY"] != "for-claude" {
		t.Errorf("a child given ANTHROPIC_* sees ANTHROPIC_API_KEY = %q", seen["ANTHROPIC_API_KEY"])
	}
	if _, ok := seen["FOO_API_KEY"]; ok {
		t.Error("a child given ANTHROPIC_* sees FOO_API_KEY")
	}
	other := childEnv(t, proc.Spec{Name: "other"})
	if _, ok := other["ANTHROPIC_API_KEY"]; ok {
		t.Error("another child sees ANTHROPIC_API_KEY")
	}
	// An explicit environment is filtered the same way.
	explicit := childEnv(t, proc.Spec{Name: "explicit", Env: []string{"PATH=/usr/bin:/bin", "BAR_SECRET=x", "KEEP=1"}})
	if _, ok := explicit["BAR_SECRET"]; ok || explicit["KEEP"] != "1" {
		t.Errorf("an explicit Env came through as %v", explicit)
	}
}

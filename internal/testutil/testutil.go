// Package testutil holds helpers shared by the integration tests of every
// package: saying which external tools a test needs ([Needs], [NeedsFunc]),
// writing txtar workspaces ([WriteTree]), the integration timeout knob
// ([IntegrationTimeout]), the one polling loop ([Eventually], [Poll]), a log
// sink for zerolog ([LogBuffer]), and the process checks of supervision
// tests ([Alive], [WaitGone], [ProcessesIn], [Descendants], [WaitNoneIn]),
// and the replayable seed of a random draw ([Seed]).
//
// A test that needs a tool skips when it is missing, except in CI, where
// AGENT_TOOLS_REQUIRE_ALL=1 turns the skip into a failure.
package testutil

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/agent-tools/agent-tools/internal/proc"
)

const (
	requireAllEnv  = "AGENT_TOOLS_REQUIRE_ALL"
	timeoutEnv     = "AGENT_TOOLS_TEST_TIMEOUT"
	defaultTimeout = 60 * time.Second
	installHint    = "run scripts/install-tools.sh"
)

// RequireAll reports whether AGENT_TOOLS_REQUIRE_ALL=1, i.e. whether a
// missing tool fails the test instead of skipping it.
func RequireAll() bool { return os.Getenv(requireAllEnv) == "1" }

// Needs skips the test when any of the named executables is missing from
// PATH, or fails it when [RequireAll].
func Needs(t testing.TB, tools ...string) {
	t.Helper()
	var missing []string
	for _, tool := range tools {
		if _, err := proc.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return
	}
	report(t, verdict(missingToolsMsg(missing), RequireAll()))
}

// NeedsFunc is Needs for a check that is not a PATH lookup (for example
// "python3 can import debugpy"). check returns "" when all is well, else why
// not; what names the requirement.
func NeedsFunc(t testing.TB, what string, check func() string) {
	t.Helper()
	why := check()
	if why == "" {
		return
	}
	report(t, verdict(fmt.Sprintf("needs %s: %s", what, why), RequireAll()))
}

// decision is what to do about a missing requirement.
type decision struct {
	fail bool // fail the test; otherwise skip it
	msg  string
}

// verdict decides between skip and fail for a missing requirement described
// by what, and builds the message.
func verdict(what string, requireAll bool) decision {
	if requireAll {
		return decision{fail: true, msg: fmt.Sprintf("%s; %s (failing, not skipping: %s=1)", what, installHint, requireAllEnv)}
	}
	return decision{msg: fmt.Sprintf("%s; %s (skipping; %s=1 makes this a failure)", what, installHint, requireAllEnv)}
}

func missingToolsMsg(missing []string) string {
	return fmt.Sprintf("needs %s: not found in PATH", strings.Join(missing, ", "))
}

func report(t testing.TB, d decision) {
	t.Helper()
	if d.fail {
		t.Fatal(d.msg)
		return
	}
	t.Skip(d.msg)
}

// WriteTree writes the files of a txtar archive into dir, creating
// directories as needed. File names must be local paths (no "..", not
// absolute). Any error fails the test.
func WriteTree(t testing.TB, dir, archive string) {
	t.Helper()
	if err := writeTree(dir, txtar.Parse([]byte(archive))); err != nil {
		t.Fatalf("WriteTree: %v", err)
	}
}

func writeTree(dir string, ar *txtar.Archive) error {
	fsys, err := txtar.FS(ar) // refuses names that are not local paths, and duplicates
	if err != nil {
		return err
	}
	return os.CopyFS(dir, fsys)
}

// IntegrationTimeout is how long one integration step may take:
// AGENT_TOOLS_TEST_TIMEOUT (a Go duration such as "90s"), default 60s. An
// unparsable or non-positive value is ignored.
func IntegrationTimeout() time.Duration {
	return parseTimeout(os.Getenv(timeoutEnv))
}

func parseTimeout(s string) time.Duration {
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d
	}
	return defaultTimeout
}

package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// TestDeprecationWarningsLogged: old spellings in --config are warned
// about through the run's logger on stderr, one warn-level line tagged
// with the capability, and never on stdout (the protocol's stream).
func TestDeprecationWarningsLogged(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "config.json", `{"debug": {"stopWait": "3s"}, "workers": {"ask_timeout_seconds": 2}, "lsp": {"readyTimeout": "20s"}}`)
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"doctor", "--root", dir, "--config", cfg}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, stderr.String())
	}
	if strings.Contains(stdout.String(), "deprecated") {
		t.Errorf("a deprecation warning on stdout:\n%s", stdout.String())
	}
	for _, want := range []string{
		`WRN config debug.stopWait is deprecated: write "stop_wait"; the old spelling is read until the next release capability=debug`,
		`WRN config lsp.readyTimeout is deprecated: write "ready_timeout"; the old spelling is read until the next release capability=lsp`,
		`WRN config workers.ask_timeout_seconds is deprecated: write "ask_timeout" ({"ask_timeout":"2s"}); the old spelling is read until the next release capability=workers`,
	} {
		line := regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{3} ` + regexp.QuoteMeta(want) + `$`)
		if !line.MatchString(stderr.String()) {
			t.Errorf("stderr lacks the log line %q:\n%s", want, stderr.String())
		}
	}
}

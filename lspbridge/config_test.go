package lspbridge

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseConfig(t *testing.T) {
	var warn strings.Builder
	opts, err := parseConfig([]byte(`{"ready_timeout": "20s", "index_timeout": "45s", "servers": [
		{"name": "gopls", "command": ["gopls", "-remote=auto"], "settings": {"gopls": {"staticcheck": true}}},
		{"name": "zls", "command": ["zls"], "extensions": {".zig": "zig"}, "preferred_markers": ["zls.json"], "markers": ["build.zig"], "checker_format": "gcc", "background_index": true},
		{"name": "dart", "disabled": true}]}`), &warn)
	if err != nil {
		t.Fatal(err)
	}
	if opts.ReadyTimeout != 20*time.Second || opts.IndexTimeout != 45*time.Second || opts.RequestTimeout != defaultOptions.RequestTimeout || opts.DiagnosticCap != defaultOptions.DiagnosticCap {
		t.Errorf("timeouts: ready %v, index %v, request %v, diagnostic %v", opts.ReadyTimeout, opts.IndexTimeout, opts.RequestTimeout, opts.DiagnosticCap)
	}
	if warn.Len() != 0 {
		t.Errorf("warnings for current keys: %s", warn.String())
	}
	s := NewSupervisor(opts, nil)
	g, _ := s.configFor("x.go")
	if diff := cmp.Diff([]string{"gopls", "-remote=auto"}, g.Command); diff != "" || g.Markers[0] != "go.mod" || string(g.Settings) != `{"gopls":{"staticcheck":true}}` {
		t.Errorf("gopls override (-want +got)\n%s\nsettings %s", diff, g.Settings)
	}
	if z, err := s.configFor("a.zig"); err != nil || z.Name != "zls" || z.PreferredMarkers[0] != "zls.json" || z.CheckerFormat != "gcc" || !z.BackgroundIndex {
		t.Errorf("added server: %+v %v", z, err)
	}
	if _, err := s.configFor("a.dart"); err == nil {
		t.Error("a disabled server still handles its files")
	}
	bad := map[string]string{
		`{"servers": [{"name": "x"}]}`:            `config lsp.servers[0]: new server "x" needs command, extensions and markers`,
		`{"servers": [{"command": ["x"]}]}`:       `config lsp.servers[0]: a server needs a name`,
		`{"ready_timeout": "soon"}`:               `config lsp.ready_timeout: want a positive duration such as "90s" or "5m", got "soon"`,
		`{"request_timeout": 30}`:                 `config lsp.request_timeout: want a duration string such as "30s", got the number 30`,
		`{"unknown": 1}`:                          `config lsp: unknown key "unknown" (known: ready_timeout, request_timeout, index_timeout, diagnostic_timeout, servers)`,
		`{"servers": [{"name": "x", "mark": 1}]}`: `config lsp.servers[0]: unknown key "mark"`,
	}
	for in, want := range bad {
		if _, err := parseConfig([]byte(in), nil); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: want an error starting %q, got %v", in, want, err)
		}
	}
}

// TestParseConfigOldKeys: the camelCase keys of earlier releases still
// work, each with a deprecation warning naming the new key.
func TestParseConfigOldKeys(t *testing.T) {
	var warn strings.Builder
	opts, err := parseConfig([]byte(`{"readyTimeout": "20s", "requestTimeout": "2s", "indexTimeout": "5s", "diagnosticTimeout": "60s",
		"servers": [{"name": "zls", "command": ["zls"], "extensions": {".zig": "zig"}, "preferredMarkers": ["build.zig"], "checkerFormat": "gcc", "backgroundIndex": true, "initializationOptions": {"a": 1}}]}`), &warn)
	if err != nil {
		t.Fatal(err)
	}
	if opts.ReadyTimeout != 20*time.Second || opts.RequestTimeout != 2*time.Second || opts.IndexTimeout != 5*time.Second || opts.DiagnosticCap != time.Minute {
		t.Errorf("timeouts: ready %v, request %v, index %v, diagnostic %v", opts.ReadyTimeout, opts.RequestTimeout, opts.IndexTimeout, opts.DiagnosticCap)
	}
	z := opts.Servers[len(opts.Servers)-1]
	if z.PreferredMarkers[0] != "build.zig" || z.CheckerFormat != "gcc" || !z.BackgroundIndex || string(z.InitializationOptions) != `{"a":1}` {
		t.Errorf("server read from old keys: %+v", z)
	}
	for _, w := range []string{
		`config lsp.readyTimeout is deprecated: write "ready_timeout"`,
		`config lsp.diagnosticTimeout is deprecated: write "diagnostic_timeout"`,
		`config lsp.servers[0].preferredMarkers is deprecated: write "preferred_markers"`,
		`config lsp.servers[0].initializationOptions is deprecated: write "initialization_options"`,
	} {
		if !strings.Contains(warn.String(), w) {
			t.Errorf("warnings lack %q:\n%s", w, warn.String())
		}
	}
	if n := strings.Count(warn.String(), "\n"); n != 8 {
		t.Errorf("%d warnings, want 8 (one per old key):\n%s", n, warn.String())
	}
}

// TestREADMEConfigExample: the lsp config example in the README decodes
// without a warning.
func TestREADMEConfigExample(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "```json\n{\"lsp\": {")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README has no lsp config example")
	}
	var file struct{ LSP json.RawMessage }
	if err := json.Unmarshal([]byte(`{"lsp": {`+block), &file); err != nil {
		t.Fatalf("the README's example is not JSON: %v", err)
	}
	var warn strings.Builder
	opts, err := parseConfig(file.LSP, &warn)
	if err != nil || warn.Len() != 0 {
		t.Fatalf("the README's example: %v %s", err, warn.String())
	}
	if opts.ReadyTimeout != 20*time.Second || !slices.ContainsFunc(opts.Servers, func(c ServerConfig) bool { return c.Name == "zls" }) {
		t.Errorf("the README's example decoded to %+v", opts)
	}
}

func TestParseChecker(t *testing.T) {
	tests := []struct {
		format, out string
		want        []string
	}{
		{"gcc", "# example.com/fx\nvet: ./bad.go:3:15: cannot use \"x\" as int\n./main.go:4: missing return\n", []string{`bad.go:3:15  error  cannot use "x" as int`, "main.go:4:1  error  missing return"}},
		{"gcc", "src/main.rs:2:5: error[E0308]: mismatched types\nsrc/main.rs:1:1: warning: unused\n", []string{"src/main.rs:2:5  error  mismatched types [E0308]", "src/main.rs:1:1  warning  unused"}},
		{"tsc", "bad.ts(1,14): error TS2322: Type 'string' is not assignable to type 'number'.\n", []string{"bad.ts:1:14  error  Type 'string' is not assignable to type 'number'. [tsc TS2322]"}},
		{"pyright-json", `{"generalDiagnostics": [{"file": "/w/bad.py", "severity": "error", "message": "no", "rule": "reportX", "range": {"start": {"line": 0, "character": 9}, "end": {"line": 0, "character": 12}}}]}`, []string{"bad.py:1:10  error  no [pyright reportX]"}},
		{"dart-machine", "ERROR|COMPILE_TIME_ERROR|INVALID_ASSIGNMENT|/w/lib/a.dart|3|9|3|A value of type 'String' can't be assigned\n", []string{"lib/a.dart:3:9  error  A value of type 'String' can't be assigned [dart invalid_assignment]"}},
		// Two identical errors on one line, at different columns: two
		// entries, also after merging (diagnostics "*" merges what
		// several reporters said).
		{"gcc", "src/main.rs:2:18: error[E0308]: mismatched types\nsrc/main.rs:2:37: error[E0308]: mismatched types\n", []string{"src/main.rs:2:18  error  mismatched types [E0308]", "src/main.rs:2:37  error  mismatched types [E0308]"}},
		{"tsc", "a.ts(1,12): error TS7006: Parameter 'p' implicitly has an 'any' type.\na.ts(1,28): error TS7006: Parameter 'p' implicitly has an 'any' type.\n", []string{"a.ts:1:12  error  Parameter 'p' implicitly has an 'any' type. [tsc TS7006]", "a.ts:1:28  error  Parameter 'p' implicitly has an 'any' type. [tsc TS7006]"}},
		{"pyright-json", `{"generalDiagnostics": [{"file": "/w/a.py", "severity": "error", "message": "\"u\" is not defined", "rule": "reportUndefinedVariable", "range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 5}}}, {"file": "/w/a.py", "severity": "error", "message": "\"u\" is not defined", "rule": "reportUndefinedVariable", "range": {"start": {"line": 0, "character": 8}, "end": {"line": 0, "character": 9}}}]}`, []string{`a.py:1:5  error  "u" is not defined [pyright reportUndefinedVariable]`, `a.py:1:9  error  "u" is not defined [pyright reportUndefinedVariable]`}},
		{"dart-machine", "ERROR|COMPILE_TIME_ERROR|UNDEFINED_IDENTIFIER|/w/lib/a.dart|3|9|1|Undefined name 'u'.\nERROR|COMPILE_TIME_ERROR|UNDEFINED_IDENTIFIER|/w/lib/a.dart|3|13|1|Undefined name 'u'.\n", []string{"lib/a.dart:3:9  error  Undefined name 'u'. [dart undefined_identifier]", "lib/a.dart:3:13  error  Undefined name 'u'. [dart undefined_identifier]"}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			var got []string
			for _, d := range mergeDuplicates(parseChecker(tt.format, "/w", "/w", []byte(tt.out))) {
				got = append(got, d.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

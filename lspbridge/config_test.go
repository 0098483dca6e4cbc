package lspbridge

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseConfig(t *testing.T) {
	opts, err := ParseConfig([]byte(`{"readyTimeout": "20s", "servers": [
		{"name": "gopls", "command": ["gopls", "-remote=auto"], "settings": {"gopls": {"staticcheck": true}}},
		{"name": "zls", "command": ["zls"], "extensions": {".zig": "zig"}, "markers": ["build.zig"]},
		{"name": "dart", "disabled": true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if opts.ReadyTimeout.String() != "20s" {
		t.Errorf("readyTimeout: %v", opts.ReadyTimeout)
	}
	s := NewSupervisor(opts, nil)
	g, _ := s.configFor("x.go")
	if diff := cmp.Diff([]string{"gopls", "-remote=auto"}, g.Command); diff != "" || g.Markers[0] != "go.mod" {
		t.Errorf("gopls override (-want +got)\n%s", diff)
	}
	if z, err := s.configFor("a.zig"); err != nil || z.Name != "zls" {
		t.Errorf("added server: %v %v", z, err)
	}
	if _, err := s.configFor("a.dart"); err == nil {
		t.Error("a disabled server still handles its files")
	}
	for _, bad := range []string{`{"servers": [{"name": "x"}]}`, `{"readyTimeout": "soon"}`, `{"unknown": 1}`} {
		if _, err := ParseConfig([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "lsp section") {
			t.Errorf("%s: want an lsp section error, got %v", bad, err)
		}
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
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			var got []string
			for _, d := range parseChecker(tt.format, "/w", "/w", []byte(tt.out)) {
				got = append(got, d.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

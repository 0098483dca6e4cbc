package workers

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/config"
	"github.com/google/go-cmp/cmp"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		section string
		flags   map[string]string
		want    Options
		err     string
	}{
		{name: "defaults", want: defaultOptions},
		{name: "flags override the file", section: `{"commands":{"fast":"a","good":"b"},"ask_timeout":"1.5s","max_running":2,"log_bytes":4096}`,
			flags: map[string]string{"fast": "c"},
			want:  Options{Commands: map[string]string{"fast": "c", "good": "b"}, AskTimeout: config.Duration(1500 * time.Millisecond), MaxRunning: 2, LogBytes: 4096, WaitTimeout: config.Duration(4 * time.Minute)}},
		{name: "old seconds spelling", section: `{"ask_timeout_seconds":0.25,"wait_timeout_seconds":2}`,
			want: Options{AskTimeout: config.Duration(250 * time.Millisecond), MaxRunning: 4, LogBytes: 256 << 10, WaitTimeout: config.Duration(2 * time.Second)}},
		{name: "unknown field", section: `{"timeout":3}`, err: `config workers: unknown key "timeout"`},
		{name: "unknown tier", section: `{"commands":{"slow":"x"}}`, err: `unknown tier "slow"`},
		{name: "bad timeout", section: `{"ask_timeout_seconds":0}`, err: "config workers.ask_timeout: want a positive duration"},
		{name: "number for a duration", section: `{"ask_timeout":5}`, err: `config workers.ask_timeout: want a duration string such as "5s"`},
		{name: "bad max", section: `{"max_running":0}`, err: "max_running: want ≥ 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseConfig(json.RawMessage(tt.section), tt.flags, nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want.Commands == nil {
				tt.want.Commands = map[string]string{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProgram(t *testing.T) {
	root := t.TempDir()
	if p, ok := Program("FOO=1 exec sh -c 'x'", root); !ok || !strings.HasSuffix(p, "/sh") {
		t.Errorf("sh: %q %v", p, ok)
	}
	if _, ok := Program("no-such-agent-cli --json", root); ok {
		t.Error("a missing program was found")
	}
	if p, ok := Program("./agent.sh", root); ok || p != root+"/agent.sh" {
		t.Errorf("relative: %q %v", p, ok)
	}
}

// TestNewPoolDefaults: nil options, and zero fields, take the defaults,
// as the other supervisors' constructors do.
func TestNewPoolDefaults(t *testing.T) {
	if got := NewPool(nil, nil).opts; !cmp.Equal(got, defaultOptions) {
		t.Errorf("nil options: %+v, want %+v", got, defaultOptions)
	}
	got := NewPool(&Options{Commands: map[string]string{"fast": "x"}, MaxRunning: 2}, nil).opts
	want := defaultOptions
	want.Commands, want.MaxRunning = map[string]string{"fast": "x"}, 2
	if !cmp.Equal(got, want) {
		t.Errorf("zero fields: %+v, want %+v", got, want)
	}
}

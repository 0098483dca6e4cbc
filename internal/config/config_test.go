package config

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

type server struct {
	Name       string   `json:"name"`
	Command    []string `json:"command"`
	InitTimout Duration `json:"init_timeout"`
}

type section struct {
	Timeout    Duration          `json:"timeout"`
	AskTimeout Duration          `json:"ask_timeout" was:"ask_timeout_seconds"`
	StopWait   Duration          `json:"stop_wait"`
	MaxRunning int               `json:"max_running"`
	Commands   map[string]string `json:"commands"`
	Servers    []server          `json:"servers"`
}

func TestDecode(t *testing.T) {
	defaults := section{Timeout: Duration(5 * time.Minute), MaxRunning: 4}
	tests := []struct {
		name, in string
		want     func(s *section) bool
		warn     string // a substring of the warnings, "" for none
		err      string // a substring of the error, "" for none
	}{
		{name: "nil keeps defaults", in: ``, want: func(s *section) bool { return s.Timeout.D() == 5*time.Minute && s.MaxRunning == 4 }},
		{name: "null keeps defaults", in: `null`, want: func(s *section) bool { return s.MaxRunning == 4 }},
		{name: "current keys", in: `{"timeout":"90s","stop_wait":"2s","max_running":2,"commands":{"fast":"x"}}`,
			want: func(s *section) bool {
				return s.Timeout.D() == 90*time.Second && s.StopWait.D() == 2*time.Second && s.MaxRunning == 2 && s.Commands["fast"] == "x"
			}},
		{name: "camelCase accepted with a warning", in: `{"stopWait":"3s","maxRunning":1}`,
			want: func(s *section) bool { return s.StopWait.D() == 3*time.Second && s.MaxRunning == 1 },
			warn: `config workers.stopWait is deprecated: write "stop_wait"`},
		{name: "old seconds key accepted with a warning", in: `{"ask_timeout_seconds":1.5}`,
			want: func(s *section) bool { return s.AskTimeout.D() == 1500*time.Millisecond },
			warn: `config workers.ask_timeout_seconds is deprecated: write "ask_timeout" ({"ask_timeout":"1.5s"})`},
		{name: "nested camelCase", in: `{"servers":[{"name":"x","initTimeout":"4s"}]}`,
			want: func(s *section) bool { return len(s.Servers) == 1 && s.Servers[0].InitTimout.D() == 4*time.Second },
			warn: `config workers.servers[0].initTimeout is deprecated`},
		{name: "unknown key names section and key", in: `{"timeot":"1s"}`,
			err: `config workers: unknown key "timeot" (known: timeout, ask_timeout, stop_wait, max_running, commands, servers)`},
		{name: "unknown nested key", in: `{"servers":[{"nme":"x"}]}`, err: `config workers.servers[0]: unknown key "nme"`},
		{name: "number for a duration", in: `{"timeout":30}`, err: `config workers.timeout: want a duration string such as "30s", got the number 30`},
		{name: "bad duration", in: `{"timeout":"soon"}`, err: `config workers.timeout: want a positive duration such as "90s" or "5m", got "soon"`},
		{name: "negative duration", in: `{"timeout":"-1s"}`, err: `want a positive duration`},
		{name: "wrong type", in: `{"max_running":"two"}`, err: `config section "workers": key "max_running": want int, got a JSON string`},
		{name: "both spellings", in: `{"stop_wait":"1s","stopWait":"2s"}`, err: `"stop_wait" is given twice`},
		{name: "not an object", in: `[1]`, err: `config workers: want an object, got an array`},
		{name: "not JSON", in: `{`, err: `config section "workers"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := defaults
			var warn strings.Builder
			err := Decode("workers", json.RawMessage(tt.in), &s, &warn)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want one containing %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.want(&s) {
				t.Errorf("decoded %+v", s)
			}
			if tt.warn == "" && warn.Len() > 0 || !strings.Contains(warn.String(), tt.warn) {
				t.Errorf("warnings %q, want %q", warn.String(), tt.warn)
			}
		})
	}
}

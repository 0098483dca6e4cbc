package dapbridge

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-dap"
)

// TestDecodeLine: an item of lines is a number or an object; anything
// else is an error naming what is wanted.
func TestDecodeLine(t *testing.T) {
	tests := []struct {
		name, raw string
		want      LineSpec
		err       string
	}{
		{"number", `12`, LineSpec{Line: 12}, ""},
		{"whole float", `12.0`, LineSpec{}, "want a line number ≥ 1, got 12.0"},
		{"object", `{"line":3,"condition":"i == 2","hit_condition":">= 2","log_message":"i={i}"}`, LineSpec{Line: 3, Condition: "i == 2", HitCondition: ">= 2", LogMessage: "i={i}"}, ""},
		{"unknown field", `{"line":3,"cond":"x"}`, LineSpec{}, `want {line, condition?, hit_condition?, log_message?}: unknown field "cond"`},
		{"no line", `{"condition":"x"}`, LineSpec{}, "want a 'line' ≥ 1"},
		{"zero", `0`, LineSpec{}, "want a line number ≥ 1, got 0"},
		{"string", `"12"`, LineSpec{}, `want a line number or {line, condition?, hit_condition?, log_message?}, got "12"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeLine(json.RawMessage(tt.raw))
			if errString(err) != tt.err {
				t.Fatalf("error %q, want %q", errString(err), tt.err)
			}
			if err == nil && got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestCheckSpecs: sorted, exact duplicates dropped, a line given twice
// differently and a hit condition outside the grammar rejected.
func TestCheckSpecs(t *testing.T) {
	got, err := checkSpecs([]LineSpec{{Line: 9}, {Line: 3, Condition: "x"}, {Line: 9}})
	if diff := cmp.Diff([]LineSpec{{Line: 3, Condition: "x"}, {Line: 9}}, got); diff != "" || err != nil {
		t.Errorf("(-want +got):\n%s %v", diff, err)
	}
	for _, bad := range [][]LineSpec{
		{{Line: 3}, {Line: 3, Condition: "x"}},
		{{Line: 3, HitCondition: "every 3"}},
		{{Line: 3, HitCondition: "== 0"}},
		{{Line: 0}},
	} {
		if _, err := checkSpecs(bad); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
	}
}

// TestSourceBreakpoint: what each adapter is sent, and what is refused
// because the adapter would ignore it (and stop every time instead).
func TestSourceBreakpoint(t *testing.T) {
	all := dap.Capabilities{SupportsConditionalBreakpoints: true, SupportsHitConditionalBreakpoints: true, SupportsLogPoints: true}
	tests := []struct {
		name    string
		adapter string
		caps    dap.Capabilities
		spec    LineSpec
		want    dap.SourceBreakpoint
		why     string
	}{
		{"plain", "delve", dap.Capabilities{}, LineSpec{Line: 4}, dap.SourceBreakpoint{Line: 4}, ""},
		{"delve count", "delve", all, LineSpec{Line: 4, HitCondition: "3"}, dap.SourceBreakpoint{Line: 4, HitCondition: "== 3"}, ""},
		{"debugpy every", "debugpy", all, LineSpec{Line: 4, HitCondition: "%5"}, dap.SourceBreakpoint{Line: 4, HitCondition: "% 5"}, ""},
		{"lldb from", "lldb", all, LineSpec{Line: 4, HitCondition: ">= 3"}, dap.SourceBreakpoint{Line: 4, HitCondition: "3"}, ""},
		{"lldb after", "lldb", all, LineSpec{Line: 4, HitCondition: "> 3"}, dap.SourceBreakpoint{Line: 4, HitCondition: "4"}, ""},
		{"lldb exact", "lldb", all, LineSpec{Line: 4, HitCondition: "== 3"}, dap.SourceBreakpoint{Line: 4}, `not set: lldb-dap supports only >= N and > N hit conditions (it skips the first N-1 hits), not "== 3"`},
		{"no conditions", "dart", dap.Capabilities{}, LineSpec{Line: 4, Condition: "x"}, dap.SourceBreakpoint{Line: 4, Condition: "x"}, "not set: dart does not support conditions"},
		{"no logpoints", "dart", dap.Capabilities{}, LineSpec{Line: 4, LogMessage: "x"}, dap.SourceBreakpoint{Line: 4, LogMessage: "x"}, "not set: dart does not support log messages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(adapterByID(tt.adapter), "/")
			s.caps = tt.caps
			got, why := s.sourceBreakpoint(tt.spec)
			if why != tt.why {
				t.Fatalf("why %q, want %q", why, tt.why)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" && why == "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestStepTruth: the stop after a continue is described as the earlier
// interrupted step finishing, only when a step was interrupted.
func TestStepTruth(t *testing.T) {
	s := newSession(adapterByID("lldb"), "/")
	stop := func(resumed, reason, desc string) string {
		s.resumed = resumed
		return s.stepTruthLocked(dap.StoppedEventBody{Reason: reason, Description: desc})
	}
	if got := stop("continue", "step", "step out"); got != "step out" {
		t.Errorf("no step interrupted: %q", got)
	}
	stop("stepOut", "breakpoint", "breakpoint 2.1")
	stop("continue", "breakpoint", "breakpoint 2.1") // still pending
	if got := stop("continue", "step", "step out"); got != "the step_out interrupted earlier finished here: lldb keeps an interrupted step pending across continue" {
		t.Errorf("after an interrupted step_out: %q", got)
	}
	if got := stop("continue", "step", "step out"); got != "step out" {
		t.Errorf("told twice: %q", got)
	}
	stop("next", "breakpoint", "")
	stop("next", "step", "") // a step that finished clears it
	if got := stop("continue", "step", "step over"); got != "step over" {
		t.Errorf("after a finished step: %q", got)
	}
}

// TestDemangleType: the simple Itanium forms, and anything else as is.
func TestDemangleType(t *testing.T) {
	for in, want := range map[string]string{
		"St13runtime_error": "std::runtime_error",
		"7MyError":          "MyError",
		"N2ns7MyErrorE":     "ns::MyError",
		"NSt3foo3barE":      "std::foo::bar",
		"i":                 "i",
		"PKc":               "PKc",
		"9short":            "9short",
	} {
		if got := demangleType(in); got != want {
			t.Errorf("demangleType(%q) = %q, want %q", in, got, want)
		}
	}
	if !stdException.MatchString("St13runtime_error") || !stdException.MatchString("St12out_of_range") || stdException.MatchString("7MyError") {
		t.Errorf("stdException")
	}
}

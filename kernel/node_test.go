package kernel

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestJavaScriptCells(t *testing.T) {
	needsNode(t)
	s := newSession(t, nil)
	steps := []struct {
		code, want string
	}{
		{"let a = 1; a + 1", "Out: 2"},
		{"let a = 5; a", "Out: 5"}, // let re-declared across cells
		{"const c = 1", ""},
		{"const c = 2; c", "Out: 2"},
		{"const data = await new Promise(r => setTimeout(() => r(41), 10)); data + 1", "Out: 42"},
		{"data", "Out: 41"},
		{"if (true) { 'blockval' }", "Out: 'blockval'"},
		{"console.log('one'); display({x: 1}); console.error('two'); [1, 'b', {c: [2]}]", "one\n{ x: 1 }\ntwo\nOut: [ 1, 'b', { c: [ 2 ] } ]"},
		{"const path = require('path'); path.join('a', 'b')", "Out: 'a/b'"},
		{"function f() { return 7 }", ""},
		{"f()", "Out: 7"},
		{"undefined", ""},
		{"NaN", "Out: NaN"},
		{"10n ** 3n", "Out: 1000n"},
		{"-0", "Out: -0"},
		{"new Map([[1, 2]])", "Out: Map(1) { 1 => 2 }"},
		{"require('child_process').execSync('echo from a child', {stdio: 'inherit'}); 'ok'", "from a child\nOut: 'ok'"},
	}
	for _, st := range steps {
		if diff := cmp.Diff(st.want, s.js(st.code)); diff != "" {
			t.Errorf("cell %q (-want +got):\n%s", st.code, diff)
		}
	}
	res := s.run(JavaScript, "function g() { throw new TypeError('bad thing') }\ng()")
	if res.Status != StatusError || !strings.Contains(res.Text(), "TypeError: bad thing") || strings.Contains(res.Text(), "node:") {
		t.Errorf("thrown error: %s", res.Text())
	}
	res = s.run(JavaScript, "await Promise.reject(new Error('async bad'))")
	if res.Status != StatusError || !strings.Contains(res.Text(), "Error: async bad") {
		t.Errorf("rejected promise: %s", res.Text())
	}
	res = s.run(JavaScript, "tool('read', {path: 'a'})")
	if res.Status != StatusError || !strings.Contains(res.Text(), "no harness bridge") {
		t.Errorf("no bridge: %s", res.Text())
	}
	if got := s.js("a"); got != "Out: 5" {
		t.Errorf("after errors: %q", got)
	}
	if got := s.js("%kernel"); !strings.HasPrefix(got, "javascript kernel: ") || !strings.Contains(got, " (Node ") {
		t.Errorf("%%kernel: %q", got)
	}
}

func TestJavaScriptTimeout(t *testing.T) {
	needsNode(t)
	s := newSession(t, &Options{Timeout: shortBudget, Grace: 5 * time.Second})
	s.js("let kept = 'still here'")
	res := s.run(JavaScript, "console.log('spinning'); while (true) {}")
	if res.Status != StatusTimeout || res.StateLost || !strings.Contains(res.Text(), "spinning") {
		t.Fatalf("busy loop: %s", res.Text())
	}
	if got := s.js("kept"); got != "Out: 'still here'" {
		t.Errorf("state after interrupting a busy loop: %q", got)
	}
	res = s.run(JavaScript, "console.log('waiting'); await new Promise(() => {})")
	if res.Status != StatusTimeout || res.StateLost || !strings.Contains(res.Text(), "waiting") {
		t.Fatalf("pending await: %s", res.Text())
	}
	if got := s.js("kept"); got != "Out: 'still here'" {
		t.Errorf("state after interrupting an await: %q", got)
	}
	res = s.run(JavaScript, "process.exit(4)")
	if res.Status != StatusCrashed || !strings.Contains(res.Text(), "exit status 4") {
		t.Errorf("process.exit: %s", res.Text())
	}
	if got := s.js("typeof kept"); got != "Out: 'undefined'" {
		t.Errorf("after the crash: %q", got)
	}
}

// TestJavaScriptTracebacksHideTheDriver: a thrown error and a failed
// tool() call show the cell's frames only.
func TestJavaScriptTracebacksHideTheDriver(t *testing.T) {
	needsNode(t)
	s := newSession(t, nil)
	tests := []struct {
		name   string
		code   string
		bridge Bridge
		want   string // the traceback: the text between the label (and status line) and the error line
	}{
		{"thrown", "function g() { throw new TypeError('bad thing') }\ng()", nil,
			"TypeError: bad thing\n    at g (<anonymous>:1:22)\n    at <anonymous>:2:1"},
		{"no bridge", "async function h() { return await tool('read', {path: 'a'}) }\nawait h()", nil,
			"Error: " + noBridge + "\n    at h (<anonymous>:1:35)\n    at <anonymous>:2:7"},
		{"failing tool", "await tool('write', {})", fakeBridge(0),
			"ToolError: unknown tool write\n    at <anonymous>:1:7"},
		{"null", "null.x", nil,
			"TypeError: Cannot read properties of null (reading 'x')\n    at <anonymous>:1:6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.t = t
			res := s.runReq(Request{Language: JavaScript, Code: tt.code, Bridge: tt.bridge})
			got, _, _ := strings.Cut(body(res), "\nerror: ")
			if res.Status != StatusError || got != tt.want {
				t.Errorf("status %s\ngot  %q\nwant %q", res.Status, got, tt.want)
			}
		})
	}
}

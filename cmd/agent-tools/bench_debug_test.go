package main

// This file adds the debug rows to `make bench`: launch → stopped at a
// breakpoint → terminate, through agent-tools' debug tool and through the
// same DAP sequence sent straight to the adapter, in the same run.
//
// A launch takes 0.2–1.5 s and this machine is shared, so one sample says
// little: each side first runs one untimed launch (agent-tools' first
// launch also starts the reaper and checks which python can import
// debugpy), then debugRounds timed ones, and reports their median as
// ns/op; the two sides alternate over two rounds (benchRow.rounds). The
// first launches of the second round are printed after the table.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-dap"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// debugRounds is how many timed launches each side of a debug row runs.
const debugRounds = 7

func init() {
	adapters := []string{"delve", "debugpy", "lldb"}
	for _, a := range adapters {
		benchRows = append(benchRows, benchRow{
			name:     "debug launch→stopped→terminate (" + a + ")",
			peerName: "raw DAP to " + a,
			ours:     benchDebugOurs(a),
			peer:     benchDebugPeer(a),
			needs:    func() string { return benchDebugNeeds(a) },
			// Two alternating rounds: the detail block keeps the second,
			// whose first launches no longer pay for reading the adapter
			// from disk (the first round's went to whichever side ran
			// first: agent-tools).
			rounds: 2,
		})
	}
	for _, a := range adapters {
		for _, what := range []string{"stack", "locals"} {
			benchRows = append(benchRows, benchRow{
				name:     "debug " + what + " at a fresh stop (" + a + ")",
				peerName: "raw DAP to " + a,
				ours:     benchInspectOurs(a, what),
				peer:     benchInspectPeer(a, what),
				needs:    func() string { return benchDebugNeeds(a) },
				rounds:   2,
			})
		}
	}
	benchRows = append(benchRows, benchRow{
		name:  "debug launch detail",
		needs: func() string { return debugSamples.detail(adapters) },
	})
}

// debugSamples keeps each debug row's timings for the detail block.
var debugSamples = &debugRecord{m: map[string]debugTimes{}}

type debugRecord struct {
	mu sync.Mutex            // guards m
	m  map[string]debugTimes // "ours delve", "raw delve", …
}

// debugRun is one launch: the time to the stop (agent-tools' launch
// answer; the raw client's stackTrace answer) and through terminate.
type debugRun struct{ stopped, total time.Duration }

type debugTimes struct {
	first  debugRun   // the untimed first launch
	rounds []debugRun // the timed ones
}

func stoppedTime(r debugRun) time.Duration { return r.stopped }
func totalTime(r debugRun) time.Duration   { return r.total }

// median, min and max of one measure over the timed rounds.
func (t debugTimes) stats(f func(debugRun) time.Duration) (med, lo, hi time.Duration) {
	var s []time.Duration
	for _, r := range t.rounds {
		s = append(s, f(r))
	}
	slices.Sort(s)
	return s[len(s)/2], s[0], s[len(s)-1]
}

// measureDebug runs one untimed launch, then debugRounds timed ones, keeps
// the times under key and reports the median through terminate as the
// row's ns/op. launch returns when the program was seen stopped.
func measureDebug(b *testing.B, key string, launch func() time.Time) {
	run := func() debugRun {
		start := time.Now()
		stopped := launch()
		return debugRun{stopped.Sub(start), time.Since(start)}
	}
	t := debugTimes{first: run()}
	for range debugRounds {
		t.rounds = append(t.rounds, run())
	}
	debugSamples.mu.Lock()
	debugSamples.m[key] = t
	debugSamples.mu.Unlock()
	// The median replaces the mean over the call, which also holds the
	// server's start and the first launch. One call is enough: it lasts
	// longer than the benchmark time, so testing.Benchmark does not call
	// it again.
	med, _, _ := t.stats(totalTime)
	b.ReportMetric(float64(med.Nanoseconds()), "ns/op")
}

// detail is the block printed after the table: launch→stopped alone (the
// issue's target), the spread, and the first launches.
func (s *debugRecord) detail(adapters []string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d.Microseconds())/1000) }
	diff := func(a, b time.Duration) string { return fmt.Sprintf("%+.0f ms", float64((a-b).Microseconds())/1000) }
	var lines []string
	for _, a := range adapters {
		ours, ok1 := s.m["ours "+a]
		raw, ok2 := s.m["raw "+a]
		if !ok1 || !ok2 {
			continue
		}
		line := "  " + a + ":"
		for _, m := range []struct {
			name string
			f    func(debugRun) time.Duration
		}{{"launch→stopped", stoppedTime}, {"→terminate", totalTime}} {
			om, olo, ohi := ours.stats(m.f)
			rm, rlo, rhi := raw.stats(m.f)
			line += fmt.Sprintf(" %s median %s vs %s ms (%s; ranges %s–%s, %s–%s);", m.name, ms(om), ms(rm), diff(om, rm), ms(olo), ms(ohi), ms(rlo), ms(rhi))
		}
		line += fmt.Sprintf(" first launch→stopped %s vs %s ms (%s)", ms(ours.first.stopped), ms(raw.first.stopped), diff(ours.first.stopped, raw.first.stopped))
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return "not measured"
	}
	return fmt.Sprintf("agent-tools vs raw DAP, two alternating rounds; in each, each side ran 1 untimed launch, then %d timed ones;\n"+
		"the table shows the median of the rounds' medians, the lines below the second round. agent-tools' first launch in a fresh\n"+
		"server also starts the reaper and, for debugpy, waits for the check of which python can import debugpy (every candidate at\n"+
		"once), which starts in the background when the server starts in a Python project — only ~20 ms before the launch here; an\n"+
		"agent's pause before its first launch usually hides it.\n", debugRounds) +
		strings.Join(lines, "\n")
}

// benchFixture is a workspace with a program stopped at once by a
// breakpoint: a Go binary built with -N -l (delve exec: no build in the
// loop), a Python script, a C binary built with -g.
type benchFixture struct {
	root, file, program string
	line                int
}

func benchDebugNeeds(a string) string {
	tool := map[string]string{"delve": "dlv", "debugpy": "/usr/bin/python3", "lldb": "lldb-dap-19"}[a]
	if _, err := exec.LookPath(tool); err != nil {
		return tool + " not found"
	}
	if a == "debugpy" && exec.Command("/usr/bin/python3", "-c", "import debugpy").Run() != nil {
		return "/usr/bin/python3 cannot import debugpy"
	}
	return ""
}

// benchProgram is one adapter's fixture program: its files (txtar) and
// the line a breakpoint goes on.
type benchProgram struct {
	tree string
	line int
}

func makeBenchFixture(b *testing.B, a string) benchFixture {
	return buildBenchFixture(b, a, map[string]benchProgram{
		"delve":   {"-- go.mod --\nmodule fixture\n\ngo 1.22\n-- main.go --\npackage main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n", 6},
		"debugpy": {"-- requirements.txt --\n-- app.py --\nx = 1\nprint(x)\n", 2},
		"lldb":    {"-- CMakeLists.txt --\n-- main.c --\n#include <stdio.h>\nint main(void) {\n\tputs(\"hi\");\n\treturn 0;\n}\n", 3},
	})
}

// buildBenchFixture writes a's program into a fresh root and builds it
// with debug information (go build for delve, gcc for lldb; debugpy runs
// the source).
func buildBenchFixture(b *testing.B, a string, programs map[string]benchProgram) benchFixture {
	root := b.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	run := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	switch a {
	case "delve":
		testutil.WriteTree(b, root, programs[a].tree)
		run("go", "build", "-gcflags=all=-N -l", "-o", "app", ".")
		return benchFixture{root, filepath.Join(root, "main.go"), filepath.Join(root, "app"), programs[a].line}
	case "debugpy":
		testutil.WriteTree(b, root, programs[a].tree)
		return benchFixture{root, filepath.Join(root, "app.py"), filepath.Join(root, "app.py"), programs[a].line}
	default:
		testutil.WriteTree(b, root, programs["lldb"].tree)
		run("gcc", "-g", "-O0", "-o", "app", "main.c")
		return benchFixture{root, filepath.Join(root, "main.c"), filepath.Join(root, "app"), programs["lldb"].line}
	}
}

func benchDebugOurs(a string) func(b *testing.B) {
	return func(b *testing.B) {
		fx := makeBenchFixture(b, a)
		cmd := testBinaryCmd(context.Background(), "serve", "--root", fx.root, "--log-level", "off", "--conversation", "bench")
		s := startCmd(b, cmd)
		defer s.close()
		s.initialize()
		call := func(id int, args string) {
			s.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"debug","arguments":%s}}`, id, args), id)
		}
		call(2, fmt.Sprintf(`{"op":"breakpoints","file":%q,"lines":[%d]}`, filepath.Base(fx.file), fx.line))
		id := 2
		measureDebug(b, "ours "+a, func() time.Time {
			call(id+1, fmt.Sprintf(`{"op":"launch","program":%q}`, filepath.Base(fx.program)))
			stopped := time.Now()
			call(id+2, `{"op":"terminate"}`)
			id += 2
			return stopped
		})
	}
}

func benchDebugPeer(a string) func(b *testing.B) {
	return func(b *testing.B) {
		fx := makeBenchFixture(b, a)
		measureDebug(b, "raw "+a, func() time.Time { return rawDAPSession(b, a, fx) })
	}
}

// rawDAP is a bare DAP client: what a caller without agent-tools writes.
type rawDAP struct {
	w    io.Writer
	seq  int
	msgs chan map[string]any
}

func newRawDAP(r io.Reader, w io.Writer) *rawDAP {
	d := &rawDAP{w: w, msgs: make(chan map[string]any, 256)}
	go func() {
		br := bufio.NewReader(r)
		for {
			data, err := dap.ReadBaseMessage(br)
			if err != nil {
				close(d.msgs)
				return
			}
			var m map[string]any
			json.Unmarshal(data, &m)
			d.msgs <- m
		}
	}()
	return d
}

func (d *rawDAP) send(b *testing.B, command string, args any) int {
	d.seq++
	data, _ := json.Marshal(map[string]any{"seq": d.seq, "type": "request", "command": command, "arguments": args})
	if err := dap.WriteBaseMessage(d.w, data); err != nil {
		b.Fatal(err)
	}
	return d.seq
}

// until reads messages until one matches and returns it; the others are
// kept nowhere.
func (d *rawDAP) until(b *testing.B, what string, match func(map[string]any) bool) map[string]any {
	t := time.After(testutil.IntegrationTimeout())
	for {
		select {
		case m, ok := <-d.msgs:
			if !ok {
				b.Fatalf("adapter closed while waiting for %s", what)
			}
			if match(m) {
				return m
			}
		case <-t:
			b.Fatalf("no %s", what)
		}
	}
}

func isEvent(name string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["type"] == "event" && m["event"] == name }
}

func isResponse(seq int) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["type"] == "response" && m["request_seq"] == float64(seq) }
}

// rawDAPSession sends agent-tools' DAP sequence straight to the adapter:
// spawn, initialize, launch, initialized, setBreakpoints,
// setExceptionBreakpoints (the adapter's default filters),
// configurationDone, stopped, the top frame of the stopped thread (which
// the launch answer shows: one stackTrace, after a threads request only
// when the stop names no thread), then disconnect and wait for the adapter
// to exit. It returns when the top frame was known.
func rawDAPSession(b *testing.B, a string, fx benchFixture) time.Time {
	d, tid, stop := rawDAPLaunch(b, a, fx)
	seq := d.send(b, "stackTrace", map[string]any{"threadId": tid, "startFrame": 0, "levels": 1})
	d.until(b, "stackTrace response", isResponse(seq))
	stoppedAt := time.Now()
	stop()
	return stoppedAt
}

// rawDAPLaunch starts the adapter and runs the sequence up to the first
// stop: initialize, launch, initialized, setBreakpoints,
// configurationDone, stopped (and threads when the stop names no thread).
// It returns the client, the stopped thread, and a stop function that
// disconnects and waits for the adapter to exit.
func rawDAPLaunch(b *testing.B, a string, fx benchFixture) (*rawDAP, float64, func()) {
	var cmd *exec.Cmd
	var d *rawDAP
	var closeConn func()
	launch := map[string]any{"program": fx.program, "cwd": fx.root, "args": []string{}}
	switch a {
	case "delve":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		cmd = exec.Command("dlv", "dap", "--client-addr", ln.Addr().String())
		cmd.Dir = fx.root
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		c, err := ln.Accept()
		ln.Close()
		if err != nil {
			b.Fatal(err)
		}
		d, closeConn = newRawDAP(c, c), func() { c.Close() }
		launch["mode"], launch["outputMode"] = "exec", "remote"
	default:
		if a == "debugpy" {
			cmd = exec.Command("/usr/bin/python3", "-m", "debugpy.adapter")
			launch["python"], launch["console"], launch["justMyCode"] = []string{"/usr/bin/python3"}, "internalConsole", true
		} else {
			cmd = exec.Command("lldb-dap-19")
		}
		cmd.Dir = fx.root
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		d, closeConn = newRawDAP(out, in), func() { in.Close() }
	}
	seq := d.send(b, "initialize", map[string]any{"adapterID": a, "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path"})
	caps, _ := d.until(b, "initialize response", isResponse(seq))["body"].(map[string]any)
	d.send(b, "launch", launch)
	d.until(b, "initialized", isEvent("initialized"))
	seq = d.send(b, "setBreakpoints", map[string]any{"source": map[string]any{"path": fx.file}, "breakpoints": []map[string]any{{"line": fx.line}}})
	d.until(b, "setBreakpoints response", isResponse(seq))
	// The exception filters the adapter turns on by default, as an IDE
	// (and agent-tools) sets them.
	if filters, _ := caps["exceptionBreakpointFilters"].([]any); len(filters) > 0 {
		on := []string{}
		for _, f := range filters {
			if f, _ := f.(map[string]any); f["default"] == true {
				on = append(on, f["filter"].(string))
			}
		}
		seq = d.send(b, "setExceptionBreakpoints", map[string]any{"filters": on})
		d.until(b, "setExceptionBreakpoints response", isResponse(seq))
	}
	d.send(b, "configurationDone", nil)
	stopped := d.until(b, "stopped", isEvent("stopped"))
	body, _ := stopped["body"].(map[string]any)
	tid, _ := body["threadId"].(float64)
	if tid == 0 {
		seq = d.send(b, "threads", nil)
		body, _ := d.until(b, "threads response", isResponse(seq))["body"].(map[string]any)
		if ts, _ := body["threads"].([]any); len(ts) > 0 {
			t, _ := ts[0].(map[string]any)
			tid, _ = t["id"].(float64)
		}
	}
	stop := func() {
		seq := d.send(b, "disconnect", map[string]any{"terminateDebuggee": true})
		d.until(b, "disconnect response", isResponse(seq))
		closeConn()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		for range d.msgs {
		}
	}
	return d, tid, stop
}

// The inspect rows: one session stopped at a breakpoint in a loop that
// runs long enough; each sample continues to the next hit (not timed: a
// fresh stop, whose frames nobody has fetched yet, beyond the top one the
// stop line shows), then times what an agent asks next. stack: our stack
// op against a raw stackTrace of 30 levels. locals: our scopes then
// variables ops against raw scopes then variables.

// inspectRounds is how many timed samples each side of an inspect row takes.
const inspectRounds = 15

// loopFixture is a program whose loop body (line) is hit a million times.
func loopFixture(b *testing.B, a string) benchFixture {
	return buildBenchFixture(b, a, map[string]benchProgram{
		"delve": {"-- go.mod --\nmodule fixture\n\ngo 1.22\n-- main.go --\npackage main\n\nimport \"fmt\"\n\nfunc main() {\n\ttotal := 0\n\tfor i := 0; i < 1000000; i++ {\n\t\ttotal += i\n\t}\n\tfmt.Println(total)\n}\n", 8},
		// In a function: at module level debugpy's stack is one frame,
		// which the stop line already fetched, and stack sends nothing.
		"debugpy": {"-- requirements.txt --\n-- app.py --\ndef run():\n    total = 0\n    for i in range(1000000):\n        total += i\n    return total\nprint(run())\n", 4},
		"lldb":    {"-- CMakeLists.txt --\n-- main.c --\n#include <stdio.h>\nint main(void) {\n\tlong total = 0;\n\tfor (long i = 0; i < 1000000; i++) {\n\t\ttotal += i;\n\t}\n\tprintf(\"%ld\\n\", total);\n\treturn 0;\n}\n", 5},
	})
}

// medianOf reports the median of samples as the row's ns/op.
func medianOf(b *testing.B, samples []time.Duration) {
	slices.Sort(samples)
	b.ReportMetric(float64(samples[len(samples)/2].Nanoseconds()), "ns/op")
}

// callResult sends one debug call and returns its structuredContent.
func (s *server) callResult(id int, args string) map[string]any {
	s.t.Helper()
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"debug","arguments":%s}}`, id, args))
	var m struct {
		Result struct {
			IsError           bool                    `json:"isError"`
			StructuredContent map[string]any          `json:"structuredContent"`
			Content           []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	data, _ := json.Marshal(s.until(id))
	json.Unmarshal(data, &m)
	if m.Result.IsError {
		s.t.Fatalf("debug %s: %v", args, m.Result.Content)
	}
	return m.Result.StructuredContent
}

func benchInspectOurs(a, what string) func(b *testing.B) {
	return func(b *testing.B) {
		fx := loopFixture(b, a)
		// --structured: the row reads the stopped frame from the structured result.
		cmd := testBinaryCmd(context.Background(), "serve", "--root", fx.root, "--log-level", "off", "--conversation", "bench", "--structured")
		s := startCmd(b, cmd)
		defer s.close()
		s.initialize()
		id := 2
		s.callResult(id, fmt.Sprintf(`{"op":"breakpoints","file":%q,"lines":[%d]}`, filepath.Base(fx.file), fx.line))
		id++
		s.callResult(id, fmt.Sprintf(`{"op":"launch","program":%q}`, filepath.Base(fx.program)))
		var samples []time.Duration
		for i := range inspectRounds + 1 {
			id++
			res := s.callResult(id, `{"op":"continue"}`)
			stop, _ := res["stop"].(map[string]any)
			frame, _ := stop["frameId"].(float64)
			if frame == 0 {
				b.Fatalf("continue did not stop: %v", res)
			}
			start := time.Now()
			id++
			if what == "stack" {
				s.callResult(id, `{"op":"stack"}`)
			} else {
				sc := s.callResult(id, fmt.Sprintf(`{"op":"scopes","frame_id":%d}`, int(frame)))
				scopes, _ := sc["scopes"].([]any)
				first, _ := scopes[0].(map[string]any)
				id++
				s.callResult(id, fmt.Sprintf(`{"op":"variables","reference":%d}`, int(first["reference"].(float64))))
			}
			if i > 0 { // the first is a warm-up
				samples = append(samples, time.Since(start))
			}
		}
		id++
		s.callResult(id, `{"op":"terminate"}`)
		medianOf(b, samples)
	}
}

func benchInspectPeer(a, what string) func(b *testing.B) {
	return func(b *testing.B) {
		fx := loopFixture(b, a)
		d, tid, stop := rawDAPLaunch(b, a, fx)
		defer stop()
		var samples []time.Duration
		for i := range inspectRounds + 1 {
			seq := d.send(b, "continue", map[string]any{"threadId": tid})
			d.until(b, "continue response", isResponse(seq))
			d.until(b, "stopped", isEvent("stopped"))
			// The stop line's top frame, as our continue answer shows it.
			seq = d.send(b, "stackTrace", map[string]any{"threadId": tid, "startFrame": 0, "levels": 1})
			top := d.until(b, "stackTrace response", isResponse(seq))
			start := time.Now()
			if what == "stack" {
				seq = d.send(b, "stackTrace", map[string]any{"threadId": tid, "startFrame": 0, "levels": 30})
				d.until(b, "stackTrace response", isResponse(seq))
			} else {
				body, _ := top["body"].(map[string]any)
				frames, _ := body["stackFrames"].([]any)
				f0, _ := frames[0].(map[string]any)
				seq = d.send(b, "scopes", map[string]any{"frameId": f0["id"]})
				body, _ = d.until(b, "scopes response", isResponse(seq))["body"].(map[string]any)
				scopes, _ := body["scopes"].([]any)
				sc0, _ := scopes[0].(map[string]any)
				seq = d.send(b, "variables", map[string]any{"variablesReference": sc0["variablesReference"], "start": 0, "count": 51})
				d.until(b, "variables response", isResponse(seq))
			}
			if i > 0 {
				samples = append(samples, time.Since(start))
			}
		}
		medianOf(b, samples)
	}
}

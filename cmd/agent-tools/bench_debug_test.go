package main

// This file adds the debug rows to `make bench`: launch → stopped at a
// breakpoint → terminate, through agent-tools' debug tool and through the
// same DAP sequence sent straight to the adapter, in the same run.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-dap"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

func init() {
	for _, a := range []string{"delve", "debugpy", "lldb"} {
		benchRows = append(benchRows, benchRow{
			name:     "debug launch→stopped→terminate (" + a + ")",
			peerName: "raw DAP to " + a,
			ours:     benchDebugOurs(a),
			peer:     benchDebugPeer(a),
			needs:    func() string { return benchDebugNeeds(a) },
		})
	}
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

func makeBenchFixture(b *testing.B, a string) benchFixture {
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
		testutil.WriteTree(b, root, "-- go.mod --\nmodule fixture\n\ngo 1.22\n-- main.go --\npackage main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n")
		run("go", "build", "-gcflags=all=-N -l", "-o", "app", ".")
		return benchFixture{root, filepath.Join(root, "main.go"), filepath.Join(root, "app"), 6}
	case "debugpy":
		testutil.WriteTree(b, root, "-- requirements.txt --\n-- app.py --\nx = 1\nprint(x)\n")
		return benchFixture{root, filepath.Join(root, "app.py"), filepath.Join(root, "app.py"), 2}
	default:
		testutil.WriteTree(b, root, "-- CMakeLists.txt --\n-- main.c --\n#include <stdio.h>\nint main(void) {\n\tputs(\"hi\");\n\treturn 0;\n}\n")
		run("gcc", "-g", "-O0", "-o", "app", "main.c")
		return benchFixture{root, filepath.Join(root, "main.c"), filepath.Join(root, "app"), 3}
	}
}

func benchDebugOurs(a string) func(b *testing.B) {
	return func(b *testing.B) {
		fx := makeBenchFixture(b, a)
		cmd := testBinaryCmd(context.Background(), "serve", "--root", fx.root, "--log-level", "off", "--conversation", "bench")
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		s := &pipeSession{cmd: cmd, in: in, out: bufio.NewReader(out)}
		defer s.close()
		s.init(b)
		call := func(id int, args string) {
			s.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"debug","arguments":%s}}`, id, args), id)
		}
		call(2, fmt.Sprintf(`{"op":"breakpoints","file":%q,"lines":[%d]}`, filepath.Base(fx.file), fx.line))
		id := 2
		for b.Loop() {
			call(id+1, fmt.Sprintf(`{"op":"launch","program":%q}`, filepath.Base(fx.program)))
			call(id+2, `{"op":"terminate"}`)
			id += 2
		}
	}
}

func benchDebugPeer(a string) func(b *testing.B) {
	return func(b *testing.B) {
		fx := makeBenchFixture(b, a)
		for b.Loop() {
			rawDAPSession(b, a, fx)
		}
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

// until reads messages until one matches; the others are kept nowhere.
func (d *rawDAP) until(b *testing.B, what string, match func(map[string]any) bool) {
	t := time.After(testutil.IntegrationTimeout())
	for {
		select {
		case m, ok := <-d.msgs:
			if !ok {
				b.Fatalf("adapter closed while waiting for %s", what)
			}
			if match(m) {
				return
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

// rawDAPSession runs the measured handshake straight against the adapter:
// spawn, initialize, launch, initialized, setBreakpoints,
// configurationDone, launch answer, stopped, then disconnect and wait for
// the adapter to exit.
func rawDAPSession(b *testing.B, a string, fx benchFixture) {
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
	d.until(b, "initialize response", isResponse(seq))
	d.send(b, "launch", launch)
	d.until(b, "initialized", isEvent("initialized"))
	seq = d.send(b, "setBreakpoints", map[string]any{"source": map[string]any{"path": fx.file}, "breakpoints": []map[string]any{{"line": fx.line}}})
	d.until(b, "setBreakpoints response", isResponse(seq))
	d.send(b, "configurationDone", nil)
	d.until(b, "stopped", isEvent("stopped"))
	seq = d.send(b, "disconnect", map[string]any{"terminateDebuggee": true})
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

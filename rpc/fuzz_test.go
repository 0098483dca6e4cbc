package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzLine feeds one arbitrary line into a live session between an
// initialize and a ping. Whatever the line is, the server must not crash,
// must write only JSON-RPC frames, and must still answer the ping.
func FuzzLine(f *testing.F) {
	for _, seed := range []string{
		`garbage`, `[]`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{}`, `null`, `"x"`, `1e999`,
		`{"jsonrpc":"2.0","id":-1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"error":"x"}`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[1]}}`,
		`{"jsonrpc":"2.0","id":2,"method":"agent-tools/setMode","params":{"surface":7}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":"y"}}`,
		`{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`, `{"jsonrpc":"2.0","id":1,"method":"ping","meta":5}`,
		strings.Repeat("[", 10000), `{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		line = strings.ReplaceAll(line, "\n", " ")
		in := strings.Join([]string{
			`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`,
			line,
			`{"jsonrpc":"2.0","id":"last","method":"ping"}`,
		}, "\n") + "\n"
		var out bytes.Buffer
		srv := NewServer(NewRegistry(), &Options{Mode: Mode{Root: t.TempDir()}})
		if err := srv.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		answered := false
		for _, l := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(l, &m); err != nil || string(m["jsonrpc"]) != `"2.0"` {
				t.Fatalf("not a JSON-RPC frame on the output: %q", l)
			}
			if string(m["id"]) == `"last"` && m["result"] != nil {
				answered = true
			}
		}
		if !answered {
			t.Fatalf("the ping after %q was not answered; output:\n%s", line, out.String())
		}
	})
}

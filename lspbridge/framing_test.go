package lspbridge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
)

// The framing itself is tested and fuzzed in internal/frame.

// TestCallOversizedAnswer: a server that answers with a message over the
// maximum ends the connection, and the pending call says why.
func TestCallOversizedAnswer(t *testing.T) {
	a, b := net.Pipe()
	c := newConn(t.Context(), a, a, connHandler{
		notify:  func(string, json.RawMessage) {},
		request: func(context.Context, string, json.RawMessage) (any, error) { return nil, nil },
	})
	defer c.close()
	go func() {
		r := bufio.NewReader(b)
		readFrame(r) // the request
		fmt.Fprintf(b, "Content-Length: %d\r\n\r\n", int64(maxMessageBytes)+1)
		io.Copy(io.Discard, b)
	}()
	err := c.call(t.Context(), "workspace/symbol", map[string]string{"query": "x"}, nil)
	if err == nil || !strings.Contains(err.Error(), "over the 67108864-byte maximum") {
		t.Fatalf("call: %v, want the framing error", err)
	}
}

// TestCallGarbageAnswer: a body that is not JSON ends the connection as
// before the codec handed bodies straight to jsonrpc2's decoder, and the
// pending call says why; a good answer before it still arrives whole.
func TestCallGarbageAnswer(t *testing.T) {
	a, b := net.Pipe()
	c := newConn(t.Context(), a, a, connHandler{
		notify:  func(string, json.RawMessage) {},
		request: func(context.Context, string, json.RawMessage) (any, error) { return nil, nil },
	})
	defer c.close()
	go func() {
		r := bufio.NewReader(b)
		readFrame(r) // the first request
		good := `{"jsonrpc":"2.0","id":1,"result":{"name":"x <y>","kind":12}}`
		fmt.Fprintf(b, "Content-Length: %d\r\n\r\n%s", len(good), good)
		readFrame(r) // the second
		bad := `{"jsonrpc":"2.0","id":2,"result":{"name":`
		fmt.Fprintf(b, "Content-Length: %d\r\n\r\n%s", len(bad), bad)
		io.Copy(io.Discard, b)
	}()
	var got struct {
		Name string `json:"name"`
		Kind int    `json:"kind"`
	}
	if err := c.call(t.Context(), "textDocument/hover", map[string]string{}, &got); err != nil || got.Name != "x <y>" || got.Kind != 12 {
		t.Fatalf("good answer: %+v, %v", got, err)
	}
	err := c.call(t.Context(), "textDocument/hover", map[string]string{}, &got)
	if err == nil || !strings.Contains(err.Error(), "unexpected end of JSON input") {
		t.Fatalf("call: %v, want the decoding error", err)
	}
}

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

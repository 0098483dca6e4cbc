package dapbridge

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// The framing itself is tested and fuzzed in internal/frame.

// TestCallGarbageAdapter: an adapter that writes an endless header line
// ends the connection, and the pending request says why.
func TestCallGarbageAdapter(t *testing.T) {
	a, b := net.Pipe()
	c := newConn(a, a, a, func(*message) {}, nil)
	defer c.close()
	go func() {
		readFrame(bufio.NewReader(b)) // the request
		b.Write(bytes.Repeat([]byte("x"), 128<<10))
		io.Copy(io.Discard, b)
	}()
	err := c.call(t.Context(), "threads", nil, 30*time.Second, nil)
	if err == nil || !strings.Contains(err.Error(), "header longer than 8192 bytes") {
		t.Fatalf("call: %v, want the framing error", err)
	}
}

package dapbridge

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
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

// TestUnansweredRequestLogged: a request the adapter leaves unanswered
// fails naming the bound, and the log has a warning naming the request.
func TestUnansweredRequestLogged(t *testing.T) {
	a, b := net.Pipe()
	c := newConn(a, a, a, func(*message) {}, nil)
	defer c.close()
	var log testutil.LogBuffer
	c.log = log.Logger()
	go io.Copy(io.Discard, b) // reads the request, never answers
	err := c.call(t.Context(), "threads", nil, 50*time.Millisecond, nil)
	if err == nil || !strings.Contains(err.Error(), "no answer from the debug adapter within 50ms") {
		t.Fatalf("call: %v, want the timeout", err)
	}
	wantLog(t, &log, `"level":"warn"`, `"request":"threads"`, `"timeout":50`, "did not answer")
}

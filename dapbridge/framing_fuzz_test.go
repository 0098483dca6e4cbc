package dapbridge

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

func dapFramingSeeds() []string {
	return []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 17\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"jsonrpc\":\"2.0\"}Content-Length: 2\r\n\r\n[]",
		"content-length:3\n\n123",
		"Content-Length: 10\r\n\r\n{}",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 99999999999999999999\r\n\r\n",
		"Content-Length: 4294967296\r\n\r\n",
		"Content-Length: 0\r\n\r\n",
		"Content-Length 5\r\n\r\nhello",
		"\r\n\r\n",
		"Content-Length: 2\r\n",
		"garbage without any newline",
		"",
		"\xff\xfe\x00\r\n",
		"X-Pad: y\r\nContent-Length: 2\r\n\r\n{}",
	}
}

// dapReadAll reads frames until the first error, checking each one's size.
func dapReadAll(t *testing.T, data []byte) error {
	r := bufio.NewReader(bytes.NewReader(data))
	for {
		body, err := readFrame(r)
		if err != nil {
			return err
		}
		if len(body) > maxMessageBytes || len(body) > len(data) {
			t.Fatalf("a %d-byte body from %d bytes of input", len(body), len(data))
		}
	}
}

// FuzzReadFrame: arbitrary bytes from a server never panic, and every body
// read is bounded by both the maximum and the bytes that arrived.
func FuzzReadFrame(f *testing.F) {
	for _, s := range dapFramingSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := dapReadAll(t, data); err == nil {
			t.Fatal("reading ended without an error")
		}
	})
}

func TestReadFrameBounds(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"over the maximum", fmt.Sprintf("Content-Length: %d\r\n\r\n", maxMessageBytes+1), "over the"},
		{"a terabyte", "Content-Length: 1099511627776\r\n\r\n", "maximum"},
		{"negative", "Content-Length: -5\r\n\r\n", "bad Content-Length"},
		{"no length", "Content-Type: x\r\n\r\n{}", "no Content-Length"},
		{"endless header line", strings.Repeat("a", 1<<20), "header longer than"},
		{"endless header block", strings.Repeat("X: y\r\n", 1<<16), "header longer than"},
		{"not a header", "hello\r\n\r\n", "malformed header"},
		{"truncated body", "Content-Length: 10\r\n\r\n{}", "ended 2 bytes into a 10-byte message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readFrame(bufio.NewReader(strings.NewReader(tt.in)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("readFrame: %v, want an error containing %q", err, tt.want)
			}
		})
	}
	r := bufio.NewReader(strings.NewReader("Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]"))
	for _, want := range []string{"{}", "[1]"} {
		body, err := readFrame(r)
		if err != nil || string(body) != want {
			t.Fatalf("readFrame = %q, %v; want %q", body, err, want)
		}
	}
	if _, err := readFrame(r); err != io.EOF {
		t.Fatalf("after the last frame: %v, want io.EOF", err)
	}
}

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

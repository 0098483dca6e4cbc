package frame

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

func framingSeeds() []string {
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

// testMax is the body limit the tests read with: small, so that the
// fuzzer reaches it.
const testMax = 4 << 10

// readFrame reads one message with the tests' limit.
func readFrame(r *bufio.Reader) ([]byte, error) { return Read(r, "test", testMax) }

// readAll reads frames until the first error, checking each one's size.
func readAll(t *testing.T, data []byte) error {
	r := bufio.NewReader(bytes.NewReader(data))
	for {
		body, err := readFrame(r)
		if err != nil {
			return err
		}
		if len(body) > testMax || len(body) > len(data) {
			t.Fatalf("a %d-byte body from %d bytes of input", len(body), len(data))
		}
	}
}

// FuzzRead: arbitrary bytes from a peer never panic, and every body
// read is bounded by both the maximum and the bytes that arrived.
func FuzzRead(f *testing.F) {
	for _, s := range framingSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := readAll(t, data); err == nil {
			t.Fatal("reading ended without an error")
		}
	})
}

func TestReadBounds(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"over the maximum", fmt.Sprintf("Content-Length: %d\r\n\r\n", testMax+1), "over the"},
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

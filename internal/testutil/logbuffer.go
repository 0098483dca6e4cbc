// This file holds the log sink tests give a component's zerolog logger.

package testutil

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
)

// LogBuffer collects what a logger writes, one JSON object a line; the
// goroutines of the component under test may write it concurrently with
// the test reading it. The zero value is ready to use.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Logger returns a zerolog logger writing to b, at every level.
func (b *LogBuffer) Logger() zerolog.Logger { return zerolog.New(b) }

// Entries decodes the lines written so far; a line that is not a JSON
// object fails t.
func (b *LogBuffer) Entries(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(b.String()) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

// HasLine reports whether one line written so far holds every one of parts.
func (b *LogBuffer) HasLine(parts ...string) bool {
	for line := range strings.Lines(b.String()) {
		if containsAll(line, parts) {
			return true
		}
	}
	return false
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

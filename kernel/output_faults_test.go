package kernel

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestOutputsManySmallChunks: a cell that prints megabytes in small
// writes (issue 8, faults) is accumulated in linear time. Appending each
// chunk to a string copied the whole retained text (up to 160 KB) at
// every chunk: 80 000 chunks allocated gigabytes and took seconds. The
// bound is on bytes allocated, not on time.
func TestOutputsManySmallChunks(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var o outputs
	for i := range 40000 {
		o.add(Output{Kind: KindStdout, Text: strconv.Itoa(i)})
		o.add(Output{Kind: KindStdout, Text: "\n"})
	}
	out := o.finish()
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("80 000 small chunks allocated %d MB", got>>20)
	}
	var text strings.Builder
	for _, it := range out {
		text.WriteString(it.Text)
	}
	if s := text.String(); !strings.HasPrefix(s, "0\n1\n2\n3\n") || !strings.HasSuffix(s, "39999\n") || !strings.Contains(s, "[output truncated") {
		t.Errorf("want the head and tail of the stream and a note, got %d items: %.80q … %q", len(out), s, s[max(0, len(s)-80):])
	}
}

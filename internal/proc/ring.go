// This file defines the bounded buffer that keeps the tail of a child's stderr.

package proc

import (
	"bytes"
	"strings"
	"sync"
)

// ring keeps the last limit bytes written to it, and the first headLimit
// bytes: a process that fails tends to say why first and print a
// backtrace after.
type ring struct {
	limit int

	mu      sync.Mutex // guards buf, dropped and head
	buf     []byte
	dropped bool   // bytes were discarded from the front
	head    []byte // the first headLimit bytes written
}

// headLimit is how much of the start of stderr a ring keeps.
const headLimit = 4 << 10

func newRing(limit int) *ring {
	// buf grows as stderr comes: most children say little, and a caller
	// that keeps megabytes of a checker's output should not pay for them
	// up front.
	return &ring{limit: limit}
}

// Write keeps the last r.limit bytes of everything written. It never fails.
func (r *ring) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if room := headLimit - len(r.head); room > 0 {
		r.head = append(r.head, b[:min(room, len(b))]...)
	}
	n := len(b)
	if len(b) > r.limit {
		r.buf = append(r.buf[:0], b[len(b)-r.limit:]...)
		r.dropped = true
		return n, nil
	}
	if over := len(r.buf) + len(b) - r.limit; over > 0 {
		r.buf = r.buf[:copy(r.buf, r.buf[over:])]
		r.dropped = true
	}
	r.buf = append(r.buf, b...)
	return n, nil
}

// cut reports whether bytes were dropped from the front.
func (r *ring) cut() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// String returns the kept bytes. When bytes were dropped, the cut-off first
// line is trimmed, provided a whole line remains after it.
func (r *ring) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.buf
	if r.dropped {
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		} else {
			for len(b) > 0 && b[0]&0xC0 == 0x80 { // a cut UTF-8 sequence
				b = b[1:]
			}
		}
	}
	return string(b)
}

// excerpt returns the first head and last tail non-blank lines, with a
// line "…" between them when lines were left out; all of them when there
// are no more than head+tail.
func (r *ring) excerpt(head, tail int) string {
	r.mu.Lock()
	whole := !r.dropped
	first := string(r.head)
	headFull := len(r.head) == headLimit
	r.mu.Unlock()
	last := nonBlankLines(r.String())
	if whole && len(last) <= head+tail {
		return strings.Join(last, "\n")
	}
	if whole {
		return strings.Join(last[:head], "\n") + "\n…\n" + strings.Join(last[len(last)-tail:], "\n")
	}
	if headFull { // the last line of the head may be cut
		if i := strings.LastIndexByte(first, '\n'); i >= 0 {
			first = first[:i]
		}
	}
	start := nonBlankLines(first)
	start = start[:min(head, len(start))]
	return strings.Join(start, "\n") + "\n…\n" + strings.Join(last[max(0, len(last)-tail):], "\n")
}

func nonBlankLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

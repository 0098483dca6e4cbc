// This file defines the bounded buffer that keeps the tail of a child's stderr.

package proc

import (
	"bytes"
	"sync"
)

// ring keeps the last limit bytes written to it.
type ring struct {
	limit int

	mu      sync.Mutex // guards buf and dropped
	buf     []byte
	dropped bool // bytes were discarded from the front
}

func newRing(limit int) *ring {
	return &ring{limit: limit, buf: make([]byte, 0, limit)}
}

// Write keeps the last r.limit bytes of everything written. It never fails.
func (r *ring) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
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

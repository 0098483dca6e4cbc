// This file defines the bounded buffer of debuggee output: output events
// kept in order, oldest dropped first, with a count of what was dropped.

package dapbridge

import (
	"fmt"
	"strings"
)

// outputLimit is how many bytes of output a session keeps.
const outputLimit = 32 << 10

// chunk is the text of consecutive output events of one category.
type chunk struct {
	category string // stdout, stderr or console
	text     string
}

// outputRing keeps the newest output not yet read. Its owner serializes
// access (the session's mutex).
type outputRing struct {
	limit   int
	chunks  []chunk
	size    int
	dropped int // bytes dropped since the last read
}

// add appends text, merging it with the last chunk of the same category.
// Telemetry and other categories are not debuggee output: dropped.
func (o *outputRing) add(category, text string) {
	switch category {
	case "", "console", "important":
		category = "console"
	case "stdout", "stderr":
	default:
		return
	}
	text = strings.ReplaceAll(text, "\r\n", "\n") // lldb-dap's pty
	if text == "" {
		return
	}
	if n := len(o.chunks); n > 0 && o.chunks[n-1].category == category {
		o.chunks[n-1].text += text
	} else {
		o.chunks = append(o.chunks, chunk{category, text})
	}
	o.size += len(text)
	for o.size > o.limit && len(o.chunks) > 0 {
		over := o.size - o.limit
		c := &o.chunks[0]
		if len(c.text) <= over {
			o.size -= len(c.text)
			o.dropped += len(c.text)
			o.chunks = o.chunks[1:]
			continue
		}
		c.text = c.text[over:]
		o.size -= over
		o.dropped += over
	}
}

// OutputChunk is debuggee output of one category, in arrival order.
type OutputChunk struct {
	Category string `json:"category" jsonschema_description:"stdout, stderr or console (adapter messages)"`
	Text     string `json:"text" jsonschema_description:"the text"`
}

// take returns what was not read yet and how many bytes were dropped
// before it, and empties the ring.
func (o *outputRing) take() ([]OutputChunk, int) {
	out := make([]OutputChunk, len(o.chunks))
	for i, c := range o.chunks {
		out[i] = OutputChunk{Category: c.category, Text: c.text}
	}
	dropped := o.dropped
	o.chunks, o.size, o.dropped = nil, 0, 0
	return out, dropped
}

// renderOutput is the text form: stdout as is, other categories with a
// prefix on each line, and the dropped marker first.
func renderOutput(chunks []OutputChunk, dropped int) string {
	var b strings.Builder
	if dropped > 0 {
		fmt.Fprintf(&b, "[%d bytes dropped]\n", dropped)
	}
	for _, c := range chunks {
		if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
			b.WriteString("\n") // another stream interleaved mid-line
		}
		if c.Category == "stdout" {
			b.WriteString(c.Text)
			continue
		}
		for _, line := range strings.SplitAfter(c.Text, "\n") {
			if line != "" {
				b.WriteString(c.Category + "| " + line)
			}
		}
	}
	s := b.String()
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

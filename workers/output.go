// This file defines how a worker's result is read from its stdout: plain
// text, or the last assistant/result message of a JSON-lines stream.

package workers

import (
	"bytes"
	"encoding/json"
	"strings"
)

// maxPlain bounds the plain-text result kept from stdout (its tail).
const maxPlain = 64 << 10

// Extractor reads a worker's stdout line by line and keeps its final
// message. The contract:
//
//   - A line that is a JSON object is an event. The recognised messages
//     are the stream-json of Claude Code and Amp (`{"type":"result",
//     "result":…}`, which wins, and `{"type":"assistant","message":
//     {"content":[{"type":"text","text":…}]}}`), `codex exec --json`
//     (`{"type":"item.completed","item":{"type":"agent_message","text":…}}`,
//     and the older `{"msg":{"type":"agent_message","message":…}}`),
//     opencode's `{"type":"text","part":{"text":…}}` and a generic
//     `{"role":"assistant","content":"…"}`. Other events are only logged.
//   - Every other line is plain text.
//
// The final message is the last result message if there was one, else the
// last assistant message, else the plain text (its last 64 KiB), trimmed.
type Extractor struct {
	result    string
	sawResult bool
	last      string
	plain     tail
}

// Line feeds one line of stdout, without its newline.
func (e *Extractor) Line(line string) {
	trimmed := strings.TrimSpace(line)
	if strings.HasPrefix(trimmed, "{") {
		var ev map[string]any
		if json.Unmarshal([]byte(trimmed), &ev) == nil {
			e.event(ev)
			return
		}
	}
	if e.plain.max == 0 {
		e.plain.max = maxPlain
	}
	e.plain.Write([]byte(line + "\n"))
}

func (e *Extractor) event(ev map[string]any) {
	typ, _ := ev["type"].(string)
	switch {
	case typ == "result":
		if s, ok := ev["result"].(string); ok {
			e.result, e.sawResult = s, true
		}
	case typ == "assistant":
		if msg, ok := ev["message"].(map[string]any); ok {
			e.setLast(contentText(msg["content"]))
		}
	case typ == "item.completed":
		if item, ok := ev["item"].(map[string]any); ok {
			if t, _ := item["type"].(string); t == "agent_message" || t == "assistant_message" {
				e.setLast(str(item["text"]))
			}
		}
	case typ == "text":
		if part, ok := ev["part"].(map[string]any); ok {
			e.setLast(str(part["text"]))
		}
	case ev["msg"] != nil:
		if msg, ok := ev["msg"].(map[string]any); ok {
			if t, _ := msg["type"].(string); t == "agent_message" {
				e.setLast(str(msg["message"]))
			}
		}
	case ev["role"] == "assistant":
		e.setLast(contentText(ev["content"]))
	}
}

func (e *Extractor) setLast(s string) {
	if strings.TrimSpace(s) != "" {
		e.last = s
	}
}

// Final returns the final message so far.
func (e *Extractor) Final() string {
	switch {
	case e.sawResult:
		return strings.TrimSpace(e.result)
	case e.last != "":
		return strings.TrimSpace(e.last)
	}
	return strings.TrimSpace(e.plain.String())
}

// contentText joins the text of a message content: a string, or a list of
// blocks of which the {"type":"text","text":…} ones count.
func contentText(c any) string {
	switch c := c.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, b := range c {
			if m, ok := b.(map[string]any); ok && (m["type"] == "text" || m["type"] == "output_text") {
				if s := str(m["text"]); s != "" {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// tail keeps the last max bytes written to it, cut at a line start when
// one is near.
type tail struct {
	max     int
	buf     []byte
	dropped bool // something was cut off the front
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; t.max > 0 && over > 0 {
		cut := over
		if i := bytes.IndexByte(t.buf[over:min(len(t.buf), over+256)], '\n'); i >= 0 {
			cut = over + i + 1
		}
		t.buf = append(t.buf[:0], t.buf[cut:]...)
		t.dropped = true
	}
	return len(p), nil
}

func (t *tail) String() string { return string(t.buf) }

// This file defines the tracker: what the replayer has sent, what the server
// has answered, and waiting until the two agree.

package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// A role is what a JSON-RPC 2.0 message is, judged from its members.
type role int

const (
	roleOther        role = iota // not a JSON object: garbage, an array, a number
	roleRequest                  // "method" and a non-null "id"
	roleNotification             // "method" and no "id" (or "id": null)
	roleResponse                 // "id" and no "method"
)

// An envelope is the part of a message the replayer acts on.
type envelope struct {
	role     role
	id       string // compact JSON of "id"; "null" for a response with "id": null
	method   string
	cancelID string // for notifications/cancelled: compact params.requestId
}

const methodCancelled = "notifications/cancelled"

func classify(line []byte) envelope {
	trimmed := bytes.TrimSpace(line)
	var m map[string]json.RawMessage
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &m) != nil {
		return envelope{role: roleOther}
	}
	rawID, hasID := m["id"]
	id := string(compact(rawID))
	rawMethod, hasMethod := m["method"]
	var env envelope
	switch {
	case hasMethod && json.Unmarshal(rawMethod, &env.method) != nil:
		return envelope{role: roleOther} // "method" is not a string: invalid
	case hasMethod && hasID && id != "null" && !plainID(id):
		// An id the server cannot echo (negative, fractional, an object)
		// is answered like garbage: one reply with "id": null.
		return envelope{role: roleOther}
	case hasMethod && hasID && id != "null":
		env.role, env.id = roleRequest, id
	case hasMethod:
		env.role = roleNotification
	case hasID:
		env.role, env.id = roleResponse, id
	default:
		return envelope{role: roleOther}
	}
	if env.method == methodCancelled {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m["params"], &p) == nil && len(p.RequestID) > 0 {
			env.cancelID = string(compact(p.RequestID))
		}
	}
	return env
}

// plainID reports whether a compact JSON id is a string or a non-negative
// integer, the ids a JSON-RPC server echoes back.
func plainID(id string) bool {
	if strings.HasPrefix(id, `"`) {
		return true
	}
	if id == "" {
		return false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// A tracker follows one replayed session. The reader goroutine feeds it the
// server's lines ([tracker.read]); the sending goroutine records what it
// sends ([tracker.sent]) and waits on it ([tracker.await]).
type tracker struct {
	norm *normalizer

	mu      sync.Mutex        // guards the fields below
	changed chan struct{}     // closed and replaced whenever a field below changes
	pending map[string]string // client request id → method, until answered or cancelled
	nulls   int               // replies with "id": null still expected (one per garbage line)
	asked   map[string]int    // server→client request ids not yet answered, with counts
	msgs    []json.RawMessage // normalised server messages, in arrival order
	err     error             // the first bad line on stdout, or a read error
	eof     bool              // stdout is closed
	state   string            // the last result.requestState, as sent (see [RequestState])
}

func newTracker(norm *normalizer) *tracker {
	return &tracker{
		norm:    norm,
		changed: make(chan struct{}),
		pending: make(map[string]string),
		asked:   make(map[string]int),
	}
}

// notify wakes the waiters. Call with mu held.
func (t *tracker) notify() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// read reads the server's stdout, one message per line, until EOF.
func (t *tracker) read(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			t.received(bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")))
		}
		if err != nil {
			t.mu.Lock()
			t.eof = true
			if err != io.EOF && t.err == nil {
				t.err = fmt.Errorf("reading server stdout: %w", err)
			}
			t.notify()
			t.mu.Unlock()
			return
		}
	}
}

// received records one line from the server.
func (t *tracker) received(line []byte) {
	msg, err := t.norm.normalize(line)
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.notify()
	if err != nil {
		if t.err == nil {
			t.err = fmt.Errorf("server wrote a line that is not JSON to stdout (%v): %q", err, truncate(line))
		}
		return
	}
	t.msgs = append(t.msgs, msg)
	if st := requestStateOf(line); st != "" {
		t.state = st
	}
	switch env := classify(line); {
	case env.role == roleRequest:
		t.asked[env.id]++
	case env.role == roleResponse && env.id == "null":
		t.nulls = max(t.nulls-1, 0)
	case env.role == roleResponse:
		delete(t.pending, env.id)
	case env.method == methodAcknowledged:
		// An open subscriptions/listen stream is answered only when it
		// ends: once acknowledged, it no longer holds back the next
		// request (MCP 2026-07-28).
		if id := subscriptionOf(line); id != "" && t.pending[id] == methodListen {
			delete(t.pending, id)
		}
	}
}

const (
	methodListen       = "subscriptions/listen"
	methodAcknowledged = "notifications/subscriptions/acknowledged"
)

// subscriptionOf returns the compact JSON id of the listen request a
// notification names in params._meta, or "".
func subscriptionOf(line []byte) string {
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil {
		return ""
	}
	id, ok := m.Params.Meta["io.modelcontextprotocol/subscriptionId"]
	if !ok {
		return ""
	}
	return string(compact(id))
}

// sent records a client message about to be sent.
func (t *tracker) sent(env envelope) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.notify()
	switch env.role {
	case roleRequest:
		t.pending[env.id] = env.method
	case roleOther:
		t.nulls++
	case roleResponse:
		if t.asked[env.id]--; t.asked[env.id] <= 0 {
			delete(t.asked, env.id)
		}
	case roleNotification:
		if env.cancelID != "" {
			delete(t.pending, env.cancelID)
		}
	}
}

func (t *tracker) messages() []json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.msgs)
}

func (t *tracker) failure() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// idle reports whether nothing is pending. Call with mu held.
func (t *tracker) idle() bool { return len(t.pending) == 0 && t.nulls == 0 }

// describePending names what is pending. Call with mu held.
func (t *tracker) describePending() string {
	var parts []string
	for _, id := range slices.Sorted(maps.Keys(t.pending)) {
		parts = append(parts, fmt.Sprintf("the response to request id %s (%s)", id, t.pending[id]))
	}
	if t.nulls > 0 {
		parts = append(parts, fmt.Sprintf(`%d reply(ies) with "id": null to a non-request line`, t.nulls))
	}
	return strings.Join(parts, " and ")
}

// awaitIdle waits until no request or garbage reply is pending.
func (t *tracker) awaitIdle(ctx context.Context, timeout time.Duration) error {
	return t.await(ctx, timeout, t.idle, t.describePending)
}

// awaitAsked waits until the server has sent a request with the given id.
func (t *tracker) awaitAsked(ctx context.Context, timeout time.Duration, id string) error {
	return t.await(ctx, timeout,
		func() bool { return t.asked[id] > 0 },
		func() string { return fmt.Sprintf("the server's request id %s", id) })
}

// await waits until ready reports true, the server fails or closes stdout,
// ctx is done or timeout passes. ready and what are called with mu held.
func (t *tracker) await(ctx context.Context, timeout time.Duration, ready func() bool, what func() string) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		t.mu.Lock()
		switch {
		case ready():
			t.mu.Unlock()
			return nil
		case t.err != nil:
			defer t.mu.Unlock()
			return t.err
		case t.eof:
			defer t.mu.Unlock()
			return fmt.Errorf("server closed stdout while the replayer waited for %s", what())
		}
		ch := t.changed
		t.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			t.mu.Lock()
			defer t.mu.Unlock()
			return fmt.Errorf("timed out after %v waiting for %s", timeout, what())
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// awaitEOF waits until the server closes stdout.
func (t *tracker) awaitEOF(ctx context.Context, timeout time.Duration) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		t.mu.Lock()
		eof, ch := t.eof, t.changed
		t.mu.Unlock()
		if eof {
			return nil
		}
		select {
		case <-ch:
		case <-timer.C:
			return fmt.Errorf("server did not close stdout within %v of its stdin being closed", timeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// truncate shortens a line for an error message.
func truncate(line []byte) string {
	const limit = 200
	if len(line) <= limit {
		return string(line)
	}
	return string(line[:limit]) + "…"
}

// requestStateOf returns result.requestState of a server message, or "".
func requestStateOf(line []byte) string {
	if !bytes.Contains(line, []byte(`"requestState"`)) {
		return ""
	}
	var m struct {
		Result struct {
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	json.Unmarshal(line, &m)
	return m.Result.RequestState
}

// requestState returns the last requestState the server sent.
func (t *tracker) requestState() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

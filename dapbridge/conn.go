// This file defines the DAP client connection: Content-Length framing
// (written with go-dap, read by framing.go), one reader goroutine that
// routes responses by request_seq and hands events to a callback, and
// writes behind a mutex.

package dapbridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/google/go-dap"
	"github.com/rs/zerolog"
)

// message is any DAP message. Decoding into one envelope (instead of
// go-dap's typed messages) means a custom or unknown event is just a name
// we skip, never a decode error.
type message struct {
	Seq        int             `json:"seq"`
	Type       string          `json:"type"`
	Command    string          `json:"command,omitempty"`
	RequestSeq int             `json:"request_seq,omitempty"`
	Success    bool            `json:"success,omitempty"`
	Message    string          `json:"message,omitempty"`
	Event      string          `json:"event,omitempty"`
	Body       json.RawMessage `json:"body,omitempty"`
}

// request is an outgoing request. Arguments are marshalled as given, so
// callers control which keys are present (go-dap's omitempty drops an empty
// breakpoints list, frameId 0 and terminateDebuggee false).
type request struct {
	Seq       int    `json:"seq"`
	Type      string `json:"type"`
	Command   string `json:"command"`
	Arguments any    `json:"arguments,omitempty"`
}

type reply struct {
	Seq        int    `json:"seq"`
	Type       string `json:"type"`
	RequestSeq int    `json:"request_seq"`
	Command    string `json:"command"`
	Success    bool   `json:"success"`
	Message    string `json:"message,omitempty"`
}

// errConnClosed is returned for requests pending when the adapter
// connection ends.
var errConnClosed = errors.New("the debug adapter closed the connection")

// conn is one DAP connection. The reader goroutine owns r; writes hold wmu.
type conn struct {
	r       *bufio.Reader
	closer  io.Closer
	onEvent func(*message) // called on the reader goroutine; must not block
	// onResponse, when set, sees each response on the reader goroutine
	// before its waiter does, in stream order with the events.
	onResponse func(*message)
	// onSend, when set, sees the command of each request as it is sent
	// (tests count the requests an op makes). Set before the first send.
	onSend func(command string)
	// log gets the requests the adapter left unanswered. Set before the
	// first send; the zero Logger discards.
	log zerolog.Logger

	wmu sync.Mutex // guards w and seq
	w   io.Writer
	seq int

	mu      sync.Mutex // guards pending and err
	pending map[int]chan *message
	err     error         // why the connection ended
	done    chan struct{} // closed when the reader has stopped
}

func newConn(r io.Reader, w io.Writer, closer io.Closer, onEvent, onResponse func(*message)) *conn {
	c := &conn{
		r:          bufio.NewReaderSize(r, 64<<10),
		w:          w,
		closer:     closer,
		onEvent:    onEvent,
		onResponse: onResponse,
		pending:    map[int]chan *message{},
		done:       make(chan struct{}),
	}
	go c.readLoop()
	return c
}

func (c *conn) readLoop() {
	defer close(c.done)
	for {
		data, err := readFrame(c.r)
		if err != nil {
			c.fail(err)
			return
		}
		var m message
		if err := json.Unmarshal(data, &m); err != nil {
			continue // a frame that is not a message: skip it, the next one is intact
		}
		switch m.Type {
		case "response":
			if c.onResponse != nil {
				c.onResponse(&m)
			}
			c.mu.Lock()
			ch := c.pending[m.RequestSeq]
			delete(c.pending, m.RequestSeq)
			c.mu.Unlock()
			if ch != nil {
				ch <- &m
			}
		case "event":
			c.onEvent(&m)
		case "request":
			// Reverse requests (runInTerminal, startDebugging): we declared
			// no support; refuse so that the adapter does not wait.
			go c.write(reply{Type: "response", RequestSeq: m.Seq, Command: m.Command, Message: "not supported by agent-tools"})
		}
	}
}

func (c *conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = fmt.Errorf("%w (%v)", errConnClosed, err)
	}
	for seq, ch := range c.pending {
		close(ch)
		delete(c.pending, seq)
	}
}

// write sends one message, numbering it.
func (c *conn) write(v any) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.seq++
	switch m := v.(type) {
	case request:
		m.Seq = c.seq
		v = m
	case reply:
		m.Seq = c.seq
		v = m
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return dap.WriteBaseMessage(c.w, data)
}

// send sends a request and returns a channel that receives its response
// (or is closed when the connection ends first).
func (c *conn) send(command string, args any) (<-chan *message, error) {
	ch := make(chan *message, 1)
	c.wmu.Lock()
	c.seq++
	seq := c.seq
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		c.wmu.Unlock()
		return nil, err
	}
	c.pending[seq] = ch
	c.mu.Unlock()
	if c.onSend != nil {
		c.onSend(command)
	}
	data, err := json.Marshal(request{Seq: seq, Type: "request", Command: command, Arguments: args})
	if err == nil {
		err = dap.WriteBaseMessage(c.w, data)
	}
	c.wmu.Unlock()
	if err != nil {
		c.mu.Lock()
		delete(c.pending, seq)
		c.mu.Unlock()
		return nil, fmt.Errorf("sending %s: %w", command, err)
	}
	return ch, nil
}

// await waits for a response from send, bounded by d and ctx, and turns a
// failure into an error.
func (c *conn) await(ctx context.Context, command string, ch <-chan *message, d time.Duration) (*message, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: %w", command, c.closedErr())
		}
		if !m.Success {
			return m, fmt.Errorf("%s: %s", command, errorText(m))
		}
		return m, nil
	case <-t.C:
		c.log.Warn().Str("request", command).Dur("timeout", d).Msg("debug adapter did not answer in time")
		return nil, fmt.Errorf("%s: no answer from the debug adapter within %v", command, d)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// call sends a request and waits for its response.
func (c *conn) call(ctx context.Context, command string, args any, d time.Duration, body any) error {
	ch, err := c.send(command, args)
	if err != nil {
		return err
	}
	m, err := c.await(ctx, command, ch, d)
	if err != nil {
		return err
	}
	if body != nil && len(m.Body) > 0 {
		if err := json.Unmarshal(m.Body, body); err != nil {
			return fmt.Errorf("%s: decoding the answer: %w", command, err)
		}
	}
	return nil
}

func (c *conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return errConnClosed
}

// close closes the transport; the reader then stops.
func (c *conn) close() {
	if c.closer != nil {
		c.closer.Close()
	}
}

// errorText is the most useful text of a failed response: delve puts the
// reason in body.error.format, debugpy and lldb in message.
func errorText(m *message) string {
	var body dap.ErrorResponseBody
	if len(m.Body) > 0 && json.Unmarshal(m.Body, &body) == nil && body.Error != nil && body.Error.Format != "" {
		f := body.Error.Format
		for k, v := range body.Error.Variables {
			f = strings.ReplaceAll(f, "{"+k+"}", v)
		}
		if m.Message != "" && !strings.HasPrefix(f, m.Message) {
			return m.Message + ": " + f
		}
		return f
	}
	if m.Message != "" {
		return m.Message
	}
	return "failed (the adapter gave no reason)"
}

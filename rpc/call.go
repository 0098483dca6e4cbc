// This file defines the state of one tools/call: what the session asked
// of its result (structured or not, the output budget), and its progress
// notifications, the tool's own and the heartbeat's, on one counter.

package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// DefaultProgressInterval is how often a running tools/call that came with
// a progressToken sends a heartbeat. opencode ends a call after 60 s
// without progress; the issue asks for at least one every 10 s.
const DefaultProgressInterval = 5 * time.Second

// call is one tools/call in flight.
type call struct {
	sess       *Session
	structured bool       // the result carries structuredContent
	budget     int        // the output budget, in bytes
	trip       *roundTrip // a stateless call's multi round-trip; nil otherwise
	task       *task      // the task the call runs as; nil otherwise

	// Progress: set only when the client sent a progressToken.
	token json.RawMessage
	start time.Time
	stop  chan struct{} // closed by finish: the heartbeat ends

	mu      sync.Mutex // guards the fields below, and orders sends against finish
	done    bool       // the call returned: nothing more is sent for it
	sent    bool       // a notification was sent
	last    float64    // the last progress value sent
	lastMsg string     // the tool's last progress message
}

type callKey struct{}

func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

// wantsStructured reports whether the call ctx belongs to should carry
// structuredContent; outside a tools/call (a tool called directly) it does.
func wantsStructured(ctx context.Context) bool {
	c := callFrom(ctx)
	return c == nil || c.structured
}

// startProgress starts the heartbeat of a call whose client sent token.
func (c *call) startProgress(ctx context.Context, token json.RawMessage, every time.Duration) {
	c.token = token
	c.start = time.Now()
	c.stop = make(chan struct{})
	go c.heartbeat(ctx, every)
}

// heartbeat sends "still running (N s)" every interval until the call
// returns or its context is done (cancelled by the client, or shutdown).
func (c *call) heartbeat(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.stop:
			return
		case <-t.C:
		}
		c.mu.Lock()
		msg := fmt.Sprintf("still running (%d s)", int(time.Since(c.start).Round(time.Second)/time.Second))
		if c.lastMsg != "" {
			msg += ": " + c.lastMsg
		}
		c.sendLocked(ctx, c.last+1, 0, msg)
		c.mu.Unlock()
	}
}

// report sends a progress notification the tool asked for. A value that
// does not exceed the last one sent (a tool that reports 0 each time, or
// one the heartbeat overtook) is raised to it plus one, so that progress
// increases strictly, as MCP requires; total is then dropped if the value
// passed it.
func (c *call) report(ctx context.Context, progress, total float64, message string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if message != "" {
		c.lastMsg = message
	}
	if c.sent && progress <= c.last {
		progress = c.last + 1
	}
	if progress > total {
		total = 0
	}
	c.sendLocked(ctx, progress, total, message)
}

// sendLocked sends one notification unless the call is over. Sending
// under c.mu means finish waits for a send under way, so that nothing for
// the call is written after its reply.
func (c *call) sendLocked(ctx context.Context, progress, total float64, message string) {
	if c.done || ctx.Err() != nil {
		return
	}
	c.sent, c.last = true, progress
	p := progressParams{Token: c.token, Progress: progress, Total: total, Message: message}
	if err := c.sess.Notify(ctx, "notifications/progress", p); err != nil {
		c.sess.log.Debug().Err(err).Msg("progress not sent")
	}
}

// progressParams are the params of notifications/progress, its fields in
// the order they had when they were a map (sorted by key).
type progressParams struct {
	Message  string          `json:"message,omitempty"`
	Progress float64         `json:"progress"`
	Token    json.RawMessage `json:"progressToken"`
	Total    float64         `json:"total,omitempty"`
}

// finish ends the call's progress: once it returns, nothing more is sent.
func (c *call) finish() {
	c.mu.Lock()
	c.done = true
	c.mu.Unlock()
	close(c.stop)
}

// ReportProgress sends notifications/progress for the call ctx belongs to,
// if the client gave a progressToken; otherwise it does nothing. total may
// be 0 when unknown. Values are made to increase strictly across the
// tool's reports and the server's heartbeat (see [Options]
// ProgressInterval), and nothing is sent once the call has returned or
// was cancelled.
func ReportProgress(ctx context.Context, progress, total float64, message string) {
	if c := callFrom(ctx); c != nil && c.task != nil {
		c.sess.taskProgress(c.task, message)
	} else if c != nil && c.token != nil {
		c.report(ctx, progress, total, message)
	}
}

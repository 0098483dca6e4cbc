// This file defines a fake MCP-ish server for the replayer's own tests.

package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// fake is a fake server, a goroutine behind io.Pipe. It stands in for the
// real binary because the replayer's rules need behaviour a real server
// cannot be made to produce on demand: a reply held back until a later
// message, a request that is never answered, a server→client request, a
// non-JSON line on stdout.
//
// Like the real server, it answers from other goroutines than its read
// loop, after a simulated millisecond of work (see [fake.later]). It is
// strict about the replayer's rules: a request or non-JSON line that
// arrives while an earlier one is unanswered and not cancelled, or a
// response to a request it did not send, gets a "fake/violation"
// notification, which shows up as a diff. Run it inside a synctest bubble:
// there the clock moves only once every goroutine is blocked, so a
// replayer that sends too early is caught every time.
//
// Methods:
//   - initialize: answers {serverInfo:{name,version}, pid, flags, root,
//     realRoot}, to exercise normalisation;
//   - echo: answers its params;
//   - read: answers {path, text} with the file at params.path;
//   - slow: answered only on the notification fake/release, or never if
//     cancelled by notifications/cancelled;
//   - ask: sends the request fake/question id "q<n>" to the client and
//     answers with the client's result;
//   - garble: writes a line that is not JSON;
//   - quit: stops reading and closes stdout without answering;
//   - a line that is not a JSON object gets a parse error with "id": null.
type fake struct {
	dir   string
	flags []string
	wg    sync.WaitGroup // answers in flight
	quit  bool           // owned by the read loop

	mu      sync.Mutex // guards the fields below and serialises writes to out
	out     io.Writer
	open    map[string]bool            // requests and garbage lines not yet answered
	slow    map[string]json.RawMessage // slow requests held back, by id
	asks    map[string]json.RawMessage // our request id → the id of the ask that made it
	nextAsk int
	garbage int
}

type fakeMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// startFake is a StartFunc for [fake].
func startFake(ctx context.Context, dir string, flags []string) (Conn, error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f := &fake{
		dir: dir, flags: flags, out: outW,
		open: map[string]bool{}, slow: map[string]json.RawMessage{}, asks: map[string]json.RawMessage{},
	}
	stopAfter := context.AfterFunc(ctx, func() { inR.CloseWithError(ctx.Err()) })
	c := &pipeConn{in: inW, out: outR, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer stopAfter()
		c.err = f.serve(inR)
		inR.CloseWithError(io.ErrClosedPipe) // as a dead process's stdin: writes fail
		f.wg.Wait()
		outW.Close()
	}()
	return c, nil
}

// pipeConn is the Conn of a goroutine server.
type pipeConn struct {
	in   io.WriteCloser
	out  io.Reader
	done chan struct{}
	err  error // set before done is closed
}

func (c *pipeConn) Stdin() io.WriteCloser { return c.in }
func (c *pipeConn) Stdout() io.Reader     { return c.out }
func (c *pipeConn) Wait() error           { <-c.done; return c.err }

func (f *fake) serve(in io.Reader) error {
	sc := bufio.NewScanner(in)
	for !f.quit && sc.Scan() {
		f.handle(sc.Bytes())
	}
	if err := sc.Err(); err != nil && err != io.ErrClosedPipe {
		return err
	}
	return nil
}

// later runs fn with mu held, from its own goroutine, after a simulated
// millisecond of work.
func (f *fake) later(fn func()) {
	f.wg.Go(func() {
		time.Sleep(time.Millisecond)
		f.mu.Lock()
		defer f.mu.Unlock()
		fn()
	})
}

// send writes one message. Call with mu held.
func (f *fake) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	f.out.Write(append(b, '\n'))
}

// reply answers request id. Call with mu held.
func (f *fake) reply(id json.RawMessage, result any) {
	delete(f.open, string(id))
	f.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// violation reports a breach of the replayer's rules. Call with mu held.
func (f *fake) violation(format string, args ...any) {
	f.send(map[string]any{"jsonrpc": "2.0", "method": "fake/violation",
		"params": map[string]any{"message": fmt.Sprintf(format, args...)}})
}

// checkIdle reports a violation if anything is unanswered. Call with mu held.
func (f *fake) checkIdle(what string) {
	for _, id := range slices.Sorted(maps.Keys(f.open)) {
		f.violation("%s arrived while %s is unanswered", what, id)
	}
}

func (f *fake) handle(line []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var m fakeMsg
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &m) != nil {
		f.checkIdle(fmt.Sprintf("line %q", line))
		f.garbage++
		key := fmt.Sprintf("garbage line %d", f.garbage)
		f.open[key] = true
		f.later(func() {
			delete(f.open, key)
			f.send(map[string]any{"jsonrpc": "2.0", "id": nil,
				"error": map[string]any{"code": -32700, "message": "parse error"}})
		})
		return
	}
	switch {
	case m.Method == "" && m.ID != nil:
		f.answered(m)
	case m.ID == nil:
		f.notified(m)
	default:
		f.checkIdle("request " + string(m.ID))
		f.open[string(m.ID)] = true
		f.called(m)
	}
}

// answered handles the client's response to a fake/question.
func (f *fake) answered(m fakeMsg) {
	askID, ok := f.asks[string(m.ID)]
	if !ok {
		f.violation("response %s to no request of ours", m.ID)
		return
	}
	delete(f.asks, string(m.ID))
	f.later(func() { f.reply(askID, map[string]any{"answer": m.Result}) })
}

func (f *fake) notified(m fakeMsg) {
	switch m.Method {
	case "fake/release":
		for key, id := range f.slow {
			delete(f.slow, key)
			f.later(func() { f.reply(id, "slow done") })
		}
	case methodCancelled:
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		json.Unmarshal(m.Params, &p)
		delete(f.slow, string(p.RequestID))
		delete(f.open, string(p.RequestID))
	}
}

func (f *fake) called(m fakeMsg) {
	switch m.Method {
	case "initialize":
		real, _ := filepath.EvalSymlinks(f.dir)
		f.later(func() {
			f.reply(m.ID, map[string]any{
				"serverInfo": map[string]any{"name": "fake", "version": "9.9.9"},
				"pid":        os.Getpid(),
				"flags":      f.flags,
				"root":       f.dir,
				"realRoot":   real + "/sub",
			})
		})
	case "echo":
		f.later(func() { f.reply(m.ID, m.Params) })
	case "read":
		var p struct{ Path string }
		json.Unmarshal(m.Params, &p)
		data, err := os.ReadFile(p.Path)
		result := map[string]any{"path": p.Path, "text": string(data)}
		if err != nil {
			result = map[string]any{"error": err.Error()}
		}
		f.later(func() { f.reply(m.ID, result) })
	case "slow":
		f.slow[string(m.ID)] = m.ID
	case "ask":
		f.nextAsk++
		id := fmt.Sprintf(`"q%d"`, f.nextAsk)
		f.later(func() {
			f.asks[id] = m.ID
			f.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "fake/question", "params": m.Params})
		})
	case "garble":
		f.later(func() {
			f.out.Write([]byte("this is not JSON\n"))
			f.reply(m.ID, nil)
		})
	case "quit":
		f.quit = true
	default:
		f.later(func() {
			delete(f.open, string(m.ID))
			f.send(map[string]any{"jsonrpc": "2.0", "id": m.ID,
				"error": map[string]any{"code": -32601, "message": "method not found: " + m.Method}})
		})
	}
}

// This file defines the JSON-RPC client connection to one language server:
// Content-Length framing over the child's stdio, server→client requests
// answered on their own goroutines, and $/cancelRequest when a caller's
// context is done.

package lspbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
)

// conn is a client connection to a language server.
//
// Goroutines: jsonrpc2's read loop calls handler.Handle, which runs
// notifications inline (they only update the server's state under its
// mutex) and starts one goroutine per server→client request, so an answer
// to workspace/configuration never waits behind anything (STYLE.md R9).
type conn struct {
	rpc    *jsonrpc2.Conn
	codec  *codec
	nextID atomic.Uint64
}

// connHandler is what the server side of the connection may ask of us.
type connHandler struct {
	notify  func(method string, params json.RawMessage)
	request func(ctx context.Context, method string, params json.RawMessage) (any, error)
}

// stdio joins a child's stdout and stdin into one stream.
type stdio struct {
	io.Reader
	io.WriteCloser
	out io.Closer
}

func (s stdio) Close() error {
	return errors.Join(s.WriteCloser.Close(), s.out.Close())
}

// traceRecv, when set (by tests), sees every message a server sends.
var traceRecv func(*jsonrpc2.Request, *jsonrpc2.Response)

// discard silences jsonrpc2's own logging (it would write to stderr).
var discard = log.New(io.Discard, "", 0)

func newConn(ctx context.Context, stdout io.ReadCloser, stdin io.WriteCloser, h connHandler) *conn {
	cd := &codec{}
	stream := jsonrpc2.NewBufferedStream(stdio{Reader: stdout, WriteCloser: stdin, out: stdout}, cd)
	opts := []jsonrpc2.ConnOpt{jsonrpc2.SetLogger(discard)}
	if traceRecv != nil {
		opts = append(opts, jsonrpc2.OnRecv(traceRecv))
	}
	return &conn{rpc: jsonrpc2.NewConn(ctx, stream, h, opts...), codec: cd}
}

// Handle implements jsonrpc2.Handler; it never blocks on a request.
func (h connHandler) Handle(ctx context.Context, c *jsonrpc2.Conn, req *jsonrpc2.Request) {
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	if req.Notif {
		h.notify(req.Method, params)
		return
	}
	go func() {
		res, err := h.request(ctx, req.Method, params)
		if err != nil {
			var we *jsonrpc2.Error
			if !errors.As(err, &we) {
				we = &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
			}
			c.ReplyWithError(ctx, req.ID, we)
			return
		}
		c.Reply(ctx, req.ID, res)
	}()
}

// call sends a request and waits for its answer. When ctx is done first the
// server gets $/cancelRequest and call returns ctx's error.
func (c *conn) call(ctx context.Context, method string, params, result any) error {
	id := jsonrpc2.ID{Num: c.nextID.Add(1)}
	w, err := c.rpc.DispatchCall(ctx, method, params, jsonrpc2.PickID(id))
	if err != nil {
		return fmt.Errorf("sending %s: %w", method, err)
	}
	if err := w.Wait(ctx, result); err != nil {
		if ctx.Err() != nil {
			// On its own goroutine: a server that no longer reads its
			// input must not hold up the caller.
			go c.rpc.Notify(context.WithoutCancel(ctx), "$/cancelRequest", CancelParams{ID: id.Num})
			return ctx.Err()
		}
		var we *jsonrpc2.Error
		if errors.As(err, &we) {
			return fmt.Errorf("%s: the server answered error %d: %s", method, we.Code, we.Message)
		}
		if why := c.codec.readErr(); why != nil && errors.Is(err, jsonrpc2.ErrClosed) {
			return fmt.Errorf("%s: %w (%v)", method, err, why)
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

func (c *conn) notify(ctx context.Context, method string, params any) error {
	return c.rpc.Notify(ctx, method, params)
}

// disconnected is closed when the connection is gone.
func (c *conn) disconnected() <-chan struct{} { return c.rpc.DisconnectNotify() }

func (c *conn) close() error { return c.rpc.Close() }

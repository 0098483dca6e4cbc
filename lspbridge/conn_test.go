package lspbridge

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// silentServer is a fake language server that never answers requests and
// reports every notification it gets: a real server cannot be made to hang
// on demand, which is what this test needs (STYLE.md R21).
type silentServer struct{ notes chan string }

func (f silentServer) Handle(ctx context.Context, c *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		p := ""
		if req.Params != nil {
			p = string(*req.Params)
		}
		f.notes <- req.Method + " " + p
	}
}

type pipeEnd struct{ net.Conn }

func (p pipeEnd) Close() error { return p.Conn.Close() }

// TestCallCancel: when the caller's context is done, the server gets
// $/cancelRequest with the request's id and the call returns at once.
func TestCallCancel(t *testing.T) {
	a, b := net.Pipe()
	fake := silentServer{notes: make(chan string, 10)}
	srvConn := jsonrpc2.NewConn(t.Context(), jsonrpc2.NewBufferedStream(pipeEnd{b}, jsonrpc2.VSCodeObjectCodec{}), fake)
	defer srvConn.Close()
	c := newConn(t.Context(), a, a, connHandler{
		notify: func(string, json.RawMessage) {},
		request: func(context.Context, string, json.RawMessage) (any, error) {
			return map[string]string{"answered": "yes"}, nil
		},
	})
	defer c.close()

	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- c.call(ctx, "textDocument/references", map[string]int{}, nil) }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("call: got %v, want context.Canceled", err)
	}
	if got := <-fake.notes; got != `$/cancelRequest {"id":1}` {
		t.Errorf("the server got %q, want $/cancelRequest for id 1", got)
	}

	// The server's own requests are answered while a call is pending.
	var res map[string]string
	if err := srvConn.Call(t.Context(), "workspace/configuration", nil, &res); err != nil || res["answered"] != "yes" {
		t.Errorf("server→client request: %v %v", res, err)
	}
}

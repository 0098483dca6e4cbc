// This file defines the Content-Length framing of messages from a language
// server, with bounds: jsonrpc2's VSCodeObjectCodec reads header lines of
// any length and bodies of up to 4 GiB, so a server that writes garbage
// could make us allocate without limit.

package lspbridge

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agent-tools/agent-tools/internal/frame"
)

const (
	// maxMessageBytes bounds one message body from a language server. The
	// largest real answers (workspace/symbol, semantic tokens of a big file)
	// are a few MB.
	maxMessageBytes = 64 << 20
)

// codec is jsonrpc2.VSCodeObjectCodec with bounded reads. It keeps the
// error that ended reading, so that callers can say why the connection
// closed (jsonrpc2 only logs it).
type codec struct {
	jsonrpc2.VSCodeObjectCodec // WriteObject

	mu  sync.Mutex
	err error
}

func (c *codec) ReadObject(r *bufio.Reader, v any) error {
	body, err := readFrame(r)
	if err == nil {
		if u, ok := v.(json.Unmarshaler); ok {
			// jsonrpc2's message type decodes (and so checks) itself
			// with json.Unmarshal; going through json.Unmarshal here too
			// would scan the body twice more only to hand it over.
			err = u.UnmarshalJSON(body)
		} else {
			err = json.Unmarshal(body, v)
		}
	}
	if err != nil && err != io.EOF {
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
	}
	return err
}

// readErr is why reading stopped, or nil.
func (c *codec) readErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// readFrame reads one message within the bounds above.
func readFrame(r *bufio.Reader) ([]byte, error) {
	return frame.Read(r, "lsp", maxMessageBytes)
}

// This file defines the Content-Length framing of messages from a language
// server, with bounds: jsonrpc2's VSCodeObjectCodec reads header lines of
// any length and bodies of up to 4 GiB, so a server that writes garbage
// could make us allocate without limit.

package lspbridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

const (
	// maxMessageBytes bounds one message body from a language server. The
	// largest real answers (workspace/symbol, semantic tokens of a big file)
	// are a few MB.
	maxMessageBytes = 64 << 20
	// maxHeaderBytes bounds the header block of one message.
	maxHeaderBytes = 8 << 10
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
		err = json.Unmarshal(body, v)
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

// readFrame reads one message: header lines up to an empty line, then
// Content-Length bytes of body. Memory stays within maxHeaderBytes plus
// the bytes of body that actually arrive (at most maxMessageBytes).
func readFrame(r *bufio.Reader) ([]byte, error) {
	length, seen := int64(-1), 0
	for {
		line, err := r.ReadSlice('\n')
		seen += len(line)
		if errors.Is(err, bufio.ErrBufferFull) || seen > maxHeaderBytes {
			return nil, fmt.Errorf("lsp framing: header longer than %d bytes", maxHeaderBytes)
		}
		if err != nil {
			if err == io.EOF && seen > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		text := strings.TrimRight(string(line), "\r\n")
		if text == "" {
			break
		}
		name, value, ok := strings.Cut(text, ":")
		if !ok {
			return nil, fmt.Errorf("lsp framing: malformed header line %q", text)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("lsp framing: bad Content-Length %q", strings.TrimSpace(value))
			}
			length = n
		}
	}
	switch {
	case length < 0:
		return nil, errors.New("lsp framing: no Content-Length header")
	case length > maxMessageBytes:
		return nil, fmt.Errorf("lsp framing: a message of %d bytes is over the %d-byte maximum", length, maxMessageBytes)
	}
	var body bytes.Buffer
	if _, err := body.ReadFrom(io.LimitReader(r, length)); err != nil {
		return nil, err
	}
	if int64(body.Len()) != length {
		return nil, fmt.Errorf("lsp framing: the stream ended %d bytes into a %d-byte message: %w", body.Len(), length, io.ErrUnexpectedEOF)
	}
	return body.Bytes(), nil
}

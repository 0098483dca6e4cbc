// Package frame reads Content-Length framed messages (the base protocol
// LSP and DAP share) with bounds: the readers shipped with jsonrpc2 and
// go-dap let a peer that writes garbage grow our memory without limit
// (header lines of any length, bodies up to 4 GiB).
package frame

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxHeaderBytes bounds the header block of one message.
const MaxHeaderBytes = 8 << 10

// Read reads one message: header lines up to an empty line, then
// Content-Length bytes of body. Memory stays within MaxHeaderBytes plus
// the bytes of body that actually arrive (at most maxBody). proto names
// the protocol in errors ("lsp", "dap").
func Read(r *bufio.Reader, proto string, maxBody int64) ([]byte, error) {
	length, seen := int64(-1), 0
	for {
		line, err := r.ReadSlice('\n')
		seen += len(line)
		if errors.Is(err, bufio.ErrBufferFull) || seen > MaxHeaderBytes {
			return nil, fmt.Errorf("%s framing: header longer than %d bytes", proto, MaxHeaderBytes)
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
			return nil, fmt.Errorf("%s framing: malformed header line %q", proto, text)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%s framing: bad Content-Length %q", proto, strings.TrimSpace(value))
			}
			length = n
		}
	}
	switch {
	case length < 0:
		return nil, fmt.Errorf("%s framing: no Content-Length header", proto)
	case length > maxBody:
		return nil, fmt.Errorf("%s framing: a message of %d bytes is over the %d-byte maximum", proto, length, maxBody)
	}
	var body bytes.Buffer
	if _, err := body.ReadFrom(io.LimitReader(r, length)); err != nil {
		return nil, err
	}
	if int64(body.Len()) != length {
		return nil, fmt.Errorf("%s framing: the stream ended %d bytes into a %d-byte message: %w", proto, body.Len(), length, io.ErrUnexpectedEOF)
	}
	return body.Bytes(), nil
}

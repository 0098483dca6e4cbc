// This file defines the reading side of DAP's Content-Length framing, with
// bounds. go-dap's ReadBaseMessage caps the body at 4 MiB but reads the
// header up to the first '\r' however far away it is, so an adapter that
// writes garbage without one grows our memory without limit.

package dapbridge

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

const (
	// maxMessageBytes bounds one message body from a debug adapter; it is
	// go-dap's own limit.
	maxMessageBytes = 4 << 20
	// maxHeaderBytes bounds the header block of one message.
	maxHeaderBytes = 8 << 10
)

// readFrame reads one message: header lines up to an empty line, then
// Content-Length bytes of body. Memory stays within maxHeaderBytes plus
// the bytes of body that actually arrive (at most maxMessageBytes).
func readFrame(r *bufio.Reader) ([]byte, error) {
	length, seen := int64(-1), 0
	for {
		line, err := r.ReadSlice('\n')
		seen += len(line)
		if errors.Is(err, bufio.ErrBufferFull) || seen > maxHeaderBytes {
			return nil, fmt.Errorf("dap framing: header longer than %d bytes", maxHeaderBytes)
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
			return nil, fmt.Errorf("dap framing: malformed header line %q", text)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("dap framing: bad Content-Length %q", strings.TrimSpace(value))
			}
			length = n
		}
	}
	switch {
	case length < 0:
		return nil, errors.New("dap framing: no Content-Length header")
	case length > maxMessageBytes:
		return nil, fmt.Errorf("dap framing: a message of %d bytes is over the %d-byte maximum", length, maxMessageBytes)
	}
	var body bytes.Buffer
	if _, err := body.ReadFrom(io.LimitReader(r, length)); err != nil {
		return nil, err
	}
	if int64(body.Len()) != length {
		return nil, fmt.Errorf("dap framing: the stream ended %d bytes into a %d-byte message: %w", body.Len(), length, io.ErrUnexpectedEOF)
	}
	return body.Bytes(), nil
}

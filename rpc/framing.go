// This file defines the newline-delimited stdio framing and the line
// validator that stands in front of jsonrpc2.

package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
)

// DefaultMaxMessageBytes is the longest line accepted from the client. A
// longer line is answered with -32600 and skipped without being held in
// memory.
const DefaultMaxMessageBytes = 16 << 20

// lineStream is the jsonrpc2.ObjectStream of a stdio session.
//
// sourcegraph/jsonrpc2 closes the whole connection when ReadObject returns
// an error, so ReadObject never returns one except at end of input: it
// validates every line itself, answers a bad one on the spot (-32700 for
// garbage, -32600 for a batch, a non-object or a malformed message) and
// reads on. Only lines that jsonrpc2 is sure to decode are handed over.
type lineStream struct {
	r      *bufio.Reader
	closer io.Closer // closes the input, may be nil
	max    int

	// inputEnded is closed when reading hits end of input or an error;
	// ReadObject then holds that error back until release is closed, so
	// that jsonrpc2 keeps the connection open while in-flight calls answer.
	inputEnded chan struct{}
	release    chan struct{}
	endOnce    sync.Once

	onRecv func([]byte) // raw client lines, for --record; may be nil
	onSend func([]byte) // raw server lines; may be nil
	onDrop func(reason string, line []byte)

	mu sync.Mutex // guards w: jsonrpc2 and our own error replies both write
	w  io.Writer

	closed atomic.Bool // the session is over: writeResponse sends nothing
}

func newLineStream(r io.Reader, w io.Writer, max int) *lineStream {
	if max <= 0 {
		max = DefaultMaxMessageBytes
	}
	s := &lineStream{
		r: bufio.NewReaderSize(r, 64<<10), w: w, max: max,
		inputEnded: make(chan struct{}), release: make(chan struct{}),
	}
	if c, ok := r.(io.Closer); ok {
		s.closer = c
	}
	return s
}

// ReadObject implements jsonrpc2.ObjectStream.
func (s *lineStream) ReadObject(v any) error {
	for {
		line, err := s.readLine()
		if err != nil {
			s.endOnce.Do(func() { close(s.inputEnded) })
			<-s.release
			return err
		}
		if line == nil {
			continue // an over-long line, already answered
		}
		if s.onRecv != nil {
			s.onRecv(line)
		}
		if reply := checkLine(line); reply != nil {
			if reply.drop {
				s.drop(reply.msg, line)
			} else {
				s.writeRaw(errorFrame(reply.id, reply.code, reply.msg))
			}
			continue
		}
		return json.Unmarshal(line, v)
	}
}

// readLine returns the next non-blank line without its newline. A line
// longer than s.max is consumed in chunks, answered with an error, and
// reported as (nil, nil).
func (s *lineStream) readLine() ([]byte, error) {
	for {
		var buf []byte
		tooLong := false
		for {
			chunk, err := s.r.ReadSlice('\n')
			if !tooLong && len(buf)+len(chunk) > s.max+1 {
				tooLong, buf = true, nil
			}
			if !tooLong {
				buf = append(buf, chunk...)
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF && (len(buf) > 0 || tooLong) {
				break // a last line without its newline
			}
			if err != nil {
				return nil, err
			}
			break
		}
		if tooLong {
			s.writeRaw(errorFrame(nil, ErrInvalidRequest.Code,
				fmt.Sprintf("invalid request: message longer than the %d-byte limit; it was skipped", s.max)))
			return nil, nil
		}
		if line := bytes.TrimSpace(buf); len(line) > 0 {
			return line, nil
		}
	}
}

// WriteObject implements jsonrpc2.ObjectStream.
func (s *lineStream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return s.writeRaw(data)
}

// writeResponse writes the success response to id carrying result, as
// jsonrpc2's Conn.Reply would (same fields, same order), marshalling the
// result once.
func (s *lineStream) writeResponse(id jsonrpc2.ID, result any) error {
	if s.closed.Load() {
		return jsonrpc2.ErrClosed
	}
	idJSON, err := json.Marshal(id)
	if err != nil {
		return err
	}
	res, err := json.Marshal(result)
	if err != nil {
		return err
	}
	data := make([]byte, 0, len(res)+len(idJSON)+36)
	data = append(data, `{"id":`...)
	data = append(data, idJSON...)
	data = append(data, `,"result":`...)
	data = append(data, res...)
	data = append(data, `,"jsonrpc":"2.0"}`...)
	return s.writeRaw(data)
}

func (s *lineStream) writeRaw(data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.onSend != nil {
		s.onSend(data)
	}
	_, err := s.w.Write(append(data, '\n'))
	return err
}

func (s *lineStream) drop(reason string, line []byte) {
	if s.onDrop != nil {
		s.onDrop(reason, line)
	}
}

// Close implements jsonrpc2.ObjectStream.
func (s *lineStream) Close() error {
	if s.closer != nil {
		return s.closer.Close()
	}
	return nil
}

// lineReply says what to do with a line that must not reach jsonrpc2:
// answer it with an error, or drop it (a bad response has no one to answer).
type lineReply struct {
	id   json.RawMessage // echoed when it is a valid id; else null
	code int64
	msg  string
	drop bool
}

// checkLine validates one line as a single JSON-RPC 2.0 message that
// sourcegraph/jsonrpc2 can decode without failing. It returns nil when the
// line may be passed on.
func checkLine(line []byte) *lineReply {
	if !json.Valid(line) {
		return &lineReply{code: ErrParse.Code, msg: parseError(line)}
	}
	switch line[0] {
	case '[':
		return invalid(nil, "batch requests are not supported: send one JSON-RPC message per line")
	case '{':
	default:
		return invalid(nil, "a JSON-RPC message must be a JSON object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return invalid(nil, "a JSON-RPC message must be a JSON object")
	}
	id, hasID := m["id"]
	idOK := hasID && validID(id)
	echo := json.RawMessage(nil)
	if idOK {
		echo = id
	}
	if v, ok := m["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return invalid(echo, `"jsonrpc" must be "2.0"`)
	}
	method, isRequest := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	switch {
	case isRequest && (hasResult || hasError):
		return invalid(echo, "a message cannot have both \"method\" and \"result\"/\"error\"")
	case isRequest:
		return checkRequest(m, method, id, hasID, idOK)
	case hasResult && hasError:
		return &lineReply{drop: true, msg: "response with both result and error"}
	case hasResult || hasError:
		if !idOK {
			return &lineReply{drop: true, msg: "response without a usable id"}
		}
		if hasError && !validErrorObject(m["error"]) {
			return &lineReply{drop: true, msg: `response whose "error" is not {code, message}`}
		}
		return nil
	default:
		return invalid(echo, `not a JSON-RPC message: no "method", "result" or "error"`)
	}
}

func checkRequest(m map[string]json.RawMessage, method, id json.RawMessage, hasID, idOK bool) *lineReply {
	echo := json.RawMessage(nil)
	if idOK {
		echo = id
	}
	var name string
	if json.Unmarshal(method, &name) != nil {
		return invalid(echo, `"method" must be a string`)
	}
	if hasID && !idOK {
		return invalid(nil, `"id" must be a string or an integer from 0 to 2^53 (it may not be null)`)
	}
	if p, ok := m["params"]; ok && !isJSONNull(p) && p[0] != '{' && p[0] != '[' {
		if !hasID {
			return &lineReply{drop: true, msg: "notification with params that are not an object"}
		}
		return &lineReply{id: echo, code: ErrInvalidParams.Code, msg: `invalid params: "params" must be an object`}
	}
	return nil
}

// parseError says why a line is not JSON to us: encoding/json refuses
// nesting deeper than 10000 levels, which is valid JSON all the same.
func parseError(line []byte) string {
	var raw json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil && strings.Contains(err.Error(), "exceeded max depth") {
		return "parse error: the line nests JSON deeper than 10000 levels"
	}
	return "parse error: the line is not valid JSON"
}

func invalid(id json.RawMessage, msg string) *lineReply {
	return &lineReply{id: id, code: ErrInvalidRequest.Code, msg: "invalid request: " + msg}
}

// validID reports whether raw is an id that jsonrpc2 round-trips exactly:
// a string, or an integer that fits both uint64 and a JSON number's safe
// range (jsonrpc2 stores numbers as uint64; a negative or fractional id
// would be mangled or would close the connection).
func validID(raw json.RawMessage) bool {
	switch {
	case len(raw) == 0:
		return false
	case raw[0] == '"':
		var s string
		return json.Unmarshal(raw, &s) == nil
	case raw[0] == '-':
		return false
	}
	n, err := strconv.ParseUint(string(raw), 10, 64)
	return err == nil && n <= 1<<53
}

// validErrorObject reports whether raw decodes as a JSON-RPC error object.
func validErrorObject(raw json.RawMessage) bool {
	var e struct {
		Code    *int64          `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	return len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &e) == nil && e.Code != nil && e.Message != nil
}

func isJSONNull(raw json.RawMessage) bool { return string(raw) == "null" }

// errorFrame builds an error response by hand, echoing id verbatim (or
// null), for replies that never pass through jsonrpc2.
func errorFrame(id json.RawMessage, code int64, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return data
}

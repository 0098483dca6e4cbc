// This file defines the JSON-RPC error values and the one place they are
// converted to wire errors.

package rpc

import (
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"
)

// WireError is a JSON-RPC error with a code. The sentinel values below are
// matched by code with errors.Is, so handlers wrap them with %w to add
// detail: fmt.Errorf("%w: tools/call needs a name", rpc.ErrInvalidParams).
type WireError struct {
	Code    int64
	Message string
}

func (e *WireError) Error() string { return e.Message }

// Is reports whether target is a WireError with the same code.
func (e *WireError) Is(target error) bool {
	t, ok := target.(*WireError)
	return ok && t.Code == e.Code
}

// The JSON-RPC 2.0 error codes we use, plus MCP's request-cancelled code.
var (
	ErrParse          = &WireError{jsonrpc2.CodeParseError, "parse error"}
	ErrInvalidRequest = &WireError{jsonrpc2.CodeInvalidRequest, "invalid request"}
	ErrMethodNotFound = &WireError{jsonrpc2.CodeMethodNotFound, "method not found"}
	ErrInvalidParams  = &WireError{jsonrpc2.CodeInvalidParams, "invalid params"}
	ErrInternal       = &WireError{jsonrpc2.CodeInternalError, "internal error"}
	// ErrServerClosing answers requests that arrive while the server shuts down.
	ErrServerClosing = &WireError{-32000, "server closing"}
	// ErrRequestCancelled is what a server→client call returns when the
	// client reports that it cancelled the request.
	ErrRequestCancelled = &WireError{-32800, "request cancelled"}
)

// notImplemented is the error for every method we do not serve.
func notImplemented(method string) error {
	return fmt.Errorf("%w: %q is not served by agent-tools", ErrMethodNotFound, method)
}

// toWire converts any handler error to the error object sent on the wire.
// A wrapped *WireError keeps its code and the full message (detail
// included); anything else is an internal error.
func toWire(err error) *jsonrpc2.Error {
	if code, d, ok := errorData(err); ok {
		e := &jsonrpc2.Error{Code: code, Message: err.Error()}
		e.SetError(d)
		return e
	}
	var we *WireError
	if errors.As(err, &we) {
		return &jsonrpc2.Error{Code: we.Code, Message: err.Error()}
	}
	return &jsonrpc2.Error{Code: ErrInternal.Code, Message: err.Error()}
}

// ClientError is an error answer from the client to one of our requests.
// It matches the Err* sentinels by code with errors.Is, but it is not a
// *WireError: a tool that returns it fails as a tool (an isError result),
// not as a protocol error of its own request.
type ClientError struct {
	Code    int64
	Message string
}

func (e *ClientError) Error() string {
	return fmt.Sprintf("the client answered with error %d: %s", e.Code, e.Message)
}

// Is reports whether target is a WireError with the same code.
func (e *ClientError) Is(target error) bool {
	t, ok := target.(*WireError)
	return ok && t.Code == e.Code
}

// fromWire turns an error response from the client into a *ClientError.
func fromWire(err error) error {
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		return &ClientError{Code: je.Code, Message: je.Message}
	}
	return err
}

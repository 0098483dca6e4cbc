// This file defines the one decoder of request params that every method
// handler uses.

package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// decodeParams decodes a request's params into a T; absent or null params
// decode as {}. Params that do not decode are an invalid-params error
// (-32602) naming what was asked: "invalid params: <what>: <why>". what is
// the method, or the method with the shape it takes.
func decodeParams[T any](raw json.RawMessage, what string) (T, error) {
	var p T
	if err := json.Unmarshal(orEmpty(raw), &p); err != nil {
		return p, fmt.Errorf("%w: %s: %v", ErrInvalidParams, what, err)
	}
	return p, nil
}

// decodeStrictParams is [decodeParams] refusing keys that T does not have.
func decodeStrictParams[T any](raw json.RawMessage, what string) (T, error) {
	var p T
	dec := json.NewDecoder(bytes.NewReader(orEmpty(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("%w: %s: %v", ErrInvalidParams, what, err)
	}
	return p, nil
}

// orEmpty reads absent or null params as an empty object.
func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}

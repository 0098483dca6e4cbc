// This file decodes tool arguments: parse, validate, then unmarshal.

package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// FieldError is a validation failure at one JSON field.
type FieldError struct {
	Field string // JSON path: "line", "options[2].label", "" for the root
	Msg   string
}

// Error spells the failure for a language model, naming the JSON field:
// "argument 'line': want integer, got string \"ten\"", or for the arguments
// as a whole "arguments: want object, got array".
func (e *FieldError) Error() string {
	if e.Field == "" {
		return "arguments: " + e.Msg
	}
	return "argument '" + e.Field + "': " + e.Msg
}

// Decode validates raw JSON arguments against T's schema and unmarshals them into a T.
//
// Empty raw and null mean {}. Argument errors are a *FieldError, or several
// joined with errors.Join (see the package doc for their order); they are
// meant to be shown to the model as they are. An error from generating T's
// schema is returned as For would return it.
func Decode[T any](raw json.RawMessage) (T, error) {
	v, _, err := DecodeIgnoring[T](raw, nil)
	return v, err
}

// DecodeIgnoring is [Decode] that first drops the top-level keys listed in
// ignore which T does not declare, and returns the keys it dropped (in
// input order). It is for keys a client adds to every tool's arguments on
// its own (Gemini CLI's wait_for_previous): they mean nothing to the tool
// and must not fail the call. A key T declares is never dropped; any other
// unknown key is still an error.
func DecodeIgnoring[T any](raw json.RawMessage, ignore []string) (T, []string, error) {
	var zero T
	e := lookup(reflect.TypeFor[T]())
	if e.err != nil {
		return zero, nil, e.err
	}
	data, dropped, err := normalize(e.root, raw, ignore)
	if err != nil {
		return zero, dropped, err
	}
	var v T
	if err := unmarshal(data, &v); err != nil {
		return zero, dropped, err
	}
	return v, dropped, nil
}

// normalize parses raw, drops the ignored top-level keys root does not
// declare, validates the rest against root and re-encodes it with whole
// numbers in integer fields spelled as integers, ready for encoding/json.
func normalize(root *node, raw []byte, ignore []string) ([]byte, []string, error) {
	if t := bytes.Trim(raw, " \t\r\n"); len(t) == 0 || string(t) == "null" {
		raw = []byte("{}")
	}
	v, err := parse(raw)
	if err != nil {
		return nil, nil, err
	}
	var dropped []string
	if len(ignore) > 0 && v.kind == kindObject {
		v.members = slices.DeleteFunc(v.members, func(m member) bool {
			_, declared := root.index[m.key]
			if !declared && slices.Contains(ignore, m.key) {
				dropped = append(dropped, m.key)
				return true
			}
			return false
		})
	}
	c := &checker{}
	c.check(root, v)
	if err := c.result(); err != nil {
		return nil, dropped, err
	}
	return v.appendJSON(nil), dropped, nil
}

// unmarshal decodes validated data into v. Validation should leave nothing
// for encoding/json to object to; DisallowUnknownFields and the error mapping
// are a second line of defence (and catch Go range limits such as int8).
func unmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return residual(err)
	}
	return nil
}

// residual turns an encoding/json error into a *FieldError. Its paths come
// from encoding/json and so lack array indexes ("options.weight").
func residual(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &FieldError{Field: te.Field, Msg: fmt.Sprintf("cannot use %s as %s", te.Value, te.Type)}
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if quoted, ok := strings.CutPrefix(msg, "unknown field "); ok {
		if name, err := strconv.Unquote(quoted); err == nil {
			return &FieldError{Field: name, Msg: "unknown field"}
		}
	}
	return &FieldError{Msg: msg}
}

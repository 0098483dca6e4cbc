// This file decodes tool arguments: parse, validate, then unmarshal.

package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
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
	var zero T
	e := lookup(reflect.TypeFor[T]())
	if e.err != nil {
		return zero, e.err
	}
	data, err := normalize(e.root, raw)
	if err != nil {
		return zero, err
	}
	var v T
	if err := unmarshal(data, &v); err != nil {
		return zero, err
	}
	return v, nil
}

// normalize parses raw, validates it against root and re-encodes it with
// whole numbers in integer fields spelled as integers, ready for encoding/json.
func normalize(root *node, raw []byte) ([]byte, error) {
	if t := bytes.Trim(raw, " \t\r\n"); len(t) == 0 || string(t) == "null" {
		raw = []byte("{}")
	}
	v, err := parse(raw)
	if err != nil {
		return nil, err
	}
	c := &checker{}
	c.check(root, v)
	if err := c.result(); err != nil {
		return nil, err
	}
	return v.appendJSON(nil), nil
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

// This file parses arguments into a small JSON tree. Unlike decoding into
// any, the tree keeps key order and number spelling, rejects duplicate keys,
// and bounds nesting so that every walk over it is bounded too.

package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// maxDepth bounds nesting, as encoding/json bounds its own at 10000.
const maxDepth = 10000

// kind is the JSON type of a value.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// kindNames are the JSON Schema names of the kinds.
var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

// value is one parsed JSON value.
type value struct {
	kind    kind
	text    string   // a string's contents, or a number's literal
	truth   bool     // a boolean's value
	elems   []*value // an array's elements
	members []member // an object's members, in input order, keys unique
}

// member is one key and value of an object.
type member struct {
	key string
	val *value
}

// parser reads tokens from encoding/json's Decoder, which does the lexing and
// syntax checks; the parser only builds the tree.
type parser struct {
	dec   *json.Decoder
	depth int
	path  path // where the parser is, for duplicate and depth errors
}

// parse parses exactly one JSON value. Its errors are *FieldError values.
func parse(raw []byte) (*value, error) {
	p := &parser{dec: json.NewDecoder(bytes.NewReader(raw))}
	p.dec.UseNumber()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	return v, p.end()
}

// end checks that nothing but white space follows the top-level value.
func (p *parser) end() error {
	_, err := p.dec.Token()
	switch {
	case err == io.EOF:
		return nil
	case err != nil:
		return p.syntax(err)
	}
	return &FieldError{Msg: "invalid JSON: more than one top-level value"}
}

// value reads the next value.
func (p *parser) value() (*value, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.syntax(err)
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return p.object()
		}
		if t == '[' {
			return p.array()
		}
	case string:
		return &value{kind: kindString, text: t}, nil
	case json.Number:
		return &value{kind: kindNumber, text: string(t)}, nil
	case bool:
		return &value{kind: kindBool, truth: t}, nil
	case nil:
		return &value{kind: kindNull}, nil
	}
	return nil, &FieldError{Msg: fmt.Sprintf("invalid JSON: unexpected %v", tok)}
}

// array reads the elements of an array whose '[' has been read.
func (p *parser) array() (*value, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	v := &value{kind: kindArray}
	for p.dec.More() {
		p.path = append(p.path, indexSeg(len(v.elems)))
		e, err := p.value()
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return nil, err
		}
		v.elems = append(v.elems, e)
	}
	return v, p.closing()
}

// object reads the members of an object whose '{' has been read.
func (p *parser) object() (*value, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	v := &value{kind: kindObject}
	seen := map[string]bool{}
	for p.dec.More() {
		m, err := p.member(seen)
		if err != nil {
			return nil, err
		}
		v.members = append(v.members, m)
	}
	return v, p.closing()
}

// member reads one key and its value, rejecting a key already in seen.
func (p *parser) member(seen map[string]bool) (member, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return member{}, p.syntax(err)
	}
	key, _ := tok.(string) // the Decoder allows only a string here
	p.path = append(p.path, keySeg(key))
	defer func() { p.path = p.path[:len(p.path)-1] }()
	if seen[key] {
		return member{}, &FieldError{Field: p.path.String(), Msg: "duplicate field: send each field once"}
	}
	seen[key] = true
	v, err := p.value()
	return member{key: key, val: v}, err
}

// closing reads the ']' or '}' that ends the current array or object.
func (p *parser) closing() error {
	if _, err := p.dec.Token(); err != nil {
		return p.syntax(err)
	}
	return nil
}

// enter counts one more level of nesting and refuses past maxDepth. The
// error names only the top-level field: the full path would be huge.
func (p *parser) enter() error {
	p.depth++
	if p.depth <= maxDepth {
		return nil
	}
	return &FieldError{Field: p.path[:min(1, len(p.path))].String(), Msg: fmt.Sprintf("nested deeper than %d levels", maxDepth)}
}

// leave undoes enter.
func (p *parser) leave() { p.depth-- }

// syntax turns a Decoder error into a root *FieldError.
func (p *parser) syntax(err error) error {
	var se *json.SyntaxError
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return &FieldError{Msg: "invalid JSON: unexpected end of input"}
	case errors.As(err, &se):
		return &FieldError{Msg: fmt.Sprintf("invalid JSON at byte %d: %s", se.Offset, se.Error())}
	}
	return &FieldError{Msg: "invalid JSON: " + err.Error()}
}

// appendJSON appends v as compact JSON. Numbers keep their literal, so an
// any-typed field receives the number exactly as the client spelled it.
func (v *value) appendJSON(b []byte) []byte {
	switch v.kind {
	case kindBool:
		return strconv.AppendBool(b, v.truth)
	case kindNumber:
		return append(b, v.text...)
	case kindString:
		return appendString(b, v.text)
	case kindArray:
		return v.appendArray(b, (*value).appendJSON)
	case kindObject:
		return v.appendObject(b, v.members, (*value).appendJSON)
	}
	return append(b, "null"...)
}

// canonical is a spelling of v that is equal for equal JSON values: numbers
// are normalized and object keys sorted. Enum and uniqueItems compare it.
func canonical(v *value) string {
	return string(v.appendCanonical(nil))
}

// appendCanonical appends the canonical spelling of v.
func (v *value) appendCanonical(b []byte) []byte {
	switch v.kind {
	case kindNumber:
		f, _ := strconv.ParseFloat(v.text, 64) // a range error still gives ±Inf or 0
		return strconv.AppendFloat(b, f, 'g', -1, 64)
	case kindArray:
		return v.appendArray(b, (*value).appendCanonical)
	case kindObject:
		sorted := slices.SortedFunc(slices.Values(v.members), func(x, y member) int { return strings.Compare(x.key, y.key) })
		return v.appendObject(b, sorted, (*value).appendCanonical)
	}
	return v.appendJSON(b)
}

// appendArray appends v's elements, each written by elem.
func (v *value) appendArray(b []byte, elem func(*value, []byte) []byte) []byte {
	b = append(b, '[')
	for i, e := range v.elems {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(e, b)
	}
	return append(b, ']')
}

// appendObject appends members, each value written by elem.
func (v *value) appendObject(b []byte, members []member, elem func(*value, []byte) []byte) []byte {
	b = append(b, '{')
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, m.key), ':')
		b = elem(m.val, b)
	}
	return append(b, '}')
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // marshaling a string cannot fail
	return append(b, q...)
}

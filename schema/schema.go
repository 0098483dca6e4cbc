// This file generates schemas from Go types and caches them per type.

package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"
)

// reflector is the one invopop configuration the project uses. DoNotReference
// inlines every nested struct and Anonymous drops "$id"; "$schema" is removed
// after reflection. ExpandedStruct is deliberately left false: together with
// DoNotReference it changes nothing, except that invopop then looks the root
// up by bare type name and returns a nested type of the same name instead.
var reflector = &jsonschema.Reflector{DoNotReference: true, Anonymous: true}

// cache maps a reflect.Type to its *entry. Generation is deterministic, so
// when two goroutines race to fill the same type either result may be kept.
var cache sync.Map

// entry is the cached outcome of generating one type's schema. A failure is
// cached too: a type that cannot be described never will be.
type entry struct {
	raw  json.RawMessage // the schema as advertised
	root *node           // the same schema, compiled for Decode
	err  error
}

// For returns the JSON Schema of T, which must be a struct (or pointer to struct).
func For[T any]() (json.RawMessage, error) {
	return ForType(reflect.TypeFor[T]())
}

// ForType is For for a reflect.Type.
// The result is a fresh copy, so callers may keep or modify it.
func ForType(t reflect.Type) (json.RawMessage, error) {
	e := lookup(t)
	if e.err != nil {
		return nil, e.err
	}
	return bytes.Clone(e.raw), nil
}

// lookup returns t's cache entry, generating it on first use.
func lookup(t reflect.Type) *entry {
	if t == nil {
		return &entry{err: errors.New("schema for nil type: want a struct")}
	}
	if e, ok := cache.Load(t); ok {
		return e.(*entry)
	}
	e, _ := cache.LoadOrStore(t, generate(t))
	return e.(*entry)
}

// generate builds t's entry, prefixing any failure with the type's name so a
// registration error says which tool's arguments are at fault.
func generate(t reflect.Type) *entry {
	raw, root, err := build(t)
	if err != nil {
		return &entry{err: fmt.Errorf("schema for %s: %w", t, err)}
	}
	return &entry{raw: raw, root: root}
}

// build checks t, reflects it, compiles the result and marshals it.
func build(t reflect.Type) (json.RawMessage, *node, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, nil, fmt.Errorf("arguments must be a struct, not %s", t.Kind())
	}
	if err := checkType(t, map[reflect.Type]bool{}, ""); err != nil {
		return nil, nil, err
	}
	s, err := reflectSchema(t)
	if err != nil {
		return nil, nil, err
	}
	root, err := compileRoot(s)
	if err != nil {
		return nil, nil, err
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, nil, fmt.Errorf("marshaling schema: %w", err)
	}
	return raw, root, nil
}

// reflectSchema runs the reflector, turning its panics (it panics on types it
// does not know) into errors, and strips "$schema" for the flat-root rule.
func reflectSchema(t reflect.Type) (s *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("reflecting: %v", r)
		}
	}()
	s = reflector.ReflectFromType(t)
	s.Version = ""
	return s, nil
}

// checkType rejects, before reflection, what the reflector cannot express or
// would never finish: recursive types (every struct is inlined, so a cycle has
// no end and would overflow the stack, which no recover can catch), channels,
// functions, complex numbers, and maps whose keys are not strings. where is
// the Go field path, for the message.
func checkType(t reflect.Type, onPath map[reflect.Type]bool, where string) error {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return checkType(t.Elem(), onPath, where)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("%smap key type %s is not supported: keys must be strings", at(where), t.Key())
		}
		return checkType(t.Elem(), onPath, where)
	case reflect.Struct:
		return checkStruct(t, onPath, where)
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128,
		reflect.UnsafePointer, reflect.Uintptr:
		return fmt.Errorf("%stype %s is not supported", at(where), t)
	}
	return nil
}

// checkStruct checks the fields the reflector will visit. onPath holds the
// structs on the way down from the root, so a type used twice side by side is
// fine and only a true cycle is rejected.
func checkStruct(t reflect.Type, onPath map[reflect.Type]bool, where string) error {
	if onPath[t] {
		return fmt.Errorf("%srecursive type %s is not supported: nested structs are inlined", at(where), t)
	}
	onPath[t] = true
	defer delete(onPath, t)
	for i := range t.NumField() {
		f := t.Field(i)
		if skipped(f) {
			continue
		}
		if err := checkType(f.Type, onPath, joinField(where, f.Name)); err != nil {
			return err
		}
	}
	return nil
}

// skipped reports whether the reflector ignores f, by the same rules it uses.
func skipped(f reflect.StructField) bool {
	jsonName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	schemaTag, _, _ := strings.Cut(f.Tag.Get("jsonschema"), ",")
	return jsonName == "-" || schemaTag == "-" || (!f.IsExported() && !f.Anonymous)
}

// joinField appends a Go field name to a dotted Go field path.
func joinField(where, name string) string {
	if where == "" {
		return name
	}
	return where + "." + name
}

// at is the "field X: " prefix of a checkType error, empty at the root.
func at(where string) string {
	if where == "" {
		return ""
	}
	return "field " + where + ": "
}

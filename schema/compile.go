// This file compiles a reflected schema into the form the validator walks,
// refusing any keyword the validator would otherwise silently ignore.

package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
)

// node is one compiled schema: the subset of JSON Schema that the reflector
// emits. The zero node accepts any JSON value.
type node struct {
	typ      string         // JSON type name; "" accepts any type
	props    []prop         // struct fields, in declaration order
	index    map[string]int // property name → position in props
	known    string         // "known fields: a, b", for unknown-field messages
	closed   bool           // additionalProperties: false
	extra    *node          // additionalProperties of a map; nil accepts anything
	items    *node          // array element schema; nil accepts anything
	enum     []string       // canonical forms of the allowed values
	enumText string         // the allowed values as JSON, for messages
	bounds   []bound        // minimum, maximum and their exclusive forms
	minLen   *uint64        // in characters (code points), as JSON Schema counts
	maxLen   *uint64
	minItems *uint64
	maxItems *uint64
	unique   bool
	pattern  *regexp.Regexp
	dateTime bool // format date-time: checked because time.Time fails to decode anything else
	// anyOf are the alternatives of an anyOf: a value must pass one.
	anyOf     []*node
	anyOfText string // the alternatives' types, "integer or object", for messages
	base64    bool   // contentEncoding base64: checked because []byte fails to decode anything else
}

// prop is one property of an object node.
type prop struct {
	name     string
	node     *node
	required bool
}

// bound is one numeric limit; op is how the value must compare to it.
type bound struct {
	op   string // "≥", "≤", ">" or "<"
	text string // the limit as written in the tag
	val  float64
}

// holds reports whether f satisfies the bound.
func (b bound) holds(f float64) bool {
	switch b.op {
	case "≥":
		return f >= b.val
	case "≤":
		return f <= b.val
	case ">":
		return f > b.val
	}
	return f < b.val
}

// compileRoot compiles the root schema, which must be an object.
func compileRoot(s *jsonschema.Schema) (*node, error) {
	n, err := compile(s, "")
	if err != nil {
		return nil, err
	}
	if n.typ != "object" {
		return nil, fmt.Errorf("root schema has type %q, want object", n.typ)
	}
	return n, nil
}

// compile compiles s; where is the JSON path of s, for error messages.
func compile(s *jsonschema.Schema, where string) (*node, error) {
	if isTrue(s) {
		return &node{}, nil
	}
	if kw := unsupported(s); kw != "" {
		return nil, fmt.Errorf("%skeyword %s is not supported by schema.Decode", atProp(where), kw)
	}
	if !knownType(s.Type) {
		return nil, fmt.Errorf("%sunknown type %q", atProp(where), s.Type)
	}
	n := &node{
		typ: s.Type, minLen: s.MinLength, maxLen: s.MaxLength,
		minItems: s.MinItems, maxItems: s.MaxItems, unique: s.UniqueItems,
		dateTime: s.Format == "date-time", base64: s.ContentEncoding == "base64",
	}
	for _, step := range []func(*node, *jsonschema.Schema, string) error{
		compileBounds, compilePattern, compileEnum, compileProps, compileExtra, compileItems, compileAnyOf,
	} {
		if err := step(n, s, where); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// isTrue reports whether s accepts everything: nil, true or {}.
func isTrue(s *jsonschema.Schema) bool {
	return s == nil || reflect.DeepEqual(s, jsonschema.TrueSchema) || reflect.DeepEqual(s, &jsonschema.Schema{})
}

// isFalse reports whether s is the schema false.
func isFalse(s *jsonschema.Schema) bool {
	return reflect.DeepEqual(s, jsonschema.FalseSchema)
}

// unsupported names the first keyword in s that the validator does not check
// (and that is not a pure annotation), or returns "". Refusing them keeps the
// promise that Decode enforces exactly the schema that tools/list advertises.
func unsupported(s *jsonschema.Schema) string {
	for _, k := range []struct {
		name string
		set  bool
	}{
		{"false", isFalse(s)},
		{"$ref", s.Ref != ""}, {"$dynamicRef", s.DynamicRef != ""},
		{"$defs", len(s.Definitions) > 0}, {"$id", s.ID != ""}, {"$schema", s.Version != ""},
		{"allOf", s.AllOf != nil}, {"oneOf", s.OneOf != nil},
		{"not", s.Not != nil}, {"if", s.If != nil}, {"then", s.Then != nil}, {"else", s.Else != nil},
		{"dependentSchemas", s.DependentSchemas != nil}, {"prefixItems", s.PrefixItems != nil},
		{"contains", s.Contains != nil}, {"patternProperties", s.PatternProperties != nil},
		{"propertyNames", s.PropertyNames != nil}, {"const", s.Const != nil},
		{"multipleOf", s.MultipleOf != ""}, {"maxContains", s.MaxContains != nil},
		{"minContains", s.MinContains != nil}, {"maxProperties", s.MaxProperties != nil},
		{"minProperties", s.MinProperties != nil}, {"dependentRequired", s.DependentRequired != nil},
		{"contentSchema", s.ContentSchema != nil}, {"jsonschema_extras", len(s.Extras) > 0},
	} {
		if k.set {
			return k.name
		}
	}
	return ""
}

// knownType reports whether t is a JSON Schema type name (or empty).
func knownType(t string) bool {
	switch t {
	case "", "object", "array", "string", "integer", "number", "boolean", "null":
		return true
	}
	return false
}

// compileBounds reads minimum, maximum and the exclusive forms.
func compileBounds(n *node, s *jsonschema.Schema, where string) error {
	for _, b := range []struct {
		op   string
		text json.Number
	}{{"≥", s.Minimum}, {"≤", s.Maximum}, {">", s.ExclusiveMinimum}, {"<", s.ExclusiveMaximum}} {
		if b.text == "" {
			continue
		}
		f, err := strconv.ParseFloat(string(b.text), 64)
		if err != nil {
			return fmt.Errorf("%sbad bound %s: %w", atProp(where), b.text, err)
		}
		n.bounds = append(n.bounds, bound{op: b.op, text: string(b.text), val: f})
	}
	return nil
}

// compilePattern compiles the pattern keyword. Go's RE2 syntax is close to,
// but not the same as, the ECMA 262 syntax that JSON Schema specifies.
func compilePattern(n *node, s *jsonschema.Schema, where string) error {
	if s.Pattern == "" {
		return nil
	}
	re, err := regexp.Compile(s.Pattern)
	if err != nil {
		return fmt.Errorf("%sbad pattern: %w", atProp(where), err)
	}
	n.pattern = re
	return nil
}

// compileEnum stores each allowed value in canonical form, so that a number
// matches however it is spelled (1, 1.0, 1e0).
func compileEnum(n *node, s *jsonschema.Schema, where string) error {
	if len(s.Enum) == 0 {
		return nil
	}
	text, err := json.Marshal(s.Enum)
	if err != nil {
		return fmt.Errorf("%sbad enum: %w", atProp(where), err)
	}
	list, err := parse(text)
	if err != nil {
		return fmt.Errorf("%sbad enum: %w", atProp(where), err)
	}
	for _, v := range list.elems {
		n.enum = append(n.enum, canonical(v))
	}
	n.enumText = string(text)
	return nil
}

// compileProps compiles the properties in order and marks the required ones.
func compileProps(n *node, s *jsonschema.Schema, where string) error {
	if s.Properties == nil {
		return nil
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	n.index = map[string]int{}
	var names []string
	for name, ps := range s.Properties.FromOldest() {
		pn, err := compile(ps, joinKey(where, name))
		if err != nil {
			return err
		}
		n.index[name] = len(n.props)
		n.props = append(n.props, prop{name: name, node: pn, required: required[name]})
		names = append(names, name)
	}
	n.known = "known fields: " + strings.Join(names, ", ")
	if len(names) == 0 {
		n.known = "this object takes no fields"
	}
	return nil
}

// compileExtra reads additionalProperties: false closes a struct's object, a
// schema types a map's values, and absence or true accepts anything.
func compileExtra(n *node, s *jsonschema.Schema, where string) error {
	switch {
	case s.AdditionalProperties == nil || isTrue(s.AdditionalProperties):
		return nil
	case isFalse(s.AdditionalProperties):
		n.closed = true
		return nil
	}
	extra, err := compile(s.AdditionalProperties, where+"{*}")
	n.extra = extra
	return err
}

// compileItems compiles the element schema of an array.
func compileItems(n *node, s *jsonschema.Schema, where string) error {
	if s.Items == nil {
		return nil
	}
	items, err := compile(s.Items, where+"[*]")
	n.items = items
	return err
}

// compileAnyOf compiles the alternatives of anyOf. It is the one
// combinator supported: the four agent CLIs measured pass an anyOf item
// schema to their models unchanged, while a root oneOf is removed (Claude
// Code) and an empty item schema becomes a string (Codex).
func compileAnyOf(n *node, s *jsonschema.Schema, where string) error {
	if s.AnyOf == nil {
		return nil
	}
	if len(s.AnyOf) == 0 {
		return fmt.Errorf("%sanyOf has no alternatives", atProp(where))
	}
	var types []string
	for i, alt := range s.AnyOf {
		an, err := compile(alt, fmt.Sprintf("%s(anyOf %d)", where, i))
		if err != nil {
			return err
		}
		n.anyOf = append(n.anyOf, an)
		t := an.typ
		if t == "" {
			t = "any value"
		}
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	n.anyOfText = strings.Join(types, " or ")
	return nil
}

// atProp is the "property X: " prefix of a compile error, empty at the root.
func atProp(where string) string {
	if where == "" {
		return ""
	}
	return "property " + where + ": "
}

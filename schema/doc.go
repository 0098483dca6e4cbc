// Package schema turns a tool's Go argument struct into the JSON Schema that
// MCP advertises as the tool's inputSchema, and decodes incoming arguments
// against that same schema, with errors that a language model can act on.
//
// Call [For] (or [ForType]) once, when a tool is registered, and [Decode] on
// every call. Both use one cache per type, so each type is reflected once.
//
// # The flat-root rule
//
// Every schema is one self-contained object. The root is literally
// {"type":"object","properties":…,"required":…,"additionalProperties":false};
// nested structs are inlined, and "$schema", "$id", "$ref" and "$defs" never
// appear. The MCP TypeScript client rejects a whole tools/list response when
// one inputSchema root is not of type object, and many model providers do not
// resolve references, so the inlined form is the one that works everywhere.
// The cost is that a recursive type cannot be described: [ForType] reports it
// as an error rather than recursing forever.
//
// # Struct tags
//
// Property names come from `json` tags. A field without omitempty is
// required. `jsonschema_description:"…"` gives the description, and
// `jsonschema:"enum=a,enum=b,minimum=1"` gives keywords in
// invopop/jsonschema's syntax. Every struct object has additionalProperties
// false. A json.RawMessage or interface field accepts any JSON value. Map
// fields need string keys and validate their values against the element type.
//
// # Decoding
//
// [Decode] parses the arguments into a tree, validates the tree against the
// schema and only then unmarshals it with encoding/json. Because validation
// comes first, every failure names the JSON field ("options[1].label"), not a
// Go path. Stricter than encoding/json on purpose:
//   - keys match property names exactly (no case folding) and a repeated key
//     is an error, since JSON with duplicate keys is ambiguous;
//   - null for an optional field means the field is absent (clients with
//     OpenAI-style strict schemas send it); for a required field it is a
//     type error;
//   - an integer field accepts a whole number written as 1.0 or 1e2 and
//     decodes it as 1 or 100.
//
// A json.RawMessage field receives its value re-encoded compactly (white
// space dropped, key order and number spelling kept).
//
// Errors are collected in a fixed order: within each object, the struct's
// fields in declaration order (depth first), then the unknown fields sorted
// by name; array elements by index. At most 10 are kept. One error is
// returned as a *[FieldError]; several are joined with [errors.Join], one per
// line, so errors.As still finds the first.
package schema

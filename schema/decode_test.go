package schema_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-tools/agent-tools/schema"
)

type item struct {
	Label  string `json:"label" jsonschema_description:"text shown"`
	Weight int    `json:"weight,omitempty" jsonschema:"minimum=0,maximum=10"`
}

// decodeArgs has one field for each check Decode makes.
type decodeArgs struct {
	File    string            `json:"file" jsonschema:"minLength=1,maxLength=8"`
	Line    int               `json:"line" jsonschema:"minimum=1"`
	Kind    string            `json:"kind,omitempty" jsonschema:"enum=definition,enum=references"`
	Ratio   float64           `json:"ratio,omitempty" jsonschema:"exclusiveMinimum=0,maximum=1"`
	Verbose bool              `json:"verbose,omitempty"`
	Items   []item            `json:"items,omitempty" jsonschema:"minItems=1,maxItems=3"`
	Tags    []string          `json:"tags,omitempty" jsonschema:"uniqueItems=true,enum=a,enum=b"`
	Name    string            `json:"name,omitempty" jsonschema:"pattern=^[a-z]+$"`
	When    time.Time         `json:"when,omitzero"`
	Data    []byte            `json:"data,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Small   int8              `json:"small,omitempty"`
	Extra   json.RawMessage   `json:"extra,omitempty"`
	Any     any               `json:"any,omitempty"`
	Ptr     *item             `json:"ptr,omitempty"`
}

const known = "known fields: file, line, kind, ratio, verbose, items, tags, name, when, data, env, small, extra, any, ptr"

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    decodeArgs
		wantErr string
	}{
		// Success.
		{name: "required only", in: `{"file":"a.go","line":3}`, want: decodeArgs{File: "a.go", Line: 3}},
		{name: "whole number as integer", in: `{"file":"a","line":1.0}`, want: decodeArgs{File: "a", Line: 1}},
		{name: "exponent as integer", in: `{"file":"a","line":2.5e1,"small":-1.20e1}`, want: decodeArgs{File: "a", Line: 25, Small: -12}},
		{name: "length counts characters", in: `{"file":"éééééééé","line":1}`, want: decodeArgs{File: "éééééééé", Line: 1}},
		{
			name: "every field",
			in: `{"file":"f","line":2,"kind":"references","ratio":0.5,"verbose":true,
				"items":[{"label":"x","weight":10}],"tags":["a","b"],"name":"abc",
				"when":"2024-05-06T07:08:09Z","data":"aGk=","env":{"K":"v"},"small":-128,
				"extra":{"b": [1.50, "x"], "a": null},"any":[1,"two"],"ptr":{"label":"p"}}`,
			want: decodeArgs{
				File: "f", Line: 2, Kind: "references", Ratio: 0.5, Verbose: true,
				Items: []item{{Label: "x", Weight: 10}}, Tags: []string{"a", "b"}, Name: "abc",
				When: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC), Data: []byte("hi"),
				Env: map[string]string{"K": "v"}, Small: -128,
				Extra: json.RawMessage(`{"b":[1.50,"x"],"a":null}`), Any: []any{1.0, "two"},
				Ptr: &item{Label: "p"},
			},
		},
		{
			name: "deep nesting within the limit",
			in:   `{"file":"a","line":1,"extra":` + nested(9998) + `}`,
			want: decodeArgs{File: "a", Line: 1, Extra: json.RawMessage(nested(9998))},
		},

		// The arguments as a whole.
		{name: "empty", in: ``, wantErr: "argument 'file': required\nargument 'line': required"},
		{name: "null", in: `null`, wantErr: "argument 'file': required\nargument 'line': required"},
		{name: "array", in: `[]`, wantErr: "arguments: want object, got array"},
		{name: "string", in: `"ten"`, wantErr: `arguments: want object, got string "ten"`},
		{name: "truncated", in: `{"file":`, wantErr: "arguments: invalid JSON: unexpected end of input"},
		{name: "missing colon", in: `{"file" "a"}`, wantErr: `arguments: invalid JSON at byte 8: invalid character '"' after object key`},
		{name: "trailing comma", in: `{"file":"a",}`, wantErr: `arguments: invalid JSON at byte 12: invalid character '}' looking for beginning of object key string`},
		{name: "two values", in: `{} {}`, wantErr: "arguments: invalid JSON: more than one top-level value"},
		{
			name:    "too deep",
			in:      `{"file":"a","line":1,"extra":` + nested(10000) + `}`,
			wantErr: "argument 'extra': nested deeper than 10000 levels",
		},

		// Fields.
		{name: "unknown field", in: `{"file":"a","line":1,"colour":"red"}`, wantErr: "argument 'colour': unknown field; " + known},
		{name: "missing field", in: `{"line":1}`, wantErr: "argument 'file': required"},
		{name: "duplicate field", in: `{"file":"a","file":"b","line":1}`, wantErr: "argument 'file': duplicate field: send each field once"},
		{name: "duplicate in raw field", in: `{"file":"a","line":1,"extra":{"k":1,"k":2}}`, wantErr: "argument 'extra.k': duplicate field: send each field once"},
		{name: "string for integer", in: `{"file":"a","line":"10"}`, wantErr: `argument 'line': want integer, got string "10"`},
		{name: "fraction for integer", in: `{"file":"a","line":1.5}`, wantErr: "argument 'line': want integer, got number 1.5"},
		{name: "null for string", in: `{"file":null,"line":1}`, wantErr: "argument 'file': want string, got null"},
		{name: "string for boolean", in: `{"file":"a","line":1,"verbose":"yes"}`, wantErr: `argument 'verbose': want boolean, got string "yes"`},
		{
			name:    "long value is clipped",
			in:      `{"file":"a","line":1,"verbose":"` + strings.Repeat("y", 100) + `"}`,
			wantErr: `argument 'verbose': want boolean, got string "` + strings.Repeat("y", 64) + `"…`,
		},
		{
			name:    "enum",
			in:      `{"file":"a","line":1,"kind":"callers"}`,
			wantErr: `argument 'kind': want one of ["definition","references"], got string "callers"`,
		},
		{name: "minimum", in: `{"file":"a","line":0}`, wantErr: "argument 'line': want integer ≥ 1, got 0"},
		{name: "exclusive minimum", in: `{"file":"a","line":1,"ratio":0}`, wantErr: "argument 'ratio': want number > 0, got 0"},
		{name: "maximum", in: `{"file":"a","line":1,"ratio":1.5}`, wantErr: "argument 'ratio': want number ≤ 1, got 1.5"},
		{name: "min length", in: `{"file":"","line":1}`, wantErr: "argument 'file': want at least 1 character, got 0"},
		{name: "max length", in: `{"file":"ééééééééé","line":1}`, wantErr: "argument 'file': want at most 8 characters, got 9"},
		{name: "pattern", in: `{"file":"a","line":1,"name":"ABC"}`, wantErr: `argument 'name': want string matching pattern ^[a-z]+$, got string "ABC"`},
		{
			name:    "date-time",
			in:      `{"file":"a","line":1,"when":"yesterday"}`,
			wantErr: `argument 'when': want RFC 3339 date-time such as "2006-01-02T15:04:05Z", got string "yesterday"`,
		},
		{name: "base64", in: `{"file":"a","line":1,"data":"!!"}`, wantErr: `argument 'data': want base64-encoded string, got string "!!"`},
		{name: "Go integer range", in: `{"file":"a","line":1,"small":300}`, wantErr: "argument 'small': cannot use number 300 as int8"},
		{name: "huge integer", in: `{"file":"a","line":1e400}`, wantErr: "argument 'line': cannot use number 1e400 as int"},

		// Arrays, nested objects and maps.
		{name: "min items", in: `{"file":"a","line":1,"items":[]}`, wantErr: "argument 'items': want at least 1 item, got 0"},
		{
			name:    "max items",
			in:      `{"file":"a","line":1,"items":[{"label":"a"},{"label":"b"},{"label":"c"},{"label":"d"}]}`,
			wantErr: "argument 'items': want at most 3 items, got 4",
		},
		{name: "unique items", in: `{"file":"a","line":1,"tags":["a","b","a"]}`, wantErr: "argument 'tags': want unique items, got [2] equal to [0]"},
		{name: "item enum", in: `{"file":"a","line":1,"tags":["a","c"]}`, wantErr: `argument 'tags[1]': want one of ["a","b"], got string "c"`},
		{
			name:    "nested wrong type",
			in:      `{"file":"a","line":1,"items":[{"label":"a"},{"label":2}]}`,
			wantErr: "argument 'items[1].label': want string, got number 2",
		},
		{name: "nested required", in: `{"file":"a","line":1,"items":[{}]}`, wantErr: "argument 'items[0].label': required"},
		{
			name:    "nested unknown",
			in:      `{"file":"a","line":1,"items":[{"label":"a","colour":"red"}]}`,
			wantErr: "argument 'items[0].colour': unknown field; known fields: label, weight",
		},
		{
			name:    "nested maximum",
			in:      `{"file":"a","line":1,"items":[{"label":"a","weight":11}]}`,
			wantErr: "argument 'items[0].weight': want integer ≤ 10, got 11",
		},
		{name: "map value", in: `{"file":"a","line":1,"env":{"K":1}}`, wantErr: "argument 'env.K': want string, got number 1"},
		{name: "odd map key", in: `{"file":"a","line":1,"env":{"a b":1}}`, wantErr: `argument 'env["a b"]': want string, got number 1`},

		// Several failures: struct order first, then unknown fields sorted.
		{
			name: "order",
			in:   `{"zeta":1,"line":"x","alpha":2,"items":[{"label":3}]}`,
			wantErr: "argument 'file': required\n" +
				"argument 'line': want integer, got string \"x\"\n" +
				"argument 'items[0].label': want string, got number 3\n" +
				"argument 'alpha': unknown field; " + known + "\n" +
				"argument 'zeta': unknown field; " + known,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := schema.Decode[decodeArgs](json.RawMessage(tc.in))
			if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			var fe *schema.FieldError
			if err != nil && !errors.As(err, &fe) {
				t.Errorf("error %T is not a *FieldError", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeEmpty checks that no arguments mean {} for a type whose fields
// are all optional, and that a type with no fields refuses any.
func TestDecodeEmpty(t *testing.T) {
	type optional struct {
		N int `json:"n,omitempty"`
	}
	tests := []struct {
		name    string
		in      string
		wantErr string
	}{
		{name: "nothing", in: ""},
		{name: "white space", in: " \n\t"},
		{name: "null", in: "null"},
		{name: "empty object", in: "{}"},
		{name: "unknown", in: `{"x":1}`, wantErr: "argument 'x': unknown field; known fields: n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := schema.Decode[optional](json.RawMessage(tc.in))
			if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
	_, err := schema.Decode[struct{}](json.RawMessage(`{"x":1}`))
	if diff := cmp.Diff("argument 'x': unknown field; this object takes no fields", errText(err)); diff != "" {
		t.Errorf("no fields: error (-want +got):\n%s", diff)
	}
}

// TestDecodeErrorLimit checks that a flood of failures is cut at ten.
func TestDecodeErrorLimit(t *testing.T) {
	in := `{"file":"a","line":1,"tags":["x"` + strings.Repeat(`,"y"`, 30) + `]}`
	_, err := schema.Decode[decodeArgs](json.RawMessage(in))
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("error %v is not joined", err)
	}
	if got := len(joined.Unwrap()); got != 10 {
		t.Errorf("got %d errors, want 10", got)
	}
}

// TestDecodePointer checks that T may be a pointer to the struct.
func TestDecodePointer(t *testing.T) {
	got, err := schema.Decode[*item](json.RawMessage(`{"label":"a"}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&item{Label: "a"}, got); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
}

// TestDecodeBadType checks that a type without a schema fails cleanly.
func TestDecodeBadType(t *testing.T) {
	_, err := schema.Decode[map[string]any](json.RawMessage(`{}`))
	want := "schema for map[string]interface {}: arguments must be a struct, not map"
	if diff := cmp.Diff(want, errText(err)); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

func TestFieldError(t *testing.T) {
	tests := []struct {
		name string
		err  schema.FieldError
		want string
	}{
		{"root", schema.FieldError{Msg: "want object, got array"}, "arguments: want object, got array"},
		{"field", schema.FieldError{Field: "line", Msg: `want integer, got string "ten"`}, `argument 'line': want integer, got string "ten"`},
		{"nested", schema.FieldError{Field: "options[2].label", Msg: "required"}, "argument 'options[2].label': required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// nested is depth arrays inside one another.
func nested(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

func TestDecodeNullOptionalIsAbsent(t *testing.T) {
	type args struct {
		File  string `json:"file" jsonschema_description:"f"`
		Limit int    `json:"limit,omitempty" jsonschema_description:"l"`
		Ptr   *struct {
			Label string `json:"label" jsonschema_description:"l"`
		} `json:"ptr,omitempty" jsonschema_description:"p"`
	}
	got, err := schema.Decode[args](json.RawMessage(`{"file":"a","limit":null,"ptr":null}`))
	if err != nil {
		t.Fatalf("null for optional fields: %v", err)
	}
	if got.File != "a" || got.Limit != 0 || got.Ptr != nil {
		t.Errorf("got %+v", got)
	}
	if _, err := schema.Decode[args](json.RawMessage(`{"file":null}`)); err == nil || err.Error() != "argument 'file': want string, got null" {
		t.Errorf("null for a required field: %v", err)
	}
}

// TestDecodeIgnoring checks that listed keys a struct does not declare are
// dropped at the top level only, that a declared key of the same name is
// decoded, and that other unknown keys still fail naming the known fields.
func TestDecodeIgnoring(t *testing.T) {
	type declares struct {
		WaitForPrevious bool `json:"wait_for_previous,omitempty"`
	}
	ignore := []string{"wait_for_previous"}
	tests := []struct {
		name        string
		in          string
		wantDropped []string
		wantErr     string
	}{
		{name: "dropped", in: `{"file":"a","line":1,"wait_for_previous":true}`, wantDropped: []string{"wait_for_previous"}},
		{name: "dropped whatever its type", in: `{"wait_for_previous":{"x":[1]},"file":"a","line":1}`, wantDropped: []string{"wait_for_previous"}},
		{name: "absent", in: `{"file":"a","line":1}`},
		{name: "others still fail", in: `{"file":"a","line":1,"wait_for_previous":false,"colour":"red"}`,
			wantDropped: []string{"wait_for_previous"}, wantErr: "argument 'colour': unknown field; " + known},
		{name: "nested is not dropped", in: `{"file":"a","line":1,"ptr":{"label":"x","wait_for_previous":true}}`,
			wantErr: "argument 'ptr.wait_for_previous': unknown field; known fields: label, weight"},
		{name: "the rest is still checked", in: `{"wait_for_previous":true,"line":0}`,
			wantDropped: []string{"wait_for_previous"}, wantErr: "argument 'file': required\nargument 'line': want integer ≥ 1, got 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, dropped, err := schema.DecodeIgnoring[decodeArgs](json.RawMessage(tc.in), ignore)
			if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantDropped, dropped); diff != "" {
				t.Errorf("dropped (-want +got):\n%s", diff)
			}
			if err == nil && (v.File != "a" || v.Line != 1) {
				t.Errorf("decoded %+v", v)
			}
		})
	}
	v, dropped, err := schema.DecodeIgnoring[declares](json.RawMessage(`{"wait_for_previous":true}`), ignore)
	if err != nil || !v.WaitForPrevious || dropped != nil {
		t.Errorf("a declared key was not decoded: %+v, dropped %v, err %v", v, dropped, err)
	}
	if _, err := schema.Decode[decodeArgs](json.RawMessage(`{"file":"a","line":1,"wait_for_previous":true}`)); errText(err) != "argument 'wait_for_previous': unknown field; "+known {
		t.Errorf("Decode dropped a key: %v", err)
	}
}

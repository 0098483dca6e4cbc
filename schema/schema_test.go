package schema_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-tools/agent-tools/schema"
)

var update = flag.Bool("update", false, "rewrite testdata/schema.golden")

// goldenArgs is a representative tool argument struct: required and optional
// fields, descriptions, an enum, bounds, a nested struct, a slice of structs
// and a pass-through JSON field.
type goldenArgs struct {
	File    string          `json:"file" jsonschema_description:"path of the file, relative to the root"`
	Line    int             `json:"line" jsonschema_description:"1-based line" jsonschema:"minimum=1"`
	Kind    string          `json:"kind,omitempty" jsonschema_description:"what to look up" jsonschema:"enum=definition,enum=references"`
	Range   *span           `json:"range,omitempty" jsonschema_description:"limit the search to these lines"`
	Options []option        `json:"options,omitempty" jsonschema_description:"choices to offer" jsonschema:"maxItems=3"`
	Extra   json.RawMessage `json:"extra,omitempty" jsonschema_description:"passed through as it is"`
}

type span struct {
	Start int `json:"start" jsonschema_description:"first line" jsonschema:"minimum=1"`
	End   int `json:"end,omitempty" jsonschema_description:"last line, inclusive"`
}

type option struct {
	Label  string  `json:"label" jsonschema_description:"text shown" jsonschema:"minLength=1"`
	Weight float64 `json:"weight,omitempty" jsonschema_description:"relative weight" jsonschema:"minimum=0,maximum=1"`
}

func TestGolden(t *testing.T) {
	raw, err := schema.For[goldenArgs]()
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, raw, "", "\t"); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	file := filepath.Join("testdata", "schema.golden")
	if *update {
		if err := os.WriteFile(file, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("schema of goldenArgs changed (-want +got); if intended, run go test -update:\n%s", diff)
	}
}

type flat struct {
	A string `json:"a" jsonschema_description:"an a"`
	B int    `json:"b,omitempty"`
}

type hidden struct {
	Shown  string `json:"shown"`
	Skip   string `json:"-"`
	NoDoc  string `json:"nodoc" jsonschema:"-"`
	secret string //lint:ignore U1000 present so the schema is seen to skip unexported fields
}

type Embedded struct {
	E string `json:"e"`
}

type withEmbedded struct {
	Embedded
	F string `json:"f"`
}

type tree struct {
	Children []tree `json:"children"`
}

type chanArgs struct {
	C chan int `json:"c"`
}

type nullable struct {
	X string `json:"x" jsonschema:"nullable"`
}

type extras struct {
	X string `json:"x" jsonschema_extras:"foo=bar"`
}

// sameName returns a root type named args whose field is another type named
// args: invopop's ExpandedStruct would return the inner one as the root.
func sameName() any {
	type args struct {
		Z int `json:"z"`
	}
	type inner = args
	{
		type args struct {
			In inner `json:"in"`
		}
		return args{}
	}
}

func TestForType(t *testing.T) {
	tests := []struct {
		name    string
		typ     any
		want    string
		wantErr string
	}{
		{
			name: "flat",
			typ:  flat{},
			want: `{"type":"object","properties":{"a":{"type":"string","description":"an a"},"b":{"type":"integer"}},"required":["a"],"additionalProperties":false}`,
		},
		{
			name: "pointer to struct",
			typ:  &flat{},
			want: `{"type":"object","properties":{"a":{"type":"string","description":"an a"},"b":{"type":"integer"}},"required":["a"],"additionalProperties":false}`,
		},
		{
			name: "empty struct",
			typ:  struct{}{},
			want: `{"type":"object","properties":{},"additionalProperties":false}`,
		},
		{
			name: "skipped fields",
			typ:  hidden{},
			want: `{"type":"object","properties":{"shown":{"type":"string"}},"required":["shown"],"additionalProperties":false}`,
		},
		{
			name: "embedded struct is promoted",
			typ:  withEmbedded{},
			want: `{"type":"object","properties":{"e":{"type":"string"},"f":{"type":"string"}},"required":["e","f"],"additionalProperties":false}`,
		},
		{
			name: "nested struct, pointer and slice are inlined",
			typ: struct {
				S  span    `json:"s"`
				P  *span   `json:"p,omitempty"`
				Ss []span  `json:"ss"`
				Is []int   `json:"is"`
				F  float32 `json:"f"`
			}{},
			want: `{"type":"object","properties":{
				"s":{"type":"object","properties":{"start":{"type":"integer","description":"first line","minimum":1},"end":{"type":"integer","description":"last line, inclusive"}},"required":["start"],"additionalProperties":false},
				"p":{"type":"object","properties":{"start":{"type":"integer","description":"first line","minimum":1},"end":{"type":"integer","description":"last line, inclusive"}},"required":["start"],"additionalProperties":false},
				"ss":{"type":"array","items":{"type":"object","properties":{"start":{"type":"integer","description":"first line","minimum":1},"end":{"type":"integer","description":"last line, inclusive"}},"required":["start"],"additionalProperties":false}},
				"is":{"type":"array","items":{"type":"integer"}},
				"f":{"type":"number"}},
				"required":["s","ss","is","f"],"additionalProperties":false}`,
		},
		{
			name: "enum, bounds and lengths",
			typ: struct {
				K string   `json:"k" jsonschema:"enum=a,enum=b"`
				N int      `json:"n" jsonschema:"minimum=1,maximum=9"`
				S string   `json:"s" jsonschema:"minLength=1,maxLength=5"`
				L []string `json:"l" jsonschema:"minItems=1,maxItems=2"`
			}{},
			want: `{"type":"object","properties":{
				"k":{"type":"string","enum":["a","b"]},
				"n":{"type":"integer","minimum":1,"maximum":9},
				"s":{"type":"string","minLength":1,"maxLength":5},
				"l":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2}},
				"required":["k","n","s","l"],"additionalProperties":false}`,
		},
		{
			name: "raw message, any, map and time",
			typ: struct {
				R json.RawMessage   `json:"r"`
				A any               `json:"a" jsonschema_description:"anything"`
				M map[string]string `json:"m"`
				T time.Time         `json:"t"`
			}{},
			want: `{"type":"object","properties":{
				"r":true,
				"a":{"description":"anything"},
				"m":{"type":"object","additionalProperties":{"type":"string"}},
				"t":{"type":"string","format":"date-time"}},
				"required":["r","a","m","t"],"additionalProperties":false}`,
		},
		{
			name: "nested type with the root's name",
			typ:  sameName(),
			want: `{"type":"object","properties":{"in":{"type":"object","properties":{"z":{"type":"integer"}},"required":["z"],"additionalProperties":false}},"required":["in"],"additionalProperties":false}`,
		},
		{name: "nil type", typ: nil, wantErr: "schema for nil type: want a struct"},
		{name: "not a struct", typ: 3, wantErr: "schema for int: arguments must be a struct, not int"},
		{name: "map arguments", typ: map[string]any{}, wantErr: "schema for map[string]interface {}: arguments must be a struct, not map"},
		{name: "channel field", typ: chanArgs{}, wantErr: "schema for schema_test.chanArgs: field C: type chan int is not supported"},
		{
			name:    "func field",
			typ:     struct{ F []func() }{},
			wantErr: "schema for struct { F []func() }: field F: type func() is not supported",
		},
		{
			name:    "complex field",
			typ:     struct{ C complex128 }{},
			wantErr: "schema for struct { C complex128 }: field C: type complex128 is not supported",
		},
		{
			name:    "int map key",
			typ:     struct{ M map[int]string }{},
			wantErr: "schema for struct { M map[int]string }: field M: map key type int is not supported: keys must be strings",
		},
		{
			name:    "recursive type",
			typ:     tree{},
			wantErr: "schema for schema_test.tree: field Children: recursive type schema_test.tree is not supported: nested structs are inlined",
		},
		{
			name:    "nullable needs oneOf",
			typ:     nullable{},
			wantErr: "schema for schema_test.nullable: property x: keyword oneOf is not supported by schema.Decode",
		},
		{
			name:    "extras are not validated",
			typ:     extras{},
			wantErr: "schema for schema_test.extras: property x: keyword jsonschema_extras is not supported by schema.Decode",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := schema.ForType(reflect.TypeOf(tc.typ))
			if diff := cmp.Diff(tc.wantErr, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if tc.wantErr != "" {
				return
			}
			if diff := cmp.Diff(decodeJSON(t, []byte(tc.want)), decodeJSON(t, raw)); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFlat checks the flat-root rule on every type with nesting: no
// reference keyword anywhere and every struct object closed.
func TestFlat(t *testing.T) {
	tests := []struct {
		name string
		typ  any
	}{
		{"golden", goldenArgs{}},
		{"embedded", withEmbedded{}},
		{"same name", sameName()},
		{"deep", struct {
			A []struct {
				B *struct {
					C []span `json:"c"`
				} `json:"b"`
			} `json:"a"`
		}{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := schema.ForType(reflect.TypeOf(tc.typ))
			if err != nil {
				t.Fatal(err)
			}
			root := decodeJSON(t, raw).(map[string]any)
			if root["type"] != "object" {
				t.Errorf("root type = %v, want object", root["type"])
			}
			checkFlat(t, "root", root)
		})
	}
}

// checkFlat walks a decoded schema for forbidden keywords and open objects.
func checkFlat(t *testing.T, where string, v any) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for _, kw := range []string{"$ref", "$defs", "$schema", "$id", "definitions"} {
			if _, ok := v[kw]; ok {
				t.Errorf("%s has %s", where, kw)
			}
		}
		if _, ok := v["properties"]; ok && v["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties = %v, want false", where, v["additionalProperties"])
		}
		for k, sub := range v {
			checkFlat(t, where+"."+k, sub)
		}
	case []any:
		for _, sub := range v {
			checkFlat(t, where+"[]", sub)
		}
	}
}

// TestForCached checks that concurrent callers get equal schemas and that a
// caller modifying its copy does not change what the next caller gets.
func TestForCached(t *testing.T) {
	first, err := schema.For[goldenArgs]()
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Clone(first)
	first[0] = 'X'
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			got, err := schema.For[*goldenArgs]()
			if err != nil {
				t.Error(err)
				return
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
		})
	}
	wg.Wait()
}

// errText is err's message, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// decodeJSON decodes data into an any, failing the test on bad JSON.
func decodeJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return v
}

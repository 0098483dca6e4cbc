package schema_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/agent-tools/agent-tools/schema"
)

// numberOrItem is a number or an item object, described by anyOf.
type numberOrItem json.RawMessage

func (numberOrItem) JSONSchema() *jsonschema.Schema {
	props := jsonschema.NewProperties()
	props.Set("label", &jsonschema.Schema{Type: "string"})
	obj := &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"label"}, AdditionalProperties: jsonschema.FalseSchema}
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "integer", Minimum: "1"}, obj}}
}

func (n *numberOrItem) UnmarshalJSON(b []byte) error {
	*n = append((*n)[:0], b...)
	return nil
}

type anyOfArgs struct {
	Xs []numberOrItem `json:"xs"`
}

// TestAnyOf: a value passes when one alternative accepts it; otherwise the
// errors of the alternative of its own type are reported, or that its type
// is none of theirs. The advertised schema keeps the anyOf.
func TestAnyOf(t *testing.T) {
	raw, err := schema.For[anyOfArgs]()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"items":{"anyOf":[{"type":"integer","minimum":1},{"properties":{"label":`) {
		t.Errorf("schema: %s", raw)
	}
	got, err := schema.Decode[anyOfArgs](json.RawMessage(`{"xs":[3,{"label":"a"},2.0]}`))
	if err != nil || len(got.Xs) != 3 || string(got.Xs[1]) != `{"label":"a"}` || string(got.Xs[2]) != "2" {
		t.Errorf("valid: %v %q", err, got.Xs)
	}
	for in, want := range map[string]string{
		`{"xs":["3"]}`:                 `argument 'xs[0]': want integer or object, got string "3"`,
		`{"xs":[0]}`:                   `argument 'xs[0]': want integer ≥ 1, got 0`,
		`{"xs":[{"label":"a","x":1}]}`: `argument 'xs[0].x': unknown field; known fields: label`,
		`{"xs":[{}]}`:                  `argument 'xs[0].label': required`,
		`{"xs":[1,true]}`:              `argument 'xs[1]': want integer or object, got boolean true`,
	} {
		if _, err := schema.Decode[anyOfArgs](json.RawMessage(in)); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", in, err, want)
		}
	}
}

package rpc

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestDecodeParams: absent and null params decode as {}; params that do
// not decode are -32602 naming the method; the strict form refuses an
// unknown key the lenient form ignores.
func TestDecodeParams(t *testing.T) {
	type params struct {
		Name string `json:"name"`
	}
	for _, raw := range []string{"", "null", "{}"} {
		if p, err := decodeParams[params](json.RawMessage(raw), "m"); err != nil || p.Name != "" {
			t.Errorf("%q: %+v, %v", raw, p, err)
		}
	}
	if p, err := decodeParams[params](json.RawMessage(`{"name":"x","other":1}`), "m"); err != nil || p.Name != "x" {
		t.Errorf("lenient: %+v, %v", p, err)
	}
	tests := []struct {
		raw    string
		strict bool
		want   string
	}{
		{`{"name":1}`, false, "invalid params: tools/call: json: cannot unmarshal number into Go struct field params.name of type string"},
		{`[1]`, false, "invalid params: tools/call: json: cannot unmarshal array into Go value of type rpc.params"},
		{`{"name":"x","other":1}`, true, `invalid params: tools/call: json: unknown field "other"`},
	}
	for _, tt := range tests {
		decode := decodeParams[params]
		if tt.strict {
			decode = decodeStrictParams[params]
		}
		_, err := decode(json.RawMessage(tt.raw), "tools/call")
		if err == nil || err.Error() != tt.want || !errors.Is(err, ErrInvalidParams) {
			t.Errorf("%s (strict %v): %v, want -32602 %q", tt.raw, tt.strict, err, tt.want)
		}
	}
}

package schema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agent-tools/agent-tools/schema"
)

// FuzzDecode checks that Decode never panics, fails only with *FieldError,
// accepts only valid JSON, and that what it accepts survives a round trip.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `{"file":"a","line":1}`, `{"file":"a","line":1.0}`,
		`{"file":"a","line":1e400}`, `{"file":"a","file":"b"}`, `{"file":"a","line":1,"extra":[[[[]]]]}`,
		`{"file":"a","line":1,"items":[{"label":"x","weight":3}],"tags":["a","b"]}`,
		`{"file":"a","line":1,"env":{"a b":"c"},"data":"aGk=","when":"2024-01-02T03:04:05Z"}`,
		`{"file":"\u00e9\ud800","line":-0.0e-5,"any":{"k":[1,{"k":2}]}}`, `{"file":"a",}`, `{} {}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := schema.Decode[decodeArgs](data)
		if err != nil {
			var fe *schema.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a *FieldError: %v", err, err)
			}
			return
		}
		if trimmed := bytes.Trim(data, " \t\r\n"); len(trimmed) > 0 && !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		again, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("marshaling %+v: %v", got, err)
		}
		back, err := schema.Decode[decodeArgs](again)
		if err != nil {
			t.Fatalf("decoding re-marshaled %s: %v", again, err)
		}
		// cmp.Diff only explains what cmp.Equal found (see FuzzParse).
		if !cmp.Equal(got, back, cmpopts.EquateEmpty()) {
			t.Errorf("round trip (-first +second):\n%s", cmp.Diff(got, back, cmpopts.EquateEmpty()))
		}
	})
}

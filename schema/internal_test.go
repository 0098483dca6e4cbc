package schema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIntegerText(t *testing.T) {
	tests := []struct {
		name   string
		lit    string
		want   string
		wantOK bool
	}{
		{"plain", "42", "42", true},
		{"negative", "-7", "-7", true},
		{"zero fraction", "1.0", "1", true},
		{"negative zero", "-0.0", "0", true},
		{"exponent", "1e2", "100", true},
		{"fraction and exponent", "-2.50E+1", "-25", true},
		{"negative exponent, whole", "1200e-2", "12", true},
		{"fraction", "1.5", "", false},
		{"negative exponent, fraction", "15e-1", "", false},
		{"tiny", "1e-999999999999", "", false},
		{"zero with huge exponent", "0e999999999999", "0", true},
		{"too big keeps its spelling", "1e400", "1e400", true},
		{"uint64 max", "18446744073709551615", "18446744073709551615", true},
		{"leading zeros after point", "0.000", "0", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := integerText(tc.lit)
			if diff := cmp.Diff(tc.want, got); diff != "" || ok != tc.wantOK {
				t.Errorf("integerText(%q) = %q, %v; want %q, %v", tc.lit, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestPathString(t *testing.T) {
	tests := []struct {
		name string
		p    path
		want string
	}{
		{"root", nil, ""},
		{"field", path{keySeg("line")}, "line"},
		{"nested", path{keySeg("options"), indexSeg(2), keySeg("label")}, "options[2].label"},
		{"odd key", path{keySeg("env"), keySeg("a.b")}, `env["a.b"]`},
		{"odd first key", path{keySeg("")}, `[""]`},
		{"long key", path{keySeg(strings.Repeat("k", 70))}, `["` + strings.Repeat("k", 64) + `"…]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.p.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParse checks the parser against encoding/json: it accepts only valid
// JSON, refuses valid JSON only for duplicate keys or depth, and re-encodes
// what it accepts to an equal value.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{`{}`, `[1,"a",null,true]`, `{"a":{"b":[1.50e3]}}`, `{"a":1,"a":2}`, `"\ud800"`, `1 2`, `[`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parse(data)
		if err != nil {
			msg := err.Error()
			if json.Valid(data) && !strings.Contains(msg, "duplicate field") && !strings.Contains(msg, "nested deeper") {
				t.Fatalf("refused valid JSON %q: %v", data, err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		out := v.appendJSON(nil)
		var want, got any
		errWant := json.Unmarshal(data, &want)
		errGot := json.Unmarshal(out, &got)
		if (errWant == nil) != (errGot == nil) {
			t.Fatalf("re-encoding %q as %q changed decoding: %v vs %v", data, out, errWant, errGot)
		}
		// cmp.Diff alone takes time exponential in the nesting of equal
		// arrays (33 levels of [[…]] ran past the fuzzer's limit), so it
		// only explains a difference reflect.DeepEqual found.
		if !reflect.DeepEqual(want, got) {
			t.Errorf("re-encoding %q as %q (-want +got):\n%s", data, out, cmp.Diff(want, got))
		}
	})
}

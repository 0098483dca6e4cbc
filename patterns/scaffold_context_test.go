package patterns

import (
	"reflect"
	"strings"
	"testing"
)

// TestContextEnumNamesEveryContext holds the tools' context argument to
// the ladders: a context a language has (and a hint may tell the model
// to retry with) must be one the schema accepts.
func TestContextEnumNamesEveryContext(t *testing.T) {
	for _, args := range []any{grepArgs{}, editArgs{}} {
		f, ok := reflect.TypeOf(args).FieldByName("Context")
		if !ok {
			t.Fatalf("%T has no Context field", args)
		}
		enum := map[string]bool{}
		for _, part := range strings.Split(f.Tag.Get("jsonschema"), ",") {
			if v, ok := strings.CutPrefix(part, "enum="); ok {
				enum[v] = true
			}
		}
		for _, l := range languages {
			for _, name := range l.contextNames() {
				if !enum[name] {
					t.Errorf("%T: %s has the context %q, which the schema's enum does not list", args, l.ID, name)
				}
			}
		}
	}
}

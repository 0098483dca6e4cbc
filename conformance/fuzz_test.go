package conformance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse checks that Parse never panics, and that whatever it accepts
// survives Format and a second Parse unchanged.
func FuzzParse(f *testing.F) {
	f.Add([]byte("header\n-- client --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n-- server --\n{\"id\":1,\"result\":{}}\n"))
	f.Add([]byte("-- flags --\n--surface plan \"a b\"\n-- ws/a/b.go --\npackage b\n-- client --\ngarbage\n"))
	f.Add([]byte("-- client --\n-- client --\n"))
	f.Add([]byte("-- nope --\n"))
	f.Add([]byte("-- ws/../x --\n-- client --\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Parse(data)
		if err != nil {
			return
		}
		b, err := Parse(a.Format())
		if err != nil {
			t.Fatalf("Format produced an archive Parse rejects: %v\n%s", err, a.Format())
		}
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("Parse(Format(a)) != a (-a +b):\n%s", diff)
		}
	})
}

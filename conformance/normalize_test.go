package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalize(t *testing.T) {
	const dir = "/tmp/ws1"
	tests := []struct {
		name  string
		in    string
		extra func(map[string]any)
		want  string
	}{
		{
			name: "member order, spelling of numbers and HTML characters are kept",
			in:   `{ "jsonrpc": "2.0", "id": 1, "result": {"z": 1.50, "a": 12345678901234567890, "s": "<a&b>"} }`,
			want: `{"jsonrpc":"2.0","id":1,"result":{"z":1.50,"a":12345678901234567890,"s":"<a&b>"}}`,
		},
		{
			name: "server version",
			in:   `{"id":1,"result":{"serverInfo":{"name":"x","version":"1.2.3"},"version":"4"}}`,
			want: `{"id":1,"result":{"serverInfo":{"name":"x","version":"$VERSION"},"version":"4"}}`,
		},
		{
			name: "server version in server/discover's _meta",
			in:   `{"id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1.2.3"}},"version":"4"}}`,
			want: `{"id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"$VERSION"}},"version":"4"}}`,
		},
		{
			name: "requestState of a result only",
			in:   `{"id":1,"result":{"resultType":"input_required","requestState":"abc.def"},"params":{"requestState":"x"}}`,
			want: `{"id":1,"result":{"resultType":"input_required","requestState":"$REQUEST_STATE"},"params":{"requestState":"x"}}`,
		},
		{
			name: "task timestamps, strings only",
			in:   `{"result":{"taskId":"task-1","createdAt":"2026-12-01T22:00:00Z","x":{"lastUpdatedAt":"2026-12-01T22:00:01Z"},"y":{"createdAt":7}}}`,
			want: `{"result":{"taskId":"task-1","createdAt":"$TIME","x":{"lastUpdatedAt":"$TIME"},"y":{"createdAt":7}}}`,
		},
		{
			name: "volatile numbers at any depth, not strings",
			in:   `{"pid":42,"result":{"items":[{"durationMs":17,"elapsedMs":3.5},{"pid":"p"}]}}`,
			want: `{"pid":0,"result":{"items":[{"durationMs":0,"elapsedMs":0},{"pid":"p"}]}}`,
		},
		{
			name: "workspace dir in values and keys, whole names only",
			in:   `{"a":"/tmp/ws1","b":"file:///tmp/ws1/x.go:3","c":"/tmp/ws10/x","d":["/tmp/ws1"],"/tmp/ws1/k":1}`,
			want: `{"a":"$WORKDIR","b":"file://$WORKDIR/x.go:3","c":"/tmp/ws10/x","d":["$WORKDIR"],"$WORKDIR/k":1}`,
		},
		{
			name: "extra normalisation runs after the built-in one; new keys go last, sorted",
			in:   `{"b":1,"a":2,"pid":7}`,
			extra: func(m map[string]any) {
				if m["pid"] != json.Number("0") {
					panic("extra ran before the built-in normalisation")
				}
				delete(m, "b")
				m["y"] = "y"
				m["x"] = map[string]any{"q": 1, "p": 2}
			},
			want: `{"a":2,"pid":0,"x":{"p":2,"q":1},"y":"y"}`,
		},
		{
			name: "not an object",
			in:   `["/tmp/ws1", 1]`,
			want: `["$WORKDIR",1]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(json.RawMessage(tt.in), dir, tt.extra)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Normalize mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNormalizeSymlinkedDir(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatalf("cannot make a symlink in the temp dir: %v", err)
	}
	real, _ = filepath.EvalSymlinks(real)
	in, _ := json.Marshal(map[string]string{"a": link + "/x", "b": real + "/y"})
	got, err := Normalize(in, link, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"a":"$WORKDIR/x","b":"$WORKDIR/y"}`, string(got)); diff != "" {
		t.Errorf("Normalize mismatch (-want +got):\n%s", diff)
	}
}

func TestNormalizeRejectsNonJSON(t *testing.T) {
	for _, in := range []string{"", "hello", `{"a":1} {"b":2}`, `{"a":`} {
		if got, err := Normalize(json.RawMessage(in), "", nil); err == nil {
			t.Errorf("Normalize(%q) = %s, want an error", in, got)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		line string
		want envelope
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"a"}`, envelope{role: roleRequest, id: "1", method: "a"}},
		{`{"id":"x","method":"a"}`, envelope{role: roleRequest, id: `"x"`, method: "a"}},
		{`{"id":null,"method":"a"}`, envelope{role: roleNotification, method: "a"}},
		{`{"method":"a"}`, envelope{role: roleNotification, method: "a"}},
		{`{"method":"notifications/cancelled","params":{"requestId": 7}}`,
			envelope{role: roleNotification, method: methodCancelled, cancelID: "7"}},
		{`{"id":3,"result":{}}`, envelope{role: roleResponse, id: "3"}},
		{`{"id":null,"error":{}}`, envelope{role: roleResponse, id: "null"}},
		{`{"jsonrpc":"2.0"}`, envelope{role: roleOther}},
		{`{"id":1,"method":5}`, envelope{role: roleOther}},
		{`[{"id":1,"method":"a"}]`, envelope{role: roleOther}},
		{`not json`, envelope{role: roleOther}},
		{`{"id":1,`, envelope{role: roleOther}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, classify([]byte(tt.line)), cmp.AllowUnexported(envelope{})); diff != "" {
			t.Errorf("classify(%s) mismatch (-want +got):\n%s", tt.line, diff)
		}
	}
}

// TestDiffPaths pins Diff's report: each difference as a JSON path with
// both values, so a changed description is read at a glance.
func TestDiffPaths(t *testing.T) {
	tests := []struct {
		name      string
		want, got []json.RawMessage
		report    string
	}{
		{"deep string", raws(`{"result":{"tools":[{},{"inputSchema":{"properties":{"path":{"description":"a file"}}}}]}}`),
			raws(`{"result":{"tools":[{},{"inputSchema":{"properties":{"path":{"description":"a folder"}}}}]}}`),
			`message 1: result.tools[1].inputSchema.properties.path.description: want "a file", got "a folder"`},
		{"missing and extra members", raws(`{"a":1,"b":2}`), raws(`{"b":2,"c":3}`),
			"message 1: a: want 1, got nothing\nmessage 1: c: want nothing, got 3"},
		{"odd member name and array length", raws(`{"x-y":[1,2]}`), raws(`{"x-y":[1]}`),
			`message 1: ["x-y"][1]: want 2, got nothing`},
		{"type change", raws(`{"a":{"b":1}}`), raws(`{"a":[1]}`),
			`message 1: a: want {"b":1}, got [1]`},
		{"missing message", raws(`{"a":1}`, `{"id":2}`), raws(`{"a":1}`),
			`message 2: want {"id":2}, got nothing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff(tt.want, tt.got); got != tt.report {
				t.Errorf("Diff =\n%s\nwant\n%s", got, tt.report)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name      string
		want, got []json.RawMessage
		equal     bool
	}{
		{"order and spacing of members", raws(`{"a":1,"b":[1,2]}`), raws(`{ "b": [1, 2], "a": 1.0 }`), true},
		{"both empty", nil, raws(), true},
		{"value differs", raws(`{"a":1}`), raws(`{"a":2}`), false},
		{"missing message", raws(`{"a":1}`, `{"b":1}`), raws(`{"a":1}`), false},
		{"non-JSON compared as text", raws(`oops`), raws(`oops`), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := Diff(tt.want, tt.got); (diff == "") != tt.equal {
				t.Errorf("Diff = %q, want equal=%v", diff, tt.equal)
			}
		})
	}
}

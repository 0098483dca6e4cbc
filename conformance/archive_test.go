package conformance

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func raws(lines ...string) []json.RawMessage {
	var out []json.RawMessage
	for _, l := range lines {
		out = append(out, json.RawMessage(l))
	}
	return out
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    *Archive
		wantErr string // substring; "" means success
		// canonical reports whether Format(Parse(in)) must equal in byte for byte.
		canonical bool
	}{
		{
			name: "full",
			in: `What this pins.
Second line.
-- flags --
--surface plan
--vibe
-- ws/go.mod --
module x
-- ws/sub/a.go --
package sub
-- client --
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
-- server --
{
	"jsonrpc": "2.0",
	"id": 1,
	"result": {
		"a": [
			1,
			"x"
		]
	}
}
`,
			want: &Archive{
				Comment: "What this pins.\nSecond line.",
				Flags:   []string{"--surface", "plan", "--vibe"},
				Files: []File{
					{Name: "go.mod", Data: []byte("module x\n")},
					{Name: "sub/a.go", Data: []byte("package sub\n")},
				},
				Client: raws(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
					`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
				Server: raws(`{"jsonrpc":"2.0","id":1,"result":{"a":[1,"x"]}}`),
			},
			canonical: true,
		},
		{
			name: "garbage client lines are kept byte for byte",
			in: "-- client --\n" +
				"this is not JSON  \n" +
				"{\"truncated\": \n" +
				"  {\"id\": 1, \"method\":\"x\"}\r\n" +
				"\n" +
				"[1,2]\n",
			want: &Archive{
				Client: raws("this is not JSON  ", "{\"truncated\": ", "  {\"id\": 1, \"method\":\"x\"}\r", "[1,2]"),
			},
		},
		{
			name: "flags as words, quotes and comments",
			in: "-- flags --\n" +
				"# a comment\n" +
				"--surface plan --vibe\n" +
				"\n" +
				"--worker\n" +
				`"fast=agent -p \"x\""` + "\n" +
				`--empty ""` + "\n" +
				"-- client --\n",
			want: &Archive{
				Flags: []string{"--surface", "plan", "--vibe", "--worker", `fast=agent -p "x"`, "--empty", ""},
			},
		},
		{
			name:      "missing server section means nothing expected",
			in:        "Header.\n-- client --\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n",
			want:      &Archive{Comment: "Header.", Client: raws(`{"jsonrpc":"2.0","method":"n"}`)},
			canonical: false, // Format writes an empty server section
		},
		{
			name: "server messages may be compact and on one line",
			in:   "-- client --\n-- server --\n{\"id\":1} {\"id\":2}\n[]\n",
			want: &Archive{Server: raws(`{"id":1}`, `{"id":2}`, `[]`)},
		},
		{
			name:    "unknown section",
			in:      "-- client --\n-- stderr --\n",
			wantErr: `section "stderr": unknown section`,
		},
		{
			name:    "duplicate section",
			in:      "-- client --\n-- server --\n-- client --\n",
			wantErr: `duplicate section "client"`,
		},
		{
			name:    "duplicate workspace file",
			in:      "-- ws/a --\n-- ws/a --\n-- client --\n",
			wantErr: `duplicate section "ws/a"`,
		},
		{
			name:    "bad JSON in server section",
			in:      "-- client --\n-- server --\n{\"id\":1}\n{\"id\":\n",
			wantErr: `section "server": message 2:`,
		},
		{
			name:    "missing client section",
			in:      "-- server --\n",
			wantErr: `missing section "client"`,
		},
		{
			name:    "workspace path escaping the workspace",
			in:      "-- ws/../x --\n-- client --\n",
			wantErr: `workspace path "../x"`,
		},
		{
			name:    "unterminated quote in flags",
			in:      "-- flags --\n--x \"y\n-- client --\n",
			wantErr: "line 1: unterminated double quote",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
			formatted := got.Format()
			again, err := Parse(formatted)
			if err != nil {
				t.Fatalf("Parse(Format): %v\n%s", err, formatted)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("Parse(Format(a)) != a (-want +got):\n%s\nformatted:\n%s", diff, formatted)
			}
			if tt.canonical {
				if diff := cmp.Diff(tt.in, string(formatted)); diff != "" {
					t.Errorf("Format(Parse(in)) != in (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestFormatRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		a    *Archive
	}{
		{"empty", &Archive{}},
		{"comment with blank lines", &Archive{Comment: "a\n\nb\n"}},
		{"comment without final newline", &Archive{Comment: "a"}},
		{"awkward flags", &Archive{Flags: []string{"#x", "--a", "#b", "", `q"uote`, `back\slash`, "tab\there", "--c=d e"}}},
		{"value before any option", &Archive{Flags: []string{"serve", "--root", "x"}}},
		{"empty file", &Archive{Files: []File{{Name: "e", Data: nil}}}},
		{"garbage and JSON client", &Archive{Client: raws("not json", `{"a":1}`, `[ 1, 2 ]`)}},
		{"server", &Archive{Server: raws(`{"b":1,"a":"<&>"}`, `null`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.a.Format()
			got, err := Parse(data)
			if err != nil {
				t.Fatalf("Parse: %v\n%s", err, data)
			}
			if diff := cmp.Diff(tt.a, got, cmp.Comparer(func(a, b []byte) bool { return string(a) == string(b) })); diff != "" {
				t.Errorf("Parse(Format(a)) mismatch (-want +got):\n%s\nformatted:\n%s", diff, data)
			}
		})
	}
}

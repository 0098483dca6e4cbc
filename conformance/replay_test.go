package conformance

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

const fixture = "testdata/unit/session.txtar"

// TestReplayFixture replays the unit fixture against the fake server: the
// fake reports any breach of the wait rules as a message, so a match proves
// the rules hold.
func TestReplayFixture(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		Replay(t, fixture, startFake, nil)
	})
}

// TestRunFixtureContent checks what the fixture's expected output shows, so
// that an -update cannot silently bless a wrong answer.
func TestRunFixtureContent(t *testing.T) {
	a, err := ParseFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var got []json.RawMessage
	synctest.Test(t, func(t *testing.T) {
		got, err = Run(t.Context(), a, t.TempDir(), startFake, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := raws(
		`{"id":1,"jsonrpc":"2.0","result":{"flags":["--surface","plan","--name","two words"],"pid":0,"realRoot":"$WORKDIR/sub","root":"$WORKDIR","serverInfo":{"name":"fake","version":"$VERSION"}}}`,
		`{"id":2,"jsonrpc":"2.0","result":"slow done"}`,
		`{"id":3,"jsonrpc":"2.0","result":{"path":"$WORKDIR/hello.txt","text":"hello, world\n"}}`,
		`{"id":"q1","jsonrpc":"2.0","method":"fake/question","params":{"q":"why"}}`,
		`{"id":5,"jsonrpc":"2.0","result":{"answer":{"because":42}}}`,
		`{"error":{"code":-32700,"message":"parse error"},"id":null,"jsonrpc":"2.0"}`,
		`{"error":{"code":-32700,"message":"parse error"},"id":null,"jsonrpc":"2.0"}`,
		`{"id":6,"jsonrpc":"2.0","result":{"big":12345678901234567890,"html":"<a&b>"}}`,
	)
	if diff := Diff(want, got); diff != "" {
		t.Errorf("server messages mismatch (-want +got):\n%s", diff)
	}
	if diff := Diff(a.Server, got); diff != "" {
		t.Errorf("fixture's server section is stale (-want +got):\n%s", diff)
	}
}

// TestRunErrors checks that each way a replay can fail is reported, naming
// what was awaited. It runs in a synctest bubble, so the 20s timeouts pass
// at once.
func TestRunErrors(t *testing.T) {
	tests := []struct {
		name    string
		client  []string
		wantErr string
	}{
		{
			name:    "unanswered request blocks the next request",
			client:  []string{`{"jsonrpc":"2.0","id":2,"method":"slow"}`, `{"jsonrpc":"2.0","id":3,"method":"echo"}`},
			wantErr: `before client line 2 "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"echo\"}": timed out after 20s waiting for the response to request id 2 (slow)`,
		},
		{
			name:    "unanswered last request",
			client:  []string{`{"jsonrpc":"2.0","id":"s","method":"slow"}`},
			wantErr: `after the last client line: timed out after 20s waiting for the response to request id "s" (slow)`,
		},
		{
			name:    "response to a request the server never sent",
			client:  []string{`{"jsonrpc":"2.0","id":"q9","result":{}}`},
			wantErr: `timed out after 20s waiting for the server's request id "q9"`,
		},
		{
			name:    "non-JSON line on stdout",
			client:  []string{`{"jsonrpc":"2.0","id":1,"method":"garble"}`},
			wantErr: `server wrote a line that is not JSON to stdout`,
		},
		{
			name:    "server closes stdout while a request is pending",
			client:  []string{`{"jsonrpc":"2.0","id":1,"method":"quit"}`, `{"jsonrpc":"2.0","id":2,"method":"echo"}`},
			wantErr: `server closed stdout while the replayer waited for the response to request id 1 (quit)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := &Archive{Client: raws(tt.client...)}
				_, err := Run(t.Context(), a, t.TempDir(), startFake, nil)
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Run error = %v\nwant one containing %s", err, tt.wantErr)
				}
			})
		})
	}
}

func TestRunTimeoutOption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := &Archive{Client: raws(`{"jsonrpc":"2.0","id":2,"method":"slow"}`)}
		start := time.Now()
		_, err := Run(t.Context(), a, t.TempDir(), startFake, &Options{Timeout: 3 * time.Second})
		if err == nil || !strings.Contains(err.Error(), "timed out after 3s") {
			t.Errorf("Run error = %v, want a 3s timeout", err)
		}
		if d := time.Since(start); d != 3*time.Second {
			t.Errorf("Run took %v (fake clock), want 3s", d)
		}
	})
}

func TestRunExtraNormalize(t *testing.T) {
	a := &Archive{Client: raws(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"t":"12:00"}}`)}
	opts := &Options{Normalize: func(m map[string]any) {
		if r, ok := m["result"].(map[string]any); ok {
			r["t"] = "$TIME"
		}
	}}
	var got []json.RawMessage
	var err error
	synctest.Test(t, func(t *testing.T) {
		got, err = Run(t.Context(), a, t.TempDir(), startFake, opts)
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := Diff(raws(`{"jsonrpc":"2.0","id":1,"result":{"t":"$TIME"}}`), got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestReplayUpdate checks that updating rewrites the server section and
// leaves every other byte of the file as it was.
func TestReplayUpdate(t *testing.T) {
	golden, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	start, end, ok := findSection(golden, sectionServer)
	if !ok || end != len(golden) {
		t.Fatalf("fixture must end with its server section")
	}
	wantServer := golden[start:end]
	beforeServer := golden[:start-len("-- server --\n")]
	// Move a workspace file after the server section, to check that what
	// follows the server section is kept too.
	trailer := []byte("-- ws/after.txt --\nkept as is\n")

	tests := []struct {
		name   string
		file   []byte
		update func(t *testing.T)
		want   []byte
	}{
		{
			name:   "stale server section in the middle, -update flag",
			file:   cat(beforeServer, "-- server --\n{\"stale\": true}\n\n", trailer),
			update: func(t *testing.T) { setUpdateFlag(t, true) },
			want:   cat(beforeServer, "-- server --\n", wantServer, trailer),
		},
		{
			name:   "no server section, environment variable",
			file:   beforeServer,
			update: func(t *testing.T) { t.Setenv(UpdateEnv, "1") },
			want:   cat(beforeServer, "-- server --\n", wantServer),
		},
		{
			name:   "up to date file is not rewritten, even when reformattable",
			file:   cat(beforeServer, "-- server --\n", bytes.ReplaceAll(wantServer, []byte("\t"), []byte("  ")), trailer),
			update: func(t *testing.T) { t.Setenv(UpdateEnv, "1") },
			want:   cat(beforeServer, "-- server --\n", bytes.ReplaceAll(wantServer, []byte("\t"), []byte("  ")), trailer),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.txtar")
			if err := os.WriteFile(path, tt.file, 0o600); err != nil {
				t.Fatal(err)
			}
			tt.update(t)
			synctest.Test(t, func(t *testing.T) { Replay(t, path, startFake, nil) })
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(tt.want), string(got)); diff != "" {
				t.Errorf("updated file mismatch (-want +got):\n%s", diff)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode = %v, want it kept (0600)", fi.Mode().Perm())
			}
			setUpdateFlag(t, false)
			t.Setenv(UpdateEnv, "")
			synctest.Test(t, func(t *testing.T) { Replay(t, path, startFake, nil) }) // now passes without updating
		})
	}
}

// setUpdateFlag sets UpdateFlag for the test; tests that call it must not
// be parallel.
func setUpdateFlag(t *testing.T, on bool) {
	old := UpdateFlag
	UpdateFlag = &on
	t.Cleanup(func() { UpdateFlag = old })
}

// cat concatenates strings and byte slices.
func cat(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch p := p.(type) {
		case []byte:
			b = append(b, p...)
		case string:
			b = append(b, p...)
		}
	}
	return b
}

func TestRewriteServer(t *testing.T) {
	msgs := raws(`{"id":1}`)
	tests := []struct {
		name, in, want string
	}{
		{"last section", "h\n-- client --\nx\n-- server --\nold\n", "h\n-- client --\nx\n-- server --\n{\n\t\"id\": 1\n}\n"},
		{"middle section with CRLF marker", "-- server --\r\nold\n-- ws/a --\r\na\n", "-- server --\r\n{\n\t\"id\": 1\n}\n-- ws/a --\r\na\n"},
		{"missing, no final newline", "-- client --\nx", "-- client --\nx\n-- server --\n{\n\t\"id\": 1\n}\n"},
		{"a marker-like line inside a line is not a marker", "-- client --\nx -- server --\n", "-- client --\nx -- server --\n-- server --\n{\n\t\"id\": 1\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, string(RewriteServer([]byte(tt.in), msgs))); diff != "" {
				t.Errorf("RewriteServer mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

package conformance

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

// TestRecorderReplays records a session with the fake server, then replays
// the recording against the same fake: a recording is already a test.
func TestRecorderReplays(t *testing.T) {
	a, err := ParseFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		recFile := filepath.Join(t.TempDir(), "rec.txtar")
		cmdFlags := append([]string{"--root", root, "--record=" + recFile}, a.Flags...)
		r := NewRecorder(recFile, cmdFlags, root)
		if _, err := Run(t.Context(), a, root, recordingStart(startFake, r), nil); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(recFile), ".*tmp*")); len(leftovers) > 0 {
			t.Errorf("temporary files left behind: %v", leftovers)
		}

		rec, err := ParseFile(recFile)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(rec.Comment, "Recorded by agent-tools serve --record at ") {
			t.Errorf("header = %q", rec.Comment)
		}
		if diff := cmp.Diff(a.Flags, rec.Flags); diff != "" {
			t.Errorf("recorded flags mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(a.Client, rec.Client); diff != "" {
			t.Errorf("recorded client lines mismatch (-want +got):\n%s", diff)
		}
		if diff := Diff(a.Server, rec.Server); diff != "" {
			t.Errorf("recorded server messages mismatch (-want +got):\n%s", diff)
		}

		rec.Files = a.Files // workspace files are not recorded
		got, err := Run(t.Context(), rec, t.TempDir(), startFake, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := Diff(rec.Server, got); diff != "" {
			t.Errorf("replaying the recording (-want +got):\n%s", diff)
		}
	})
}

// recordingStart wraps start so that r sees the session as serve --record
// does: each line the server reads, each line it writes.
func recordingStart(start StartFunc, r *Recorder) StartFunc {
	return func(ctx context.Context, dir string, flags []string) (Conn, error) {
		c, err := start(ctx, dir, flags)
		if err != nil {
			return nil, err
		}
		return &teeConn{
			Conn: c,
			in:   &teeWriter{WriteCloser: c.Stdin(), lines: lines{line: r.Client}},
			out:  &teeReader{r: c.Stdout(), lines: lines{line: r.Server}},
		}, nil
	}
}

type teeConn struct {
	Conn
	in  io.WriteCloser
	out io.Reader
}

func (c *teeConn) Stdin() io.WriteCloser { return c.in }
func (c *teeConn) Stdout() io.Reader     { return c.out }

// lines calls line for each complete line in what it is given.
type lines struct {
	buf  []byte
	line func([]byte)
}

func (l *lines) feed(p []byte) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return
		}
		l.line(l.buf[:i+1])
		l.buf = l.buf[i+1:]
	}
}

type teeWriter struct {
	io.WriteCloser
	lines lines
}

func (w *teeWriter) Write(p []byte) (int, error) {
	w.lines.feed(p)
	return w.WriteCloser.Write(p)
}

type teeReader struct {
	r     io.Reader
	lines lines
}

func (r *teeReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.lines.feed(p[:n])
	return n, err
}

func TestRecorderLines(t *testing.T) {
	root := filepath.Join(t.TempDir(), `we"ird`)
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	escaped := string(jsonEscape(root))
	recFile := filepath.Join(t.TempDir(), "rec.txtar")
	r := NewRecorder(recFile, []string{"-root", root, "--record", recFile, "--vibe"}, root)
	r.Client([]byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"` + escaped + `/a","q":"` + escaped + `2"}}` + "\n"))
	r.Client([]byte("garbage " + root + "\n"))
	r.Client([]byte("  \n"))
	r.Server([]byte(`{"jsonrpc":"2.0","id":1,"result":{"p":"` + escaped + `/a","pid":12,"serverInfo":{"version":"1"}}}` + "\n"))
	r.Server([]byte("not json\n"))
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r.Client([]byte(`{"late":true}`))
	data, err := os.ReadFile(recFile)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(data), "-- flags --\n")
	want := "--vibe\n" +
		"-- client --\n" +
		`{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"$WORKDIR/a","q":"` + escaped + `2"}}` + "\n" +
		"garbage " + root + "\n" +
		"-- server --\n" +
		"{\n\t\"jsonrpc\": \"2.0\",\n\t\"id\": 1,\n\t\"result\": {\n\t\t\"p\": \"$WORKDIR/a\",\n\t\t\"pid\": 0,\n\t\t\"serverInfo\": {\n\t\t\t\"version\": \"$VERSION\"\n\t\t}\n\t}\n}\n" +
		"not json\n"
	if diff := cmp.Diff(want, rest); diff != "" {
		t.Errorf("recording mismatch (-want +got):\n%s", diff)
	}
}

func TestRecorderConcurrent(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "rec.txtar")
	r := NewRecorder(recFile, nil, t.TempDir())
	var wg sync.WaitGroup
	const n = 100
	wg.Go(func() {
		for i := range n {
			r.Client(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"echo"}`, i))
		}
	})
	wg.Go(func() {
		for i := range n {
			r.Server(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":null}`, i))
		}
	})
	wg.Wait()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := ParseFile(recFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Client) != n || len(a.Server) != n {
		t.Errorf("recorded %d client and %d server lines, want %d each", len(a.Client), len(a.Server), n)
	}
	for i, m := range a.Server {
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":null}`, i); string(m) != want {
			t.Fatalf("server message %d = %s, want %s", i, m, want)
		}
	}
}

func TestRecorderCloseError(t *testing.T) {
	r := NewRecorder(filepath.Join(t.TempDir(), "missing", "rec.txtar"), nil, "")
	if err := r.Close(); err == nil {
		t.Error("Close into a missing directory succeeded")
	}
}

func TestDropFlags(t *testing.T) {
	tests := []struct {
		name     string
		in, want []string
	}{
		{"separate values", []string{"--root", "/r", "--surface", "plan", "--record", "f"}, []string{"--surface", "plan"}},
		{"equals and one dash", []string{"-root=/r", "--vibe", "-record", "f"}, []string{"--vibe"}},
		{"after --", []string{"--", "--root", "x"}, []string{"--", "--root", "x"}},
		{"similar names kept", []string{"--rootless", "--recorder=x"}, []string{"--rootless", "--recorder=x"}},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, dropFlags(tt.in, "record", "root")); diff != "" {
				t.Errorf("dropFlags mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// This file defines the replayer: Run plays a transcript's client side
// against a server, and Replay makes a test of it.

package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"golang.org/x/tools/txtar"
)

// A StartFunc starts the server under test with the given flags, for the
// workspace dir. It does not add "--root", dir itself: the caller's
// StartFunc adds it if the server needs it. The server should stop when ctx
// is done (exec.CommandContext does this); Run cancels ctx when it fails.
type StartFunc func(ctx context.Context, dir string, flags []string) (Conn, error)

// A Conn is a running server.
type Conn interface {
	// Stdin is the server's standard input.
	Stdin() io.WriteCloser
	// Stdout is the server's standard output: protocol frames only.
	Stdout() io.Reader
	// Wait waits for the server to exit once its stdin is closed.
	Wait() error
}

// Options configure [Run] and [Replay]. A nil *Options means defaults.
type Options struct {
	// Timeout bounds each wait: for a response, for a server request, for
	// stdout to close after stdin is closed, and for the exit. Default 20s.
	Timeout time.Duration
	// Normalize, if not nil, is applied to each server message that is an
	// object, after the built-in normalisation (see [Normalize]).
	Normalize func(msg map[string]any)
}

var defaultOptions = Options{Timeout: 20 * time.Second}

func (o *Options) withDefaults() Options {
	opts := defaultOptions
	if o != nil {
		opts.Normalize = o.Normalize
		if o.Timeout > 0 {
			opts.Timeout = o.Timeout
		}
	}
	return opts
}

// Run writes a.Files into dir, which should be a fresh empty directory,
// starts the server, plays the client side of a and returns the server's
// messages, normalised, in arrival order. On error it also returns the
// messages received so far.
//
// Client lines are sent in order, each followed by "\n". In a line that is
// JSON, "$WORKDIR" is first replaced by dir, JSON-escaped, and
// "$REQUEST_STATE" ([RequestState]) by the last result.requestState the
// server sent before the line; any other line is sent byte for byte. What each line waits for before it is sent:
//
//   - a request ("method" and a non-null "id"), a non-request line (not
//     JSON, not an object, or an object with neither "method" nor "id"):
//     until no request is pending and no reply to a non-request line is
//     outstanding. A request is pending from when it is sent until the
//     server sends a response with its id, or the client sends
//     notifications/cancelled with that params.requestId; a
//     subscriptions/listen request (MCP 2026-07-28), which is answered
//     only when its stream ends, also once the server acknowledges it
//     (notifications/subscriptions/acknowledged naming its id). A non-request
//     line expects exactly one server message with "id": null.
//   - a notification ("method", no "id"): nothing.
//   - a response ("id", no "method"): until the server has sent a request
//     with that id. It does not wait for pending requests, since the
//     server's request usually comes from inside one (elicitation).
//
// After the last line, Run waits until nothing is pending, closes stdin,
// reads stdout to EOF and waits for the server to exit. Each wait is bounded
// by Options.Timeout, and a timeout is an error naming what was awaited. A
// line on stdout that is not JSON is an error. A non-zero exit is an error.
//
// Server messages sent after a request was cancelled, or several messages
// answering requests the client sent without waiting, arrive in an order
// the transcript cannot pin; keep such cases out of transcripts.
func Run(ctx context.Context, a *Archive, dir string, start StartFunc, opts *Options) ([]json.RawMessage, error) {
	o := opts.withDefaults()
	if err := writeFiles(dir, a.Files); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn, err := start(ctx, dir, slices.Clone(a.Flags))
	if err != nil {
		return nil, fmt.Errorf("starting server: %w", err)
	}
	t := newTracker(newNormalizer(dir, o.Normalize))
	go t.read(conn.Stdout())
	playErr := play(ctx, t, conn.Stdin(), a.Client, dir, o.Timeout)
	if playErr != nil {
		cancel() // stop a server that hangs
	}
	stopErr := stop(ctx, t, conn, o.Timeout)
	msgs := t.messages()
	switch {
	case playErr != nil:
		return msgs, playErr
	case t.failure() != nil:
		return msgs, t.failure()
	}
	return msgs, stopErr
}

// play sends the client lines, each when it may be sent, then waits until
// nothing is pending.
func play(ctx context.Context, t *tracker, w io.Writer, lines []json.RawMessage, dir string, timeout time.Duration) error {
	escapedDir := jsonEscape(dir)
	for i, line := range lines {
		if json.Valid(line) {
			line = bytes.ReplaceAll(line, []byte(Workdir), escapedDir)
		}
		env := classify(line)
		stateful := json.Valid(line) && bytes.Contains(line, []byte(RequestState))
		var err error
		switch env.role {
		case roleNotification:
		case roleResponse:
			err = t.awaitAsked(ctx, timeout, env.id)
		default:
			err = t.awaitIdle(ctx, timeout)
		}
		if err != nil {
			return fmt.Errorf("before client line %d %q: %w", i+1, truncate(line), err)
		}
		if stateful {
			// Only now, with every earlier request answered, is the
			// state to echo known.
			line = bytes.ReplaceAll(line, []byte(RequestState), jsonEscape(t.requestState()))
		}
		t.sent(env)
		if _, err := w.Write(append(slices.Clip(line), '\n')); err != nil {
			return fmt.Errorf("sending client line %d: %w", i+1, err)
		}
	}
	if err := t.awaitIdle(ctx, timeout); err != nil {
		return fmt.Errorf("after the last client line: %w", err)
	}
	return nil
}

// stop closes the server's stdin, reads its stdout to EOF and waits for it
// to exit.
func stop(ctx context.Context, t *tracker, conn Conn, timeout time.Duration) error {
	closeErr := conn.Stdin().Close()
	if err := t.awaitEOF(ctx, timeout); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- conn.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("server exit: %w", err)
		}
	case <-timer.C:
		return fmt.Errorf("server did not exit within %v of its stdin being closed", timeout)
	}
	if closeErr != nil {
		return fmt.Errorf("closing server stdin: %w", closeErr)
	}
	return nil
}

// jsonEscape returns s as it appears inside a JSON string.
func jsonEscape(s string) []byte {
	b, _ := json.Marshal(s)
	return b[1 : len(b)-1]
}

// writeFiles writes the workspace files below dir, which must not hold
// them yet.
func writeFiles(dir string, files []File) error {
	ar := &txtar.Archive{}
	for _, f := range files {
		if _, err := checkWorkspacePath(f.Name); err != nil {
			return err
		}
		ar.Files = append(ar.Files, txtar.File{Name: f.Name, Data: f.Data})
	}
	fsys, err := txtar.FS(ar)
	if err != nil {
		return err
	}
	return os.CopyFS(dir, fsys)
}

// UpdateFlag, if a caller sets it, makes [Replay] rewrite the server section
// of a transcript that does not match, instead of failing. Its package
// registers the flag in a _test.go file, so that the server binary has no
// such flag:
//
//	func init() {
//		conformance.UpdateFlag = flag.Bool("update", false, "rewrite the server sections of transcripts")
//	}
//
// Setting the environment variable UPDATE_TRANSCRIPTS=1 ([UpdateEnv]) has
// the same effect, for packages that registered no flag.
var UpdateFlag *bool

// UpdateEnv is the environment variable that, set to "1", turns on updating.
const UpdateEnv = "UPDATE_TRANSCRIPTS"

func updating() bool {
	return UpdateFlag != nil && *UpdateFlag || os.Getenv(UpdateEnv) == "1"
}

// TB is the part of testing.TB that [Replay] uses. It is an interface of
// this package's own so that the server binary, which links conformance for
// its replay and record commands, does not link the testing package.
type TB interface {
	Helper()
	Context() context.Context
	TempDir() string
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}

// Replay replays the transcript at path against the server start starts,
// in a fresh t.TempDir(), and reports a difference between the expected and
// the actual server messages as a test error. When updating (see
// [UpdateFlag]), it rewrites the transcript's server section instead, and
// leaves every other byte of the file unchanged.
func Replay(t TB, path string, start StartFunc, opts *Options) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	got, err := Run(t.Context(), a, t.TempDir(), start, opts)
	if err != nil {
		t.Fatalf("%s: %v\nserver messages before the failure:\n%s", path, err, formatServer(got))
	}
	diff := Diff(a.Server, got)
	switch {
	case diff == "":
	case updating():
		if err := writeKeepingMode(path, RewriteServer(data, got)); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: rewrote the server section", path)
	default:
		t.Errorf("%s: server messages differ:\n%s\nTo accept the new output, rerun with %s=1 or the test's -update flag.",
			path, diff, UpdateEnv)
	}
}

func writeKeepingMode(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return os.WriteFile(path, data, mode)
}

// RewriteServer returns the transcript data with its server section
// replaced by msgs, tab-indented; every other byte is unchanged. Without a
// server section, it appends one.
func RewriteServer(data []byte, msgs []json.RawMessage) []byte {
	body := formatServer(msgs)
	start, end, ok := findSection(data, sectionServer)
	if !ok {
		out := slices.Clone(data)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, "-- "+sectionServer+" --\n"...)
		return append(out, body...)
	}
	return slices.Concat(data[:start], body, data[end:])
}

// findSection returns the byte range of the named section's data: from
// just after its marker line to the next marker line or the end. It finds
// markers as txtar.Parse does.
func findSection(data []byte, name string) (start, end int, ok bool) {
	for pos := 0; pos < len(data); {
		next := len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			next = pos + i + 1
		}
		if n, isMarker := markerName(data[pos:next]); isMarker {
			if ok {
				return start, pos, true
			}
			if n == name {
				start, ok = next, true
			}
		}
		pos = next
	}
	return start, len(data), ok
}

// markerName reports whether line is a txtar file marker "-- name --".
func markerName(line []byte) (string, bool) {
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	const openMark, closeMark = "-- ", " --"
	if !bytes.HasPrefix(line, []byte(openMark)) || !bytes.HasSuffix(line, []byte(closeMark)) || len(line) < len(openMark)+len(closeMark) {
		return "", false
	}
	name := string(bytes.TrimSpace(line[len(openMark) : len(line)-len(closeMark)]))
	return name, name != ""
}

// This file defines the Recorder, which writes a live session as a
// transcript (agent-tools serve --record FILE).

package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// A Recorder collects a live session and writes it as a transcript when
// closed. Its methods may be called from any goroutine: typically the read
// loop calls [Recorder.Client] and the writer calls [Recorder.Server].
//
// The workspace root becomes "$WORKDIR" in both directions: in client lines
// that are JSON (where the root appears JSON-escaped) and, through
// [Normalize], in server messages, which are normalised as the replayer
// normalises them. Workspace files are not recorded.
type Recorder struct {
	path  string
	flags []string
	start time.Time
	norm  *normalizer
	roots [][]byte // the root's forms, JSON-escaped, longest first

	mu     sync.Mutex // guards the fields below
	client []json.RawMessage
	server []json.RawMessage
	closed bool
}

// NewRecorder returns a Recorder that will write to path. flags are the
// server's flags as given; "--record FILE" and "--root DIR" (with one or
// two dashes, or as --flag=value) are left out. root is the workspace root.
func NewRecorder(path string, flags []string, root string) *Recorder {
	if abs, err := filepath.Abs(root); err == nil && root != "" {
		root = abs
	}
	r := &Recorder{
		path:  path,
		flags: dropFlags(flags, "record", "root"),
		start: time.Now(),
		norm:  newNormalizer(root, nil),
	}
	for _, dir := range r.norm.dirs {
		r.roots = append(r.roots, jsonEscape(dir))
	}
	return r
}

// dropFlags returns flags without the named ones and their values.
func dropFlags(flags []string, names ...string) []string {
	var out []string
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		if f == "--" {
			return append(out, flags[i:]...)
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(f, "-"), "-"), "=")
		if strings.HasPrefix(f, "-") && slices.Contains(names, name) {
			if !hasValue {
				i++ // skip the value
			}
			continue
		}
		out = append(out, f)
	}
	return out
}

// Client records a line received from the client, raw: it may be garbage.
// A trailing newline is dropped, and so is a blank line, which a server
// ignores.
func (r *Recorder) Client(line []byte) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if json.Valid(line) {
		for _, root := range r.roots {
			line = []byte(replacePath(string(line), string(root), Workdir))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.client = append(r.client, bytes.Clone(line))
	}
}

// Server records a line sent to the client. A line that is not JSON is
// recorded as is, which makes the transcript fail to parse: stdout must
// carry protocol frames only.
func (r *Recorder) Server(line []byte) {
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	msg, err := r.norm.normalize(line)
	if err != nil {
		msg = bytes.Clone(line)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.server = append(r.server, msg)
	}
}

// Close writes the transcript atomically: to a temporary file in the same
// directory, then renamed. Calls after the first do nothing and return nil;
// so do Client and Server calls after Close.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	a := &Archive{
		Comment: fmt.Sprintf("Recorded by agent-tools serve --record at %s.\n"+
			"The workspace root was replaced by %s. Workspace files were not recorded:\n"+
			"add them as ws/<path> sections, and say here what this transcript pins.",
			r.start.UTC().Format(time.RFC3339), Workdir),
		Flags:  r.flags,
		Client: r.client,
		Server: r.server,
	}
	return writeAtomic(r.path, a.Format())
}

// writeAtomic writes data to path through a temporary file and a rename.
func writeAtomic(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing transcript: %w", err)
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
			err = fmt.Errorf("writing transcript %s: %w", path, err)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

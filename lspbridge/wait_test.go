package lspbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// replayServer is a server fed the notifications a real one sent, as
// they arrive on the read loop (onNotify), so that a wait can be held to
// an order of messages a real server produces only in a race. Its
// connection is LSP framing over pipes to a peer that answers every
// request with null (the wait's fence), in place of a server process; a
// sleeping process stands in for the server's exit.
func replayServer(t *testing.T, cfg *ServerConfig, stall *atomic.Bool) *server {
	t.Helper()
	testutil.Needs(t, "sleep")
	p, err := proc.Start(proc.Spec{Name: "sleep", Path: "sleep", Args: []string{"300"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(context.Background(), nil) })
	released := make(chan struct{})
	t.Cleanup(func() { close(released) })
	toPeer, fromUs := io.Pipe()
	toUs, fromPeer := io.Pipe()
	peer := jsonrpc2.NewConn(t.Context(), jsonrpc2.NewBufferedStream(pipeRW{toPeer, fromPeer}, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) {
			if stall.Load() {
				<-released // a server stuck behind a slow request
			}
			return nil, nil
		}), jsonrpc2.SetLogger(discard))
	t.Cleanup(func() { peer.Close() })
	opts := defaultOptions
	s := &server{cfg: cfg, opts: &opts, proc: p, root: "/w",
		docs: map[string]*document{}, seen: map[string]stamp{}, diags: map[string]*published{},
		progress: map[string]string{}, clearing: map[string]int{}, failed: map[string]string{},
		changed: make(chan struct{})}
	s.conn = newConn(t.Context(), toUs, fromUs, connHandler{notify: s.onNotify, request: s.onRequest})
	return s
}

// pipeRW is one end of replayServer's connection.
type pipeRW struct {
	io.Reader
	io.WriteCloser
}

// send feeds one notification, as JSON on the wire.
func (s *server) send(t *testing.T, method, params string) {
	t.Helper()
	if !json.Valid([]byte(params)) {
		t.Fatalf("not JSON: %s", params)
	}
	s.onNotify(method, json.RawMessage(params))
}

// TestDiagnosisPassHoldsPublication replays what gopls sent in CI when a
// dependent (main.go) was sent again as version 14 right after the write
// that broke it: its diagnosis pass for an earlier change, ending, cleared
// main.go's diagnostics for the version it did not diagnose and published
// that as version 14, empty; the pass for version 14 published the error
// tens of milliseconds later. Taken at the first publication, the answer
// was "no new errors". gopls announces each pass (verboseWorkDoneProgress)
// before the change it diagnoses reaches its session, so no publication
// for the new version can come before the pass that covers it begins: the
// wait holds until no pass is open, then settles.
func TestDiagnosisPassHoldsPublication(t *testing.T) {
	var gopls *ServerConfig
	for i := range builtinServers {
		if builtinServers[i].Name == "gopls" {
			gopls = &builtinServers[i]
		}
	}
	if gopls == nil || gopls.DiagnosisProgress == "" || !strings.Contains(string(gopls.InitializationOptions), `"verboseWorkDoneProgress":true`) {
		t.Fatalf("gopls is not configured to announce its diagnosis passes: %+v", gopls)
	}
	var stall atomic.Bool
	s := replayServer(t, gopls, &stall)
	const path = "/w/main.go"
	uri := fileURI(path)
	s.docs[path] = &document{version: 14, text: "package main\n"}
	progress := func(tok, kind, title string) {
		s.send(t, "$/progress", fmt.Sprintf(`{"token":%q,"value":{"kind":%q,"title":%q}}`, tok, kind, title))
	}
	publish := func(version int, msgs ...string) {
		var ds []string
		for _, m := range msgs {
			ds = append(ds, fmt.Sprintf(`{"range":{"start":{"line":4,"character":40},"end":{"line":4,"character":47}},"severity":1,"source":"compiler","message":%q}`, m))
		}
		s.send(t, "textDocument/publishDiagnostics", fmt.Sprintf(`{"uri":%q,"version":%d,"diagnostics":[%s]}`, uri, version, strings.Join(ds, ",")))
	}
	const msg = "not enough arguments in call to Greet"
	// Before the re-send: the pass for the write (version 13) is open.
	progress("1", "begin", "diagnosing changed files")
	publish(13, msg)
	sr := syncResult{version: 14, changed: true, seq: 1}
	progress("2", "begin", "diagnosing close files")
	progress("3", "begin", "diagnosing opened files")
	done := make(chan []Diagnostic, 1)
	go func() {
		ds, state, err := s.diagnosticsSilent(t.Context(), path, sr, time.Minute)
		if err != nil || state != settled {
			t.Errorf("wait: state %v, err %v", state, err)
		}
		done <- ds
	}()
	progress("1", "end", "")
	publish(14) // the earlier pass, clearing what it did not diagnose
	progress("2", "end", "")
	// The wrong answer came 10 ms (the versioned settle window) after the
	// empty publication: give a wrong wait many times that to show itself.
	select {
	case ds := <-done:
		t.Fatalf("the wait answered %v while a diagnosis pass was open", ds)
	case <-time.After(20 * s.opts.VersionedSettle):
	}
	publish(14, msg)
	progress("3", "end", "")
	ds := <-done
	if len(ds) != 1 || ds[0].Message != msg {
		t.Fatalf("after the pass for version 14 ended: got %+v, want the error", ds)
	}

	// Asked again with no change sent (a baseline), the publication is
	// taken at once when no pass is open, and waited for when one is.
	if ds, state, err := s.diagnosticsSilent(t.Context(), path, syncResult{version: 14}, time.Minute); err != nil || state != settled || len(ds) != 1 {
		t.Fatalf("unchanged, no pass open: %v %v %v", ds, state, err)
	}
	progress("4", "begin", "diagnosing saved files")
	go func() {
		ds, _, _ := s.diagnosticsSilent(t.Context(), path, syncResult{version: 14}, time.Minute)
		done <- ds
	}()
	select {
	case ds := <-done:
		t.Fatalf("unchanged: answered %v while a pass was open", ds)
	case <-time.After(20 * s.opts.VersionedSettle):
	}
	publish(14)
	progress("4", "end", "")
	if ds := <-done; len(ds) != 0 {
		t.Fatalf("unchanged, after the pass: got %+v, want its last publication (none)", ds)
	}

	// A limit that comes while a pass is open says so.
	progress("5", "begin", "diagnosing changed files")
	s.docs[path].version = 15
	publish(15)
	ds, state, err := s.diagnosticsSilent(t.Context(), path, syncResult{version: 15, changed: true, seq: 0}, 50*time.Millisecond)
	if err != nil || state != unsettled {
		t.Fatalf("limit during a pass: state %v err %v (%v), want unsettled", state, err, ds)
	}

	// A server that does not answer the fence (stuck behind a slow
	// request) costs the wait its limit, no more, and no error: the wait
	// goes on without it and takes the publication after the settle.
	progress("5", "end", "")
	stall.Store(true)
	ds, state, err = s.diagnosticsSilent(t.Context(), path, syncResult{version: 15}, 50*time.Millisecond)
	if err != nil || state != settled || ds == nil {
		t.Fatalf("unanswered fence: %v %v %v, want the publication for version 15, settled", ds, state, err)
	}
}

// TestGoplsWithoutPassAnnouncements: a user's initialization_options for
// gopls that leave verboseWorkDoneProgress out turn the announcements
// off; the waits then keep their settle windows (no fence, no zero
// settle) and diagnostics on write still find a broken caller and its
// fix.
func TestGoplsWithoutPassAnnouncements(t *testing.T) {
	testutil.Needs(t, "gopls", "go")
	dir := t.TempDir()
	testutil.WriteTree(t, dir, "-- go.mod --\nmodule example.com/w\n\ngo 1.22\n-- lib.go --\npackage main\n\nfunc Greet(name string) string { return name }\n-- main.go --\npackage main\n\nfunc main() { println(Greet(\"x\")) }\n")
	root := canonical(dir)
	section, _ := json.Marshal(Config{Servers: []ServerConfig{{Name: "gopls", InitializationOptions: json.RawMessage(`{"diagnosticsDelay":"0s"}`)}}})
	opts, err := ParseConfig(section, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := newSup(t, opts)
	ctx := testCtx(t)
	lib := filepath.Join(root, "lib.go")
	if _, err := s.Diagnostics(ctx, Request{Root: root, File: "lib.go"}); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct{ text, want string }{
		{"package main\n\nfunc Greet(name string, n int) string { return name }\n", "not enough arguments in call to Greet"},
		{"package main\n\nfunc Greet(name string) string { return name }\n", ""},
	} {
		writeFile(t, lib, c.text)
		r, err := s.DidWrite(ctx, root, []string{lib})
		if err != nil {
			t.Fatal(err)
		}
		if c.want != "" && !strings.Contains(r.Text, "main.go:3") || c.want != "" && !strings.Contains(r.Text, c.want) || c.want == "" && r.Text != "" {
			t.Errorf("write %d: want %q, got %q", i, c.want, r.Text)
		}
	}
	for _, srv := range s.running(root) {
		if srv.announcesPasses() {
			t.Errorf("%s announced diagnosis passes without verboseWorkDoneProgress: the test no longer covers the fallback", srv.cfg.Name)
		}
	}
}

// TestWaitFollowsABusyServer: a wait whose limit passes while the server
// keeps publishing for other files goes on (tsserver checks the open
// files one by one, and on a loaded machine the dependents of a write
// came after the 3 s cap: the mutation soak's TypeScript writes left
// three to seven of them "not checked"), up to BusyCap; with no
// publication at all it ends at its limit.
func TestWaitFollowsABusyServer(t *testing.T) {
	var stall atomic.Bool
	s := replayServer(t, &ServerConfig{Name: "busy"}, &stall)
	s.opts.BusyCap = time.Minute
	const path = "/w/last.ts"
	s.docs[path] = &document{version: 2, text: "export const x = 1;\n"}
	publish := func(p string, version int) {
		s.send(t, "textDocument/publishDiagnostics", fmt.Sprintf(`{"uri":%q,"version":%d,"diagnostics":[]}`, fileURI(p), version))
	}
	const limit = time.Second
	// Other files' publications, one every few milliseconds, until told
	// to stop; then the file's own.
	busy := func(stop <-chan struct{}, own bool) {
		for i := 0; ; i++ {
			select {
			case <-stop:
				if own {
					publish(path, 2)
				}
				return
			case <-time.After(10 * time.Millisecond):
				publish(fmt.Sprintf("/w/other%d.ts", i%7), 2)
			}
		}
	}
	type answer struct {
		ds    []Diagnostic
		state waitState
		err   error
	}
	wait := func(sr syncResult) <-chan answer {
		c := make(chan answer, 1)
		go func() {
			ds, state, err := s.diagnosticsSilent(t.Context(), path, sr, limit)
			c <- answer{ds, state, err}
		}()
		return c
	}

	// Past two limits of other files' publications, the file's own is
	// the answer.
	stop := make(chan struct{})
	go busy(stop, true)
	done := wait(syncResult{version: 2, changed: true})
	select {
	case a := <-done:
		t.Fatalf("the wait ended while the server was publishing: %+v", a)
	case <-time.After(2*limit + limit/2):
	}
	close(stop)
	if a := <-done; a.err != nil || a.state != settled {
		t.Fatalf("after the file's publication: %+v, want it, settled", a)
	}

	// With nothing published, the limit ends the wait, not BusyCap.
	s.docs[path].version = 3
	a := <-wait(syncResult{version: 3, changed: true, seq: s.diags[path].seq})
	if !errors.Is(a.err, errNoFreshDiagnostics) || !strings.Contains(a.err.Error(), "within 1s") {
		t.Fatalf("a silent server: %+v, want no fresh diagnostics within 1s", a)
	}

	// A server that never stops publishing for other files is followed
	// up to BusyCap, and the answer says how long it waited.
	s.opts.BusyCap = 3 * limit
	s.docs[path].version = 4
	stop = make(chan struct{})
	defer close(stop)
	go busy(stop, false)
	a = <-wait(syncResult{version: 4, changed: true, seq: s.diags[path].seq})
	if !errors.Is(a.err, errNoFreshDiagnostics) || !strings.Contains(a.err.Error(), "within 3s") {
		t.Fatalf("a server busy with other files: %+v, want no fresh diagnostics within 3s (BusyCap)", a)
	}
}

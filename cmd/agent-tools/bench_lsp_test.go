package main

// This file adds the lsp rows to `make bench`: definition, references,
// hover and incoming_calls through agent-tools against the same requests
// sent straight to gopls, and agent-tools/didWrite against gopls' own first
// publishDiagnostics after the same change, each pair in the same run on
// the same fixture (lspbridge/testdata/go.txtar); and a cross-file break
// against gopls republishing the caller.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

func init() {
	needsGopls := func() string {
		if _, err := exec.LookPath("gopls"); err != nil {
			return "gopls not on PATH"
		}
		return ""
	}
	type q struct{ name, action, method string }
	for _, x := range []q{
		{"lsp definition (gopls)", "definition", "textDocument/definition"},
		{"lsp references (gopls)", "references", "textDocument/references"},
		{"lsp hover (gopls)", "hover", "textDocument/hover"},
	} {
		benchRows = append(benchRows, benchRow{name: x.name, peerName: "gopls direct", needs: needsGopls,
			ours: benchLSPOurs(x.action), peer: benchLSPDirect(x.method)})
	}
	benchRows = append(benchRows, benchRow{name: "lsp incoming_calls (gopls)", peerName: "gopls direct", needs: needsGopls,
		ours: benchLSPOurs("incoming_calls"), peer: benchCallsDirect})
	benchRows = append(benchRows, benchRow{name: "didWrite → new diagnostics (gopls)", peerName: "gopls first publish", needs: needsGopls,
		ours: benchDidWriteOurs, peer: benchDidWriteDirect})
	benchRows = append(benchRows, benchRow{name: "lsp cross-file break → caller's diagnostics (gopls)", peerName: "gopls republish", needs: needsGopls,
		ours: benchCrossFileOurs, peer: benchCrossFileDirect})
	benchRows = append(benchRows, benchRow{name: "lsp_rename → diagnostics (gopls)", peerName: "gopls rename + apply + publish", needs: needsGopls,
		ours: benchRenameOurs, peer: benchRenameDirect})
}

// The cross-file rows change Shout's signature in util.go (a plain write
// for ours, a didChange for the peer) and time the first correct
// diagnostics of its caller main.go: ours through lsp diagnostics, which
// must never answer the stale state (the row fails if it does); the
// peer's as gopls republishes main.go by itself.
const utilGood, utilBroken = `func Shout(s string) string { return s + "!" }`, `func Shout(s string, n int) string { return s + "!" }`

func utilContent(b *testing.B, dir string, broken bool) string {
	data, err := os.ReadFile(filepath.Join(dir, "util.go"))
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Replace(string(data), utilBroken, utilGood, 1)
	if broken {
		text = strings.Replace(text, utilGood, utilBroken, 1)
	}
	return text
}

func benchCrossFileOurs(b *testing.B) {
	dir := lspBenchFixture(b)
	s := startOurs(b, dir, "--structured") // the row reads the structured total
	defer s.close()
	id := 1
	diagnostics := func(file string) int {
		id++
		line := s.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lsp","arguments":{"action":"diagnostics","file":%q}}}`, id, file), id)
		var res struct {
			Result struct {
				StructuredContent struct {
					Total int `json:"total"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			b.Fatalf("%v: %s", err, line)
		}
		return res.Result.StructuredContent.Total
	}
	diagnostics("util.go")
	diagnostics("main.go")
	broken := false
	for b.Loop() {
		broken = !broken
		os.WriteFile(filepath.Join(dir, "util.go"), []byte(utilContent(b, dir, broken)), 0o644)
		if n := diagnostics("main.go"); (n > 0) != broken {
			b.Fatalf("stale: main.go has %d errors with util.go broken=%v", n, broken)
		}
	}
}

func benchCrossFileDirect(b *testing.B) {
	dir := lspBenchFixture(b)
	d := startDirect(b, dir)
	defer d.close()
	util, main := filepath.Join(dir, "util.go"), filepath.Join(dir, "main.go")
	d.open(b, util)
	d.open(b, main)
	uri := fileURL(main)
	v := 1
	broken := false
	for b.Loop() {
		v++
		broken = !broken
		d.conn.Notify(context.Background(), "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": fileURL(util), "version": v},
			"contentChanges": []any{map[string]string{"text": utilContent(b, dir, broken)}}})
		d.conn.Notify(context.Background(), "textDocument/didSave", map[string]any{"textDocument": map[string]string{"uri": fileURL(util)}})
		for p := range d.diags {
			if p.URI == uri && (len(p.Diagnostics) > 0) == broken {
				break
			}
		}
	}
}

// lspBenchFixture writes the lspbridge Go fixture into a temp dir.
func lspBenchFixture(b *testing.B) string {
	data, err := os.ReadFile(filepath.Join("..", "..", "lspbridge", "testdata", "go.txtar"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	testutil.WriteTree(b, dir, string(data))
	real, _ := filepath.EvalSymlinks(dir)
	return real
}

// The position used by every navigation row: Shout on main.go line 7.
const benchLine, benchSymbol, benchChar = 7, "Shout", 8

func startOurs(b *testing.B, dir string, flags ...string) *server {
	cmd := testBinaryCmd(context.Background(), append([]string{"serve", "--root", dir, "--log-level", "off"}, flags...)...)
	s := startCmd(b, cmd)
	s.initialize()
	return s
}

func benchLSPOurs(action string) func(b *testing.B) {
	return func(b *testing.B) {
		s := startOurs(b, lspBenchFixture(b))
		defer s.close()
		call := func(id int) {
			s.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lsp","arguments":{"action":%q,"file":"main.go","line":%d,"symbol":%q}}}`,
				id, action, benchLine, benchSymbol), id)
		}
		call(2) // starts gopls and waits until it is ready
		id := 2
		for b.Loop() {
			id++
			call(id)
		}
	}
}

func benchDidWriteOurs(b *testing.B) {
	benchDidWriteOn(b, lspBenchFixture(b), "dw.go", dwContent)
}

// benchDidWriteOn writes the file rel of the fixture dir with
// content(i), a new text each time, and times didWrite on it.
func benchDidWriteOn(b *testing.B, dir, rel string, content func(int) string) {
	s := startOurs(b, dir)
	defer s.close()
	path := filepath.Join(dir, filepath.FromSlash(rel))
	id := 1
	didWrite := func(i int) {
		os.WriteFile(path, []byte(content(i)), 0o644)
		id++
		s.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"agent-tools/didWrite","params":{"paths":[%q]}}`, id, rel), id)
	}
	didWrite(0) // start and open
	i := 0
	for b.Loop() {
		i++
		didWrite(i)
	}
}

// dwContent alternates between a type error and clean code, never the same
// text twice.
func dwContent(i int) string {
	if i%2 == 1 {
		return fmt.Sprintf("package main\n\nfunc dw() int {\n\tvar a int = \"x\"\n\treturn a + %d\n}\n", i)
	}
	return fmt.Sprintf("package main\n\nfunc dw() int {\n\treturn %d\n}\n", i)
}

// directLSP is a bare LSP client on gopls' stdio: the peer.
type directLSP struct {
	cmd   *exec.Cmd
	conn  *jsonrpc2.Conn
	diags chan publish
}

type publish struct {
	URI         string            `json:"uri"`
	Version     *int              `json:"version"`
	Diagnostics []json.RawMessage `json:"diagnostics"`
}

type directHandler struct{ diags chan publish }

func (h directHandler) Handle(ctx context.Context, c *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		if req.Method == "textDocument/publishDiagnostics" {
			var p publish
			json.Unmarshal(*req.Params, &p)
			select {
			case h.diags <- p:
			default:
			}
		}
		return
	}
	go func() {
		if req.Method == "workspace/configuration" {
			var p struct{ Items []any }
			json.Unmarshal(*req.Params, &p)
			c.Reply(ctx, req.ID, make([]any, len(p.Items)))
			return
		}
		c.Reply(ctx, req.ID, nil)
	}()
}

type rwc struct {
	io.Reader
	io.WriteCloser
}

func startDirect(b *testing.B, dir string) *directLSP { return startDirectCmd(b, dir, "gopls") }

// startDirectCmd starts argv as a bare LSP server in dir, declaring no
// more than versioned publications: the peer as its users' editors get it.
func startDirectCmd(b *testing.B, dir string, argv ...string) *directLSP {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	d := &directLSP{cmd: cmd, diags: make(chan publish, 100)}
	d.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(rwc{out, in}, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.AsyncHandler(directHandler{d.diags}))
	ctx := context.Background()
	uri := fileURL(dir)
	err := d.conn.Call(ctx, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": uri, "workspaceFolders": []any{map[string]string{"uri": uri, "name": "fx"}},
		"capabilities": map[string]any{"workspace": map[string]any{"configuration": true},
			"textDocument": map[string]any{"publishDiagnostics": map[string]any{"versionSupport": true}}},
	}, nil)
	if err != nil {
		b.Fatal(err)
	}
	d.conn.Notify(ctx, "initialized", struct{}{})
	return d
}

func (d *directLSP) open(b *testing.B, path string) {
	text, _ := os.ReadFile(path)
	d.conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": fileURL(path), "languageId": "go", "version": 1, "text": string(text)}})
	d.waitPublish(b, fileURL(path), 1)
}

func (d *directLSP) waitPublish(b *testing.B, uri string, version int) {
	for p := range d.diags {
		if p.URI == uri && p.Version != nil && *p.Version == version {
			return
		}
	}
	b.Fatal("gopls stopped publishing")
}

func (d *directLSP) close() {
	d.conn.Call(context.Background(), "shutdown", nil, nil)
	d.conn.Notify(context.Background(), "exit", nil)
	d.conn.Close()
	d.cmd.Wait()
}

func fileURL(path string) string { return (&url.URL{Scheme: "file", Path: path}).String() }

func benchLSPDirect(method string) func(b *testing.B) {
	return func(b *testing.B) {
		dir := lspBenchFixture(b)
		d := startDirect(b, dir)
		defer d.close()
		main := filepath.Join(dir, "main.go")
		d.open(b, main)
		params := map[string]any{"textDocument": map[string]string{"uri": fileURL(main)},
			"position": map[string]int{"line": benchLine - 1, "character": benchChar}}
		if strings.HasSuffix(method, "references") {
			params["context"] = map[string]bool{"includeDeclaration": true}
		}
		var res json.RawMessage
		for b.Loop() {
			if err := d.conn.Call(context.Background(), method, params, &res); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func benchDidWriteDirect(b *testing.B) {
	dir := lspBenchFixture(b)
	d := startDirect(b, dir)
	defer d.close()
	path := filepath.Join(dir, "dw.go")
	d.open(b, path)
	uri := fileURL(path)
	v := 1
	for b.Loop() {
		v++
		d.conn.Notify(context.Background(), "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": v},
			"contentChanges": []any{map[string]string{"text": dwContent(v)}}})
		d.conn.Notify(context.Background(), "textDocument/didSave", map[string]any{"textDocument": map[string]string{"uri": uri}})
		d.waitPublish(b, uri, v)
	}
}

// benchCallsDirect is incoming_calls' peer: the same two requests sent
// straight to gopls, textDocument/prepareCallHierarchy and then
// callHierarchy/incomingCalls for the item it returned.
func benchCallsDirect(b *testing.B) {
	dir := lspBenchFixture(b)
	d := startDirect(b, dir)
	defer d.close()
	main := filepath.Join(dir, "main.go")
	d.open(b, main)
	params := map[string]any{"textDocument": map[string]string{"uri": fileURL(main)},
		"position": map[string]int{"line": benchLine - 1, "character": benchChar}}
	ctx := context.Background()
	for b.Loop() {
		var items []json.RawMessage
		if err := d.conn.Call(ctx, "textDocument/prepareCallHierarchy", params, &items); err != nil || len(items) == 0 {
			b.Fatalf("prepareCallHierarchy: %v (%d items)", err, len(items))
		}
		var calls json.RawMessage
		if err := d.conn.Call(ctx, "callHierarchy/incomingCalls", map[string]any{"item": items[0]}, &calls); err != nil {
			b.Fatal(err)
		}
	}
}

// The rename rows rename Shout (main.go line 7) back and forth between
// two names. Ours is one lsp_rename, which checks the rename against
// the references and answers with the diagnostics it brought. The peer
// is what an editor does for the same answer: textDocument/rename
// straight to gopls, the edits applied and sent as didChange, and each
// changed file's version-matched publication awaited.
var renameNames = [2]string{"Shout", "ShoutAgain"}

func benchRenameOurs(b *testing.B) {
	s := startOurs(b, lspBenchFixture(b))
	defer s.close()
	id := 1
	rename := func(i int) {
		id++
		line := s.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lsp_rename","arguments":{"file":"main.go","line":%d,"symbol":%q,"new_name":%q}}}`,
			id, benchLine, renameNames[i%2], renameNames[(i+1)%2]), id)
		if strings.Contains(line, `"isError":true`) {
			b.Fatalf("lsp_rename: %s", line)
		}
	}
	rename(0) // starts gopls and waits until it is ready
	i := 0
	for b.Loop() {
		i++
		rename(i)
	}
}

func benchRenameDirect(b *testing.B) {
	dir := lspBenchFixture(b)
	d := startDirect(b, dir)
	defer d.close()
	versions := map[string]int{}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, p := range paths {
		d.open(b, p)
		versions[fileURL(p)] = 1
	}
	main := fileURL(filepath.Join(dir, "main.go"))
	i := 0
	for b.Loop() {
		type textEdit struct {
			Range struct {
				Start, End struct{ Line, Character int }
			}
			NewText string
		}
		var edit struct {
			Changes         map[string][]textEdit
			DocumentChanges []struct {
				TextDocument struct{ URI string }
				Edits        []textEdit
			}
		}
		params := map[string]any{"textDocument": map[string]string{"uri": main},
			"position": map[string]int{"line": benchLine - 1, "character": benchChar}, "newName": renameNames[(i+1)%2]}
		i++
		if err := d.conn.Call(context.Background(), "textDocument/rename", params, &edit); err != nil {
			b.Fatal(err)
		}
		if edit.Changes == nil { // gopls sends documentChanges
			edit.Changes = map[string][]textEdit{}
		}
		for _, dc := range edit.DocumentChanges {
			edit.Changes[dc.TextDocument.URI] = append(edit.Changes[dc.TextDocument.URI], dc.Edits...)
		}
		if len(edit.Changes) == 0 {
			b.Fatal("gopls answered the rename with no edits")
		}
		for uri, edits := range edit.Changes {
			u, _ := url.Parse(uri)
			data, err := os.ReadFile(u.Path)
			if err != nil {
				b.Fatal(err)
			}
			lines := strings.SplitAfter(string(data), "\n")
			offset := func(line, char int) int { // the fixture is ASCII: UTF-16 units are bytes
				n := 0
				for _, l := range lines[:line] {
					n += len(l)
				}
				return n + char
			}
			text := string(data)
			for k := len(edits) - 1; k >= 0; k-- { // gopls sends them in order
				e := edits[k]
				text = text[:offset(e.Range.Start.Line, e.Range.Start.Character)] + e.NewText + text[offset(e.Range.End.Line, e.Range.End.Character):]
			}
			if err := os.WriteFile(u.Path, []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
			versions[uri]++
			d.conn.Notify(context.Background(), "textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": uri, "version": versions[uri]},
				"contentChanges": []any{map[string]string{"text": text}}})
		}
		pending := map[string]bool{} // publications come in any order
		for uri := range edit.Changes {
			pending[uri] = true
		}
		for p := range d.diags {
			if pending[p.URI] && p.Version != nil && *p.Version == versions[p.URI] {
				if delete(pending, p.URI); len(pending) == 0 {
					break
				}
			}
		}
		if len(pending) > 0 {
			b.Fatal("gopls stopped publishing")
		}
	}
}

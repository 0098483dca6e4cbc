package lspdiff

// A minimal LSP client of the test's own: it starts a language server
// through internal/proc, speaks JSON-RPC with Content-Length framing over
// its stdio (reading through internal/frame), answers the few requests a
// server makes of a client, and records what tells that the server has
// settled: its work-done progress and its diagnostics. It shares no code
// with lspbridge, so that the two sides of a comparison are independent.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agent-tools/agent-tools/internal/frame"
	"github.com/agent-tools/agent-tools/internal/proc"
)

// rawServer is one language server driven directly.
type rawServer struct {
	name string
	root string // canonical
	p    *proc.Process
	in   io.WriteCloser
	caps map[string]json.RawMessage
	enc  string // negotiated position encoding: utf-16 or utf-8

	wmu sync.Mutex // one frame at a time on stdin

	mu       sync.Mutex
	nextID   int
	pending  map[int]chan rawReply
	progress map[string]string // active work-done progress: token → title
	begun    []string          // titles of every progress begun
	diags    map[string]int    // URI → publications seen
	changed  chan struct{}     // closed and replaced on every change of the above
	dead     error
	opened   map[string]bool
}

type rawReply struct {
	result json.RawMessage
	err    error
}

type rawMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// startRaw starts argv in root and initializes it with initOpts as
// initializationOptions.
func startRaw(ctx context.Context, name string, argv []string, root string, initOpts json.RawMessage) (*rawServer, error) {
	p, err := proc.Start(proc.Spec{Name: "raw " + name, Path: argv[0], Args: argv[1:], Dir: root, Stdin: true, Stdout: true})
	if err != nil {
		return nil, err
	}
	s := &rawServer{name: name, root: root, p: p, in: p.Stdin(), pending: map[int]chan rawReply{},
		progress: map[string]string{}, diags: map[string]int{}, changed: make(chan struct{}), opened: map[string]bool{}}
	go s.readLoop(p.Stdout())
	params := map[string]any{
		"processId":        os.Getpid(),
		"clientInfo":       map[string]any{"name": "lspdiff"},
		"rootUri":          uriOf(root),
		"rootPath":         root,
		"workspaceFolders": []map[string]string{{"uri": uriOf(root), "name": filepath.Base(root)}},
		"capabilities": map[string]any{
			"general":   map[string]any{"positionEncodings": []string{"utf-16"}},
			"workspace": map[string]any{"configuration": true, "workspaceFolders": true},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{},
				"publishDiagnostics": map[string]any{},
				"definition":         map[string]any{"linkSupport": true},
				"typeDefinition":     map[string]any{"linkSupport": true},
				"implementation":     map[string]any{"linkSupport": true},
				"references":         map[string]any{},
				"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"callHierarchy":      map[string]any{},
			},
			"window": map[string]any{"workDoneProgress": true},
		},
	}
	if len(initOpts) > 0 {
		params["initializationOptions"] = initOpts
	}
	raw, err := s.call(ctx, "initialize", params)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("initialize: %w (stderr: %s)", err, p.StderrTail(10))
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		s.close()
		return nil, fmt.Errorf("initialize answer: %w", err)
	}
	s.caps = res.Capabilities
	s.enc = "utf-16"
	if e, ok := res.Capabilities["positionEncoding"]; ok {
		json.Unmarshal(e, &s.enc)
	}
	return s, s.notify("initialized", struct{}{})
}

// supports says whether the server announced a provider (present, not
// false or null).
func (s *rawServer) supports(provider string) bool {
	v, ok := s.caps[provider]
	if !ok {
		return false
	}
	t := strings.TrimSpace(string(v))
	return t != "false" && t != "null"
}

// deadErr is why the connection ended, or nil.
func (s *rawServer) deadErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead
}

func (s *rawServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.p.Stop(ctx, func(ctx context.Context) error {
		if _, err := s.call(ctx, "shutdown", nil); err != nil {
			return err
		}
		return s.notify("exit", nil)
	})
}

func (s *rawServer) write(msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err = fmt.Fprintf(s.in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

func (s *rawServer) notify(method string, params any) error {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	return s.write(m)
}

// call sends a request and waits for its answer; on ctx's end it sends
// $/cancelRequest.
func (s *rawServer) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	s.mu.Lock()
	if s.dead != nil {
		s.mu.Unlock()
		return nil, s.dead
	}
	s.nextID++
	id := s.nextID
	ch := make(chan rawReply, 1)
	s.pending[id] = ch
	s.mu.Unlock()
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	if err := s.write(m); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r.result, r.err
	case <-ctx.Done():
		s.notify("$/cancelRequest", map[string]int{"id": id})
		return nil, fmt.Errorf("%s %s: %w", s.name, method, ctx.Err())
	}
}

func (s *rawServer) readLoop(out io.Reader) {
	r := bufio.NewReaderSize(out, 1<<16)
	for {
		body, err := frame.Read(r, "lsp", 256<<20)
		if err != nil {
			s.mu.Lock()
			s.dead = fmt.Errorf("%s: connection ended: %v (stderr: %s)", s.name, err, s.p.StderrTail(5))
			for id, ch := range s.pending {
				ch <- rawReply{err: s.dead}
				delete(s.pending, id)
			}
			s.broadcastLocked()
			s.mu.Unlock()
			return
		}
		var m rawMessage
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			go s.answer(m)
		case m.Method != "":
			s.onNotify(m.Method, m.Params)
		default:
			id, err := strconv.Atoi(string(m.ID))
			if err != nil {
				continue
			}
			s.mu.Lock()
			ch := s.pending[id]
			delete(s.pending, id)
			s.mu.Unlock()
			if ch == nil {
				continue
			}
			if m.Error != nil {
				ch <- rawReply{err: fmt.Errorf("%s answered error %d: %s", s.name, m.Error.Code, m.Error.Message)}
			} else {
				ch <- rawReply{result: m.Result}
			}
		}
	}
}

// answer replies to a server's request as a plain editor would.
func (s *rawServer) answer(m rawMessage) {
	reply := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	switch m.Method {
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		json.Unmarshal(m.Params, &p)
		reply["result"] = make([]any, len(p.Items))
	case "workspace/workspaceFolders":
		reply["result"] = []map[string]string{{"uri": uriOf(s.root), "name": filepath.Base(s.root)}}
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability",
		"window/showMessageRequest", "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh",
		"workspace/inlayHint/refresh", "workspace/codeLens/refresh":
		reply["result"] = nil
	default:
		reply["error"] = map[string]any{"code": -32601, "message": "lspdiff does not serve " + m.Method}
	}
	s.write(reply)
}

func (s *rawServer) onNotify(method string, params json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch method {
	case "$/progress":
		var p struct {
			Token json.RawMessage `json:"token"`
			Value struct {
				Kind  string `json:"kind"`
				Title string `json:"title"`
			} `json:"value"`
		}
		if json.Unmarshal(params, &p) != nil {
			return
		}
		tok := string(p.Token)
		switch p.Value.Kind {
		case "begin":
			s.progress[tok] = p.Value.Title
			s.begun = append(s.begun, p.Value.Title)
		case "end":
			delete(s.progress, tok)
		default:
			return
		}
	case "textDocument/publishDiagnostics":
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(params, &p) != nil {
			return
		}
		s.diags[p.URI]++
	default:
		return
	}
	s.broadcastLocked()
}

func (s *rawServer) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// languageIDs maps extensions to LSP language ids.
var languageIDs = map[string]string{".go": "go", ".py": "python", ".ts": "typescript", ".c": "c", ".h": "c"}

// open sends didOpen for path (absolute, under root) once.
func (s *rawServer) open(path string) error {
	s.mu.Lock()
	done := s.opened[path]
	s.opened[path] = true
	s.mu.Unlock()
	if done {
		return nil
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uriOf(path), "languageId": languageIDs[filepath.Ext(path)], "version": 1, "text": string(text)}})
}

// settle waits until the server has published diagnostics for path
// (when needDiags), has
// no work-done progress running and, when index names a progress title
// (clangd's background "indexing"), has begun and ended one with it. It
// reports what it still waited for when ctx ended ("" when settled).
func (s *rawServer) settle(ctx context.Context, path, index string, needDiags bool) string {
	uri := uriOf(path)
	for {
		s.mu.Lock()
		var why []string
		if s.dead != nil {
			why = append(why, s.dead.Error())
		}
		if needDiags && s.diags[uri] == 0 {
			why = append(why, "diagnostics of "+filepath.Base(path))
		}
		for _, t := range s.progress {
			why = append(why, "progress "+strconv.Quote(t))
		}
		if index != "" && !containsFold(s.begun, index) {
			why = append(why, "a progress "+strconv.Quote(index)+" to begin")
		}
		ch := s.changed
		s.mu.Unlock()
		if len(why) == 0 || s.dead != nil {
			return strings.Join(why, ", ")
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return strings.Join(why, ", ")
		}
	}
}

func containsFold(list []string, sub string) bool {
	for _, l := range list {
		if strings.Contains(strings.ToLower(l), strings.ToLower(sub)) {
			return true
		}
	}
	return false
}

// position is an LSP position for the 1-based line and rune column col
// of path, in the server's encoding.
func (s *rawServer) position(lines []string, line, col int) map[string]int {
	src := lines[line-1]
	off := byteOfRune(src, col-1)
	ch := off
	if s.enc != "utf-8" {
		ch = 0
		for _, r := range src[:off] {
			ch += utf16.RuneLen(r)
		}
	}
	return map[string]int{"line": line - 1, "character": ch}
}

// runeCol converts a server character offset on a line to a 1-based rune
// column.
func (s *rawServer) runeCol(src string, char int) int {
	if s.enc == "utf-8" {
		return utf8.RuneCountInString(src[:min(char, len(src))]) + 1
	}
	n, units := 0, 0
	for _, r := range src {
		if units >= char {
			break
		}
		units += utf16.RuneLen(r)
		n++
	}
	return n + 1
}

func byteOfRune(s string, runes int) int {
	for i := range s {
		if runes == 0 {
			return i
		}
		runes--
	}
	return len(s)
}

func uriOf(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

func pathOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return filepath.FromSlash(u.Path)
}

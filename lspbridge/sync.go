// This file holds document sync: what the server was told of each file
// (didOpen, a full-text didChange and didSave, a close and reopen to make
// it check unchanged content again, didClose), and reading it back.

package lspbridge

import (
	"context"
	"fmt"
	"os"
	"time"
)

// syncResult says what sync told the server.
type syncResult struct {
	version int32
	text    string
	changed bool   // opened or changed: fresh diagnostics will follow
	seq     uint64 // publications for the file before the change
	epoch   uint64 // the server's epoch after this sync
}

// sync makes the server's view of path equal to the file on disk: didOpen
// the first time, else a full-text didChange (version+1) and didSave when
// the content differs.
func (s *server) sync(ctx context.Context, path string) (syncResult, error) {
	text, st, err := readStamped(path)
	if err != nil {
		return syncResult{}, fmt.Errorf("reading %s: %w", displayPath(s.root, path), err)
	}
	return s.syncText(ctx, path, text, st, false)
}

// syncText sends text as path's content. With touch, an unchanged text is
// sent again as a new version, so that the server analyses the file anew
// (after a file it depends on changed) and publishes for that version.
func (s *server) syncText(ctx context.Context, path, text string, st stamp, touch bool) (syncResult, error) {
	var res syncResult
	err := s.exclusive(ctx, func() error {
		var how sending
		res, how = s.recordText(path, text, st, touch)
		return s.sendText(how, path, text, res.version)
	})
	if err != nil {
		// fn may still be running (exclusive gave up on ctx, the timeout
		// or the server's exit): res is its to write, not ours to read.
		return syncResult{}, err
	}
	return res, nil
}

// sending is how a sync reaches the server.
type sending int

const (
	sendNothing sending = iota // the server has this text already
	sendOpen                   // didOpen: the first time
	sendReopen                 // didClose and didOpen: the same text, to be analysed anew
	sendChange                 // a full-text didChange, and didSave when the server asks for it
)

// recordText updates, under mu, what the server is told of path, before
// anything is written (see [server.exclusive]), and says how to send it.
func (s *server) recordText(path, text string, st stamp, touch bool) (syncResult, sending) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var seq uint64
	if p := s.diags[path]; p != nil {
		seq = p.seq
	}
	d := s.docs[path]
	if d != nil && d.text == text && !touch {
		d.stamp = st
		s.seen[path] = st // so refresh compares with this stamp, not reading the file again
		return syncResult{version: d.version, text: text, seq: seq, epoch: d.epoch}, sendNothing
	}
	s.epoch++
	if d == nil {
		if s.firstOpen.IsZero() {
			s.firstOpen = time.Now()
		}
		s.docs[path] = &document{version: 1, text: text, stamp: st, sentAt: time.Now(), epoch: s.epoch}
		s.seen[path] = st
		return syncResult{version: 1, text: text, changed: true, seq: seq, epoch: s.epoch}, sendOpen
	}
	// Unchanged content is not rebuilt by every server (clangd skips
	// identical inputs): close and open it again instead. Not for a
	// server without versions: the empty publication that clears a
	// closed file could not be told from the answer. Nor for one that
	// announces its diagnosis passes (gopls): it diagnoses every change,
	// and a close and open would be two passes to wait for, not one.
	how := sendChange
	if touch && d.text == text && !s.unversionedLocked() && s.cfg.DiagnosisProgress == "" {
		how = sendReopen
		s.clearing[path]++
	}
	d.version++
	d.text, d.stamp, d.sentAt, d.epoch = text, st, time.Now(), s.epoch
	s.seen[path] = st
	return syncResult{version: d.version, text: text, changed: true, seq: seq, epoch: s.epoch}, how
}

// sendText writes version v of path's text to the server as how says.
func (s *server) sendText(how sending, path, text string, v int32) error {
	uri := fileURI(path)
	open := func() error {
		return s.notify("textDocument/didOpen", DidOpenParams{TextDocument: TextDocumentItem{
			URI: uri, LanguageID: s.cfg.languageID(path), Version: v, Text: text}})
	}
	var err error
	doing := "syncing %s with %s"
	switch how {
	case sendNothing:
		return nil
	case sendOpen:
		s.seeSiblings(path)
		err, doing = open(), "opening %s in %s"
	case sendReopen:
		err, doing = s.notify("textDocument/didClose", DidCloseParams{TextDocument: TextDocumentIdentifier{URI: uri}}), "reopening %s in %s"
		if err == nil {
			err = open()
		}
	case sendChange:
		err = s.notify("textDocument/didChange", DidChangeParams{
			TextDocument:   VersionedTextDocumentIdentifier{URI: uri, Version: &v},
			ContentChanges: []ContentChange{{Text: text}},
		})
		if err == nil && s.caps.saveSupported() {
			err = s.notify("textDocument/didSave", DidSaveParams{TextDocument: TextDocumentIdentifier{URI: uri}})
		}
	}
	if err != nil {
		return fmt.Errorf(doing+": %w", displayPath(s.root, path), s.cfg.Name, err)
	}
	return nil
}

// closeDoc tells the server a file is gone.
func (s *server) closeDoc(ctx context.Context, path string) error {
	return s.exclusive(ctx, func() error {
		s.mu.Lock()
		_, open := s.docs[path]
		delete(s.docs, path)
		delete(s.seen, path)
		if open {
			s.epoch++
			s.clearing[path]++
		}
		s.mu.Unlock()
		if !open {
			return nil
		}
		return s.notify("textDocument/didClose", DidCloseParams{TextDocument: TextDocumentIdentifier{URI: fileURI(path)}})
	})
}

// textOf returns the text the server has for path, or the file on disk.
func (s *server) textOf(path string) (string, error) {
	s.mu.Lock()
	d := s.docs[path]
	s.mu.Unlock()
	if d != nil {
		return d.text, nil
	}
	data, err := os.ReadFile(path)
	return string(data), err
}

// doc returns a copy of what the server was told about path, or nil.
func (s *server) doc(path string) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.docs[path]; d != nil {
		c := *d
		return &c
	}
	return nil
}

// outdated reports whether other documents were changed after path's
// current version was sent.
func (s *server) outdated(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[path]
	return d != nil && d.epoch < s.epoch
}

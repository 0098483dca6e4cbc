// This file keeps the servers' view of files equal to the disk: before a
// request, every file a server has seen is checked (size and modification
// time; the content when those moved or are too recent to trust) and
// re-sent when it changed.
//
// Why on demand rather than a file watcher: a watcher's events arrive
// asynchronously, so a tool that writes a file and at once asks a
// question races its own event, and the request would still need a check
// to be correct. A check at request time is exact, costs a stat per seen
// file (microseconds; a few hundred files stay well under a millisecond)
// and needs no watch descriptors, which run out on large trees.

package lspbridge

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// stamp is what is cheap to know about a file on disk: its size and
// modification time. Equal stamps are taken to mean equal content only
// when the stamp was taken at least stampTrust after the modification
// time (see [stamp.same]); a different or untrusted stamp leads to reading
// the file and comparing.
type stamp struct {
	size  int64
	mtime time.Time
	// trusted: the modification time was already stampTrust old when the
	// stamp was taken, so a later write cannot share it.
	trusted bool
}

// stampTrust is how old a modification time must be before a stamp with
// it is trusted. A write within the clock's granularity of an earlier one
// (coarse file system timestamps, two writes in the same tick) can leave
// size and mtime unchanged while the content changed; gopls refuses to
// trust mtimes under 2 s old for the same reason.
const stampTrust = 2 * time.Second

func stampOf(fi os.FileInfo) stamp {
	m := fi.ModTime()
	return stamp{size: fi.Size(), mtime: m, trusted: time.Since(m) >= stampTrust}
}

// same reports whether a file now stamped now is known to be unchanged
// since st was taken: equal size and mtime, and st trusted.
func (st stamp) same(now stamp) bool {
	return st.trusted && st.size == now.size && st.mtime.Equal(now.mtime)
}

// readStamped reads a file with its stamp (taken before the read, so a
// write during the read shows as a change next time).
func readStamped(path string) (string, stamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", stamp{}, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", stamp{}, err
	}
	return string(data), stampOf(fi), nil
}

// Bounds on what refresh checks, so that its cost stays a fraction of a
// millisecond: siblings of an open file per directory, and files in all.
const (
	siblingsCap = 100
	seenCap     = 1000
)

// refresh re-syncs, before a request, every file the server has seen
// whose stamp moved since: an open document gets a didChange with the new
// content (didClose when deleted); a file the server named in an answer or
// that lies next to an open one (a Go package's other files, a module's
// neighbours: what the server reads from disk by itself) is opened with
// its current content, so the server's own copy, possibly stale, is no
// longer what it uses. Unchanged content with a new stamp only updates the
// stamp.
func (s *server) refresh(ctx context.Context) error {
	type entry struct {
		path string
		st   stamp
	}
	s.mu.Lock()
	seen := make([]entry, 0, len(s.seen))
	for p, st := range s.seen {
		seen = append(seen, entry{p, st})
	}
	dirs := make(map[string]time.Time, len(s.dirs))
	for d, m := range s.dirs {
		dirs[d] = m
	}
	s.mu.Unlock()
	// A file created next to an open one is new to the server too (it
	// learns of new files only from its client): open it.
	for dir, mtime := range dirs {
		fi, err := os.Stat(dir)
		if err != nil || fi.ModTime().Equal(mtime) {
			continue
		}
		s.mu.Lock()
		s.dirs[dir] = fi.ModTime()
		s.mu.Unlock()
		for _, p := range s.sourcesIn(dir) {
			s.mu.Lock()
			_, known := s.seen[p]
			s.mu.Unlock()
			if !known {
				seen = append(seen, entry{p, stamp{size: -1}})
			}
		}
	}
	for _, e := range seen {
		fi, err := os.Stat(e.path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				if err := s.closeDoc(ctx, e.path); err != nil {
					return err
				}
			}
			continue
		}
		if e.st.same(stampOf(fi)) {
			continue
		}
		text, st, err := readStamped(e.path)
		if err != nil {
			continue
		}
		// An open document gets the new text as a new version; a file
		// never opened is opened with it (what the server read by itself
		// when it saw the file is unknown; its open copy wins from now on).
		if _, err := s.syncText(ctx, e.path, text, st, false); err != nil {
			return err
		}
	}
	return nil
}

// see records files the server named or will read, with their current
// stamps, for refresh. Files already recorded keep their stamp.
func (s *server) see(paths ...string) {
	var add []entryStamp
	for _, p := range paths {
		s.mu.Lock()
		_, known := s.seen[p]
		full := len(s.seen) >= seenCap
		s.mu.Unlock()
		if known || full || s.cfg.languageID(p) == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			// The server read this file itself; there is no content of
			// ours to compare with, so the stamp is all there is to go
			// on, however recent (re-reading would open every file a
			// server ever named).
			st := stampOf(fi)
			st.trusted = true
			add = append(add, entryStamp{p, st})
		}
	}
	s.mu.Lock()
	for _, e := range add {
		if _, known := s.seen[e.path]; !known && len(s.seen) < seenCap {
			s.seen[e.path] = e.st
		}
	}
	s.mu.Unlock()
}

type entryStamp struct {
	path string
	st   stamp
}

// seeSiblings records the source files next to path (same directory, same
// server), up to siblingsCap, and the directory itself, whose
// modification time tells when a file is added.
func (s *server) seeSiblings(path string) {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return
	}
	s.mu.Lock()
	_, known := s.dirs[dir]
	if !known {
		s.dirs[dir] = fi.ModTime()
	}
	s.mu.Unlock()
	if !known {
		s.see(s.sourcesIn(dir)...)
	}
}

// sourcesIn lists the files of dir this server handles, up to siblingsCap.
func (s *server) sourcesIn(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var paths []string
	for _, e := range ents {
		if len(paths) == siblingsCap {
			break
		}
		if !e.IsDir() && s.cfg.languageID(e.Name()) != "" {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	return paths
}

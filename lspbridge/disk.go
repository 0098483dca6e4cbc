// This file keeps the servers' view of files equal to the disk: before a
// request, every file a server has seen is checked (size and modification
// time; the content only when those moved) and re-sent when it changed.
//
// Why on demand rather than a file watcher: a watcher's events arrive
// asynchronously, so a tool that writes a file and at once asks a
// question races its own event, and the request would still need a check
// to be correct. A check at request time is exact, costs a stat per seen
// file (microseconds; a few hundred files stay well under a millisecond)
// and needs no watch descriptors, which run out on large trees.

package lspbridge

import (
	"os"
	"time"
)

// stamp is what is cheap to know about a file on disk: its size and
// modification time. Equal stamps are taken to mean equal content; a
// different stamp leads to reading the file and comparing.
type stamp struct {
	size  int64
	mtime time.Time
}

func stampOf(fi os.FileInfo) stamp { return stamp{size: fi.Size(), mtime: fi.ModTime()} }

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

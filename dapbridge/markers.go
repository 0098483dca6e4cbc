// This file defines the search for root markers under the root, for the
// adapters op: in a repository whose projects live in subfolders
// (py/pyproject.toml, go/go.mod) the adapters are usable even though the
// root itself holds no marker.

package dapbridge

import (
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/agent-tools/agent-tools/internal/workspace"
)

// Bounds of the marker search: how deep and how many directories.
const (
	maxMarkerDepth  = 6
	maxMarkerDirs   = 5000
	maxMarkersShown = 5
)

// markerScan is what the search found: per adapter id, the markers'
// paths relative to the root (shallowest first), and whether it stopped
// at its bound.
type markerScan struct {
	found   map[string][]string
	stopped bool
}

// scanMarkers walks root (bounded) with the workspace walk, which skips
// what .gitignore ignores, hidden entries and node_modules, and collects
// every adapter's markers.
func scanMarkers(root string) markerScan {
	byName := map[string][]string{} // marker file name → adapter ids
	for _, a := range adapterDefs {
		for _, m := range a.markers {
			byName[m] = append(byName[m], a.id)
		}
	}
	sc := markerScan{found: map[string][]string{}}
	dirs := 0
	workspace.Walk(root, root, func(_, rel string, d fs.DirEntry) error {
		if d.IsDir() {
			if strings.Count(rel, "/")+1 >= maxMarkerDepth {
				return fs.SkipDir
			}
			if dirs++; dirs > maxMarkerDirs {
				sc.stopped = true
				return fs.SkipAll
			}
			return nil
		}
		for _, id := range byName[path.Base(rel)] {
			sc.found[id] = append(sc.found[id], rel)
		}
		return nil
	})
	for _, paths := range sc.found {
		slices.SortStableFunc(paths, func(a, b string) int {
			return strings.Count(a, "/") - strings.Count(b, "/")
		})
	}
	return sc
}

// This file defines the search for root markers under the root, for the
// adapters op: in a repository whose projects live in subfolders
// (py/pyproject.toml, go/go.mod) the adapters are usable even though the
// root itself holds no marker.

package dapbridge

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// WalkFunc walks the tree under root as the workspace walk does (honouring
// .gitignore); see patterns.WalkTree, which cmd/agent-tools passes in.
// visit returns fs.SkipDir or fs.SkipAll as with filepath.WalkDir.
type WalkFunc func(root string, visit func(rel string, isDir bool) error) error

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

// scanMarkers walks root (bounded) and collects every adapter's markers.
func scanMarkers(root string, walk WalkFunc) markerScan {
	if walk == nil {
		walk = plainWalk
	}
	byName := map[string][]string{} // marker file name → adapter ids
	for _, a := range adapterDefs {
		for _, m := range a.markers {
			byName[m] = append(byName[m], a.id)
		}
	}
	sc := markerScan{found: map[string][]string{}}
	dirs := 0
	walk(root, func(rel string, isDir bool) error {
		if isDir {
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

// plainWalk is the walk without .gitignore, for a supervisor made without
// one (tests): hidden directories, node_modules and symlinks skipped.
func plainWalk(root string, visit func(rel string, isDir bool) error) error {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if strings.HasPrefix(name, ".") || d.Type()&os.ModeSymlink != 0 {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if name == "node_modules" {
				return fs.SkipDir
			}
			return visit(rel, true)
		}
		if d.Type().IsRegular() {
			return visit(rel, false)
		}
		return nil
	})
	if err == fs.SkipAll {
		return nil
	}
	return err
}

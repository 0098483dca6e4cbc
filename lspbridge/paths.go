// This file defines path handling: confining the agent's paths to the run's
// root, finding a file's server root by its markers, and URIs.

package lspbridge

import (
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agent-tools/agent-tools/internal/workspace"
)

// resolvePath turns an agent's path (relative to root, or absolute inside
// it) into a canonical absolute path, through workspace.Resolve: paths
// that resolve outside the root, through ".." or a symlink, are refused.
// The file need not exist. (Files a server itself pointed to are read
// without this check, read-only; see DESIGN.md's Paths rule.)
func resolvePath(root, p string) (string, error) {
	if p == "" {
		return "", errors.New("argument 'file': a path is required")
	}
	abs, _, err := workspace.Resolve(root, p)
	return abs, err
}

// displayPath is path relative to root when inside it, else absolute.
func displayPath(root, path string) string {
	root = canonical(root)
	if rel, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return path
}

// findRoot returns the server root for file: the nearest ancestor (up to
// and including root) holding a preferred marker, else one holding any
// marker; "" when there is none.
func findRoot(cfg *ServerConfig, root, file string) string {
	for _, group := range [][]string{cfg.PreferredMarkers, cfg.Markers} {
		if len(group) == 0 {
			continue
		}
		for dir := filepath.Dir(file); workspace.Within(root, dir); dir = filepath.Dir(dir) {
			for _, m := range group {
				if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
					return dir
				}
			}
			if dir == root || dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return ""
}

// skipDirs are never searched for markers or source files.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true, ".venv": true, "venv": true,
	"__pycache__": true, "target": true, "build": true, "dist": true, ".dart_tool": true}

// walkLimit bounds how many directories a marker or file search visits.
const walkLimit = 5000

// markerDirs lists the directories under root that hold one of cfg's
// markers (a root directory nested in another root is listed too).
func markerDirs(cfg *ServerConfig, root string) []string {
	markers := cfg.allMarkers()
	var dirs []string
	seen := 0
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if path != root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if seen++; seen > walkLimit {
			return filepath.SkipAll
		}
		for _, m := range markers {
			if _, err := os.Stat(filepath.Join(path, m)); err == nil {
				dirs = append(dirs, path)
				break
			}
		}
		return nil
	})
	return dirs
}

// markerDirsOf is markerDirs for several servers in one walk that reads
// each directory once (no stat per marker and directory): a status or a
// workspace search in a large tree costs one walk, not one per server.
func markerDirsOf(cfgs []*ServerConfig, root string) map[*ServerConfig][]string {
	byName := map[string][]*ServerConfig{}
	for _, c := range cfgs {
		for _, m := range c.allMarkers() {
			byName[m] = append(byName[m], c)
		}
	}
	out := map[*ServerConfig][]string{}
	seen := 0
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if path != root {
			dir := filepath.Dir(path)
			for _, c := range byName[d.Name()] {
				if l := out[c]; len(l) == 0 || l[len(l)-1] != dir {
					out[c] = append(out[c], dir)
				}
			}
		}
		if !d.IsDir() {
			return nil
		}
		if path != root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if seen++; seen > walkLimit {
			return filepath.SkipAll
		}
		return nil
	})
	return out
}

// sourceFiles lists files under dir that cfg handles, at most limit.
func sourceFiles(cfg *ServerConfig, dir string, limit int) []string {
	var files []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if path != dir && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if cfg.languageID(path) != "" {
			files = append(files, path)
			if len(files) >= limit {
				return filepath.SkipAll
			}
		}
		return nil
	})
	return files
}

// fileURI is the file: URI of an absolute path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// uriPath is the canonical path of a file: URI (percent-decoded, so
// "file:///c%3A/x" and "file:///c:/x" agree), or the URI itself when it is
// not a file URI.
func uriPath(uri string) string {
	if p, ok := uriPaths.Load(uri); ok {
		return p.(string)
	}
	p := parseURIPath(uri)
	if uriPathsLen.Add(1) > uriPathsMax { // bound the cache; it only saves syscalls
		uriPaths.Clear()
		uriPathsLen.Store(0)
	}
	uriPaths.Store(uri, p)
	return p
}

// uriPaths caches uriPath: resolving symlinks costs a few syscalls per
// path component, for each of up to hundreds of locations in an answer.
var (
	uriPaths    sync.Map // URI → canonical path
	uriPathsLen atomic.Int64
)

const uriPathsMax = 20000

func parseURIPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	p := filepath.FromSlash(u.Path)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// walkSources walks the server's root for the files it handles (those of
// its languages), passing over the directories no search enters (skipDirs
// and hidden ones), and calls visit for each; visit's filepath.SkipAll
// ends the walk. The dependents search and lsp_rename's word search read
// the root so.
func (s *server) walkSources(visit func(path string, d fs.DirEntry) error) {
	filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir():
			if p != s.root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		case s.cfg.languageID(p) == "":
			return nil
		}
		return visit(p, d)
	})
}

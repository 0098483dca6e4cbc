// This file defines the workspace walk: what every tool that scans the
// tree (ast_grep's files, the debug tool's root markers) skips.

package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Walk visits the directories and regular files under dir, a directory
// inside root, that the workspace walk keeps: hidden entries, symlinks,
// node_modules and whatever the .gitignore files from root down to each
// directory ignore are skipped (an ignored directory is not entered, so
// nothing below it can be re-included, as in git). Entries come in name
// order, depth first. abs is the entry's path and rel its path relative to
// root, slash-separated. visit may return fs.SkipDir (for a directory: do
// not enter it) or fs.SkipAll (stop; Walk returns nil); any other error
// stops the walk and is returned. Unreadable directories are skipped.
func Walk(root, dir string, visit func(abs, rel string, d fs.DirEntry) error) error {
	return WalkReporting(root, dir, visit, nil)
}

// WalkReporting is Walk that also tells skippedDeps (when not nil) the
// root-relative path of every node_modules directory it leaves out, so
// that a search can say what it did not look at. Hidden and ignored
// entries are left out silently, as git leaves them out.
func WalkReporting(root, dir string, visit func(abs, rel string, d fs.DirEntry) error, skippedDeps func(rel string)) error {
	rel, err := filepath.Rel(root, dir)
	if err != nil || !(rel == "." || filepath.IsLocal(rel)) {
		return &fs.PathError{Op: "walk", Path: dir, Err: fs.ErrInvalid}
	}
	rel = filepath.ToSlash(rel)
	var ig ignores
	if rel == "." {
		rel = ""
	} else {
		// The rules of dir's ancestors, root first.
		ig = ig.withFile(root, "")
		parts := strings.Split(rel, "/")
		for i := 1; i < len(parts); i++ {
			r := strings.Join(parts[:i], "/")
			ig = ig.withFile(filepath.Join(root, filepath.FromSlash(r)), r)
		}
	}
	err = walkDir(dir, rel, ig, visit, skippedDeps)
	if err == fs.SkipAll {
		return nil
	}
	return err
}

func walkDir(abs, rel string, ig ignores, visit func(abs, rel string, d fs.DirEntry) error, skippedDeps func(string)) error {
	ig = ig.withFile(abs, rel)
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || e.Type()&os.ModeSymlink != 0 {
			continue
		}
		r := name
		if rel != "" {
			r = rel + "/" + name
		}
		a := filepath.Join(abs, name)
		switch {
		case e.IsDir():
			if ig.ignored(r, true) {
				continue
			}
			if name == "node_modules" {
				if skippedDeps != nil {
					skippedDeps(r)
				}
				continue
			}
			switch err := visit(a, r, e); err {
			case nil:
				if err := walkDir(a, r, ig, visit, skippedDeps); err != nil {
					return err
				}
			case fs.SkipDir:
			default:
				return err
			}
		case e.Type().IsRegular():
			if ig.ignored(r, false) {
				continue
			}
			if err := visit(a, r, e); err != nil && err != fs.SkipDir {
				return err
			}
		}
	}
	return nil
}

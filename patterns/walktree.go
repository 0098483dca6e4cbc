// This file exports the workspace walk's rules (hidden entries, symlinks,
// node_modules and whatever .gitignore files ignore are skipped) for
// packages that walk a tree for other reasons, such as the debug tool's
// search for root markers. Domain packages do not import each other, so
// cmd/agent-tools passes WalkTree to them.

package patterns

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WalkTree calls visit for each directory and regular file under root
// that the ast_grep walk would visit, in name order, depth first; rel is
// slash-separated and relative to root. visit returns fs.SkipDir (for a
// directory: do not enter it) or fs.SkipAll (stop the walk, WalkTree
// returns nil); any other error stops the walk and is returned.
func WalkTree(root string, visit func(rel string, isDir bool) error) error {
	err := walkTree(root, "", nil, visit)
	if err == fs.SkipAll {
		return nil
	}
	return err
}

func walkTree(abs, rel string, ig ignores, visit func(string, bool) error) error {
	ig = ig.withFile(abs, rel)
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil // unreadable: skipped, as the ast_grep walk does
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
		switch {
		case e.IsDir():
			if name == "node_modules" || ig.ignored(r, true) {
				continue
			}
			switch err := visit(r, true); err {
			case nil:
				if err := walkTree(filepath.Join(abs, name), r, ig, visit); err != nil {
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
			if err := visit(r, false); err != nil && err != fs.SkipDir {
				return err
			}
		}
	}
	return nil
}

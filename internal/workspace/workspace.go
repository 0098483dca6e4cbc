// Package workspace confines the paths an agent gives to the run's root.
// It is the one security boundary every tool goes through: a path is
// resolved the way the kernel would open it (symlinks followed, ".."
// taken after the link it follows), and the result must lie inside the
// root's real path. Paths that do not exist yet (a file about to be
// created) are resolved as far as they exist.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks bounds the symlinks followed while resolving one path, as the
// kernel's ELOOP does.
const maxLinks = 40

// ErrOutside is wrapped by every refusal of a path outside the root.
var ErrOutside = errors.New("outside the workspace root")

// Resolve turns userPath — relative to root, or absolute — into the real
// absolute path it names and that path relative to the real root
// (slash-separated, "." for the root itself). It refuses a path that
// leads outside the root: through "..", as an absolute path elsewhere, or
// through a symlink (to a file or a directory, dangling or not). The path
// need not exist; its existing part is resolved and the rest is taken as
// written. An empty userPath is an error; pass "." for the root.
func Resolve(root, userPath string) (abs, rel string, err error) {
	if userPath == "" {
		return "", "", errors.New("a path is required (\".\" for the workspace root)")
	}
	if strings.IndexByte(userPath, 0) >= 0 {
		return "", "", fmt.Errorf("path %q contains a NUL byte", userPath)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", "", fmt.Errorf("resolving the workspace root %s: %w", root, err)
	}
	realRoot, err = filepath.Abs(realRoot)
	if err != nil {
		return "", "", err
	}
	start := userPath
	if !filepath.IsAbs(start) {
		start = root + string(filepath.Separator) + start
	}
	real, viaLink, err := realPath(start)
	if err != nil {
		return "", "", fmt.Errorf("resolving path %q: %w", userPath, err)
	}
	r, err := filepath.Rel(realRoot, real)
	if err != nil || !(r == "." || filepath.IsLocal(r)) {
		how := ""
		if viaLink {
			how = " through a symlink"
		}
		return "", "", fmt.Errorf("path %q leads %w%s (%s): give a path inside it", userPath, ErrOutside, how, root)
	}
	return real, filepath.ToSlash(r), nil
}

// Within reports whether path (absolute, already resolved) is root or
// inside it; root must be resolved too.
func Within(root, path string) bool {
	r, err := filepath.Rel(root, path)
	return err == nil && (r == "." || filepath.IsLocal(r))
}

// realPath resolves p (absolute, not cleaned) component by component,
// following symlinks and applying ".." to what a link resolved to. Once a
// component does not exist, the components after it are appended as
// written (nothing below a missing directory can be a link) until a ".."
// climbs back to where paths exist. viaLink reports whether a symlink was followed.
func realPath(p string) (real string, viaLink bool, err error) {
	pending := splitPath(p)
	resolved := string(filepath.Separator)
	missing := false
	links := 0
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			missing = false // look again: this may exist
			continue
		}
		next := filepath.Join(resolved, c)
		if missing {
			resolved = next
			continue
		}
		info, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = true
			resolved = next
			continue
		case err != nil:
			return "", viaLink, err
		case info.Mode()&fs.ModeSymlink == 0:
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", true, fmt.Errorf("more than %d symlinks", maxLinks)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", true, err
		}
		viaLink = true
		if filepath.IsAbs(target) {
			resolved = string(filepath.Separator)
		}
		pending = append(splitPath(target), pending...)
	}
	return resolved, viaLink, nil
}

func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(filepath.ToSlash(p), "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// This file reads .gitignore files for the workspace walk, with git's
// rules (gitignore(5)): comments, ! negation, \ escapes (including an
// escaped trailing space), directory-only rules with a trailing /,
// anchoring by a / anywhere but the end, and git's wildmatch globs — *, ?
// and * never cross a /, [..] classes with ranges, ! or ^ negation and
// POSIX names such as [[:digit:]], and ** as a whole path segment. Later
// rules win, deeper files after shallower ones, as in git. The walk does
// not descend into an ignored directory, so nothing below one can be
// re-included, again as in git. TestIgnoresMatchGit holds all of it to
// `git check-ignore`.

package workspace

import (
	"bytes"
	"os"
	"strings"
)

type ignoreRule struct {
	base     string // directory of the .gitignore, slash-separated, relative to the root ("" at the root)
	pattern  string // the glob, escapes kept, leading / and trailing / removed
	negate   bool
	dirOnly  bool
	basename bool // no / in the pattern: it matches the last path element at any depth
}

// ignores is the rules in effect for one directory (its ancestors' too).
type ignores []ignoreRule

// withFile returns the rules extended with dir/.gitignore, if it exists.
func (ig ignores) withFile(absDir, relDir string) ignores {
	data, err := os.ReadFile(absDir + "/.gitignore")
	if err != nil {
		return ig
	}
	out := ig[:len(ig):len(ig)]
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // git skips a UTF-8 BOM
	for _, line := range strings.Split(string(data), "\n") {
		if r, ok := parseIgnoreLine(line); ok {
			r.base = relDir
			out = append(out, r)
		}
	}
	return out
}

// parseIgnoreLine reads one line of a .gitignore; ok is false for blank
// lines, comments and lines that are left with no pattern.
func parseIgnoreLine(line string) (r ignoreRule, ok bool) {
	line = trimTrailingSpaces(strings.TrimSuffix(line, "\r"))
	if line == "" || line[0] == '#' {
		return r, false
	}
	if line[0] == '!' {
		r.negate, line = true, line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly, line = true, line[:len(line)-1]
	}
	r.basename = !strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	if line == "" {
		return r, false
	}
	r.pattern = line
	return r, true
}

// trimTrailingSpaces drops trailing spaces that no backslash escapes, as
// git does (only spaces: a tab stays part of the pattern). A CR ending
// the line was dropped before, as git reads CRLF files.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		// Count the backslashes before this space: an odd run escapes it.
		n := 0
		for i := end - 2; i >= 0 && s[i] == '\\'; i-- {
			n++
		}
		if n%2 == 1 {
			break
		}
		end--
	}
	return s[:end]
}

// ignored reports whether rel (slash-separated, relative to the root) is
// ignored by the rules themselves; ancestors are the walk's business.
func (ig ignores) ignored(rel string, isDir bool) bool {
	ignored := false
	for _, r := range ig {
		if r.dirOnly && !isDir {
			continue
		}
		p := rel
		if r.base != "" {
			if !strings.HasPrefix(rel, r.base+"/") {
				continue
			}
			p = rel[len(r.base)+1:]
		}
		if r.basename {
			p = p[strings.LastIndexByte(p, '/')+1:]
		}
		if wildmatch(r.pattern, p) == matched {
			ignored = !r.negate
		}
	}
	return ignored
}

// A wildmatch outcome. abortAll ends the whole match: a * cannot help
// once the text ran out, and a malformed class matches nothing at all.
type wmResult int

const (
	matched wmResult = iota
	noMatch
	abortAll
	abortToStarStar // a single * cannot cross the / that the rest needs
)

// wildmatch matches a gitignore glob against a slash-separated path the way
// git's wildmatch does with WM_PATHNAME: *, ? and classes never match a /,
// and ** matches any number of whole segments when it stands alone between
// slashes (or at either end); any other ** is a plain *.
func wildmatch(p, s string) wmResult { return wmatch(p, s, true) }

// wmatch is wildmatch where segStart says whether p begins a path segment
// of the whole pattern (at its start, or right after a /).
func wmatch(p, s string, segStart bool) wmResult {
	for len(p) > 0 {
		c := p[0]
		if len(s) == 0 && c != '*' {
			return abortAll // only a * can match an empty rest
		}
		switch c {
		case '\\':
			if len(p) == 1 || s[0] != p[1] {
				return noMatch // a lone trailing backslash matches nothing
			}
			p, s = p[2:], s[1:]
		case '?':
			if s[0] == '/' {
				return noMatch
			}
			p, s = p[1:], s[1:]
		case '[':
			ok, n := matchClass(p, s[0])
			if n < 0 {
				return abortAll
			}
			if !ok || s[0] == '/' {
				return noMatch
			}
			p, s = p[n:], s[1:]
		case '*':
			return matchStar(p, s, segStart)
		default:
			if s[0] != c {
				return noMatch
			}
			p, s = p[1:], s[1:]
		}
		segStart = c == '/'
	}
	if len(s) == 0 {
		return matched
	}
	return noMatch
}

// matchStar matches p, which starts with one or more *, against s.
func matchStar(p, s string, segStart bool) wmResult {
	n := 0
	for n < len(p) && p[n] == '*' {
		n++
	}
	rest := p[n:]
	if n >= 2 && segStart && (rest == "" || rest[0] == '/') {
		if rest == "" {
			return matched // a trailing /** (or a lone **): everything below
		}
		// **/ matches zero or more whole directories.
		for t := s; ; {
			switch wmatch(rest[1:], t, true) {
			case matched:
				return matched
			case abortAll:
				return abortAll
			}
			i := strings.IndexByte(t, '/')
			if i < 0 {
				return noMatch
			}
			t = t[i+1:]
		}
	}
	// A plain *: any run of bytes up to the next /.
	if rest == "" {
		if strings.IndexByte(s, '/') >= 0 {
			return abortToStarStar
		}
		return matched
	}
	for i := 0; ; i++ {
		if r := wmatch(rest, s[i:], false); r != noMatch {
			return r
		}
		if i >= len(s) {
			return abortAll
		}
		if s[i] == '/' {
			return abortToStarStar
		}
	}
}

// matchClass matches one byte against the class at the start of p ("[...]")
// and returns how many pattern bytes the class used, or -1 when the class is
// malformed (unterminated, or an unknown [:name:]).
func matchClass(p string, b byte) (bool, int) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate, i = true, i+1
	}
	found := false
	prev := -1 // the previous single byte, for a range
	for first := true; ; first = false {
		if i >= len(p) {
			return false, -1
		}
		if p[i] == ']' && !first {
			return found != negate, i + 1
		}
		in, next, single, ok := classItem(p, i, b, prev)
		if !ok {
			return false, -1
		}
		found = found || in
		i, prev = next, single
	}
}

// classItem matches b against the class item at p[i]: an escaped byte, a
// range from the single byte before it (prev; -1 when there is none), a
// [:name:] class, or a plain byte. It returns whether b is in the item,
// where the next item starts, the item's byte when it is a single byte
// (-1 otherwise), and false when the item is malformed.
func classItem(p string, i int, b byte, prev int) (in bool, next, single int, ok bool) {
	c := p[i]
	switch {
	case c == '\\':
		if i+1 >= len(p) {
			return false, 0, 0, false
		}
		c = p[i+1]
		return c == b, i + 2, int(c), true
	case c == '-' && prev >= 0 && i+1 < len(p) && p[i+1] != ']':
		hi, next := p[i+1], i+2
		if hi == '\\' {
			if next >= len(p) {
				return false, 0, 0, false
			}
			hi, next = p[next], next+1
		}
		return byte(prev) <= b && b <= hi, next, -1, true
	case c == '[' && i+1 < len(p) && p[i+1] == ':':
		end := strings.Index(p[i+2:], ":]")
		if end < 0 {
			return c == b, i + 1, int(c), true // not a POSIX class after all: a literal [
		}
		in, known := posixClass(p[i+2:i+2+end], b)
		return in, i + 2 + end + 2, -1, known
	}
	return c == b, i + 1, int(c), true
}

// posixClass reports whether b is in the named POSIX class, and whether
// the name is one git knows.
func posixClass(name string, b byte) (in, known bool) {
	isUpper := 'A' <= b && b <= 'Z'
	isLower := 'a' <= b && b <= 'z'
	isDigit := '0' <= b && b <= '9'
	switch name {
	case "alnum":
		return isUpper || isLower || isDigit, true
	case "alpha":
		return isUpper || isLower, true
	case "blank":
		return b == ' ' || b == '\t', true
	case "cntrl":
		return b < 0x20 || b == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return 0x21 <= b && b <= 0x7e, true
	case "lower":
		return isLower, true
	case "print":
		return 0x20 <= b && b <= 0x7e, true
	case "punct":
		return 0x21 <= b && b <= 0x7e && !isUpper && !isLower && !isDigit, true
	case "space":
		return b == ' ' || ('\t' <= b && b <= '\r'), true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || ('a' <= b && b <= 'f') || ('A' <= b && b <= 'F'), true
	}
	return false, false
}

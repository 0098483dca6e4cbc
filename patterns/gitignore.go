// This file reads .gitignore files for the workspace walk: globs with *,
// ?, [..] and **, negation with !, directory-only rules with a trailing /,
// and anchoring by a / anywhere but the end. Later rules win, deeper files
// after shallower ones, as in git.

package patterns

import (
	"bufio"
	"bytes"
	"os"
	"regexp"
	"strings"
)

type ignoreRule struct {
	base    string // directory of the .gitignore, slash-separated, relative to the root ("" at the root)
	re      *regexp.Regexp
	negate  bool
	dirOnly bool
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
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{base: relDir}
		if strings.HasPrefix(line, "!") {
			r.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		anchored := strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		if line == "" {
			continue
		}
		expr := globRegexp(line)
		if anchored {
			expr = "^" + expr + "$"
		} else {
			expr = "(^|/)" + expr + "$"
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			continue
		}
		r.re = re
		out = append(out, r)
	}
	return out
}

// ignored reports whether rel (slash-separated, relative to the root) is
// ignored.
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
		if r.re.MatchString(p) {
			ignored = !r.negate
		}
	}
	return ignored
}

func globRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case strings.HasPrefix(g[i:], "**/"):
			b.WriteString("(.*/)?")
			i += 2
		case strings.HasPrefix(g[i:], "/**"):
			b.WriteString("(/.*)?")
			i += 2
		case strings.HasPrefix(g[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(g[i:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : i+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// This file defines Diff: where two message streams differ, as JSON paths
// with both values.

package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Diff compares expected and actual server messages as JSON values and
// returns one line per difference, "message N: PATH: want W, got G", or ""
// when they are equal. PATH is a JSON path into message N (1-based), such
// as result.tools[3].inputSchema.properties.path.description; W and G are
// the two values as compact JSON, or "nothing" where one side lacks the
// member, element or message. Member order, spacing and number spelling (1
// vs 1.0) do not count. A message that is not valid JSON is compared as a
// string.
func Diff(want, got []json.RawMessage) string {
	var d differ
	for i := range max(len(want), len(got)) {
		prefix := fmt.Sprintf("message %d", i+1)
		switch {
		case i >= len(got):
			d.add(prefix, "", diffValue(want[i]), nothing{})
		case i >= len(want):
			d.add(prefix, "", nothing{}, diffValue(got[i]))
		default:
			d.compare(prefix, "", diffValue(want[i]), diffValue(got[i]))
		}
	}
	return strings.Join(d.lines, "\n")
}

// maxDiffLines bounds Diff's report: a wholly different stream would
// otherwise print every leaf.
const maxDiffLines = 40

// maxValueLen bounds each value shown; longer ones are cut with "…".
const maxValueLen = 400

type nothing struct{}

type differ struct {
	lines   []string
	omitted int
}

func diffValue(m json.RawMessage) any {
	var v any
	if err := json.Unmarshal(m, &v); err != nil {
		return string(m)
	}
	return v
}

func (d *differ) compare(prefix, path string, want, got any) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		keys := slices.Sorted(maps.Keys(w))
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			wv, inW := w[k]
			gv, inG := g[k]
			p := path + member(k)
			switch {
			case !inW:
				d.add(prefix, p, nothing{}, gv)
			case !inG:
				d.add(prefix, p, wv, nothing{})
			default:
				d.compare(prefix, p, wv, gv)
			}
		}
		return
	case []any:
		g, ok := got.([]any)
		if !ok {
			break
		}
		for i := range max(len(w), len(g)) {
			p := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case i >= len(g):
				d.add(prefix, p, w[i], nothing{})
			case i >= len(w):
				d.add(prefix, p, nothing{}, g[i])
			default:
				d.compare(prefix, p, w[i], g[i])
			}
		}
		return
	default:
		if equalScalar(want, got) {
			return
		}
	}
	d.add(prefix, path, want, got)
}

func equalScalar(a, b any) bool {
	switch a.(type) {
	case map[string]any, []any:
		return false
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	return a == b
}

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// member is the path step for an object member: .name, or ["odd name"].
func member(k string) string {
	if identifier.MatchString(k) {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}

func (d *differ) add(prefix, path string, want, got any) {
	if len(d.lines) >= maxDiffLines {
		d.omitted++
		d.lines[maxDiffLines-1] = fmt.Sprintf("… and %d more differences", d.omitted+1)
		return
	}
	where := prefix
	if path != "" {
		where += ": " + strings.TrimPrefix(path, ".")
	}
	d.lines = append(d.lines, fmt.Sprintf("%s: want %s, got %s", where, show(want), show(got)))
}

func show(v any) string {
	if _, ok := v.(nothing); ok {
		return "nothing"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > maxValueLen {
		cut := maxValueLen
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut-- // do not cut inside a UTF-8 sequence
		}
		s = s[:cut] + "…"
	}
	return s
}

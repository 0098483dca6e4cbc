// This file defines the normalisation of server messages: the values that
// vary between runs, replaced by stable placeholders.

package conformance

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Placeholders written in place of values that vary between runs.
const (
	// Workdir stands for the workspace directory, in client lines (replaced
	// by the directory before sending) and in server messages (replacing it).
	Workdir = "$WORKDIR"
	// Version stands for result.serverInfo.version, and for the version
	// of result._meta["io.modelcontextprotocol/serverInfo"] (MCP
	// 2026-07-28's server/discover).
	Version = "$VERSION"
	// Time stands for a task's createdAt and lastUpdatedAt (MCP
	// 2026-07-28's Tasks extension).
	Time = "$TIME"
	// RequestState stands for result.requestState (MCP 2026-07-28's
	// multi round-trip requests): signed with a key drawn at each start,
	// it differs every run. In a client line it is replaced by the last
	// one the server sent, so a transcript can retry a call.
	RequestState = "$REQUEST_STATE"
)

// volatileNumberKeys names the object members whose numeric values vary
// between runs. Normalize sets them to 0 wherever they occur.
var volatileNumberKeys = map[string]bool{
	"pid":        true,
	"durationMs": true,
	"elapsedMs":  true,
}

// volatileTimeKeys names the object members whose string values are
// timestamps. Normalize sets them to "$TIME" ([Time]) wherever they occur.
var volatileTimeKeys = map[string]bool{
	"createdAt":     true,
	"lastUpdatedAt": true,
}

// Normalize returns a server message with the values that vary between runs
// replaced, compacted and with its members in their original order. The
// built-in rules, the only place they are listed:
//
//  1. in every string, object keys included, the workspace dir (and its
//     filepath.EvalSymlinks form) becomes "$WORKDIR" ([Workdir]); a match
//     must end at the end of the string or before a byte that cannot
//     continue a file name, so /tmp/x1 does not match in /tmp/x10;
//  2. a string at result.serverInfo.version (or at the version of
//     result._meta["io.modelcontextprotocol/serverInfo"]) becomes
//     "$VERSION" ([Version]), and a string at result.requestState becomes
//     "$REQUEST_STATE" ([RequestState]);
//  3. a member named "pid", "durationMs" or "elapsedMs" whose value is a
//     number becomes 0, and one named "createdAt" or "lastUpdatedAt" whose
//     value is a string becomes "$TIME" ([Time]), at any depth.
//
// Then extra, if not nil, is called on the message if it is an object.
// Numbers reach extra as json.Number. Members extra adds are written after
// the original ones, in sorted order.
func Normalize(msg json.RawMessage, dir string, extra func(map[string]any)) (json.RawMessage, error) {
	return newNormalizer(dir, extra).normalize(msg)
}

type normalizer struct {
	dirs  []string // workspace dir forms, longest first
	extra func(map[string]any)
}

func newNormalizer(dir string, extra func(map[string]any)) *normalizer {
	n := &normalizer{extra: extra}
	if dir == "" {
		return n
	}
	n.dirs = append(n.dirs, dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		n.dirs = append(n.dirs, real)
	}
	slices.SortFunc(n.dirs, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return n
}

func (n *normalizer) normalize(msg json.RawMessage) (json.RawMessage, error) {
	v, err := decode(msg)
	if err != nil {
		return nil, err
	}
	v = n.walk(v)
	if m, ok := v.(map[string]any); ok {
		if res, ok := m["result"].(map[string]any); ok {
			info, _ := res["serverInfo"].(map[string]any)
			if meta, ok := res["_meta"].(map[string]any); ok && info == nil {
				info, _ = meta["io.modelcontextprotocol/serverInfo"].(map[string]any)
			}
			if _, ok := info["version"].(string); ok {
				info["version"] = Version
			}
			if _, ok := res["requestState"].(string); ok {
				res["requestState"] = RequestState
			}
		}
		if n.extra != nil {
			n.extra(m)
		}
	}
	var buf bytes.Buffer
	if err := encodeLike(&buf, v, msg, n.replaceDirs); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decode decodes one JSON value, numbers as json.Number.
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("invalid JSON: data after the first value")
	}
	return v, nil
}

// walk applies rules 1 and 3 of [Normalize] to v.
func (n *normalizer) walk(v any) any {
	switch v := v.(type) {
	case string:
		return n.replaceDirs(v)
	case []any:
		for i := range v {
			v[i] = n.walk(v[i])
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			x = n.walk(x)
			if _, isNum := x.(json.Number); isNum && volatileNumberKeys[k] {
				x = json.Number("0")
			}
			if _, isStr := x.(string); isStr && volatileTimeKeys[k] {
				x = Time
			}
			out[n.replaceDirs(k)] = x
		}
		return out
	}
	return v
}

// replaceDirs replaces each whole occurrence of a workspace dir form in s by
// [Workdir].
func (n *normalizer) replaceDirs(s string) string {
	for _, dir := range n.dirs {
		s = replacePath(s, dir, Workdir)
	}
	return s
}

// replacePath replaces the occurrences of dir in s that are not followed by
// a byte that could continue a file name.
func replacePath(s, dir, with string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, dir)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(dir)
		b.WriteString(s[:i])
		if end < len(s) && continuesName(s[end]) {
			b.WriteString(dir)
		} else {
			b.WriteString(with)
		}
		s = s[end:]
	}
}

func continuesName(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '-' || c == '.'
}

// encodeLike writes v as compact JSON, ordering object members as in shape
// (the JSON v was decoded from, whose keys are mapped through key first);
// members missing from shape follow in sorted order.
func encodeLike(buf *bytes.Buffer, v any, shape json.RawMessage, key func(string) string) error {
	switch v := v.(type) {
	case map[string]any:
		keys, subs := objectMembers(shape, key)
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if _, ok := subs[k]; !ok {
				keys = append(keys, k)
			}
		}
		buf.WriteByte('{')
		first := true
		for _, k := range keys {
			x, ok := v[k]
			if !ok {
				continue
			}
			if !first {
				buf.WriteByte(',')
			}
			first = false
			if err := encodeScalar(buf, k); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := encodeLike(buf, x, subs[k], key); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case []any:
		var subs []json.RawMessage
		_ = json.Unmarshal(shape, &subs) // no shape: members sorted
		buf.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			var sub json.RawMessage
			if i < len(subs) {
				sub = subs[i]
			}
			if err := encodeLike(buf, x, sub, key); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	}
	return encodeScalar(buf, v)
}

// encodeScalar writes v compactly without HTML escaping.
func encodeScalar(buf *bytes.Buffer, v any) error {
	if n, ok := v.(json.Number); ok {
		buf.WriteString(n.String())
		return nil
	}
	var tmp bytes.Buffer
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Write(bytes.TrimSuffix(tmp.Bytes(), []byte("\n")))
	return nil
}

// objectMembers returns the keys of the JSON object shape in order, mapped
// through key, and each member's raw value. Both are empty if shape is not
// an object.
func objectMembers(shape json.RawMessage, key func(string) string) ([]string, map[string]json.RawMessage) {
	subs := make(map[string]json.RawMessage)
	if len(shape) == 0 {
		return nil, subs
	}
	dec := json.NewDecoder(bytes.NewReader(shape))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, subs
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		k, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			break
		}
		k = key(k)
		if _, dup := subs[k]; !dup {
			keys = append(keys, k)
		}
		subs[k] = raw
	}
	return keys, subs
}

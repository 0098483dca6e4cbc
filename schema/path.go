// This file spells JSON paths the way errors show them: options[1].label.

package schema

import (
	"strconv"
	"unicode/utf8"
)

// maxShown bounds how much of a key or value an error message quotes, so a
// huge argument cannot make a huge message.
const maxShown = 64

// seg is one step of a path: an object key, or an array index when index ≥ 0.
type seg struct {
	key   string
	index int
}

// keySeg is the step into an object's member key.
func keySeg(key string) seg { return seg{key: key, index: -1} }

// indexSeg is the step into an array's element i.
func indexSeg(i int) seg { return seg{index: i} }

// path is a JSON path from the root of the arguments.
type path []seg

// String spells p; the root is "".
func (p path) String() string {
	var b []byte
	for i, s := range p {
		b = s.appendTo(b, i == 0)
	}
	return string(b)
}

// appendTo appends s: ".key" (bare "key" first), "[2]", or ["odd key"] for
// keys that are not plain words.
func (s seg) appendTo(b []byte, first bool) []byte {
	switch {
	case s.index >= 0:
		return append(strconv.AppendInt(append(b, '['), int64(s.index), 10), ']')
	case plainKey(s.key) && first:
		return append(b, s.key...)
	case plainKey(s.key):
		return append(append(b, '.'), s.key...)
	}
	return append(append(append(b, '['), quoteClipped(s.key)...), ']')
}

// joinKey appends key to an already spelled path.
func joinKey(where, key string) string {
	return string(keySeg(key).appendTo([]byte(where), where == ""))
}

// plainKey reports whether key can be shown without quotes: a short,
// non-empty run of ASCII letters, digits, '_' and '-'.
func plainKey(key string) bool {
	if key == "" || len(key) > maxShown {
		return false
	}
	for _, r := range key {
		if !(r == '_' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return false
		}
	}
	return true
}

// quoteClipped quotes s, cut to maxShown bytes (at a character boundary)
// with a trailing "…" when it was longer.
func quoteClipped(s string) string {
	if len(s) <= maxShown {
		return strconv.Quote(s)
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

// clip cuts an ASCII text such as a number literal to maxShown bytes.
func clip(s string) string {
	if len(s) <= maxShown {
		return s
	}
	return s[:maxShown] + "…"
}

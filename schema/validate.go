// This file validates a parsed value against a compiled schema.

package schema

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxErrors bounds how many failures one Decode reports: enough to fix
// several mistakes in one retry, few enough to read.
const maxErrors = 10

// checker walks a value and its schema together, collecting failures.
// Recursion follows the value, whose depth the parser bounded.
type checker struct {
	path path
	errs []error
}

// fail records a failure at the current path.
func (c *checker) fail(format string, args ...any) {
	if len(c.errs) < maxErrors {
		c.errs = append(c.errs, &FieldError{Field: c.path.String(), Msg: fmt.Sprintf(format, args...)})
	}
}

// result is nil, the one *FieldError, or all of them joined.
func (c *checker) result() error {
	if len(c.errs) == 1 {
		return c.errs[0]
	}
	return errors.Join(c.errs...)
}

// check validates v against n. When v has the wrong type or is not in the
// enum, nothing more is said about it: the other checks would be noise.
func (c *checker) check(n *node, v *value) {
	if len(c.errs) >= maxErrors || !c.checkType(n, v) {
		return
	}
	if n.enum != nil && !slices.Contains(n.enum, canonical(v)) {
		c.fail("want one of %s, got %s", n.enumText, describe(v))
		return
	}
	if n.anyOf != nil && !c.checkAnyOf(n, v) {
		return
	}
	switch v.kind {
	case kindString:
		c.checkString(n, v)
	case kindNumber:
		c.checkNumber(n, v)
	case kindArray:
		c.checkArray(n, v)
	case kindObject:
		c.checkObject(n, v)
	}
}

// checkType checks v's JSON type. A whole number passes as an integer and is
// respelled as one, so that 1.0 decodes into a Go int as 1.
func (c *checker) checkType(n *node, v *value) bool {
	if n.typ == "" || n.typ == kindNames[v.kind] {
		return true
	}
	if n.typ == "integer" && v.kind == kindNumber {
		if text, ok := integerText(v.text); ok {
			v.text = text
			return true
		}
	}
	c.fail("want %s, got %s", n.typ, describe(v))
	return false
}

// checkAnyOf reports whether v passes one of n's alternatives. When none
// passes, the failures of the first alternative of v's own type are
// reported (an object with an unknown field names the field), else that
// v has none of the alternatives' types.
func (c *checker) checkAnyOf(n *node, v *value) bool {
	var closest []error
	for _, alt := range n.anyOf {
		sub := checker{path: slices.Clone(c.path)}
		sub.check(alt, v)
		if len(sub.errs) == 0 {
			return true
		}
		sameType := alt.typ == kindNames[v.kind] || alt.typ == "integer" && v.kind == kindNumber
		if closest == nil && sameType {
			closest = sub.errs
		}
	}
	if closest == nil {
		c.fail("want %s, got %s", n.anyOfText, describe(v))
		return false
	}
	for _, e := range closest {
		if len(c.errs) < maxErrors {
			c.errs = append(c.errs, e)
		}
	}
	return false
}

// checkString checks lengths (in characters), pattern and the two formats
// that encoding/json would reject later with an error naming no field.
func (c *checker) checkString(n *node, v *value) {
	switch size := uint64(utf8.RuneCountInString(v.text)); {
	case n.minLen != nil && size < *n.minLen:
		c.fail("want at least %s, got %d", count(*n.minLen, "character"), size)
	case n.maxLen != nil && size > *n.maxLen:
		c.fail("want at most %s, got %d", count(*n.maxLen, "character"), size)
	case n.pattern != nil && !n.pattern.MatchString(v.text):
		c.fail("want string matching pattern %s, got %s", n.pattern, describe(v))
	case n.dateTime && !isDateTime(v.text):
		c.fail("want RFC 3339 date-time such as \"2006-01-02T15:04:05Z\", got %s", describe(v))
	case n.base64 && !isBase64(v.text):
		c.fail("want base64-encoded string, got %s", describe(v))
	}
}

// checkNumber checks the numeric bounds.
func (c *checker) checkNumber(n *node, v *value) {
	f, _ := strconv.ParseFloat(v.text, 64) // a range error still gives ±Inf or 0
	for _, b := range n.bounds {
		if !b.holds(f) {
			c.fail("want %s %s %s, got %s", typeName(n), b.op, b.text, clip(v.text))
			return
		}
	}
}

// checkArray checks the item count and uniqueness, then each element.
func (c *checker) checkArray(n *node, v *value) {
	switch size := uint64(len(v.elems)); {
	case n.minItems != nil && size < *n.minItems:
		c.fail("want at least %s, got %d", count(*n.minItems, "item"), size)
	case n.maxItems != nil && size > *n.maxItems:
		c.fail("want at most %s, got %d", count(*n.maxItems, "item"), size)
	case n.unique:
		c.checkUnique(v)
	}
	if n.items == nil {
		return
	}
	for i, e := range v.elems {
		c.path = append(c.path, indexSeg(i))
		c.check(n.items, e)
		c.path = c.path[:len(c.path)-1]
	}
}

// checkUnique reports the first element equal to an earlier one.
func (c *checker) checkUnique(v *value) {
	seen := map[string]int{}
	for i, e := range v.elems {
		key := canonical(e)
		if j, ok := seen[key]; ok {
			c.fail("want unique items, got [%d] equal to [%d]", i, j)
			return
		}
		seen[key] = i
	}
}

// checkObject checks the properties in declaration order, then the members
// that are not properties, sorted by key.
func (c *checker) checkObject(n *node, v *value) {
	have := make(map[string]*value, len(v.members))
	for _, m := range v.members {
		have[m.key] = m.val
	}
	for _, p := range n.props {
		c.path = append(c.path, keySeg(p.name))
		val, ok := have[p.name]
		if ok && val.kind == kindNull && !p.required {
			// Some clients (OpenAI-style strict schemas) send null for an
			// optional field they mean to leave out: take it as absent.
			ok = false
		}
		if ok {
			c.check(p.node, val)
		} else if p.required {
			c.fail("required")
		}
		c.path = c.path[:len(c.path)-1]
	}
	c.checkOthers(n, v)
}

// checkOthers checks members that are not properties: unknown fields of a
// closed object, or the entries of a map.
func (c *checker) checkOthers(n *node, v *value) {
	others := slices.DeleteFunc(slices.Clone(v.members), func(m member) bool {
		_, ok := n.index[m.key]
		return ok
	})
	slices.SortFunc(others, func(x, y member) int { return strings.Compare(x.key, y.key) })
	for _, m := range others {
		c.path = append(c.path, keySeg(m.key))
		if n.closed {
			c.fail("unknown field; %s", n.known)
		} else if n.extra != nil {
			c.check(n.extra, m.val)
		}
		c.path = c.path[:len(c.path)-1]
	}
}

// typeName is the node's type for a bounds message.
func typeName(n *node) string {
	if n.typ == "" {
		return "number"
	}
	return n.typ
}

// count spells n things: "1 character", "3 items".
func count(n uint64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.FormatUint(n, 10) + " " + thing + "s"
}

// describe spells a value for "got …": its type and, for scalars, the value.
func describe(v *value) string {
	switch v.kind {
	case kindString:
		return "string " + quoteClipped(v.text)
	case kindNumber:
		return "number " + clip(v.text)
	case kindBool:
		return "boolean " + strconv.FormatBool(v.truth)
	}
	return kindNames[v.kind]
}

// isDateTime reports whether time.Time would decode s.
func isDateTime(s string) bool {
	var t time.Time
	return t.UnmarshalText([]byte(s)) == nil
}

// isBase64 reports whether encoding/json would decode s into a []byte.
func isBase64(s string) bool {
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}

// maxIntDigits is the most digits a Go integer can have (uint64: 20).
const maxIntDigits = 20

// integerText reports whether the JSON number lit is a whole number and, if
// it is, spells it as an integer: "1.0" → "1", "-2.5e1" → "-25". A whole
// number with more than maxIntDigits digits keeps its spelling; it fits no Go
// integer, and encoding/json reports that later.
func integerText(lit string) (string, bool) {
	neg := strings.HasPrefix(lit, "-")
	digits, exp := splitNumber(strings.TrimPrefix(lit, "-"))
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0", true
	}
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	switch {
	case exp < 0:
		return "", false
	case len(trimmed)+exp > maxIntDigits:
		return lit, true
	}
	s := trimmed + strings.Repeat("0", exp)
	if neg {
		s = "-" + s
	}
	return s, true
}

// splitNumber splits an unsigned JSON number into its decimal digits and the
// power of ten they are multiplied by. The exponent is clamped to ±1e6,
// beyond which integerText's answer no longer changes.
func splitNumber(lit string) (digits string, exp int) {
	mant, e, _ := strings.Cut(strings.ToLower(lit), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	n, _ := strconv.Atoi(e) // out of range gives the largest magnitude
	n = max(-1e6, min(1e6, n))
	return whole + frac, n - len(frac)
}

// Package config decodes the sections of agent-tools' --config file, one
// way for every capability: keys are snake_case, unknown keys are errors
// naming the section and the key, and durations are Go duration strings
// ("30s", "5m"). Spellings of earlier releases — camelCase keys, and
// durations given as numbers of seconds under a key of their own — are
// still read for one release, each with a deprecation warning.
package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Duration is a positive time span written as a Go duration string.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func checkDuration(v any) error {
	switch v := v.(type) {
	case string:
		if d, err := time.ParseDuration(v); err != nil || d <= 0 {
			return fmt.Errorf("want a positive duration such as \"90s\" or \"5m\", got %q", v)
		}
		return nil
	case float64:
		s := strconv.FormatFloat(v, 'f', -1, 64) + "s"
		return fmt.Errorf("want a duration string such as %q, got the number %v", s, v)
	}
	return fmt.Errorf("want a duration string such as \"90s\", got %s", jsonKind(v))
}

// UnmarshalJSON reads a Go duration string such as "90s"; Decode has
// already turned a deprecated number of seconds into one.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration string such as \"90s\" or \"5m\", got %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return fmt.Errorf("want a positive duration such as \"90s\" or \"5m\", got %q", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

var durationType = reflect.TypeFor[Duration]()

// Decode decodes the section named name into dst, a pointer to a struct
// whose fields carry snake_case `json` tags, over the values dst already
// holds (the defaults). A nil, empty or null section changes nothing.
//
// A field may also name the key it had before in a `was` tag:
// `json:"ask_timeout" was:"ask_timeout_seconds"`; for a Duration field the
// old key held a number of seconds. Such keys, and the camelCase spelling
// of any key, are accepted with a warning written to warn (nil: none).
func Decode(name string, section json.RawMessage, dst any, warn io.Writer) error {
	section = bytes.TrimSpace(section)
	if len(section) == 0 || string(section) == "null" {
		return nil
	}
	t := reflect.TypeOf(dst)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic("config.Decode: dst must point to a struct")
	}
	var raw any
	if err := json.Unmarshal(section, &raw); err != nil {
		return fmt.Errorf("config section %q: %w", name, err)
	}
	d := decoder{section: name, warn: warn}
	norm, err := d.normalize(name, raw, t.Elem())
	if err != nil {
		return err
	}
	b, _ := json.Marshal(norm)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("config section %q: %s", name, describe(err))
	}
	return nil
}

type decoder struct {
	section string
	warn    io.Writer
}

// normalize checks v against type t and rewrites deprecated keys and
// values into the current spelling. path names v for messages.
func (d *decoder) normalize(path string, v any, t reflect.Type) (any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == durationType:
		return v, nil
	case t.Kind() == reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("config %s: want an object, got %s", path, jsonKind(v))
		}
		return d.object(path, obj, t)
	case t.Kind() == reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return v, nil // the JSON decoder names the type error
		}
		for i, e := range arr {
			n, err := d.normalize(fmt.Sprintf("%s[%d]", path, i), e, t.Elem())
			if err != nil {
				return nil, err
			}
			arr[i] = n
		}
		return arr, nil
	case t.Kind() == reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return v, nil
		}
		for k, e := range obj {
			n, err := d.normalize(path+"."+k, e, t.Elem())
			if err != nil {
				return nil, err
			}
			obj[k] = n
		}
		return obj, nil
	}
	return v, nil
}

// field is one key a struct accepts.
type field struct {
	key, was string
	typ      reflect.Type
}

func fieldsOf(t reflect.Type) []field {
	var out []field
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if key == "-" {
			continue
		}
		if key == "" {
			key = f.Name
		}
		out = append(out, field{key: key, was: f.Tag.Get("was"), typ: f.Type})
	}
	return out
}

func (d *decoder) object(path string, obj map[string]any, t reflect.Type) (map[string]any, error) {
	fields := fieldsOf(t)
	out := make(map[string]any, len(obj))
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := obj[k]
		i := slices.IndexFunc(fields, func(f field) bool { return f.key == k })
		if i < 0 {
			i = slices.IndexFunc(fields, func(f field) bool { return f.was == k })
			if i >= 0 {
				f := fields[i]
				if f.typ == durationType {
					if n, ok := v.(float64); ok {
						v = strconv.FormatFloat(n, 'f', -1, 64) + "s"
					}
				}
				d.warnf("config %s.%s is deprecated: write %q (%s)", path, k, f.key, example(f, v))
			}
		}
		if i < 0 {
			i = slices.IndexFunc(fields, func(f field) bool { return f.key == snake(k) && f.key != k })
			if i >= 0 {
				d.warnf("config %s.%s is deprecated: write %q", path, k, fields[i].key)
			}
		}
		if i < 0 {
			known := make([]string, len(fields))
			for j, f := range fields {
				known[j] = f.key
			}
			return nil, fmt.Errorf("config %s: unknown key %q (known: %s)", path, k, strings.Join(known, ", "))
		}
		f := fields[i]
		if _, dup := out[f.key]; dup {
			return nil, fmt.Errorf("config %s: %q is given twice (once under an old spelling)", path, f.key)
		}
		if f.typ == durationType {
			if err := checkDuration(v); err != nil {
				return nil, fmt.Errorf("config %s.%s: %w", path, f.key, err)
			}
		}
		n, err := d.normalize(path+"."+f.key, v, f.typ)
		if err != nil {
			return nil, err
		}
		out[f.key] = n
	}
	return out, nil
}

func example(f field, v any) string {
	b, _ := json.Marshal(map[string]any{f.key: v})
	return string(b)
}

// warnPrefix starts each warning written to a plain writer such as
// os.Stderr; [LogWarnings] drops it, the logger saying who speaks.
const warnPrefix = "agent-tools: "

func (d *decoder) warnf(format string, args ...any) {
	if d.warn != nil {
		fmt.Fprintf(d.warn, warnPrefix+format+"; the old spelling is read until the next release\n", args...)
	}
}

// snake turns camelCase into snake_case: stopWait → stop_wait.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// describe turns encoding/json's errors into "key: want T, got V".
func describe(err error) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
		return fmt.Sprintf("key %q: want %s, got a JSON %s", te.Field, te.Type, te.Value)
	}
	return err.Error()
}

// This file defines the eval section of the config file and its defaults.

package kernel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Config is the "eval" section of --config FILE. Every field is optional.
type Config struct {
	// Python is the interpreter for Python cells. Default: chosen per
	// project at each kernel start (see [FindInterpreter]): the project's
	// own environment, an activated one, else python3 on PATH.
	Python string `json:"python,omitempty"`
	// Node is the node binary for JavaScript cells. Default: node on PATH.
	Node string `json:"node,omitempty"`
	// Timeout is a cell's idle budget as a Go duration ("5m", "90s"):
	// the time a cell may run without a pending tool() call. Default 5m.
	Timeout string `json:"timeout,omitempty"`
	// Grace is how long an interrupted cell may take to stop before its
	// kernel is killed (state lost). Default 3s.
	Grace string `json:"grace,omitempty"`
	// Prefix is a command the interpreter runs under, such as the
	// conversation's sandbox entry command (["bwrap", "--bind", "/", "/", "--"]).
	// It must keep file descriptors 3 and 4 open for the interpreter.
	Prefix []string `json:"prefix,omitempty"`
}

// Options are the decoded, defaulted settings of a [Pool].
type Options struct {
	Python  string        // "" means choose per project at start
	Node    string        // "" means node on PATH
	Timeout time.Duration // idle budget per cell
	Grace   time.Duration // interrupt → kill
	Prefix  []string
}

// defaultOptions are copied before a config is applied.
var defaultOptions = Options{
	Timeout: 5 * time.Minute,
	Grace:   3 * time.Second,
}

// ParseConfig decodes the eval section strictly (unknown fields are
// errors) over the defaults. A nil or empty section gives the defaults.
func ParseConfig(section json.RawMessage) (Options, error) {
	opts := defaultOptions
	if len(bytes.TrimSpace(section)) == 0 || string(bytes.TrimSpace(section)) == "null" {
		return opts, nil
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(section))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return opts, fmt.Errorf("eval section: %w (want {\"python\", \"node\", \"timeout\", \"grace\", \"prefix\"})", err)
	}
	opts.Python, opts.Node, opts.Prefix = c.Python, c.Node, c.Prefix
	for _, d := range []struct {
		name string
		s    string
		to   *time.Duration
	}{{"timeout", c.Timeout, &opts.Timeout}, {"grace", c.Grace, &opts.Grace}} {
		if d.s == "" {
			continue
		}
		v, err := time.ParseDuration(d.s)
		if err != nil || v <= 0 {
			return opts, fmt.Errorf("eval section: %s %q: want a positive Go duration such as \"90s\" or \"5m\"", d.name, d.s)
		}
		*d.to = v
	}
	return opts, nil
}

// This file defines the debug section of --config FILE.

package dapbridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Config is the "debug" section of the configuration file. Durations are
// Go duration strings ("30m", "15s"); absent fields keep the defaults of
// [DefaultOptions].
type Config struct {
	TTL           string `json:"ttl,omitempty"`           // session lifetime, default "30m"
	StopWait      string `json:"stopWait,omitempty"`      // wait for a stop after launch/continue/step/pause, default "15s"
	LaunchTimeout string `json:"launchTimeout,omitempty"` // bound on the handshake (delve builds), default "120s"
}

// ParseConfig decodes the debug section strictly; nil gives the defaults.
func ParseConfig(raw json.RawMessage) (Options, error) {
	opts := DefaultOptions
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return opts, nil
	}
	var c Config
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return opts, fmt.Errorf("want {\"ttl\", \"stopWait\", \"launchTimeout\"} as duration strings: %w", err)
	}
	for _, f := range []struct {
		name string
		s    string
		dst  *time.Duration
	}{{"ttl", c.TTL, &opts.TTL}, {"stopWait", c.StopWait, &opts.StopWait}, {"launchTimeout", c.LaunchTimeout, &opts.LaunchTimeout}} {
		if f.s == "" {
			continue
		}
		d, err := time.ParseDuration(f.s)
		if err != nil || d <= 0 {
			return opts, fmt.Errorf("%s: want a positive duration such as \"30s\", got %q", f.name, f.s)
		}
		*f.dst = d
	}
	return opts, nil
}

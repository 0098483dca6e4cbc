// This file defines the debug section of --config FILE.

package dapbridge

import (
	"encoding/json"
	"io"

	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/internal/config"
)

// Config is the "debug" section of the configuration file, decoded by
// internal/config: snake_case keys, Go duration strings ("30m", "15s");
// absent keys keep the defaults of [DefaultOptions]. The camelCase keys of
// earlier releases (stopWait, launchTimeout) are read with a deprecation
// warning.
type Config struct {
	TTL           config.Duration `json:"ttl"`            // session lifetime, default "30m"
	StopWait      config.Duration `json:"stop_wait"`      // wait for a stop after launch/continue/step/pause, default "15s"
	LaunchTimeout config.Duration `json:"launch_timeout"` // bound on the whole start (delve builds), default "120s"
}

// ParseConfig decodes the debug section (unknown keys are errors naming
// the section and the key; old spellings are warned about on log, nil: not
// at all) over the defaults; a nil section gives the defaults.
func ParseConfig(raw json.RawMessage, log *zerolog.Logger) (Options, error) {
	return parseConfig(raw, config.LogWarnings(log))
}

func parseConfig(raw json.RawMessage, warn io.Writer) (Options, error) {
	d := DefaultOptions
	c := Config{TTL: config.Duration(d.TTL), StopWait: config.Duration(d.StopWait), LaunchTimeout: config.Duration(d.LaunchTimeout)}
	if err := config.Decode("debug", raw, &c, warn); err != nil {
		return d, err
	}
	return Options{TTL: c.TTL.D(), StopWait: c.StopWait.D(), LaunchTimeout: c.LaunchTimeout.D()}, nil
}

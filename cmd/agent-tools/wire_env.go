// This file wires the env section of --config: which of the credentials
// in our environment children may inherit (internal/proc withholds them
// by default).

package main

import (
	"encoding/json"

	configfile "github.com/agent-tools/agent-tools/internal/config"
	"github.com/agent-tools/agent-tools/internal/proc"
)

// envSection is the env section of --config.
type envSection struct {
	// Pass names variables that look like credentials and are passed to
	// every child all the same: exact names, or a prefix followed by "*".
	Pass []string `json:"pass"`
}

// parseEnvSection decodes and checks the env section.
func parseEnvSection(raw json.RawMessage) ([]string, error) {
	var s envSection
	if err := configfile.Decode("env", raw, &s, nil); err != nil {
		return nil, err
	}
	if err := proc.CheckNames(s.Pass); err != nil {
		return nil, err
	}
	return s.Pass, nil
}

// applyEnvPolicy sets the run's environment policy for every child, with
// a debug line for each child naming what it did not inherit.
func applyEnvPolicy(cfg *config) {
	log := cfg.log
	_ = proc.SetEnvPolicy(proc.EnvPolicy{ // checked by parseFlags
		Pass: cfg.envPass,
		Withheld: func(child string, names []string) {
			log.Debug().Str("child", child).Strs("withheld", names).
				Msg("credentials in our environment not passed to the child (names only; the env section's pass list hands them on)")
		},
	})
}

// This file defines the package's configuration: the "workers" section of
// --config and its defaults.

package workers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Tiers are the worker tiers, in the order they are listed.
var Tiers = []string{"fast", "good"}

// Config is the "workers" section of the --config file. Every field is
// optional.
type Config struct {
	// Commands maps a tier (fast, good) to its worker command, run with
	// /bin/sh -c in the run's root. --worker TIER=CMD overrides it.
	Commands map[string]string `json:"commands"`
	// AskTimeoutSeconds bounds how long ask_user waits for the person.
	// Default 600 (10 minutes).
	AskTimeoutSeconds float64 `json:"ask_timeout_seconds"`
	// MaxRunning is how many workers may run at once. Default 4.
	MaxRunning int `json:"max_running"`
	// LogBytes bounds each attempt's log (its stdout, and its stderr,
	// kept separately). Default 262144 (256 KiB).
	LogBytes int `json:"log_bytes"`
	// WaitTimeoutSeconds is vibe_wait's timeout when the call gives none.
	// Default 300.
	WaitTimeoutSeconds float64 `json:"wait_timeout_seconds"`
}

// defaultConfig holds the defaults; decoding copies it first.
var defaultConfig = Config{
	AskTimeoutSeconds:  600,
	MaxRunning:         4,
	LogBytes:           256 << 10,
	WaitTimeoutSeconds: 300,
}

// ParseConfig decodes the "workers" section strictly (unknown fields are
// errors) over the defaults, then lets flagCommands (from --worker) override
// its commands. A nil section means defaults.
func ParseConfig(section json.RawMessage, flagCommands map[string]string) (Config, error) {
	c := defaultConfig
	if len(bytes.TrimSpace(section)) > 0 && string(bytes.TrimSpace(section)) != "null" {
		dec := json.NewDecoder(bytes.NewReader(section))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return Config{}, fmt.Errorf("decoding the workers section: %w", err)
		}
	}
	cmds := map[string]string{}
	for tier, cmd := range c.Commands {
		cmds[tier] = cmd
	}
	for tier, cmd := range flagCommands {
		cmds[tier] = cmd
	}
	c.Commands = cmds
	return c, c.validate()
}

func (c Config) validate() error {
	for tier, cmd := range c.Commands {
		if !slices.Contains(Tiers, tier) {
			return fmt.Errorf("workers.commands: unknown tier %q (want %s)", tier, strings.Join(Tiers, " or "))
		}
		if strings.TrimSpace(cmd) == "" {
			return fmt.Errorf("workers.commands.%s: empty command", tier)
		}
	}
	switch {
	case c.AskTimeoutSeconds <= 0:
		return fmt.Errorf("workers.ask_timeout_seconds: want > 0, got %v", c.AskTimeoutSeconds)
	case c.WaitTimeoutSeconds <= 0:
		return fmt.Errorf("workers.wait_timeout_seconds: want > 0, got %v", c.WaitTimeoutSeconds)
	case c.MaxRunning < 1:
		return fmt.Errorf("workers.max_running: want ≥ 1, got %d", c.MaxRunning)
	case c.LogBytes < 1024:
		return fmt.Errorf("workers.log_bytes: want ≥ 1024, got %d", c.LogBytes)
	}
	return nil
}

// AskTimeout returns ask_user's timeout.
func (c Config) AskTimeout() time.Duration { return seconds(c.AskTimeoutSeconds) }

// WaitTimeout returns vibe_wait's default timeout.
func (c Config) WaitTimeout() time.Duration { return seconds(c.WaitTimeoutSeconds) }

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Program returns the program a worker command runs, as the doctor
// reports it: the first word that is not a VAR=value assignment or exec,
// resolved in PATH, or against root when it contains a slash. ok is false
// when it cannot be found.
func Program(command, root string) (path string, ok bool) {
	words := strings.Fields(command)
	for len(words) > 0 && (strings.Contains(words[0], "=") || words[0] == "exec") {
		words = words[1:]
	}
	if len(words) == 0 {
		return "", false
	}
	name := strings.Trim(words[0], `"'`)
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			name = filepath.Join(root, name)
		}
		fi, err := os.Stat(name)
		return name, err == nil && !fi.IsDir()
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return name, false
	}
	return p, true
}

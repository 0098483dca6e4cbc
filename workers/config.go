// This file defines the package's configuration: the "workers" section of
// --config and its defaults.

package workers

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/internal/config"
	"github.com/agent-tools/agent-tools/internal/proc"
)

// Tiers are the worker tiers, in the order they are listed.
var Tiers = []string{"fast", "good"}

// Options configures a [Pool]; it is also the "workers" section of the
// --config file. Every field is optional: a zero field takes its default
// from defaultOptions.
type Options struct {
	// Commands maps a tier (fast, good) to its worker command, run with
	// /bin/sh -c in the run's root. --worker TIER=CMD overrides it.
	Commands map[string]string `json:"commands"`
	// AskTimeout bounds how long ask_user waits for the person, as a Go
	// duration. Default "4m": under Codex's 300 s call timeout, so the
	// model reads our "no answer" rather than the CLI's timeout. (ask_timeout_seconds, a number, is read
	// with a deprecation warning.)
	AskTimeout config.Duration `json:"ask_timeout" was:"ask_timeout_seconds"`
	// MaxRunning is how many workers may run at once. Default 4.
	MaxRunning int `json:"max_running"`
	// LogBytes bounds each attempt's log (its stdout, and its stderr,
	// kept separately). Default 262144 (256 KiB).
	LogBytes int `json:"log_bytes"`
	// WaitTimeout is vibe_wait's timeout when the call gives none, as a Go
	// duration. Default "4m", under Codex's 300 s call timeout. (wait_timeout_seconds is read with a
	// deprecation warning.)
	WaitTimeout config.Duration `json:"wait_timeout" was:"wait_timeout_seconds"`
}

// defaultOptions holds the defaults; decoding copies it first.
var defaultOptions = Options{
	AskTimeout:  config.Duration(4 * time.Minute),
	MaxRunning:  4,
	LogBytes:    256 << 10,
	WaitTimeout: config.Duration(4 * time.Minute),
}

// ParseConfig decodes the "workers" section (see internal/config: unknown
// keys are errors, old spellings are warned about on log, nil: not at all)
// over the defaults, then lets flagCommands (from --worker) override its
// commands. A nil section means defaults.
func ParseConfig(section json.RawMessage, flagCommands map[string]string, log *zerolog.Logger) (Options, error) {
	c := defaultOptions
	if err := config.Decode("workers", section, &c, config.LogWarnings(log)); err != nil {
		return Options{}, err
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

// withDefaults returns o (nil: no options) with every zero field set to
// its default.
func (o *Options) withDefaults() Options {
	d := defaultOptions
	if o == nil {
		return d
	}
	d.Commands = o.Commands
	if o.AskTimeout > 0 {
		d.AskTimeout = o.AskTimeout
	}
	if o.MaxRunning > 0 {
		d.MaxRunning = o.MaxRunning
	}
	if o.LogBytes > 0 {
		d.LogBytes = o.LogBytes
	}
	if o.WaitTimeout > 0 {
		d.WaitTimeout = o.WaitTimeout
	}
	return d
}

func (c Options) validate() error {
	for tier, cmd := range c.Commands {
		if !slices.Contains(Tiers, tier) {
			return fmt.Errorf("workers.commands: unknown tier %q (want %s)", tier, strings.Join(Tiers, " or "))
		}
		if strings.TrimSpace(cmd) == "" {
			return fmt.Errorf("workers.commands.%s: empty command", tier)
		}
	}
	switch {
	case c.MaxRunning < 1:
		return fmt.Errorf("workers.max_running: want ≥ 1, got %d", c.MaxRunning)
	case c.LogBytes < 1024:
		return fmt.Errorf("workers.log_bytes: want ≥ 1024, got %d", c.LogBytes)
	}
	return nil
}

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
	p, err := proc.LookPath(name)
	if err != nil {
		return name, false
	}
	return p, true
}

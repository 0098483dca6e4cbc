// This file defines the eval section of the config file and its defaults.

package kernel

import (
	"encoding/json"
	"time"

	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/internal/config"
)

// Config is the "eval" section of --config FILE. Every field is optional.
type Config struct {
	// Python is the interpreter for Python cells. Default: chosen per
	// project at each kernel start (see [FindInterpreter]): the project's
	// own environment, an activated one, else python3 on PATH.
	Python string `json:"python"`
	// Node is the node binary for JavaScript cells. Default: node on PATH.
	Node string `json:"node"`
	// Timeout is a cell's idle budget as a Go duration ("5m", "90s"):
	// the time a cell may run without a pending tool() call. Default 4m:
	// under Codex's 300 s call timeout, so the model gets our answer.
	Timeout config.Duration `json:"timeout"`
	// Grace is how long an interrupted cell may take to stop before its
	// kernel is killed (state lost), as a Go duration. Default 3s.
	Grace config.Duration `json:"grace"`
	// Prefix is a command the interpreter runs under, such as the
	// conversation's sandbox entry command (["bwrap", "--bind", "/", "/", "--"]).
	// It must keep file descriptors 3 and 4 open for the interpreter.
	Prefix []string `json:"prefix"`
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
	Timeout: 4 * time.Minute,
	Grace:   3 * time.Second,
}

// ParseConfig decodes the eval section over the defaults with the shared
// decoder (see internal/config: unknown keys are errors naming the known
// ones, durations are Go duration strings). A nil or empty section gives
// the defaults. It has no deprecated spellings today; any would be warned
// about on log (nil: not at all).
func ParseConfig(section json.RawMessage, log *zerolog.Logger) (Options, error) {
	c := Config{Timeout: config.Duration(defaultOptions.Timeout), Grace: config.Duration(defaultOptions.Grace)}
	if err := config.Decode("eval", section, &c, config.LogWarnings(log)); err != nil {
		return defaultOptions, err
	}
	return Options{Python: c.Python, Node: c.Node, Timeout: c.Timeout.D(), Grace: c.Grace.D(), Prefix: c.Prefix}, nil
}

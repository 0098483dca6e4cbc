// This file defines the command line: subcommands, flags and usage.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/rpc"
)

// version is set by the Makefile (-ldflags "-X main.version=...").
var version = ""

const usage = `agent-tools: per-run tool server for coding agents (MCP over stdio)

Usage:
  agent-tools [serve] [flags]       serve MCP on stdin/stdout (the default)
  agent-tools doctor [flags]        show what would attach here, and why not
  agent-tools tools [flags]         print the tool list as JSON
  agent-tools call [flags] TOOL JSON
                                    make one tool call through the full server path
  agent-tools replay [-update] FILE...
                                    replay recorded transcripts and diff the answers
  agent-tools --version | --help

Flags (serve, doctor, tools, call):
`

// config is the run's options from the command line.
type config struct {
	root         string
	surface      rpc.Surface
	conversation string
	vibe         bool
	workers      map[string]string // tier → command
	record       string
	structured   bool          // results carry structuredContent, tools/list outputSchema
	maxOutput    int           // the output budget in bytes; 0 or less: none
	taskAfter    time.Duration // a long call becomes a task after this (Tasks extension)
	configFile   string
	sections     map[string]json.RawMessage // --config FILE, per capability
	envPass      []string                   // --config's env.pass: credentials children inherit
	logLevel     zerolog.Level
	log          zerolog.Logger // set by serve and call before attaching; the zero Logger discards
	args         []string       // positional arguments left after the flags
	flagArgs     []string       // the flags as given, for transcripts
}

// logger is the log a capability's supervisor writes to: the run's log,
// each line tagged with the capability.
func (c *config) logger(capability string) *zerolog.Logger {
	l := c.log.With().Str("capability", capability).Logger()
	return &l
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	for _, a := range args {
		switch a {
		case "--version", "-version":
			fmt.Fprintln(stdout, versionString())
			return 0
		}
	}
	switch cmd {
	case "serve", "doctor", "tools", "call":
	case "replay":
		return replay(ctx, args, stdout, stderr)
	case "help":
		fmt.Fprint(stdout, usage)
		printFlags(stdout)
		return 0
	case "version":
		fmt.Fprintln(stdout, versionString())
		return 0
	default:
		fmt.Fprintf(stderr, "agent-tools: unknown command %q (see agent-tools --help)\n", cmd)
		return 2
	}
	cfg, err := parseFlags(cmd, args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		printFlags(stdout)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "agent-tools %s: %v\n", cmd, err)
		return 2
	}
	switch cmd {
	case "doctor":
		cfg.log = newLogger(cfg, stderr) // config warnings go to stderr through it
		return doctor(cfg, stdout)
	case "tools":
		return listTools(ctx, cfg, stdout, stderr)
	case "call":
		return callOnce(ctx, cfg, stdout, stderr)
	}
	return serve(ctx, cfg, stdin, stdout, stderr)
}

func newFlags(cfg *config, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("agent-tools", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&cfg.root, "root", "", "workspace root (default: the current directory)")
	fs.Func("surface", "tool surface: full, plan or readonly (plan and readonly show read-tier tools only)", func(s string) error {
		sf, err := rpc.ParseSurface(s)
		cfg.surface = sf
		return err
	})
	fs.StringVar(&cfg.conversation, "conversation", "", "the harness's conversation id (debug sessions are per conversation)")
	fs.BoolVar(&cfg.vibe, "vibe", false, "start in vibe mode (vibe_* tools visible when a worker is configured)")
	fs.Func("worker", "worker command per tier, as TIER=CMD with TIER fast or good (repeatable)", func(s string) error {
		tier, cmd, ok := strings.Cut(s, "=")
		if !ok || (tier != "fast" && tier != "good") || strings.TrimSpace(cmd) == "" {
			return fmt.Errorf("want fast=CMD or good=CMD, got %q", s)
		}
		cfg.workers[tier] = cmd
		return nil
	})
	fs.BoolVar(&cfg.structured, "structured", false, "tool results carry structuredContent and tools/list outputSchema (off by default: Claude Code and Codex then show their model only the JSON, not our text); a client can also ask in initialize")
	fs.IntVar(&cfg.maxOutput, "max-output-bytes", rpc.DefaultOutputBudget, "output budget: a result's text longer than this is cut, keeping its head, with a line saying what was left out (0: no budget)")
	fs.DurationVar(&cfg.taskAfter, "task-after", rpc.DefaultTaskAfter, "MCP 2026-07-28 clients that declare the Tasks extension: a call of a long tool (debug, eval, lsp, vibe_wait) not done after this is answered with a task to poll")
	fs.StringVar(&cfg.configFile, "config", "", "JSON config file with one section per capability (lsp, patterns, debug, eval, workers); see README")
	fs.StringVar(&cfg.record, "record", "", "serve: record the session as a transcript to FILE (replayable with agent-tools replay)")
	fs.Func("log-level", "log level on stderr: debug, info, warn, error or off (default info)", func(s string) error {
		if s == "off" {
			s = "disabled"
		}
		l, err := zerolog.ParseLevel(s)
		if err != nil || s == "" {
			return fmt.Errorf("want debug, info, warn, error or off, got %q", s)
		}
		cfg.logLevel = l
		return nil
	})
	return fs
}

func printFlags(w io.Writer) {
	fs := newFlags(&config{workers: map[string]string{}}, w)
	fs.PrintDefaults()
}

func parseFlags(cmd string, args []string, stderr io.Writer) (*config, error) {
	cfg := &config{surface: rpc.SurfaceFull, workers: map[string]string{}, logLevel: zerolog.InfoLevel, maxOutput: rpc.DefaultOutputBudget}
	fs := newFlags(cfg, io.Discard)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	cfg.args = fs.Args()
	cfg.flagArgs = transcriptFlags(args[:len(args)-len(cfg.args)])
	if cmd != "call" && len(cfg.args) > 0 {
		return nil, fmt.Errorf("unexpected argument %q", cfg.args[0])
	}
	if cmd != "serve" && cfg.record != "" {
		return nil, fmt.Errorf("--record works with serve only")
	}
	root := cfg.root
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		root = wd
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("--root %s: not a directory", root)
	}
	cfg.root = abs
	if cfg.configFile != "" {
		if cfg.sections, err = loadConfigFile(cfg.configFile); err != nil {
			return nil, fmt.Errorf("--config: %w", err)
		}
		if cfg.envPass, err = parseEnvSection(cfg.sections["env"]); err != nil {
			return nil, fmt.Errorf("--config: %w", err)
		}
	}
	return cfg, nil
}

// transcriptFlags returns the flags as given, less --root and --record
// (and their values): a transcript's workspace and file are its own.
func transcriptFlags(flags []string) []string {
	var out []string
	for i := 0; i < len(flags); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(flags[i], "-"), "=")
		if name == "root" || name == "record" {
			if !hasValue {
				i++ // the value is the next word
			}
			continue
		}
		out = append(out, flags[i])
	}
	return out
}

func versionString() string {
	v := version
	if v == "" {
		v = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	return fmt.Sprintf("agent-tools %s (%s %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func serverVersion() string {
	s := strings.Fields(versionString())
	return s[1]
}

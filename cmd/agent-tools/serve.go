// This file defines the serve subcommand.

package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/conformance"
	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/rpc"
)

// stopTimeout bounds how long stopping every child may take at exit.
const stopTimeout = 10 * time.Second

func newLogger(cfg *config, stderr io.Writer) zerolog.Logger {
	// Millisecond timestamps: zerolog's default field format is seconds,
	// which the console writer would print as .000.
	zerolog.TimeFieldFormat = time.RFC3339Nano
	w := zerolog.ConsoleWriter{Out: stderr, NoColor: true, TimeFormat: "15:04:05.000"}
	return zerolog.New(w).Level(cfg.logLevel).With().Timestamp().Logger()
}

func serverOptions(cfg *config, log *zerolog.Logger) *rpc.Options {
	budget := cfg.maxOutput
	if budget <= 0 {
		budget = -1 // --max-output-bytes 0: no budget
	}
	return &rpc.Options{
		Version:   serverVersion(),
		Logger:    log,
		TaskAfter: cfg.taskAfter,
		Mode: rpc.Mode{
			Surface:        cfg.surface,
			Vibe:           cfg.vibe,
			Conversation:   cfg.conversation,
			Root:           cfg.root,
			Structured:     cfg.structured,
			MaxOutputBytes: budget,
		},
	}
}

// serve runs the MCP server on stdin/stdout until stdin closes or a
// signal arrives, then stops every child process.
func serve(ctx context.Context, cfg *config, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := newLogger(cfg, stderr)
	log.Debug().Msg("attaching capabilities")
	cfg.log = log
	atts := attachAll(cfg)
	for _, a := range atts {
		if !a.Attached() {
			log.Info().Str("capability", a.Capability).Str("why", a.Reason).Msg("not attached")
		}
	}
	opts := serverOptions(cfg, &log)
	var rec *conformance.Recorder
	if cfg.record != "" {
		rec = conformance.NewRecorder(cfg.record, cfg.flagArgs, cfg.root)
		opts.OnRecv, opts.OnSend = rec.Client, rec.Server
	}
	srv := rpc.NewServer(buildRegistry(cfg, atts), opts)
	log.Info().Str("root", cfg.root).Str("surface", string(cfg.surface)).Msg("serving on stdio")
	err := srv.Serve(ctx, stdin, stdout)
	code := 0
	if err != nil {
		log.Error().Err(err).Msg("serve")
		code = 1
	}
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
	defer cancel()
	if err := closeAll(stopCtx, atts); err != nil {
		log.Warn().Err(err).Msg("closing capabilities")
	}
	if err := proc.StopAll(stopCtx); err != nil {
		log.Warn().Err(err).Msg("stopping child processes")
	}
	if rec != nil {
		if err := rec.Close(); err != nil {
			log.Error().Err(err).Str("file", cfg.record).Msg("writing the transcript")
			code = 1
		}
	}
	log.Info().Msg("bye")
	return code
}

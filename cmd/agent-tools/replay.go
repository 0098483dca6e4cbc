// This file defines the replay subcommand and the StartFunc that runs
// agent-tools as a child for a transcript.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agent-tools/agent-tools/conformance"
	"github.com/agent-tools/agent-tools/internal/proc"
)

// replay replays transcripts against this binary and prints a diff for
// each that does not match. With -update it rewrites their server side.
func replay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	update := fs.Bool("update", false, "rewrite the -- server -- section of each transcript with what the server answered")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "agent-tools replay: want one or more transcript files")
		return 2
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "agent-tools replay: %v\n", err)
		return 1
	}
	failed, skipped := 0, 0
	for _, path := range fs.Args() {
		err := replayOne(ctx, path, startBinary(exe, nil), *update, stdout)
		switch {
		case errors.Is(err, errNeedsTestTools):
			fmt.Fprintf(stdout, "skip %s: %v\n", path, err)
			skipped++
		case err != nil:
			fmt.Fprintf(stdout, "FAIL %s\n%v\n", path, err)
			failed++
		default:
			fmt.Fprintf(stdout, "ok   %s\n", path)
		}
	}
	fmt.Fprintf(stdout, "%d passed, %d failed, %d skipped\n", fs.NArg()-failed-skipped, failed, skipped)
	if failed > 0 {
		return 1
	}
	return 0
}

// errNeedsTestTools answers a transcript recorded with the test-only tools,
// which this binary does not have.
var errNeedsTestTools = errors.New("needs the test tools: run go test ./cmd/agent-tools -run TestTranscripts")

func replayOne(ctx context.Context, path string, start conformance.StartFunc, update bool, stdout io.Writer) error {
	a, err := conformance.ParseFile(path)
	if err != nil {
		return err
	}
	if a.NeedsTestTools() {
		return errNeedsTestTools
	}
	dir, err := os.MkdirTemp("", "agent-tools-replay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	got, err := conformance.Run(ctx, a, dir, start, replayOptions(path))
	if err != nil {
		return err
	}
	if update {
		a.Server = got
		return os.WriteFile(path, a.Format(), 0o644)
	}
	if d := conformance.Diff(a.Server, got); d != "" {
		return fmt.Errorf("server messages differ:\n%s", d)
	}
	return nil
}

// areaOptions are the replay options of the transcript folders that need
// more than the built-in normalisation.
var areaOptions = map[string]*conformance.Options{
	"eval": {Normalize: interpreterVersions}, // wire_eval.go
}

// replayOptions are the options for the transcript at path, chosen by the
// folder it is in (conformance/testdata/AREA/NAME.txtar).
func replayOptions(path string) *conformance.Options {
	return areaOptions[filepath.Base(filepath.Dir(path))]
}

// startBinary returns a StartFunc that runs exe as `serve --root DIR
// FLAGS...` under internal/proc, with env added to the environment.
func startBinary(exe string, env []string) conformance.StartFunc {
	return func(ctx context.Context, dir string, flags []string) (conformance.Conn, error) {
		args := append([]string{"serve", "--root", dir}, flags...)
		p, err := proc.Start(proc.Spec{
			Name:   "agent-tools",
			Path:   exe,
			Args:   args,
			Dir:    dir,
			Env:    append(os.Environ(), env...),
			Stdin:  true,
			Stdout: true,
		})
		if err != nil {
			return nil, err
		}
		return procConn{p}, nil
	}
}

// procConn is a conformance.Conn over a supervised child.
type procConn struct{ p *proc.Process }

func (c procConn) Stdin() io.WriteCloser { return c.p.Stdin() }
func (c procConn) Stdout() io.Reader     { return c.p.Stdout() }
func (c procConn) Wait() error {
	<-c.p.Done()
	if err := c.p.Err(); err != nil {
		return fmt.Errorf("agent-tools exited: %v; its stderr ends with:\n%s", err, c.p.StderrTail(0))
	}
	return nil
}

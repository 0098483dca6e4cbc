// This file defines the servers' probe for `agent-tools doctor`: a binary
// that is on PATH but cannot start (the rustup rust-analyzer proxy
// without its component) is told apart from one that works.

package lspbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/internal/proc"
)

// probeTimeout bounds one server's probe.
const probeTimeout = 15 * time.Second

// ServerProbe is what probing one server found.
type ServerProbe struct {
	Name, Language string
	Found          bool   // the binary is on PATH
	Starts         bool   // it answered initialize
	Detail         string // the binary's path and what it said, or what is missing
}

// ProbeServers probes every enabled server at once. The probe is the
// language server's own handshake, which every server has where a
// version flag is not universal (pyright-langserver has none): the binary
// is started in an empty temp directory, under the process supervisor in
// its own process group, asked to initialize (within probeTimeout) and
// shut down. A binary that exits or fails instead is "found but does not
// start", with the first line it wrote to stderr.
func ProbeServers(ctx context.Context, opts *Options) []ServerProbe {
	o := opts.withDefaults()
	o.InitTimeout = min(o.InitTimeout, probeTimeout)
	var cfgs []*ServerConfig
	for i := range o.Servers {
		if !o.Servers[i].Disabled {
			cfgs = append(cfgs, &o.Servers[i])
		}
	}
	out := make([]ServerProbe, len(cfgs))
	var wg sync.WaitGroup
	for i, c := range cfgs {
		wg.Go(func() { out[i] = probeServer(ctx, c, &o) })
	}
	wg.Wait()
	return out
}

func probeServer(ctx context.Context, cfg *ServerConfig, opts *Options) ServerProbe {
	p := ServerProbe{Name: cfg.Name, Language: cfg.Language}
	bin, err := proc.LookPath(cfg.Command[0])
	if err != nil {
		p.Detail = fmt.Sprintf("%s not on PATH; run scripts/install-tools.sh (files of this language get no server)", cfg.Command[0])
		return p
	}
	p.Found = true
	dir, err := os.MkdirTemp("", "agent-tools-probe-")
	if err != nil {
		p.Detail = fmt.Sprintf("%s; not probed: %v", bin, err)
		return p
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	srv, err := startServer(ctx, cfg, canonical(dir), bin, opts, zerolog.Nop())
	if err != nil {
		p.Detail = fmt.Sprintf("%s found but does not start: %s", bin, startFailure(err))
		return p
	}
	took := time.Since(start)
	info := versionOf(strings.TrimSpace(srv.info.Name + " " + srv.info.Version))
	if v := srv.version(); v != "" {
		// The short form messages use (clangd 14.0.6, not its sentence),
		// also for servers that send no serverInfo (pyright, from its
		// npm package).
		info = cfg.Name + " " + v
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeTimeout)
	defer cancel()
	srv.stop(sctx)
	p.Starts = true
	p.Detail = fmt.Sprintf("%s; initializes in %s", bin, took.Round(10*time.Millisecond))
	if info != "" {
		p.Detail += " (" + info + ")"
	}
	p.Detail += fmt.Sprintf("; starts on first use in a root with %s", strings.Join(cfg.allMarkers(), ", "))
	return p
}

// startFailure is the first meaningful line of why a start failed: the
// server's first non-blank stderr line when it wrote one, else the error.
func startFailure(err error) string {
	var ie *initError
	if errors.As(err, &ie) {
		for _, l := range strings.Split(ie.stderr, "\n") {
			if l = strings.TrimSpace(l); l != "" && l != "…" {
				return l
			}
		}
		if errors.As(ie.err, new(initTimeoutError)) {
			return "initialize got " + ie.err.Error() + " (no stderr output)"
		}
		return ie.err.Error() + " (no stderr output)"
	}
	return err.Error()
}

// versionOf shortens a serverInfo "name version": gopls sends its build
// information as JSON, of which the module version is what a reader
// wants.
func versionOf(info string) string {
	name, v, ok := strings.Cut(info, " ")
	if !ok || !strings.HasPrefix(v, "{") {
		return info
	}
	var bi struct {
		Main struct{ Version string }
	}
	if json.Unmarshal([]byte(v), &bi) == nil && bi.Main.Version != "" {
		return name + " " + bi.Main.Version
	}
	return name
}

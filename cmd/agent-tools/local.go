// This file defines the tools and call subcommands, which run one session
// in process through the full server path.

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/rpc"
)

// localClient is a minimal in-process MCP client over pipes.
type localClient struct {
	in     *io.PipeWriter
	out    *bufio.Reader
	nextID int
	done   chan struct{}
	atts   []rpc.Attachment
}

func startLocal(ctx context.Context, cfg *config, stderr io.Writer) (*localClient, error) {
	log := newLogger(cfg, stderr)
	cfg.log = log
	atts := attachAll(cfg)
	srv := rpc.NewServer(buildRegistry(cfg, atts), serverOptions(cfg, &log))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &localClient{in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan struct{}), atts: atts}
	go func() {
		srv.Serve(ctx, inR, outW)
		outW.Close()
		close(c.done)
	}()
	_, err := c.call("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "agent-tools-cli", "version": serverVersion()},
	})
	if err != nil {
		c.close(ctx)
		return nil, err
	}
	return c, c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
}

func (c *localClient) send(msg any) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = c.in.Write(append(data, '\n'))
	return err
}

// call sends a request and returns its result, skipping notifications.
func (c *localClient) call(method string, params any) (json.RawMessage, error) {
	c.nextID++
	id := c.nextID
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("reading the answer to %s: %w", method, err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil || m.ID == nil || *m.ID != id || m.Method != "" {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		return m.Result, nil
	}
}

func (c *localClient) close(ctx context.Context) {
	c.in.Close()
	<-c.done
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
	defer cancel()
	closeAll(sctx, c.atts)
	proc.StopAll(sctx)
}

// listTools prints tools/list's tools for the configured surface.
func listTools(ctx context.Context, cfg *config, stdout, stderr io.Writer) int {
	c, err := startLocal(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "agent-tools tools: %v\n", err)
		return 1
	}
	defer c.close(ctx)
	res, err := c.call("tools/list", map[string]any{})
	if err != nil {
		fmt.Fprintf(stderr, "agent-tools tools: %v\n", err)
		return 1
	}
	var out struct {
		Tools json.RawMessage `json:"tools"`
	}
	json.Unmarshal(res, &out)
	return printJSON(stdout, out.Tools)
}

// callOnce makes one tools/call; the exit code is 1 when the tool failed.
func callOnce(ctx context.Context, cfg *config, stdout, stderr io.Writer) int {
	if len(cfg.args) < 1 || len(cfg.args) > 2 {
		fmt.Fprintln(stderr, "agent-tools call: want TOOL [JSON-ARGUMENTS]")
		return 2
	}
	args := json.RawMessage("{}")
	if len(cfg.args) == 2 {
		args = json.RawMessage(cfg.args[1])
		if !json.Valid(args) {
			fmt.Fprintf(stderr, "agent-tools call: the arguments are not valid JSON: %s\n", cfg.args[1])
			return 2
		}
	}
	c, err := startLocal(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "agent-tools call: %v\n", err)
		return 1
	}
	defer c.close(ctx)
	res, err := c.call("tools/call", map[string]any{"name": cfg.args[0], "arguments": args})
	if err != nil {
		fmt.Fprintf(stderr, "agent-tools call: %v\n", err)
		return 1
	}
	code := printJSON(stdout, res)
	var r struct {
		IsError bool `json:"isError"`
	}
	json.Unmarshal(res, &r)
	if r.IsError && code == 0 {
		code = 1
	}
	return code
}

func printJSON(w io.Writer, raw json.RawMessage) int {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		fmt.Fprintf(w, "%s\n", raw)
		return 1
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	fmt.Fprintf(w, "%s\n", out)
	return 0
}

// This file wires the capability packages into a registry. Each
// capability's own wiring is in wire_<capability>.go.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/agent-tools/agent-tools/rpc"
)

// extraTools, when set, adds tools to every registry. Only tests set it
// (main_test.go): the shipped binary registers nothing that is not backed
// by a real resource.
var extraTools func(cfg *config) []*rpc.Tool

// longTools are the tools whose calls may run long (a debuggee running to
// its next stop, a cell, a server still indexing): for a client that
// declares MCP 2026-07-28's Tasks extension, such a call becomes a task
// after --task-after. vibe_wait says so in its own spec.
var longTools = []string{"debug", "eval", "lsp"}

// capabilities are the attach functions, in doctor's order. Each returns
// the capability's tools when its resource attached, or why not.
var capabilities = []func(cfg *config) rpc.Attachment{
	attachLSP,
	attachPatterns,
	attachDebug,
	attachEval,
	attachWorkers,
}

// attachAll asks every capability package whether its resource attached.
func attachAll(cfg *config) []rpc.Attachment {
	applyEnvPolicy(cfg)
	atts := make([]rpc.Attachment, len(capabilities))
	for i, attach := range capabilities {
		atts[i] = attach(cfg)
	}
	return atts
}

// buildRegistry registers the tools and methods of every attached
// capability.
func buildRegistry(cfg *config, atts []rpc.Attachment) *rpc.Registry {
	reg := rpc.NewRegistry()
	for _, a := range atts {
		reg.Add(markLong(a.Tools)...)
		for name, h := range a.Methods {
			reg.HandleMethod(name, h)
		}
		if a.AfterWrite != nil {
			reg.AfterWrite(a.Capability, a.AfterWrite)
		}
		if a.BeforeCall != nil {
			reg.BeforeCall(a.BeforeCall)
		}
	}
	if extraTools != nil {
		reg.Add(markLong(extraTools(cfg))...)
	}
	return reg
}

func markLong(tools []*rpc.Tool) []*rpc.Tool {
	for _, t := range tools {
		if slices.Contains(longTools, t.Spec().Name) {
			t.MarkLong()
		}
	}
	return tools
}

// closeAll releases every capability's resources.
func closeAll(ctx context.Context, atts []rpc.Attachment) error {
	var errs []error
	for _, a := range atts {
		if a.Close != nil {
			if err := a.Close(ctx); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", a.Capability, err))
			}
		}
	}
	return errors.Join(errs...)
}

// loadConfigFile reads --config FILE: a JSON object with one optional
// section per capability ("lsp", "patterns", "debug", "eval", "workers"),
// each decoded by its capability, and "env" (wire_env.go).
func loadConfigFile(path string) (map[string]json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sections map[string]json.RawMessage
	if err := json.Unmarshal(data, &sections); err != nil {
		return nil, fmt.Errorf("%s: want a JSON object with one section per capability: %w", path, err)
	}
	for name := range sections {
		switch name {
		case "lsp", "patterns", "debug", "eval", "workers", "env":
		default:
			return nil, fmt.Errorf("%s: unknown section %q (want lsp, patterns, debug, eval, workers or env)", path, name)
		}
	}
	return sections, nil
}

// section returns the config file's section for a capability, or nil.
func (c *config) section(name string) json.RawMessage {
	return c.sections[name]
}

// This file wires the capability packages into a registry.

package main

import (
	"github.com/agent-tools/agent-tools/dapbridge"
	"github.com/agent-tools/agent-tools/kernel"
	"github.com/agent-tools/agent-tools/lspbridge"
	"github.com/agent-tools/agent-tools/patterns"
	"github.com/agent-tools/agent-tools/rpc"
	"github.com/agent-tools/agent-tools/workers"
)

// extraTools, when set, adds tools to every registry. Only tests set it
// (main_test.go): the shipped binary registers nothing that is not backed
// by a real resource.
var extraTools func(cfg *config) []*rpc.Tool

// attachAll asks every capability package whether its resource attached.
func attachAll(cfg *config) []rpc.Attachment {
	return []rpc.Attachment{
		lspbridge.Attach(cfg.root),
		patterns.Attach(cfg.root),
		dapbridge.Attach(cfg.root),
		kernel.Attach(cfg.root),
		workers.Attach(cfg.root, cfg.workers),
	}
}

// buildRegistry registers the tools of every attached capability.
func buildRegistry(cfg *config, atts []rpc.Attachment) *rpc.Registry {
	reg := rpc.NewRegistry()
	for _, a := range atts {
		reg.Add(a.Tools...)
	}
	if extraTools != nil {
		reg.Add(extraTools(cfg)...)
	}
	return reg
}

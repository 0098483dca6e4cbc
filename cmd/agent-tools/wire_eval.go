// This file wires the eval capability (kernel).

package main

import (
	"regexp"
	"strings"

	"github.com/agent-tools/agent-tools/conformance"
	"github.com/agent-tools/agent-tools/kernel"
	"github.com/agent-tools/agent-tools/rpc"
)

func attachEval(cfg *config) rpc.Attachment {
	return kernel.Attach(cfg.root, cfg.section("eval"), cfg.logger("eval"))
}

// versionRE is an interpreter version as eval's status line and hints
// write it.
var versionRE = regexp.MustCompile(`\b(Python|Node) \d+\.\d+\.\d+\b`)

// interpreterVersions normalises the interpreter versions in eval's
// results ("Python 3.11.2" → "Python $VERSION"): they are the machine's,
// not agent-tools'.
func interpreterVersions(msg map[string]any) {
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case string:
			return versionRE.ReplaceAllString(v, "${1} "+strings.ReplaceAll(conformance.Version, "$", "$$"))
		case map[string]any:
			for k, x := range v {
				v[k] = walk(x)
			}
		case []any:
			for i, x := range v {
				v[i] = walk(x)
			}
		}
		return v
	}
	walk(msg)
}

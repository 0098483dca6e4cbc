// This file adapts the workers to package rpc.

package workers

import "github.com/agent-tools/agent-tools/rpc"

// Attach reports the ask_user and vibe_* capability. workerCommands maps a
// tier (fast, good) to the command configured for it.
func Attach(root string, workerCommands map[string]string) rpc.Attachment {
	a := rpc.Attachment{
		Capability: "workers",
		Reason:     "the ask_user and vibe_* tools are not built yet (issue 7)",
	}
	for _, tier := range []string{"fast", "good"} {
		cmd, ok := workerCommands[tier]
		c := rpc.Check{Name: "worker " + tier, OK: ok, Detail: cmd}
		if !ok {
			c.Detail = "no command configured (--worker " + tier + "=CMD)"
		}
		a.Checks = append(a.Checks, c)
	}
	return a
}

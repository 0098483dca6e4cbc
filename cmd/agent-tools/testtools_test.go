package main

// This file defines the tools only the test binary registers. They let the
// end-to-end tests exercise tiers, cancellation and child processes before
// the real capability tools exist, and they are never in the shipped
// binary.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
	"github.com/agent-tools/agent-tools/rpc"
)

type echoArgs struct {
	Text string `json:"text" jsonschema_description:"text to echo back"`
}

type echoResult struct {
	Echo string `json:"echo" jsonschema_description:"the text"`
}

func (r echoResult) Text() string { return r.Echo }

type noArgs struct{}

type statusArgs struct {
	WaitCancelled int `json:"wait_cancelled,omitempty" jsonschema_description:"wait (up to 5 s) until this many cancelled calls were seen"`
}

type statusResult struct {
	Cancelled int64 `json:"cancelled" jsonschema_description:"calls whose context was done"`
}

type spawnResult struct {
	Pid        int `json:"pid" jsonschema_description:"the child's pid"`
	Grandchild int `json:"grandchild" jsonschema_description:"the pid of the child's own child"`
}

// cancelledCalls counts test_block calls whose context was done.
var cancelledCalls atomic.Int64

func testTools(*config) []*rpc.Tool {
	return []*rpc.Tool{
		rpc.NewTool(rpc.Spec{Name: "test_echo", Tier: rpc.TierRead, Description: `test only: echoes {"text": "hi"}`},
			func(ctx context.Context, a echoArgs) (echoResult, error) {
				return echoResult{Echo: a.Text}, nil
			}),
		rpc.NewTool(rpc.Spec{Name: "test_write", Tier: rpc.TierWrite, Description: "test only: a write-tier tool that writes nothing"},
			func(ctx context.Context, a echoArgs) (echoResult, error) {
				return echoResult{Echo: "would write " + a.Text}, nil
			}),
		rpc.NewTool(rpc.Spec{Name: "test_spawn", Tier: rpc.TierExec, Description: "test only: starts a long-running child (with a grandchild) that prints to its stdout and stderr"},
			spawnChild),
		rpc.NewTool(rpc.Spec{Name: "test_block", Tier: rpc.TierRead, Description: "test only: blocks until cancelled"},
			func(ctx context.Context, a noArgs) (echoResult, error) {
				<-ctx.Done()
				cancelledCalls.Add(1)
				return echoResult{}, ctx.Err()
			}),
		rpc.NewTool(rpc.Spec{Name: "test_status", Tier: rpc.TierRead, Description: "test only: how many test_block calls saw their context done"},
			func(ctx context.Context, a statusArgs) (statusResult, error) {
				testutil.Poll(5*time.Second, func() bool { return cancelledCalls.Load() >= int64(a.WaitCancelled) })
				return statusResult{Cancelled: cancelledCalls.Load()}, nil
			}),
		rpc.NewTool(rpc.Spec{Name: "test_panic", Tier: rpc.TierRead, Description: "test only: panics"},
			func(ctx context.Context, a noArgs) (echoResult, error) {
				panic("test_panic was called")
			}),
	}
}

// spawnChild starts, through internal/proc, a shell that prints to both
// streams and leaves a grandchild running; the child is left running so
// the tests can check who cleans it up.
func spawnChild(ctx context.Context, _ noArgs) (spawnResult, error) {
	p, err := proc.Start(proc.Spec{
		Name:   "test-child",
		Path:   "sh",
		Args:   []string{"-c", `echo to-stdout; echo to-stderr >&2; sleep 300 & echo "$!"; exec sleep 301`},
		Stdout: true,
	})
	if err != nil {
		return spawnResult{}, err
	}
	r := bufio.NewReader(p.Stdout())
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return spawnResult{}, errors.New("the child ended before printing its grandchild's pid")
		}
		if n, err := strconv.Atoi(strings.TrimSpace(line)); err == nil {
			return spawnResult{Pid: p.Pid(), Grandchild: n}, nil
		}
		if strings.TrimSpace(line) != "to-stdout" {
			return spawnResult{}, fmt.Errorf("unexpected line from the child: %q", line)
		}
	}
}

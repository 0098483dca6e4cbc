package main

// This file defines `make bench` for the server spine: agent-tools side by
// side with a peer MCP server built on the official Go SDK, each driven
// through real pipes by the same client code, reported as ratios.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runSDKPeer serves one echo tool with the official MCP Go SDK on stdio:
// the peer agent-tools' protocol overhead is measured against. TestMain
// runs it when AGENT_TOOLS_BENCH_PEER=1.
func runSDKPeer() int {
	srv := mcp.NewServer(&mcp.Implementation{Name: "sdk-peer", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "test_echo", Description: "echoes"},
		func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, echoResult, error) {
			return nil, echoResult{Echo: a.Text}, nil
		})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// startPeer starts agent-tools, or the SDK peer, with stderr discarded.
func startPeer(b *testing.B, peer string) *server {
	b.Helper()
	var cmd *exec.Cmd
	switch peer {
	case "agent-tools":
		cmd = testBinaryCmd(context.Background(), "serve", "--root", b.TempDir(), "--log-level", "off")
	case "go-sdk":
		cmd = exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "AGENT_TOOLS_BENCH_PEER=1")
	}
	return startCmd(b, cmd)
}

func benchColdStart(peer string) func(b *testing.B) {
	return func(b *testing.B) {
		for b.Loop() {
			s := startPeer(b, peer)
			s.initialize()
			s.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 2)
			s.close()
		}
	}
}

func benchCall(peer string) func(b *testing.B) {
	return func(b *testing.B) {
		s := startPeer(b, peer)
		defer s.close()
		s.initialize()
		id := 1
		for b.Loop() {
			id++
			s.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"test_echo","arguments":{"text":"hi"}}}`, id), id)
		}
	}
}

// benchRow is one line of the bench table: the same work done through
// agent-tools and by the peer people would otherwise use, in the same run.
// Capability bench files add their rows from init.
type benchRow struct {
	name     string
	peerName string
	ours     func(b *testing.B)
	peer     func(b *testing.B)
	needs    func() string // "" when the row can run, else why not
	// rounds > 1 runs ours and the peer alternately that many times and
	// reports the median of each side: for rows of seconds per op, where
	// one sample would be at the mercy of a burst of load on a shared
	// machine landing on one side only.
	rounds int
}

// measure runs a row's two sides and returns their ns/op.
func (r benchRow) measure() (ours, peer int64) {
	if r.rounds <= 1 {
		return testing.Benchmark(r.ours).NsPerOp(), testing.Benchmark(r.peer).NsPerOp()
	}
	var oursNs, peerNs []int64
	for range r.rounds {
		oursNs = append(oursNs, testing.Benchmark(r.ours).NsPerOp())
		peerNs = append(peerNs, testing.Benchmark(r.peer).NsPerOp())
	}
	slices.Sort(oursNs)
	slices.Sort(peerNs)
	return oursNs[len(oursNs)/2], peerNs[len(peerNs)/2]
}

var benchRows = []benchRow{
	{name: "cold start → tools/list", peerName: "go-sdk server", ours: benchColdStart("agent-tools"), peer: benchColdStart("go-sdk")},
	{name: "tools/call round trip", peerName: "go-sdk server", ours: benchCall("agent-tools"), peer: benchCall("go-sdk")},
}

// benchTargets are the targets the issues set, by row-name prefix.
var benchTargets = []struct{ prefix, target string }{
	{"lsp definition", "≤ 1.05× or ≤ +2 ms"},
	{"lsp references", "≤ 1.05× or ≤ +2 ms"},
	{"lsp hover", "≤ 1.05× or ≤ +2 ms"},
	{"lsp incoming_calls", "≤ +2 ms"},
	{"didWrite", "≤ +30 ms"},
	{"lsp cross-file", "≤ +30 ms, never stale"},
	{"eval 1+1 round trip (python)", "≤ 2 ms"},
	{"python kernel cold start", "≤ 150 ms"},
	{"debug launch", "≤ +50 ms"},
	{"debug stack", "≤ +5 ms"},
	{"debug locals", "≤ +5 ms"},
	{"ast_grep", "≤ 1.0× (≤ 0.5× with a literal anchor)"},
}

func benchTarget(name string) string {
	for _, t := range benchTargets {
		if strings.HasPrefix(name, t.prefix) {
			return t.target
		}
	}
	return "—"
}

// TestBenchTable prints the benchmark table as markdown: every row the
// capability bench files registered, side by side with its peer, in one
// run, then the server's idle RSS. It measures and reports; it asserts
// nothing about time. Run it with `make bench`.
func TestBenchTable(t *testing.T) {
	if os.Getenv("AGENT_TOOLS_BENCH") != "1" {
		// Not a missing tool but an opt-in: measuring takes minutes and
		// belongs to make bench, never to make test.
		t.Skip("set AGENT_TOOLS_BENCH=1 (make bench) to measure")
	}
	// Rows are printed as they finish: the whole table takes minutes.
	fmt.Println("| measure | agent-tools | peer | peer is | ratio | target |")
	fmt.Println("|---|---:|---:|---|---:|---|")
	// AGENT_TOOLS_BENCH_ROWS (make bench ROWS=regexp) runs only the rows
	// whose name matches.
	only, err := regexp.Compile(os.Getenv("AGENT_TOOLS_BENCH_ROWS"))
	if err != nil {
		t.Fatalf("AGENT_TOOLS_BENCH_ROWS: %v", err)
	}
	var details []benchRow
	for _, r := range benchRows {
		if !only.MatchString(r.name) {
			continue
		}
		if r.ours == nil || r.peer == nil {
			details = append(details, r) // prints its own block after the table
			continue
		}
		if r.needs != nil {
			if why := r.needs(); why != "" {
				fmt.Printf("| %s | — | — | %s | skipped: %s | %s |\n", r.name, r.peerName, why, benchTarget(r.name))
				continue
			}
		}
		ours, peer := r.measure()
		ratio := float64(ours) / float64(peer)
		fmt.Printf("| %s | %s | %s | %s | %.2f× | %s |\n", r.name, dur(ours), dur(peer), r.peerName, ratio, benchTarget(r.name))
	}
	ours, peer := idleRSS(t, "agent-tools"), idleRSS(t, "go-sdk")
	fmt.Printf("| idle RSS after initialize + tools/list | %d MiB | %d MiB | go-sdk server | %.2f× | — |\n", ours>>10, peer>>10, float64(ours)/float64(peer))
	for _, r := range details {
		fmt.Println()
		fmt.Printf("%s: %s\n", r.name, r.needs())
	}
}

// idleRSS starts a server, initializes it, lists its tools and reads its
// resident set size (KiB) from /proc.
func idleRSS(t *testing.T, peer string) int64 {
	var kib int64
	testing.Benchmark(func(b *testing.B) {
		s := startPeer(b, peer)
		defer s.close()
		s.initialize()
		s.roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 2)
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range strings.Split(string(status), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kib)
			}
		}
		for b.Loop() {
		}
	})
	if kib == 0 {
		t.Errorf("could not read the RSS of %s", peer)
	}
	return kib
}

func dur(ns int64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", float64(ns)/1e6)
	default:
		return fmt.Sprintf("%.1f µs", float64(ns)/1e3)
	}
}

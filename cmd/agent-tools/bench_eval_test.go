package main

// This file adds the eval rows to `make bench`: a cell round trip through
// agent-tools vs the same cell sent to the kernel driver directly (the
// kernel package's Go API over its fd 3/4 protocol, no MCP), and a Python
// kernel's cold start through agent-tools vs a bare interpreter start.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-tools/agent-tools/kernel"
)

func init() {
	benchRows = append(benchRows,
		benchRow{name: "eval 1+1 round trip (python)", peerName: "raw driver", ours: benchEvalCall(kernel.Python), peer: benchDriverCall(kernel.Python), needs: evalBenchNeeds},
		benchRow{name: "eval 1+1 round trip (javascript)", peerName: "raw driver", ours: benchEvalCall(kernel.JavaScript), peer: benchDriverCall(kernel.JavaScript), needs: evalBenchNeeds},
		benchRow{name: "python kernel cold start + 1 cell", peerName: "python3 -c pass", ours: benchEvalColdStart, peer: benchBarePython, needs: evalBenchNeeds},
	)
}

func evalBenchNeeds() string {
	for _, p := range []string{evalPython, "node"} {
		if _, err := exec.LookPath(p); err != nil {
			return p + " not found"
		}
	}
	return ""
}

// startEvalPeer is agent-tools serving eval with Debian's python3.
func startEvalPeer(b *testing.B) *server {
	b.Helper()
	dir := b.TempDir()
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, []byte(`{"eval":{"python":"`+evalPython+`"}}`), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := testBinaryCmd(context.Background(), "serve", "--root", dir, "--log-level", "off", "--config", cfg)
	s := startCmd(b, cmd)
	s.initialize()
	return s
}

func evalLine(id int, lang kernel.Language, code string, reset bool) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"eval","arguments":{"code":%q,"description":"add one and one for the bench","language":%q,"reset":%v}}}`,
		id, code, lang, reset)
}

func benchEvalCall(lang kernel.Language) func(b *testing.B) {
	return func(b *testing.B) {
		s := startEvalPeer(b)
		defer s.close()
		s.roundTrip(evalLine(2, lang, "1+1", false), 2) // start the kernel
		id := 2
		for b.Loop() {
			id++
			s.roundTrip(evalLine(id, lang, "1+1", false), id)
		}
	}
}

func benchDriverCall(lang kernel.Language) func(b *testing.B) {
	return func(b *testing.B) {
		interp, err := kernel.FindInterpreter(lang, kernel.Options{Python: evalPython}, "")
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		k, err := kernel.Start(ctx, kernel.StartSpec{Lang: lang, Interp: interp, Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer k.Stop(ctx)
		for b.Loop() {
			if r := k.Run(ctx, kernel.RunSpec{Code: "1+1"}); r.Status != kernel.StatusOK {
				b.Fatalf("1+1: %+v", r)
			}
		}
	}
}

func benchEvalColdStart(b *testing.B) {
	s := startEvalPeer(b)
	defer s.close()
	id := 1
	for b.Loop() {
		id++
		s.roundTrip(evalLine(id, kernel.Python, "1+1", true), id)
	}
}

func benchBarePython(b *testing.B) {
	for b.Loop() {
		if err := exec.Command(evalPython, "-c", "pass").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

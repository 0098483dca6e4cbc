# agent-tools — build, run, test, bench.
#
#   make run     install tools, build, and show agent-tools serving this repo
#   make test    install tools and run every test (what CI runs)
#   make soak    larger random samples of the differential tests

GO       ?= go
BIN      := bin/agent-tools
VERSION  := $(shell git describe --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -X main.version=$(VERSION)
# The Dart grammar is compiled in only when its sources were fetched (by
# scripts/install-tools.sh); `=` so the check runs after `tools`.
DART_SRC := third_party/npm/node_modules/tree-sitter-dart/src/parser.c
TAGS      = $(if $(wildcard $(DART_SRC)),-tags dart)
# Tools installed with `go install` live here; tests find them on PATH.
export PATH := $(shell $(GO) env GOPATH)/bin:$(PATH)

# Packages whose tests also run under the race detector: the protocol
# machinery, the process supervisors (internal/proc and each capability's),
# the transcript replayer and the end-to-end tests of the binary.
RACE_PKGS := ./rpc/... ./schema/... ./internal/... ./conformance/... ./cmd/... \
	./lspbridge/... ./dapbridge/... ./kernel/... ./workers/... ./patterns/...
# Each fuzzer runs for a count of inputs sized to roughly 10-15 s here.
# A count, not a duration: with a duration, Go 1.26's fuzz coordinator can
# fail a clean run with a bare "context deadline exceeded" when the
# deadline and its own shutdown race (go.dev/issue/75804, fixed in 1.27).
# FUZZTIME=2m (or 1000000x) overrides every budget for a longer local run.
FUZZTIME  ?=
# go test's own limit per package binary: its 10-minute default is too
# short for lspbridge on a loaded machine (issue 23); a hang still ends.
TEST_TIMEOUT ?= 30m
fuzzbudget = $(if $(FUZZTIME),$(FUZZTIME),$(1))

.PHONY: all tools build run test test-race fuzz bench vet soak clean

all: build

tools:
	@bash scripts/install-tools.sh

build:
	$(GO) build $(TAGS) -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/agent-tools

# The embedded default workspace is this repository.
INIT := {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"make-run","version":"0"}}}
run: tools build
	$(BIN) doctor --root .
	@echo
	@echo "# a live session: initialize, tools/list"
	@printf '%s\n' '$(INIT)' '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
		'{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | $(BIN) serve --root . --log-level warn

# go mod tidy needs -e: the Swift grammar module's own tests import a
# module the proxy does not serve. -diff changes nothing and fails when
# go.mod or go.sum is not tidy.
vet:
	$(GO) vet $(TAGS) ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	@$(GO) mod tidy -e -diff 2>/dev/null || { echo "go.mod/go.sum are not tidy: run go mod tidy -e"; exit 1; }
	staticcheck $(TAGS) ./...

test: tools vet
	$(GO) test $(TAGS) -count=1 -timeout $(TEST_TIMEOUT) ./...
	$(GO) test $(TAGS) -count=1 -timeout $(TEST_TIMEOUT) -race $(RACE_PKGS)

fuzz:
	$(GO) test ./rpc -run '^$$' -fuzz '^FuzzLine$$' -fuzztime $(call fuzzbudget,10000x)
	$(GO) test ./schema -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(call fuzzbudget,150000x)
	$(GO) test ./schema -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(call fuzzbudget,120000x)
	$(GO) test ./conformance -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(call fuzzbudget,200000x)
	$(GO) test $(TAGS) ./patterns -run '^$$' -fuzz '^FuzzCompile$$' -fuzztime $(call fuzzbudget,60000x) -fuzzminimizetime 2s
	$(GO) test $(TAGS) ./patterns -run '^$$' -fuzz '^FuzzMatch$$' -fuzztime $(call fuzzbudget,50000x) -fuzzminimizetime 2s
	$(GO) test $(TAGS) ./patterns -run '^$$' -fuzz '^FuzzRule$$' -fuzztime $(call fuzzbudget,40000x) -fuzzminimizetime 2s
	$(GO) test $(TAGS) ./patterns -run '^$$' -fuzz '^FuzzSplitPython$$' -fuzztime $(call fuzzbudget,50000x) -fuzzminimizetime 2s
	$(GO) test $(TAGS) ./patterns -run '^$$' -fuzz '^FuzzSplitGo$$' -fuzztime $(call fuzzbudget,50000x) -fuzzminimizetime 2s
	$(GO) test $(TAGS) ./patterns -run '^$$' -fuzz '^FuzzSplitC$$' -fuzztime $(call fuzzbudget,50000x) -fuzzminimizetime 2s
	$(GO) test $(TAGS) ./patterns -run '^$$' -fuzz '^FuzzDirectiveLines$$' -fuzztime $(call fuzzbudget,60000x) -fuzzminimizetime 2s
	$(GO) test ./internal/frame -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(call fuzzbudget,300000x)

# Side by side with the peer in the same run, reported as ratios.
# ROWS=regexp runs only the matching rows (e.g. make bench ROWS=lsp).
bench: tools build
	AGENT_TOOLS_BENCH=1 AGENT_TOOLS_BENCH_ROWS='$(ROWS)' $(GO) test $(TAGS) -count=1 -timeout 60m -run '^TestBenchTable$$' -v ./cmd/agent-tools/ \
		| grep -v -e '^=== RUN' -e '^--- PASS' -e '^PASS' -e '^ok'

# The differential tests against the raw language servers on a larger
# sample drawn from the clock (the seed is printed; AGENT_TOOLS_SEED=n
# replays a draw, AGENT_TOOLS_POSITIONS=n sets the positions per language).
soak: tools
	AGENT_TOOLS_SOAK=1 $(GO) test $(TAGS) -count=1 -timeout 60m -v -run '^TestRawDiff' ./internal/lspdiff/

clean:
	rm -rf bin

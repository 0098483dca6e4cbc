package main

// This file is the load test of issue 8: 200 concurrent read-tier calls
// (ast_grep, lsp hover and lsp definition) from one client over one
// connection, with notifications/cancelled for half of them sent right
// after each. Every call is answered or cancelled, none twice, nothing
// deadlocks, and under `go test -race` the re-executed server is
// race-instrumented too (it would exit 66 on a race).

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

const (
	loadCalls = 200
	loadBound = 2 * time.Minute // the whole burst, on a loaded 2-core machine
)

// loadWorkspace is a small Go module.
const loadWorkspace = `-- go.mod --
module load

go 1.22
-- main.go --
package main

import "fmt"

func main() {
	fmt.Println(Shout("hi"), Add(1, 2))
}
-- util.go --
package main

import "fmt"

// Shout adds an exclamation mark.
func Shout(s string) string { return fmt.Sprint(s, "!") }

// Add adds.
func Add(a, b int) int { return a + b }
`

// loadCall is the i-th call of the burst: ast_grep, hover or definition.
func loadCall(i int) (tool string, args map[string]any) {
	switch i % 3 {
	case 0:
		return "ast_grep", map[string]any{"pattern": "fmt.$F($$$A)", "language": "go"}
	case 1:
		return "lsp", map[string]any{"action": "hover", "file": "main.go", "line": 6, "symbol": "Shout"}
	}
	return "lsp", map[string]any{"action": "definition", "file": "main.go", "line": 6, "symbol": "Add"}
}

func TestLoadConcurrentCallsWithCancellation(t *testing.T) {
	testutil.Needs(t, "gopls")
	root := faultsRealPath(t, t.TempDir())
	testutil.WriteTree(t, root, loadWorkspace)
	e := &faultsEnv{root: root}
	e.s = startServer(t, "--root", root, "--log-level", "warn")
	e.s.initialize()
	e.id = 1
	// Warm gopls up, so that the burst measures serving, not loading.
	for _, i := range []int{1, 2} {
		tool, args := loadCall(i)
		e.until(t, tool, args, func(r callResult, _ string) bool { return !r.Result.IsError })
	}

	const first = 1000 // ids of the burst: first … first+loadCalls-1
	cancelled := func(id int) bool { return (id-first)%2 == 1 }
	var (
		mu        sync.Mutex
		answers   = map[int]int{} // id → responses
		failed    = map[int]string{}
		sent      int
		maxOpen   int
		remaining = loadCalls / 2 // uncancelled calls not yet answered
	)
	allAnswered := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for line := range e.s.lines {
			var m struct {
				ID     *int            `json:"id"`
				Method string          `json:"method"`
				Error  json.RawMessage `json:"error"`
				Raw    json.RawMessage `json:"result"`
			}
			if json.Unmarshal([]byte(line), &m) != nil || m.Method != "" || m.ID == nil {
				continue
			}
			var r struct{ IsError bool }
			json.Unmarshal(m.Raw, &r)
			mu.Lock()
			id := *m.ID
			answers[id]++
			if m.Error != nil || r.IsError {
				failed[id] = line
			}
			maxOpen = max(maxOpen, sent-len(answers))
			if !cancelled(id) && id >= first && answers[id] == 1 {
				if remaining--; remaining == 0 {
					close(allAnswered)
				}
			}
			mu.Unlock()
		}
	}()

	start := time.Now()
	for i := range loadCalls {
		id := first + i
		tool, args := loadCall(i)
		a, _ := json.Marshal(args)
		mu.Lock()
		sent++
		mu.Unlock()
		e.s.send(toolCallLine(id, tool, string(a)))
		if cancelled(id) {
			e.s.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"load test"}}`, id))
		}
	}
	select {
	case <-allAnswered:
	case <-time.After(loadBound):
		mu.Lock()
		t.Fatalf("deadlock? %d uncancelled calls unanswered after %v", remaining, loadBound)
	}
	elapsed := time.Since(start)
	// Closing stdin drains the calls still in flight; every line the
	// server writes is read before the counts are checked.
	e.s.stdin.Close()
	select {
	case <-readerDone:
	case <-time.After(testutil.IntegrationTimeout()):
		t.Fatal("agent-tools did not close its stdout after stdin EOF")
	}
	<-e.s.ended
	if code := e.s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("agent-tools exit code %d (66 is a data race under -race)", code)
	}
	var cancelledAnswered int
	for i := range loadCalls {
		id := first + i
		n := answers[id]
		switch {
		case n > 1:
			t.Errorf("call %d answered %d times", id, n)
		case !cancelled(id) && n == 0:
			t.Errorf("call %d lost", id)
		case !cancelled(id) && failed[id] != "":
			t.Errorf("call %d failed: %s", id, failed[id])
		case cancelled(id) && n == 1:
			cancelledAnswered++
		}
	}
	for id := range answers {
		if id < first || id >= first+loadCalls {
			t.Errorf("an answer to id %d, which was never sent", id)
		}
	}
	t.Logf("%d concurrent calls (%d cancelled: %d of them finished first and were answered), at most %d sent and not yet answered; burst answered in %v",
		loadCalls, loadCalls/2, cancelledAnswered, maxOpen, elapsed.Round(time.Millisecond))
}

// This file holds the seed of the tests that draw at random (a corpus,
// positions, mutations), so that every draw can be replayed.

package testutil

import (
	"os"
	"strconv"
	"testing"
	"time"
)

const seedEnv = "AGENT_TOOLS_SEED"

// Seed is the seed of a test's draw: AGENT_TOOLS_SEED when set (a value
// that is not a whole number fails t), else the clock for a soak, else ci
// (CI replays one fixed draw). It logs the seed and how to replay it.
func Seed(t testing.TB, ci uint64, soak bool) uint64 {
	t.Helper()
	seed := ci
	if soak {
		seed = uint64(time.Now().UnixNano())
	}
	if s := os.Getenv(seedEnv); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", seedEnv, s, err)
		}
		seed = n
	}
	t.Logf("seed %d (replay with %s=%d)", seed, seedEnv, seed)
	return seed
}

package patterns

import (
	"context"
	"os"
	"testing"
)

// BenchmarkSearchCorpus measures a search of $AGENT_TOOLS_PATTERNS_CORPUS
// (a directory) for $AGENT_TOOLS_PATTERNS_PATTERN in
// $AGENT_TOOLS_PATTERNS_LANGUAGE with one worker: a per-core measure for
// tuning. make bench compares with ast-grep instead.
func BenchmarkSearchCorpus(b *testing.B) {
	dir := os.Getenv("AGENT_TOOLS_PATTERNS_CORPUS")
	if dir == "" {
		b.Skip("set AGENT_TOOLS_PATTERNS_CORPUS, _PATTERN and _LANGUAGE")
	}
	for b.Loop() {
		res, err := Search(context.Background(), dir, os.Getenv("AGENT_TOOLS_PATTERNS_PATTERN"),
			SearchOptions{Language: os.Getenv("AGENT_TOOLS_PATTERNS_LANGUAGE"), Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Total), "matches")
	}
}

// This file holds the one polling loop tests share: waiting for a condition
// that nothing signals (a process gone, a log line written by another
// goroutine, a file appearing).

package testutil

import (
	"testing"
	"time"
)

// Poll calls cond until it returns true or within has passed, and reports
// whether it did. It returns as soon as cond is true; between calls it
// sleeps 5 ms at first, doubling up to 100 ms. For a caller that reports a
// failure itself (with what it found last); [Eventually] fails for it.
func Poll(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for pause := 5 * time.Millisecond; ; pause = min(2*pause, 100*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
	}
}

// Eventually polls cond (as [Poll] does) until it returns true, and fails t
// with the message (format and args, as fmt.Sprintf) when
// [IntegrationTimeout] passes first.
func Eventually(t testing.TB, cond func() bool, format string, args ...any) {
	t.Helper()
	if within := IntegrationTimeout(); !Poll(within, cond) {
		t.Fatalf("after %v: "+format, append([]any{within}, args...)...)
	}
}

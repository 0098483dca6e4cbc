//go:build race

package main

// hostileRSSLimitKB bounds the server's peak RSS after the huge lines of
// TestHostileHugeLine; the race detector's shadow memory multiplies it.
const hostileRSSLimitKB = 400 << 10

//go:build !race

package main

// hostileRSSLimitKB bounds the server's peak RSS after the huge lines of
// TestHostileHugeLine.
const hostileRSSLimitKB = 200 << 10

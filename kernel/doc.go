// Package kernel runs persistent Python and JavaScript interpreters for the
// eval tool: supervised kernel processes with embedded driver scripts, a
// framed protocol on extra file descriptors, the tool() bridge and the
// idle budget.
//
// Only tools.go adapts it to package rpc; the rest is a plain Go API.
package kernel

// Package dapbridge drives debug adapters over DAP: the adapter registry,
// the DAP client, the one-session-per-conversation supervisor and the
// debug tool.
//
// Only tools.go adapts it to package rpc; the rest is a plain Go API.
package dapbridge

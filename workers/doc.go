// Package workers runs background worker processes for the vibe_* tools
// and asks the person questions for ask_user.
//
// Only tools.go adapts it to package rpc; the rest is a plain Go API.
package workers

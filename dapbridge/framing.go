// This file defines the reading side of DAP's Content-Length framing, with
// bounds. go-dap's ReadBaseMessage caps the body at 4 MiB but reads the
// header up to the first '\r' however far away it is, so an adapter that
// writes garbage without one grows our memory without limit.

package dapbridge

import (
	"bufio"

	"github.com/agent-tools/agent-tools/internal/frame"
)

const (
	// maxMessageBytes bounds one message body from a debug adapter; it is
	// go-dap's own limit.
	maxMessageBytes = 4 << 20
)

// readFrame reads one message within the bounds above.
func readFrame(r *bufio.Reader) ([]byte, error) {
	return frame.Read(r, "dap", maxMessageBytes)
}

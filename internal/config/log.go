// This file routes the decoder's deprecation warnings to a capability's
// logger, so that they reach stderr through the run's log like every other
// line agent-tools writes there.

package config

import (
	"bytes"
	"io"
	"strings"

	"github.com/rs/zerolog"
)

// LogWarnings returns a writer for [Decode]'s warn argument that turns
// each warning into a warn-level line on log. A nil log gives a nil
// writer: the warnings are dropped.
func LogWarnings(log *zerolog.Logger) io.Writer {
	if log == nil {
		return nil
	}
	return logWriter{log}
}

type logWriter struct{ log *zerolog.Logger }

// Write logs each line of p; Decode writes one warning per call.
func (w logWriter) Write(p []byte) (int, error) {
	for line := range bytes.Lines(p) {
		msg := strings.TrimPrefix(strings.TrimSpace(string(line)), warnPrefix)
		if msg != "" {
			w.log.Warn().Msg(msg)
		}
	}
	return len(p), nil
}

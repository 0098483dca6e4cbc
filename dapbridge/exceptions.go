// This file defines exceptions: the stop's exception (DAP exceptionInfo),
// and the exceptions op that lists and sets the adapter's exception
// filters.

package dapbridge

import (
	"context"
	"slices"
	"strings"

	"github.com/google/go-dap"
)

// exceptionInfo asks the adapter what the stop's exception is, once per
// stop, when it supports the request; otherwise (or when it fails) the
// stop event's own text stands in.
func (s *session) exceptionInfo(ctx context.Context, tid int, sn snapshot) *ExceptionInfo {
	s.mu.Lock()
	e := s.exception
	s.mu.Unlock()
	if e != nil {
		return e
	}
	e = &ExceptionInfo{Type: sn.stop.Description, Message: sn.stop.Text}
	if s.caps.SupportsExceptionInfoRequest {
		var body dap.ExceptionInfoResponseBody
		if s.conn.call(ctx, "exceptionInfo", map[string]any{"threadId": tid}, requestTimeout, &body) == nil {
			e = exceptionFrom(body, sn.stop)
		}
	}
	if e.Type == "" {
		e.Type = sn.stop.Reason
	}
	s.mu.Lock()
	if s.gen == sn.gen {
		s.exception = e
	}
	s.mu.Unlock()
	return e
}

// exceptionFrom reads an exceptionInfo answer: debugpy gives the type as
// exceptionId and the message as description; delve gives "panic" or
// "fatal error" and the value; lldb-dap the signal or "C++ Throw".
func exceptionFrom(b dap.ExceptionInfoResponseBody, stop dap.StoppedEventBody) *ExceptionInfo {
	e := &ExceptionInfo{Type: b.ExceptionId, Message: b.Description}
	if b.Details != nil {
		if b.Details.TypeName != "" && e.Type == "" {
			e.Type = b.Details.TypeName
		}
		if e.Message == "" {
			e.Message = b.Details.Message
		}
	}
	if e.Message == "" {
		e.Message = stop.Text
	}
	e.Message = strings.TrimSpace(e.Message)
	if r := []rune(e.Message); len(r) > maxValueLen {
		e.Message = string(r[:maxValueLen]) + "…"
	}
	return e
}

// applyExceptionFilters sets the exception breakpoints at the start:
// want, or when nil the filters the adapter advertises as on by default
// (what an IDE does: debugpy's uncaught, delve's panics). An adapter that
// advertises no filters is sent nothing. Filters the adapter does not
// know are dropped and reported by the exceptions op.
func (s *session) applyExceptionFilters(ctx context.Context, want []string) error {
	if len(s.caps.ExceptionBreakpointFilters) == 0 {
		return nil
	}
	filters := []string{}
	for _, f := range s.caps.ExceptionBreakpointFilters {
		if want == nil && f.Default || want != nil && slices.Contains(want, f.Filter) {
			filters = append(filters, f.Filter)
		}
	}
	if err := s.conn.call(ctx, "setExceptionBreakpoints", map[string]any{"filters": filters}, requestTimeout, nil); err != nil {
		return err
	}
	s.mu.Lock()
	s.filters = filters
	s.mu.Unlock()
	return nil
}

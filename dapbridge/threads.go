// This file finds the other threads of a stop that are parked at a
// breakpoint: debugpy reports one stopped event when two threads hit
// breakpoints together, and a continue resumes both, so without this the
// second hit was never seen.

package dapbridge

import (
	"context"
	"path/filepath"
	"slices"
)

// maxParkedLookups bounds the stackTrace requests one stop may send to
// look for parked threads.
const maxParkedLookups = 10

// Parked is another thread of the stop, stopped at one of the session's
// breakpoints.
type Parked struct {
	ThreadID int    `json:"threadId" jsonschema_description:"the thread, for thread_id"`
	File     string `json:"file" jsonschema_description:"source file of its top frame"`
	Line     int    `json:"line" jsonschema_description:"the breakpoint's line"`
	Function string `json:"function,omitempty" jsonschema_description:"function of its top frame"`
}

// parkedThreads lists the threads other than tid whose top frame is on a
// line where this session set a breakpoint, for a debugpy stop with all
// threads stopped. It asks only when the thread events name other live
// threads (a one-thread program sends no request), at most
// maxParkedLookups of them, once per stop; more says how many threads were
// not looked at.
func (s *session) parkedThreads(ctx context.Context, sn snapshot, tid int) (parked []Parked, more int) {
	if s.adapter.id != "debugpy" || !sn.stop.AllThreadsStopped {
		return nil, 0
	}
	s.mu.Lock()
	if s.parkedGen == sn.gen {
		parked, more = s.parked, s.parkedMore
		s.mu.Unlock()
		return parked, more
	}
	var others []int
	for id := range s.threadIDs {
		if id != tid {
			others = append(others, id)
		}
	}
	lines := s.bpLines
	s.mu.Unlock()
	slices.Sort(others)
	if len(others) > maxParkedLookups {
		more = len(others) - maxParkedLookups
		others = others[:maxParkedLookups]
	}
	for _, id := range others {
		c, err := s.framesOf(ctx, id, 1)
		if err != nil || len(c.frames) == 0 {
			continue
		}
		f := c.frames[0]
		if f.Source == nil || f.Source.Path == "" {
			continue
		}
		s.mu.Lock()
		hit := lines[filepath.Clean(f.Source.Path)][f.Line]
		s.mu.Unlock()
		if hit {
			parked = append(parked, Parked{ThreadID: id, File: s.rel(f.Source.Path), Line: f.Line, Function: f.Name})
		}
	}
	s.mu.Lock()
	if s.gen == sn.gen {
		s.parked, s.parkedMore, s.parkedGen = parked, more, sn.gen
	}
	s.mu.Unlock()
	return parked, more
}

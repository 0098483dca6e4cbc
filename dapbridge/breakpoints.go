// This file defines source breakpoints: the per-line spec (a plain line,
// or one with a condition, a hit condition or a log message), how each
// adapter is sent it, and how its answer is read back.

package dapbridge

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/google/go-dap"
)

// LineSpec is one breakpoint line. A plain line stops every time; a
// condition stops only when it is true, a hit condition only on the hits
// it selects, and a log message makes it a logpoint: it prints (to the
// output op) and never stops.
type LineSpec struct {
	Line         int    `json:"line" jsonschema_description:"1-based line"`
	Condition    string `json:"condition,omitempty" jsonschema_description:"stop only when this expression, in the program's language, is true"`
	HitCondition string `json:"hit_condition,omitempty" jsonschema_description:"stop only on these hits: N or == N (the Nth), >= N, > N, % N (every Nth)"`
	LogMessage   string `json:"log_message,omitempty" jsonschema_description:"a logpoint: print this (with {expression} parts interpolated) instead of stopping"`
}

// hitRe is the hit-condition grammar we accept, the one delve and debugpy
// share: an optional operator and a count.
var hitRe = regexp.MustCompile(`^\s*(==|>=|>|%)?\s*([0-9]+)\s*$`)

// parseHit splits a hit condition into its operator ("==" when none) and
// count, or says what is wrong with it.
func parseHit(h string) (string, int, error) {
	m := hitRe.FindStringSubmatch(h)
	if m == nil {
		return "", 0, fmt.Errorf("hit_condition %q: want N, == N, >= N, > N or %% N", h)
	}
	n, err := strconv.Atoi(m[2])
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("hit_condition %q: want a count ≥ 1", h)
	}
	op := m[1]
	if op == "" {
		op = "=="
	}
	return op, n, nil
}

// checkSpecs validates a file's breakpoint list from the agent: lines ≥ 1,
// no line twice, hit conditions in the grammar. It returns the list sorted.
func checkSpecs(specs []LineSpec) ([]LineSpec, error) {
	out := append([]LineSpec(nil), specs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	for i, l := range out {
		if l.Line < 1 {
			return nil, fmt.Errorf("argument 'lines': want lines ≥ 1, got %d", l.Line)
		}
		if i > 0 && out[i-1].Line == l.Line {
			if out[i-1] != l {
				return nil, fmt.Errorf("argument 'lines': line %d is given twice, differently", l.Line)
			}
			continue
		}
		if l.HitCondition != "" {
			if _, _, err := parseHit(l.HitCondition); err != nil {
				return nil, fmt.Errorf("argument 'lines', line %d: %w", l.Line, err)
			}
		}
	}
	// Drop exact duplicates.
	dedup := out[:0]
	for i, l := range out {
		if i == 0 || out[i-1].Line != l.Line {
			dedup = append(dedup, l)
		}
	}
	return dedup, nil
}

// sourceBreakpoint is what one line is sent as, or why it is not sent:
// an adapter that does not support a field would ignore it, and a
// breakpoint that stops every time when a condition was asked for is a
// lie, so such a line is not set at all.
func (s *session) sourceBreakpoint(l LineSpec) (dap.SourceBreakpoint, string) {
	b := dap.SourceBreakpoint{Line: l.Line, Condition: l.Condition, LogMessage: l.LogMessage}
	name := s.adapter.id
	switch {
	case l.Condition != "" && !s.caps.SupportsConditionalBreakpoints:
		return b, "not set: " + name + " does not support conditions"
	case l.LogMessage != "" && !s.caps.SupportsLogPoints:
		return b, "not set: " + name + " does not support log messages"
	case l.HitCondition != "" && !s.caps.SupportsHitConditionalBreakpoints:
		return b, "not set: " + name + " does not support hit conditions"
	}
	if l.HitCondition == "" {
		return b, ""
	}
	op, n, err := parseHit(l.HitCondition)
	if err != nil {
		return b, "not set: " + err.Error()
	}
	switch {
	case name != "lldb":
		b.HitCondition = fmt.Sprintf("%s %d", op, n)
	// lldb-dap reads a hit condition as a plain count and makes it an
	// ignore count (stop from the Nth hit on): only >= and > fit.
	case op == ">=":
		b.HitCondition = strconv.Itoa(n)
	case op == ">":
		b.HitCondition = strconv.Itoa(n + 1)
	default:
		return b, fmt.Sprintf("not set: lldb-dap supports only >= N and > N hit conditions (it skips the first N-1 hits), not %q", l.HitCondition)
	}
	return b, ""
}

// replayBreakpoints sends the conversation's breakpoint table, one
// setBreakpoints per file with its full line list.
func (s *session) replayBreakpoints(ctx context.Context, table map[string][]LineSpec) ([]Breakpoint, error) {
	files := make([]string, 0, len(table))
	for f := range table {
		files = append(files, f)
	}
	sort.Strings(files)
	var out []Breakpoint
	for _, f := range files {
		bps, err := s.setBreakpoints(ctx, f, table[f])
		if err != nil {
			return nil, err
		}
		out = append(out, bps...)
	}
	return out, nil
}

// setBreakpointsArgs has no omitempty on breakpoints: an empty list must
// be sent as [] (debugpy's pydevd crashes when the key is missing).
type setBreakpointsArgs struct {
	Source      dap.Source             `json:"source"`
	Breakpoints []dap.SourceBreakpoint `json:"breakpoints"`
}

// setBreakpoints replaces the breakpoints of one file.
func (s *session) setBreakpoints(ctx context.Context, file string, lines []LineSpec) ([]Breakpoint, error) {
	args := setBreakpointsArgs{
		Source:      dap.Source{Name: filepath.Base(file), Path: file},
		Breakpoints: make([]dap.SourceBreakpoint, 0, len(lines)),
	}
	out := make([]Breakpoint, len(lines))
	sent := make([]int, 0, len(lines)) // index in out of each one sent
	for i, l := range lines {
		out[i] = breakpointOf(s.rel(file), l)
		b, why := s.sourceBreakpoint(l)
		if why != "" {
			out[i].Message = why
			continue
		}
		args.Breakpoints = append(args.Breakpoints, b)
		sent = append(sent, i)
	}
	var body dap.SetBreakpointsResponseBody
	if err := s.conn.call(ctx, "setBreakpoints", args, requestTimeout, &body); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.bpLines == nil {
		s.bpLines = map[string]map[int]bool{}
	}
	delete(s.bpLines, file)
	if len(args.Breakpoints) > 0 {
		set := map[int]bool{}
		for _, b := range args.Breakpoints {
			set[b.Line] = true
		}
		for _, b := range body.Breakpoints {
			if b.Line > 0 {
				set[b.Line] = true
			}
		}
		s.bpLines[file] = set
	}
	s.mu.Unlock()
	for k, i := range sent {
		if k >= len(body.Breakpoints) {
			out[i].Message = "the adapter did not answer for this line"
			continue
		}
		b := body.Breakpoints[k]
		out[i].Verified = b.Verified
		out[i].Message = b.Message
		if b.Line != 0 && b.Line != lines[i].Line {
			out[i].MovedTo = b.Line
		}
	}
	return out, nil
}

// breakpointOf is the answer's entry for a line, before the adapter's
// verdict.
func breakpointOf(file string, l LineSpec) Breakpoint {
	return Breakpoint{File: file, Line: l.Line, Condition: l.Condition, HitCondition: strings.TrimSpace(l.HitCondition), LogMessage: l.LogMessage}
}

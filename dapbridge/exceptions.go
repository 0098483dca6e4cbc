// This file defines exceptions: the stop's exception (DAP exceptionInfo),
// and the exceptions op that lists and sets the adapter's exception
// filters.

package dapbridge

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
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
	if s.adapter.id == "lldb" && e.Type == "cpp_throw" {
		if t := s.cxxThrow(ctx, tid); t != nil {
			e = t
		}
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
	if u, err := strconv.Unquote(e.Message); err == nil && strings.HasPrefix(e.Message, `"`) {
		e.Message = u // delve shows a panic's string value quoted
	}
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

// ExceptionFilter is one of the adapter's exception filters.
type ExceptionFilter struct {
	ID      string `json:"id" jsonschema_description:"the filter id, for the filters argument"`
	Label   string `json:"label" jsonschema_description:"the adapter's name for it"`
	Enabled bool   `json:"enabled" jsonschema_description:"whether it is set in this session"`
	Default bool   `json:"default,omitempty" jsonschema_description:"whether the adapter turns it on by default"`
}

// filterList is the adapter's filters and which are set.
func (s *session) filterList() []ExceptionFilter {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ExceptionFilter
	for _, f := range s.caps.ExceptionBreakpointFilters {
		out = append(out, ExceptionFilter{ID: f.Filter, Label: f.Label, Enabled: slices.Contains(s.filters, f.Filter), Default: f.Default})
	}
	return out
}

// unknownFilters are the ids in want that the adapter does not advertise.
func (s *session) unknownFilters(want []string) []string {
	var out []string
	for _, w := range want {
		if !slices.ContainsFunc(s.caps.ExceptionBreakpointFilters, func(f dap.ExceptionBreakpointsFilter) bool { return f.Filter == w }) {
			out = append(out, w)
		}
	}
	return out
}

func (s *session) filterIDs() string {
	var ids []string
	for _, f := range s.caps.ExceptionBreakpointFilters {
		ids = append(ids, f.Filter)
	}
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// exceptions runs the exceptions op: without filters it lists the
// session's adapter's filters; with them it sets exactly those (and
// remembers them for the next session of the same adapter). With no
// session, filters (for the adapter named) are kept for the next one.
func (s *Supervisor) exceptions(ctx context.Context, c *conversation, r Request) (*Result, error) {
	res := s.result(ctx, c, r.Op)
	sess := c.sess
	if sess == nil || sess.ended() {
		if r.Filters == nil {
			res.Notice = "no live session: an adapter lists its exception filters once a session runs. Until set, a session uses the adapter's defaults (debugpy: uncaught; delve: unrecovered panics and runtime fatal throws; lldb-dap: none)"
			return res, nil
		}
		a := adapterByID(r.Adapter)
		if a == nil {
			return nil, errors.New("op exceptions: with no live session, argument 'adapter' is required (delve, debugpy, lldb or dart): filter ids are each adapter's own")
		}
		c.exceptions[a.id] = slices.Clone(*r.Filters)
		set := "no filters, so exceptions do not stop the program"
		if len(*r.Filters) > 0 {
			set = strings.Join(*r.Filters, ", ") + "; ids the adapter does not advertise are reported at launch"
		}
		res.Notice = fmt.Sprintf("kept for the next %s session: %s", a.id, set)
		return res, nil
	}
	if r.Filters != nil {
		want := slices.Clone(*r.Filters)
		if bad := sess.unknownFilters(want); len(bad) > 0 {
			return nil, fmt.Errorf("op exceptions: %s does not advertise the filter(s) %s; it has: %s", sess.adapter.id, strings.Join(bad, ", "), sess.filterIDs())
		}
		if len(sess.caps.ExceptionBreakpointFilters) == 0 {
			return nil, fmt.Errorf("op exceptions: %s advertises no exception filters", sess.adapter.id)
		}
		if err := sess.applyExceptionFilters(ctx, want); err != nil {
			return nil, fmt.Errorf("op exceptions: %w", err)
		}
		c.exceptions[sess.adapter.id] = want
	}
	res.Exceptions = sess.filterList()
	if len(res.Exceptions) == 0 {
		res.Notice = sess.adapter.id + " advertises no exception filters"
	}
	return res, nil
}

// throwRegs are the registers holding __cxa_throw's first two arguments
// (the exception object and its std::type_info) at its entry, per
// architecture.
var throwRegs = map[string][2]string{"amd64": {"$rdi", "$rsi"}, "arm64": {"$x0", "$x1"}}

// cxxThrow names a C++ exception stopped at by lldb-dap's cpp_throw
// filter, which reports only "C++ Throw": at __cxa_throw's entry it reads
// the thrown type's name from its type_info (the second word of the
// Itanium ABI's type_info) and, for the standard library's exception
// types, what() through the vtable. Nothing is needed from the program's
// debug info, which seldom describes std::type_info. It returns nil when
// the stop is not there or the registers are unknown.
func (s *session) cxxThrow(ctx context.Context, tid int) *ExceptionInfo {
	regs, ok := throwRegs[runtime.GOARCH]
	if !ok {
		return nil
	}
	c, err := s.framesOf(ctx, tid, 1)
	if err != nil || len(c.frames) == 0 || c.frames[0].Name != "__cxa_throw" {
		return nil
	}
	frame := c.frames[0].Id
	eval := func(expr string) string {
		var body dap.EvaluateResponseBody
		args := map[string]any{"expression": expr, "frameId": frame, "context": "watch"}
		if s.conn.call(ctx, "evaluate", args, requestTimeout, &body) != nil {
			return ""
		}
		return cString(body.Result)
	}
	mangled := eval(fmt.Sprintf("*(const char **)(%s + sizeof(void *))", regs[1]))
	if mangled == "" {
		return nil
	}
	e := &ExceptionInfo{Type: demangleType(mangled)}
	if stdException.MatchString(mangled) {
		e.Message = eval(fmt.Sprintf("((const char *(*)(void *))(*(void ***)%s)[2])((void *)%s)", regs[0], regs[0]))
	}
	return e
}

// stdException matches the mangled names of std::exception and the
// standard types derived from it, whose vtable slot 2 is what().
var stdException = regexp.MustCompile(`^St[0-9]+(exception|[a-z_]*error|bad_[a-z_]+|out_of_range|invalid_argument|length_error|domain_error)$`)

// cString reads lldb's display of a char pointer: 0x… "text" → text.
func cString(v string) string {
	i := strings.IndexByte(v, '"')
	if i < 0 {
		return ""
	}
	if u, err := strconv.Unquote(v[i:]); err == nil {
		return u
	}
	return strings.Trim(v[i:], `"`)
}

// demangleType reads the simple forms of an Itanium mangled type name:
// St13runtime_error → std::runtime_error, 7MyError → MyError,
// N2ns7MyErrorE → ns::MyError; anything else is returned as is.
func demangleType(m string) string {
	var parts []string
	rest := m
	switch {
	case strings.HasPrefix(rest, "St"):
		parts, rest = append(parts, "std"), rest[2:]
	case strings.HasPrefix(rest, "N") && strings.HasSuffix(rest, "E"):
		rest = rest[1 : len(rest)-1]
		if strings.HasPrefix(rest, "St") {
			parts, rest = append(parts, "std"), rest[2:]
		}
	}
	for rest != "" {
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(rest[:j])
		if j == 0 || err != nil || j+n > len(rest) {
			return m
		}
		parts, rest = append(parts, rest[j:j+n]), rest[j+n:]
	}
	if len(parts) == 0 {
		return m
	}
	return strings.Join(parts, "::")
}

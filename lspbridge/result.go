// This file defines the results of the lsp and lsp_rename tools and of
// agent-tools/didWrite, with their text form for models.

package lspbridge

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Loc is one location in a result.
type Loc struct {
	Path string `json:"path" jsonschema_description:"file, relative to the root when inside it"`
	Line int    `json:"line" jsonschema_description:"1-based line"`
	Col  int    `json:"col" jsonschema_description:"1-based column, in characters"`
	Text string `json:"text" jsonschema_description:"the source line, trimmed"`
}

func (l Loc) String() string { return fmt.Sprintf("%s:%d:%d  %s", l.Path, l.Line, l.Col, l.Text) }

// Diag is one diagnostic in a result.
type Diag struct {
	Path     string `json:"path" jsonschema_description:"file, relative to the root when inside it"`
	Line     int    `json:"line" jsonschema_description:"1-based line"`
	Col      int    `json:"col" jsonschema_description:"1-based column, in characters"`
	Severity string `json:"severity" jsonschema_description:"error, warning, info or hint"`
	Code     string `json:"code,omitempty" jsonschema_description:"the diagnostic's code, when it has one"`
	Source   string `json:"source,omitempty" jsonschema_description:"who reported it, e.g. compiler"`
	Message  string `json:"message" jsonschema_description:"the message"`
	Text     string `json:"-"` // the source line, trimmed: picks which copy of a repeated diagnostic is new
}

func (d Diag) String() string {
	s := fmt.Sprintf("%s:%d:%d  %s  %s", d.Path, d.Line, d.Col, d.Severity, normalizeMessage(d.Message))
	var tag []string
	if d.Source != "" {
		tag = append(tag, d.Source)
	}
	if d.Code != "" {
		tag = append(tag, d.Code)
	}
	if len(tag) > 0 {
		s += " [" + strings.Join(tag, " ") + "]"
	}
	return s
}

func severityRank(s string) int {
	return slices.Index(severityNames[:], s)
}

// sortDiags orders diagnostics errors first, then by file and position.
func sortDiags(ds []Diag) {
	slices.SortStableFunc(ds, func(a, b Diag) int {
		return cmp.Or(cmp.Compare(severityRank(a.Severity), severityRank(b.Severity)),
			cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
}

// codeString renders a diagnostic code (number, string or absent).
func codeString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// Sym is one symbol in a result.
type Sym struct {
	Name      string `json:"name" jsonschema_description:"the symbol's name"`
	Kind      string `json:"kind" jsonschema_description:"function, method, class, ..."`
	Path      string `json:"path" jsonschema_description:"file, relative to the root when inside it"`
	Line      int    `json:"line" jsonschema_description:"1-based line of its name"`
	Col       int    `json:"col" jsonschema_description:"1-based column of its name"`
	Depth     int    `json:"depth,omitempty" jsonschema_description:"nesting depth in a document outline"`
	Container string `json:"container,omitempty" jsonschema_description:"enclosing symbol, for workspace results"`
}

func (s Sym) String() string {
	c := ""
	if s.Container != "" {
		c = " in " + s.Container
	}
	return fmt.Sprintf("%s:%d:%d  %s%s %s%s", s.Path, s.Line, s.Col, strings.Repeat("  ", s.Depth), s.Kind, s.Name, c)
}

// Action is one code action offered.
type Action struct {
	Title string `json:"title" jsonschema_description:"what the action does"`
	Kind  string `json:"kind,omitempty" jsonschema_description:"e.g. quickfix, refactor.extract"`
}

// Result is the lsp tool's answer.
type Result struct {
	Action         string         `json:"action" jsonschema_description:"the action that ran"`
	Server         string         `json:"server,omitempty" jsonschema_description:"the language server that answered"`
	Target         string         `json:"target,omitempty" jsonschema_description:"what line+symbol resolved to, as path:line:col symbol"`
	Aim            string         `json:"aim,omitempty" jsonschema_description:"set when the symbol is on the line only as part of a longer name, which the answer is for"`
	Summary        string         `json:"summary" jsonschema_description:"one line: what was found, with N of M shown when capped"`
	Shown          int            `json:"shown" jsonschema_description:"how many items are listed"`
	Total          int            `json:"total" jsonschema_description:"how many the server returned"`
	Locations      []Loc          `json:"locations,omitempty" jsonschema_description:"definition, type_definition, implementation, references"`
	Calls          []Call         `json:"calls,omitempty" jsonschema_description:"incoming_calls, outgoing_calls, type_hierarchy: one per call site (per type), in tree order, nearest levels kept first when capped"`
	Hover          string         `json:"hover,omitempty" jsonschema_description:"hover, as markdown, cut after 40 lines"`
	HoverMoreLines int            `json:"hoverMoreLines,omitempty" jsonschema_description:"how many lines of the hover were cut"`
	Symbols        []Sym          `json:"symbols,omitempty" jsonschema_description:"symbols"`
	Diagnostics    []Diag         `json:"diagnostics,omitempty" jsonschema_description:"diagnostics, errors first"`
	CodeActions    []Action       `json:"codeActions,omitempty" jsonschema_description:"code_actions (titles only: nothing is applied)"`
	Servers        []ServerStatus `json:"servers,omitempty" jsonschema_description:"status and reload"`
	Hidden         int            `json:"hidden,omitempty" jsonschema_description:"symbols: entries left out (an outline's parameters, locals, anonymous and deeper entries; workspace symbols outside the root), with how to see them in the summary"`
	Old            int            `json:"old,omitempty" jsonschema_description:"diagnostics with since: errors and warnings that were there before, not listed"`
	Incomplete     string         `json:"incomplete,omitempty" jsonschema_description:"set when the answer may be incomplete (the server was still loading or indexing), with why"`
	raw            string         // when set, the whole text (a hook's JSON answer)
	all            []Diag         // diagnostics "*": every one found, before the cap
	how            string         // diagnostics "*": what ran and what was not checked
}

// Text is the result for a model: the target and summary, then one
// greppable line per item.
func (r *Result) Text() string {
	if r.raw != "" {
		return r.raw
	}
	var b strings.Builder
	if r.Target != "" {
		fmt.Fprintf(&b, "%s: %s\n", r.Action, r.Target)
	}
	if r.Aim != "" {
		b.WriteString(r.Aim + "\n")
	}
	if r.Summary != "" {
		b.WriteString(r.Summary + "\n")
	}
	for _, l := range r.Locations {
		b.WriteString(l.String() + "\n")
	}
	for _, c := range r.Calls {
		b.WriteString(c.String() + "\n")
	}
	for _, s := range r.Symbols {
		b.WriteString(s.String() + "\n")
	}
	for _, d := range r.Diagnostics {
		b.WriteString(d.String() + "\n")
	}
	for _, a := range r.CodeActions {
		if a.Kind != "" {
			fmt.Fprintf(&b, "%s  (%s)\n", a.Title, a.Kind)
		} else {
			b.WriteString(a.Title + "\n")
		}
	}
	for _, s := range r.Servers {
		b.WriteString(s.line() + "\n")
	}
	if r.Hover != "" {
		b.WriteString(r.Hover + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// shownOf is "N of M <what> shown".
func shownOf(shown, total int, what string) string {
	return strconv.Itoa(shown) + " of " + strconv.Itoa(total) + " " + what + " shown"
}

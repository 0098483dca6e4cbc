// This file adapts the language-server bridge to package rpc: the lsp and
// lsp_rename tools, the agent-tools/didWrite method and the attachment.

package lspbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/rpc"
)

// Attach builds the lsp capability for a run rooted at root (used only for
// probing; each call reads the session's root). section is the config
// file's "lsp" section, or nil; log gets the servers' lifecycle (starts,
// crashes, restarts, hangs; nil: discarded). The tools are always
// attached: whether a server can start is decided per call, and status
// says why not. idents reads files with their grammar for lsp_rename's
// search of uses the server missed (nil: a plain word search).
func Attach(root string, section json.RawMessage, log *zerolog.Logger, idents IdentifierFinder) rpc.Attachment {
	opts, err := ParseConfig(section, log)
	if err != nil {
		return rpc.Attachment{Capability: "lsp", Reason: err.Error()}
	}
	opts.Identifiers = idents
	sup := NewSupervisor(opts, log)
	t := &toolSet{sup: sup, root: root}
	a := rpc.Attachment{
		Capability: "lsp",
		Tools: []*rpc.Tool{
			rpc.NewTool(rpc.Spec{Name: "lsp", Tier: rpc.TierRead, Description: lspDescription}, t.lsp),
			rpc.NewTool(rpc.Spec{Name: "lsp_rename", Tier: rpc.TierWrite, Description: renameDescription}, t.rename),
		},
		Methods:    map[string]rpc.MethodHandler{"agent-tools/didWrite": t.didWrite},
		AfterWrite: t.afterWrite,
		BeforeCall: t.beforeCall,
		Close:      sup.Close,
	}
	a.Probe = func() []rpc.Check { return serverChecks(opts) }
	return a
}

// serverChecks probes each server for doctor (see ProbeServers).
func serverChecks(opts *Options) []rpc.Check {
	ctx, cancel := context.WithTimeout(context.Background(), 2*probeTimeout)
	defer cancel()
	var out []rpc.Check
	for _, p := range ProbeServers(ctx, opts) {
		c := rpc.Check{Name: p.Language + " (" + p.Name + ")", OK: p.Starts, Detail: p.Detail}
		if p.Found && !p.Starts {
			c.State = "broken"
		}
		out = append(out, c)
	}
	return out
}

const lspDescription = `Ask the language server about code. A position is a 1-based line plus a symbol on that line, never a column.
Actions: definition, type_definition, implementation, references, hover, code_actions, incoming_calls, outgoing_calls, type_hierarchy (file, line, symbol); symbols (query: workspace search; or file: its outline); diagnostics (file, or "*": the project checker); written (file, or none: whatever changed on disk): the errors a write introduced; status; reload.
Example: {"action": "definition", "file": "cmd/main.go", "line": 12, "symbol": "Serve"}`

const renameDescription = `Rename a symbol across the project through its language server; every file changes or none.
Example: {"file": "util.go", "line": 3, "symbol": "Shout", "new_name": "Yell"}`

type toolSet struct {
	sup  *Supervisor
	root string // the --root the run started with; sessions may override it
}

// runRoot is the session's root, read at call time.
func (t *toolSet) runRoot(ctx context.Context) string {
	return rpc.Root(ctx, t.root)
}

type lspArgs struct {
	Action           string `json:"action" jsonschema:"enum=definition,enum=type_definition,enum=implementation,enum=references,enum=hover,enum=symbols,enum=code_actions,enum=diagnostics,enum=status,enum=reload,enum=incoming_calls,enum=outgoing_calls,enum=type_hierarchy,enum=written" jsonschema_description:"what to ask"`
	File             string `json:"file,omitempty" jsonschema_description:"path relative to the root; \"*\" with diagnostics runs the project checker"`
	Line             int    `json:"line,omitempty" jsonschema_description:"1-based line of the symbol"`
	Symbol           string `json:"symbol,omitempty" jsonschema_description:"the symbol's text on that line, e.g. Serve or http.Serve"`
	Occurrence       int    `json:"occurrence,omitempty" jsonschema_description:"which occurrence on the line (1-based), when it appears more than once"`
	Query            string `json:"query,omitempty" jsonschema_description:"symbols: workspace search text; without it, the file's outline"`
	Depth            int    `json:"depth,omitempty" jsonschema_description:"hierarchies: levels to walk, 1-3 (default 1); symbols with file: outline depth 1-10"`
	Direction        string `json:"direction,omitempty" jsonschema:"enum=subtypes,enum=supertypes" jsonschema_description:"type_hierarchy: subtypes (default) or supertypes"`
	Format           string `json:"format,omitempty" jsonschema:"enum=text,enum=claude_hook" jsonschema_description:"written: claude_hook answers as a Claude Code PostToolUse hook"`
	IncludeLibraries bool   `json:"include_libraries,omitempty" jsonschema_description:"symbols with query: also list matches outside the root"`
	Since            string `json:"since,omitempty" jsonschema:"enum=head,enum=last" jsonschema_description:"diagnostics: only new ones, vs the file at git HEAD or vs your last diagnostics call"`
}

func (t *toolSet) lsp(ctx context.Context, a lspArgs) (*Result, error) {
	root := t.runRoot(ctx)
	req := Request{Root: root, File: a.File, Line: a.Line, Symbol: a.Symbol, Occurrence: a.Occurrence, Query: a.Query,
		Depth: a.Depth, IncludeLibraries: a.IncludeLibraries, Since: a.Since,
		Progress: func(m string) { rpc.ReportProgress(ctx, 0, 0, m) }}
	if a.Since != "" && a.Action != "diagnostics" {
		return nil, fmt.Errorf("argument 'since': only diagnostics takes since, not %s", a.Action)
	}
	switch a.Action {
	case "definition", "type_definition", "implementation", "references", "hover", "code_actions",
		"incoming_calls", "outgoing_calls", "type_hierarchy":
		if err := needFileLine(a); err != nil {
			return nil, err
		}
		return t.atPosition(ctx, a, req)
	case "symbols":
		return t.sup.Symbols(ctx, req)
	case "written":
		return t.written(ctx, root, a)
	case "diagnostics":
		if a.File == "" {
			return nil, fmt.Errorf("argument 'file': diagnostics needs a file, or \"*\" for the whole project")
		}
		return t.sup.Diagnostics(ctx, req)
	case "status":
		st := t.sup.Status(root)
		return &Result{Action: "status", Servers: st, Shown: len(st), Total: len(st), Summary: fmt.Sprintf("%d servers known for this root", len(st))}, nil
	case "reload":
		return t.reload(ctx, root, a)
	}
	return nil, fmt.Errorf("argument 'action': unknown action %q", a.Action)
}

// atPosition runs the actions aimed at a file and line.
func (t *toolSet) atPosition(ctx context.Context, a lspArgs, req Request) (*Result, error) {
	switch a.Action {
	case "hover":
		return t.sup.Hover(ctx, req)
	case "code_actions":
		return t.sup.CodeActions(ctx, req)
	case "incoming_calls", "outgoing_calls":
		if a.Direction != "" {
			return nil, fmt.Errorf("argument 'direction': only type_hierarchy takes a direction; %s follows calls", a.Action)
		}
		return t.sup.Calls(ctx, a.Action, req, a.Depth)
	case "type_hierarchy":
		return t.sup.TypeHierarchy(ctx, req, a.Direction, a.Depth)
	}
	return t.sup.Locations(ctx, a.Action, req)
}

// reload restarts the root's servers, or the one serving a.File.
func (t *toolSet) reload(ctx context.Context, root string, a lspArgs) (*Result, error) {
	file := ""
	if a.File != "" {
		p, err := resolvePath(root, a.File)
		if err != nil {
			return nil, err
		}
		file = p
	}
	st, err := t.sup.Reload(ctx, root, file)
	if err != nil && st == nil {
		return nil, err
	}
	r := &Result{Action: "reload", Servers: st, Shown: len(st), Total: len(st), Summary: fmt.Sprintf("%d servers restarted", len(st))}
	if err != nil {
		r.Summary += "; errors: " + err.Error()
	}
	return r, nil
}

func needFileLine(a lspArgs) error {
	switch {
	case a.File == "":
		return fmt.Errorf("argument 'file': %s needs file, line and symbol", a.Action)
	case a.Line == 0:
		return fmt.Errorf("argument 'line': line is required for %s: the 1-based line the symbol is on", a.Action)
	case a.Line < 1:
		return fmt.Errorf("argument 'line': %s needs a 1-based line, got %d", a.Action, a.Line)
	case a.Symbol == "":
		return fmt.Errorf("argument 'symbol': %s needs the symbol's text on line %d (a column is never guessed)", a.Action, a.Line)
	}
	return nil
}

type renameArgs struct {
	File       string `json:"file" jsonschema_description:"path relative to the root"`
	Line       int    `json:"line" jsonschema_description:"1-based line of the symbol"`
	Symbol     string `json:"symbol" jsonschema_description:"the symbol's current name on that line"`
	Occurrence int    `json:"occurrence,omitempty" jsonschema_description:"which occurrence on the line (1-based), when it appears more than once"`
	NewName    string `json:"new_name" jsonschema_description:"the new name: an identifier"`
	// A refusal lists the uses; the flag is how the model says it read them.
	IgnoreTextual bool `json:"ignore_textual,omitempty" jsonschema_description:"rename although a word search finds the old name in files the server leaves (a refusal lists them)"`
}

func (t *toolSet) rename(ctx context.Context, a renameArgs) (*RenameResult, error) {
	if a.Line == 0 {
		return nil, errors.New("argument 'line': line is required for lsp_rename: the 1-based line the symbol is on")
	}
	if a.Line < 1 {
		return nil, fmt.Errorf("argument 'line': want a 1-based line, got %d", a.Line)
	}
	req := Request{Root: t.runRoot(ctx), File: a.File, Line: a.Line, Symbol: a.Symbol, Occurrence: a.Occurrence, IgnoreTextual: a.IgnoreTextual,
		Progress: func(m string) { rpc.ReportProgress(ctx, 0, 0, m) }}
	return t.sup.Rename(ctx, req, a.NewName)
}

type didWriteParams struct {
	Paths []string `json:"paths"`
}

// afterWrite answers another tool's write (resolve accept) as didWrite
// does: the new diagnostics the write caused, wherever they are.
func (t *toolSet) afterWrite(ctx context.Context, root string, paths []string) (string, any) {
	res, err := t.sup.DidWrite(ctx, root, paths)
	if err != nil {
		return "language servers: " + err.Error(), nil
	}
	if res.Text == "" {
		if len(res.Checked) == 0 {
			return "", nil
		}
		// didWrite's empty text means "nothing to say"; a writer's
		// answer says that it was checked, so silence is not mistaken
		// for "not looked at".
		return "no new errors or warnings (checked: " + strings.Join(res.Checked, ", ") + ")", res
	}
	return res.Text, res
}

// didWrite serves agent-tools/didWrite {paths}.
func (t *toolSet) didWrite(ctx context.Context, raw json.RawMessage) (any, error) {
	var p didWriteParams
	if err := json.Unmarshal(orNull(raw), &p); err != nil {
		return nil, fmt.Errorf("%w: agent-tools/didWrite wants {\"paths\": [\"file\", ...]} (no paths: whatever changed on disk)", rpc.ErrInvalidParams)
	}
	root := t.runRoot(ctx)
	if len(p.Paths) == 0 {
		changed := t.sup.ChangedOnDisk(root)
		if len(changed) == 0 {
			return &WriteResult{Diagnostics: []Diag{}}, nil
		}
		p.Paths = changed
	}
	return t.sup.DidWrite(ctx, root, p.Paths)
}

// This file finds what changed on disk behind the servers' backs (an agent
// CLI's own edit tool, a shell, sed, git) and reports it through the next
// answer: no agent CLI sends agent-tools/didWrite, so without this the
// errors such a write introduced would never reach the model.

package lspbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
)

// changedCap bounds how many changed files one report checks; the rest
// are named as not checked.
const changedCap = 20

// ChangedOnDisk returns the files under root that a running server has
// open or has seen and whose content on disk is no longer what the server
// has: written by something other than our own tools since the server
// last looked. Deleted files are left out.
func (s *Supervisor) ChangedOnDisk(root string) []string {
	var out []string
	for _, srv := range s.running(root) {
		type entry struct {
			path string
			st   stamp
			text string
			open bool
		}
		srv.mu.Lock()
		es := make([]entry, 0, len(srv.seen))
		for p, st := range srv.seen {
			e := entry{path: p, st: st}
			if d := srv.docs[p]; d != nil {
				e.st, e.text, e.open = d.stamp, d.text, true
			}
			es = append(es, e)
		}
		srv.mu.Unlock()
		for _, e := range es {
			fi, err := os.Stat(e.path)
			if err != nil || !fi.Mode().IsRegular() || e.st.same(stampOf(fi)) {
				continue
			}
			if e.open {
				data, err := os.ReadFile(e.path)
				if err != nil || string(data) == e.text {
					continue
				}
			} else if e.st.size == fi.Size() && e.st.mtime.Equal(fi.ModTime()) {
				continue // a file only the server read: its stamp is all we know
			}
			if !slices.Contains(out, e.path) {
				out = append(out, e.path)
			}
		}
	}
	slices.Sort(out)
	return out
}

// checkChanged reports on the files changed on disk since the servers
// last saw them: the new errors they brought, as didWrite would. It
// returns "" when nothing changed.
func (t *toolSet) checkChanged(ctx context.Context, root string) string {
	changed := t.sup.ChangedOnDisk(root)
	if len(changed) == 0 {
		return ""
	}
	var notChecked []string
	if len(changed) > changedCap {
		changed, notChecked = changed[:changedCap], changed[changedCap:]
	}
	names := make([]string, len(changed))
	for i, p := range changed {
		names[i] = displayPath(root, p)
	}
	res, err := t.sup.DidWrite(ctx, root, changed)
	var b strings.Builder
	fmt.Fprintf(&b, "changed on disk since the language servers last saw them: %s\n", strings.Join(names, ", "))
	switch {
	case err != nil:
		fmt.Fprintf(&b, "not checked: %v", err)
	case res.Text == "":
		fmt.Fprintf(&b, "no new errors or warnings (checked: %s)", strings.Join(res.Checked, ", "))
	default:
		b.WriteString(res.Text)
	}
	if len(notChecked) > 0 {
		fmt.Fprintf(&b, "\n%d more changed files were not checked (cap %d): call lsp {\"action\": \"written\"} again", len(notChecked), changedCap)
	}
	return b.String()
}

// beforeCall is the lsp capability's hook before every tool call: it
// reports what changed on disk since the last answer. An lsp "written"
// call is that report itself, and is left to say it.
func (t *toolSet) beforeCall(ctx context.Context, root, tool string, args json.RawMessage) string {
	if tool == "lsp" {
		var a struct {
			Action string `json:"action"`
		}
		if json.Unmarshal(args, &a) == nil && a.Action == "written" {
			return ""
		}
	}
	return t.checkChanged(ctx, root)
}

// orNull makes absent params decode as an empty object.
func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

// written serves lsp {"action": "written"}: the errors a write introduced,
// in the written file and in the files that use what changed, as
// agent-tools/didWrite answers. Without a file it checks whatever changed
// on disk since the servers last saw it. With format claude_hook the
// answer is the JSON a Claude Code PostToolUse hook returns, so that the
// report reaches the model together with the Edit's own result.
func (t *toolSet) written(ctx context.Context, root string, a lspArgs) (*Result, error) {
	var text string
	if a.File == "" {
		text = t.checkChanged(ctx, root)
		if text == "" {
			text = "nothing changed on disk since the language servers last saw the files"
		}
	} else {
		path, err := resolvePath(root, a.File)
		if err != nil {
			return nil, err
		}
		if _, err := t.sup.configFor(path); err != nil && a.Format == "claude_hook" {
			// A hook runs after every edit, Markdown included: a file no
			// server checks has nothing to add to the Edit's result.
			return &Result{Action: "written", raw: "{}"}, nil
		}
		text, _ = t.afterWrite(ctx, root, []string{a.File})
		if text == "" {
			text = a.File + ": no language server checks this file"
		}
	}
	r := &Result{Action: "written", Summary: text}
	switch a.Format {
	case "", "text":
	case "claude_hook":
		out, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{
			"hookEventName":     "PostToolUse",
			"additionalContext": "agent-tools, diagnostics on write: " + text,
		}})
		if err != nil {
			return nil, err
		}
		r.raw = string(out)
	default:
		return nil, fmt.Errorf("argument 'format': want text or claude_hook, got %q", a.Format)
	}
	return r, nil
}

// This file adapts the kernels to package rpc: the eval tool, its
// attachment, and the tool() bridge through agent-tools/callTool.

package kernel

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agent-tools/agent-tools/rpc"
	"github.com/rs/zerolog"
)

const evalDescription = `Run a Python or JavaScript cell in a persistent kernel: variables and imports survive between calls, like a notebook. The last expression is the result; matplotlib figures come back as images, DataFrames as tables. IPython idioms work (%pip install, !cmd, %%bash). tool(name, args) calls this server's tools. A cell is interrupted after its time budget (4 min busy by default) and its output so far returned.
Example: {"code": "import pandas as pd\ndf = pd.read_csv('data.csv')\ndf.describe()", "description": "load the sales data and summarize it"}`

type evalArgs struct {
	Code        string `json:"code" jsonschema_description:"the cell's source"`
	Description string `json:"description" jsonschema:"minLength=1" jsonschema_description:"what the cell does, in 5 to 10 words"`
	Language    string `json:"language,omitempty" jsonschema:"enum=python,enum=javascript" jsonschema_description:"python (default) or javascript"`
	Reset       bool   `json:"reset,omitempty" jsonschema_description:"start a clean interpreter first"`
}

type evalTool struct {
	pool *Pool
}

// Attach reports the eval capability: attached when python3 or node is
// found. section is the "eval" part of the config file (may be nil); log
// receives the kernels' lifecycle (nil: discarded).
func Attach(root string, section json.RawMessage, log *zerolog.Logger) rpc.Attachment {
	a := rpc.Attachment{Capability: "eval"}
	opts, err := ParseConfig(section, log)
	if err != nil {
		a.Reason = err.Error()
		return a
	}
	found := 0
	chosen := map[Language]Interpreter{}
	missing := map[Language]error{}
	for _, lang := range []Language{Python, JavaScript} {
		if in, err := FindInterpreter(lang, opts, root); err != nil {
			missing[lang] = err
		} else {
			chosen[lang] = in
			found++
		}
	}
	// Versions cost a process each: only doctor asks for them.
	a.Probe = func() []rpc.Check { return interpreterChecks(opts, root, chosen, missing) }
	if found == 0 {
		a.Reason = "neither python3 nor node was found"
		return a
	}
	t := &evalTool{pool: NewPool(&opts, log)}
	a.Tools = []*rpc.Tool{rpc.NewTool(rpc.Spec{Name: "eval", Title: "Run a notebook cell", Tier: rpc.TierExec, Description: evalDescription}, t.eval)}
	a.Close = t.pool.Close
	return a
}

func (t *evalTool) eval(ctx context.Context, a evalArgs) (*rpc.CallToolResult, error) {
	label := cutLabel(a.Description)
	if label == "" {
		return nil, errors.New("argument 'description': empty: say what the cell does, in 5 to 10 words (e.g. \"load the sales data and summarize it\")")
	}
	if strings.TrimSpace(a.Code) == "" {
		return nil, errors.New("argument 'code': empty cell: give the code to run")
	}
	sess := rpc.SessionFrom(ctx)
	root := rpc.Root(ctx, "")
	res, err := t.pool.Eval(ctx, Request{
		Code:        a.Code,
		Language:    Language(a.Language),
		Description: label,
		Reset:       a.Reset,
		Root:        root,
		Bridge:      bridge(sess),
		Progress: func(elapsed time.Duration, msg string) {
			rpc.ReportProgress(ctx, elapsed.Seconds(), 0, msg)
		},
	})
	if err != nil {
		return nil, err
	}
	return toCallResult(res, rpc.OutputBudget(ctx))
}

// maxLabelWords is where a long description is cut for the result's label.
const maxLabelWords = 10

// cutLabel is the result's label for a description: its words joined by single
// spaces, cut after maxLabelWords words (with "…"). Any non-empty
// description is accepted: the 5–10 words the schema asks for are guidance
// for the transcript, and refusing a short one costs the model a round trip.
func cutLabel(description string) string {
	words := strings.Fields(description)
	if len(words) > maxLabelWords {
		return strings.Join(words[:maxLabelWords], " ") + " …"
	}
	return strings.Join(words, " ")
}

// interpreterChecks are doctor's lines for eval: each language's
// interpreter with its version and why it was chosen, the other Python
// interpreters found, and the prefix.
func interpreterChecks(opts Options, root string, chosen map[Language]Interpreter, missing map[Language]error) []rpc.Check {
	ctx := context.Background()
	var checks []rpc.Check
	for _, lang := range []Language{Python, JavaScript} {
		c := rpc.Check{Name: map[Language]string{Python: "python", JavaScript: "node"}[lang]}
		in, ok := chosen[lang]
		switch {
		case !ok:
			c.Detail = missing[lang].Error()
		case len(opts.Prefix) > 0:
			c.OK, c.Detail = true, fmt.Sprintf("%s (%s; run under the prefix, version not probed)", in.Path, in.Why)
		default:
			v, err := interpVersion(ctx, lang, in.Path, root)
			c.OK = err == nil
			if err != nil {
				c.Detail = fmt.Sprintf("%s (%s): does not run: %s", in.Path, in.Why, firstLine(err.Error()))
			} else {
				c.Detail = fmt.Sprintf("%s (%s %s; %s)", in.Path, map[Language]string{Python: "Python", JavaScript: "Node"}[lang], strings.TrimPrefix(v, "v"), in.Why)
			}
		}
		checks = append(checks, c)
	}
	if in, ok := chosen[Python]; ok && len(opts.Prefix) == 0 {
		for _, r := range probePython(ctx, otherPythons(in.Path, root), root) {
			checks = append(checks, rpc.Check{Name: "python (other)", OK: r.Err == nil, Detail: r.Path + " (" + r.describe() + ")"})
		}
	}
	if len(opts.Prefix) > 0 {
		checks = append(checks, rpc.Check{Name: "prefix", OK: true, Detail: strings.Join(opts.Prefix, " ")})
	}
	return checks
}

// toCallResult renders a cell's result: its text (within budget bytes),
// then its images; an unfinished cell is an isError result (with
// everything it printed).
func toCallResult(res *Result, budget int) (*rpc.CallToolResult, error) {
	structured, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	out := &rpc.CallToolResult{IsError: !res.OK(), StructuredContent: structured}
	out.Content = append(out.Content, rpc.TextContent(fitBudget(res.Text(), budget)))
	for _, img := range res.Images() {
		out.Content = append(out.Content, rpc.ImageContent(base64.StdEncoding.EncodeToString(img.Data), img.MIME))
	}
	return out, nil
}

// bridge calls the client's tools through agent-tools/callTool, when the
// client declared it.
func bridge(sess *rpc.Session) Bridge {
	return func(ctx context.Context, name string, args json.RawMessage) (string, bool, error) {
		if sess == nil || !sess.CanCallTools() {
			return "", false, errors.New(noBridge)
		}
		res, err := sess.CallClientTool(ctx, name, args)
		if err != nil {
			return "", false, fmt.Errorf("tool(%q): %w", name, err)
		}
		var parts []string
		for _, c := range res.Content {
			switch c.Type {
			case "text":
				parts = append(parts, c.Text)
			default:
				parts = append(parts, fmt.Sprintf("[%s %s]", c.Type, c.MIMEType))
			}
		}
		return strings.Join(parts, "\n"), res.IsError, nil
	}
}

// fitBudget keeps a cell's text within the session's output budget by
// keeping its head and its tail, where the value or the error is: the
// server's own last-resort cut keeps only the head.
func fitBudget(text string, budget int) string {
	if len(text) <= budget {
		return text
	}
	keep := max(budget-200, 0) // room for the note
	head, tail := cutUTF8(text, keep/2), tailUTF8(text, keep/2)
	return fmt.Sprintf("%s\n[output truncated: %d of %d bytes shown, the middle left out to fit the %d-byte output budget; print less, or raise maxOutputBytes]\n%s",
		head, len(head)+len(tail), len(text), budget, tail)
}

// This file adapts ask_user and the vibe_* tools to package rpc.

package workers

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/agent-tools/agent-tools/rpc"
)

// Attach reports the workers capability: ask_user always (the session
// shows it only to a client that can elicit), the vibe_* tools when at
// least one tier has a worker command whose program exists (the session
// shows them only in vibe mode). flagCommands are the --worker flags,
// section the config file's "workers" section.
func Attach(root string, flagCommands map[string]string, section json.RawMessage, log *zerolog.Logger) rpc.Attachment {
	a := rpc.Attachment{Capability: "workers"}
	cfg, err := ParseConfig(section, flagCommands, log)
	if err != nil {
		a.Reason = "config: " + err.Error()
		a.Checks = append(a.Checks, rpc.Check{Name: "config", Detail: err.Error()})
		return a
	}
	usable := map[string]string{}
	for _, tier := range Tiers {
		cmd, ok := cfg.Commands[tier]
		c := rpc.Check{Name: "worker " + tier}
		switch prog, found := Program(cmd, root); {
		case !ok:
			c.Detail = "no command configured (--worker " + tier + "=CMD, or commands." + tier + " in the workers config)"
		case !found:
			c.Detail = fmt.Sprintf("%s: program %q not found (in PATH or the root)", cmd, prog)
		default:
			c.OK, c.Detail = true, fmt.Sprintf("%s (%s)", cmd, prog)
			usable[tier] = cmd
		}
		a.Checks = append(a.Checks, c)
	}
	a.Checks = append(a.Checks, rpc.Check{Name: "elicitation", OK: true,
		Detail: fmt.Sprintf("ask_user is listed to clients that declare it; a question times out after %v", cfg.AskTimeout.D())})
	cfg.Commands = usable
	ts := &toolSet{root: root, pool: NewPool(&cfg, log)}
	a.Tools = ts.tools()
	a.Close = ts.pool.Close
	return a
}

// toolSet holds what the tool handlers share.
type toolSet struct {
	root string // the --root flag, used when a call has no session
	pool *Pool
}

func (ts *toolSet) tools() []*rpc.Tool {
	tools := []*rpc.Tool{
		// Hidden unless the client declared elicitation: nobody could answer.
		rpc.NewTool(rpc.Spec{Name: "ask_user", Tier: rpc.TierRead, Requires: rpc.RequiresElicitation, Description: askDesc}, ts.askUser),
	}
	if len(ts.pool.opts.Commands) == 0 {
		return tools
	}
	// The vibe_* tools are hidden unless vibe mode is on; workers keep
	// running while they are hidden.
	vibe := func(name, desc string) rpc.Spec {
		return rpc.Spec{Name: name, Tier: rpc.TierRead, Requires: rpc.RequiresVibe, Description: desc}
	}
	// vibe_wait may wait minutes: a task, for a client with the Tasks
	// extension (MCP 2026-07-28).
	long := func(sp rpc.Spec) rpc.Spec { sp.Long = true; return sp }
	return append(tools,
		rpc.NewTool(vibe("vibe_spawn", spawnDesc), ts.spawn),
		rpc.NewTool(vibe("vibe_send", sendDesc), ts.send),
		rpc.NewTool(long(vibe("vibe_wait", waitDesc)), ts.wait),
		rpc.NewTool(vibe("vibe_kill", killDesc), ts.kill),
		rpc.NewTool(rpc.Spec{Name: "vibe_list", Tier: rpc.TierRead, Requires: rpc.RequiresVibe, Idempotent: true, Description: listDesc}, ts.list),
	)
}

// root returns the run's root: initialize may have changed it.
func (ts *toolSet) rootOf(ctx context.Context) string {
	return rpc.Root(ctx, ts.root)
}

const askDesc = `Ask the person running this session a question and wait for the answer, when you cannot go on without their decision. If it comes back skipped, continue on a stated assumption and do not ask again.
Example: {"question": "Which database should the service use?", "options": [{"label": "Postgres"}, {"label": "SQLite"}], "allow_free_text": true}`

type askArgs struct {
	Question      string   `json:"question" jsonschema_description:"one clear question"`
	Context       string   `json:"context,omitempty" jsonschema_description:"why you ask"`
	Options       []Option `json:"options,omitempty" jsonschema_description:"the choices"`
	AllowFreeText bool     `json:"allow_free_text,omitempty" jsonschema_description:"the person may type an answer"`
	MultiSelect   bool     `json:"multi_select,omitempty" jsonschema_description:"several options may be chosen"`
}

func (ts *toolSet) askUser(ctx context.Context, a askArgs) (Answer, error) {
	s := rpc.SessionFrom(ctx)
	if s == nil || !rpc.CanElicit(ctx) {
		return Answer{}, fmt.Errorf("%w. %s", rpc.ErrNoElicitation, assumeAndGoOn)
	}
	// Older revisions know no arrays and no titled enums; the stateless
	// one (2026-07-28) sorts after 2025-11-25 and has both.
	legacy := rpc.Revision(ctx) < "2025-11-25"
	q := Question(a)
	return Ask(ctx, sessionAsker{s}, q, ts.pool.opts.AskTimeout.D(), legacy)
}

// sessionAsker asks through MCP elicitation/create, or under the
// stateless revision through a multi round-trip result (rpc does which).
type sessionAsker struct{ s *rpc.Session }

func (a sessionAsker) Elicit(ctx context.Context, message string, schema json.RawMessage) (string, map[string]any, error) {
	res, err := a.s.Elicit(ctx, rpc.ElicitRequest{Message: message, RequestedSchema: schema})
	if err != nil {
		return "", nil, err
	}
	return res.Action, res.Content, nil
}

const spawnDesc = `Start a background worker (an agent CLI) on a brief; returns its id at once. tier fast (default) for mechanical work, good for judgement. Collect the result with vibe_wait.
Example: {"brief": "Rename Config.Timeout to Config.Deadline and make go test ./... pass.", "label": "rename-deadline"}`

type spawnArgs struct {
	Brief string `json:"brief" jsonschema_description:"the whole task; the worker sees nothing else"`
	Label string `json:"label" jsonschema_description:"a short name"`
	Tier  string `json:"tier,omitempty" jsonschema:"enum=fast,enum=good" jsonschema_description:"fast (default) or good"`
}

func (ts *toolSet) spawn(ctx context.Context, a spawnArgs) (Status, error) {
	return ts.pool.Spawn(ts.rootOf(ctx), a.Brief, a.Label, a.Tier)
}

const sendDesc = `Steer a worker: add a message to its brief and run it again. Returns at once.
Example: {"worker_id": "w1", "message": "Also update the README."}`

type sendArgs struct {
	WorkerID string `json:"worker_id" jsonschema_description:"e.g. w1"`
	Message  string `json:"message" jsonschema_description:"what to add to the brief"`
}

func (ts *toolSet) send(ctx context.Context, a sendArgs) (Status, error) {
	return ts.pool.Send(ctx, ts.rootOf(ctx), a.WorkerID, a.Message)
}

const waitDesc = `Wait for a worker's final message, at most timeout_seconds (default 240); then it says the worker is still running.
Example: {"worker_id": "w1", "timeout_seconds": 120}`

type waitArgs struct {
	WorkerID       string   `json:"worker_id" jsonschema_description:"e.g. w1"`
	TimeoutSeconds *float64 `json:"timeout_seconds,omitempty" jsonschema:"minimum=0,maximum=3600" jsonschema_description:"seconds to wait (default 240); 0 only looks"`
	ShowLog        bool     `json:"show_log,omitempty" jsonschema_description:"add the last 40 lines of its output"`
}

func (ts *toolSet) wait(ctx context.Context, a waitArgs) (WaitResult, error) {
	timeout := ts.pool.opts.WaitTimeout.D()
	if a.TimeoutSeconds != nil {
		timeout = time.Duration(*a.TimeoutSeconds * float64(time.Second))
	}
	return ts.pool.Wait(ctx, a.WorkerID, timeout, a.ShowLog)
}

const killDesc = `Stop a worker and everything it started. Its partial result stays readable with vibe_wait.
Example: {"worker_id": "w1"}`

type killArgs struct {
	WorkerID string `json:"worker_id" jsonschema_description:"e.g. w1"`
}

func (ts *toolSet) kill(ctx context.Context, a killArgs) (Status, error) {
	return ts.pool.Kill(ctx, a.WorkerID)
}

const listDesc = `List this run's workers: id, tier, state, elapsed time and the start of each result.`

type listArgs struct{}

func (ts *toolSet) list(ctx context.Context, _ listArgs) (ListResult, error) {
	return ts.pool.List(), nil
}

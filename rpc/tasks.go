// This file defines the Tasks extension of MCP 2026-07-28
// (io.modelcontextprotocol/tasks): a tools/call of a tool whose spec says
// it may run long ([Spec] Long), from a client that declares the
// extension in that request, is answered with a task when it is not done
// within [Options].TaskAfter. The call goes on; the client polls
// tasks/get for its status and, at the end, the very answer the call
// would have given; tasks/cancel cancels it as notifications/cancelled
// cancels a call. Without the extension nothing changes.

package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

const tasksExtension = "io.modelcontextprotocol/tasks"

// DefaultTaskAfter is how long a long call runs before it becomes a task.
const DefaultTaskAfter = 2 * time.Second

// taskPollInterval is the polling interval suggested to the client.
const taskPollInterval = time.Second

// ErrMissingCapability answers a tasks/* request from a client that did
// not declare the Tasks extension in it.
var ErrMissingCapability = &WireError{-32021, "missing required client capability"}

type missingCapability struct{ ext string }

func (e missingCapability) Error() string {
	return fmt.Sprintf("%s: declare the %s extension in _meta[%q].extensions", ErrMissingCapability.Message, e.ext, metaClientCapabilities)
}

func (e missingCapability) Is(target error) bool { return target == ErrMissingCapability }

func (e missingCapability) data() any {
	return map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{e.ext: map[string]any{}}}}
}

// task is one tools/call running as a task.
type task struct {
	id      string
	tool    string
	created time.Time
	cancel  context.CancelFunc
	done    chan struct{} // closed when the call returned

	// guarded by the session's mu
	status    string // working, completed, failed, cancelled
	message   string // the tool's last progress message, while working
	updated   time.Time
	result    any             // the call's answer, when completed
	err       *jsonrpc2.Error // the call's protocol error, when failed
	cancelled bool            // by tasks/cancel
}

// callAsTask runs a long call so that it can outlive its request: done
// within TaskAfter, its answer is the request's; otherwise the request is
// answered with the task, and the call goes on under a context that only
// tasks/cancel and shutdown end. Progress is not sent for it (the
// extension has no place for it); the tool's progress messages become the
// task's statusMessage instead.
func (s *Session) callAsTask(ctx context.Context, t *Tool, p callParams, c *call, start time.Time) (any, error) {
	tk := s.newTask(t.spec.Name)
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	tk.cancel = cancel
	c.task = tk
	runCtx = context.WithValue(runCtx, callKey{}, c)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		res, err := s.runTool(runCtx, t, p, c, start)
		s.finishTask(tk, res, err)
	}()
	timer := time.NewTimer(s.srv.opts.TaskAfter)
	defer timer.Stop()
	select {
	case <-tk.done:
		s.forgetTask(tk) // the request gets the answer: no task was announced
		s.mu.Lock()
		res, werr := tk.result, tk.err
		s.mu.Unlock()
		if werr != nil {
			return nil, &WireError{Code: werr.Code, Message: werr.Message}
		}
		return res, nil
	case <-ctx.Done():
		cancel() // the client gave up on the call before it became a task
		<-tk.done
		s.forgetTask(tk)
		return nil, ctx.Err()
	case <-timer.C:
	}
	s.log.Debug().Str("tool", t.spec.Name).Str("task", tk.id).Msg("the call goes on as a task")
	s.mu.Lock()
	defer s.mu.Unlock()
	out := tk.detailLocked()
	out["resultType"] = "task"
	return out, nil
}

func (s *Session) newTask(tool string) *task {
	now := time.Now().UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.taskSeq++
	tk := &task{id: fmt.Sprintf("task-%d", s.taskSeq), tool: tool, created: now, updated: now, status: "working", done: make(chan struct{})}
	s.tasks[tk.id] = tk
	return tk
}

func (s *Session) forgetTask(tk *task) {
	s.mu.Lock()
	delete(s.tasks, tk.id)
	s.mu.Unlock()
}

// finishTask records the call's end: completed with its answer (an
// isError result included), failed with a protocol error, or cancelled.
func (s *Session) finishTask(tk *task, res any, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer close(tk.done)
	tk.updated = time.Now().UTC()
	tk.message = ""
	switch {
	case tk.cancelled:
		tk.status, tk.message = "cancelled", "cancelled by the client (tasks/cancel)"
	case err != nil:
		tk.status, tk.err = "failed", toWire(err)
		tk.message = tk.err.Message
	default:
		// The very answer the request would have had, resultType and all.
		if typed, err := withResultType(res); err == nil {
			res = typed
		}
		tk.status, tk.result = "completed", res
	}
}

// progress makes a running task's statusMessage the tool's last
// progress message.
func (s *Session) taskProgress(tk *task, message string) {
	if message == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if tk.status == "working" {
		tk.message, tk.updated = message, time.Now().UTC()
	}
}

// detailLocked is the task as tasks/get shows it (the extension's
// DetailedTask). Call with s.mu held.
func (tk *task) detailLocked() map[string]any {
	out := map[string]any{
		"taskId":         tk.id,
		"status":         tk.status,
		"createdAt":      tk.created.Format(time.RFC3339Nano),
		"lastUpdatedAt":  tk.updated.Format(time.RFC3339Nano),
		"ttlMs":          nil, // kept until the run ends
		"pollIntervalMs": taskPollInterval.Milliseconds(),
	}
	if tk.message != "" {
		out["statusMessage"] = tk.message
	}
	switch tk.status {
	case "completed":
		out["result"] = tk.result
	case "failed":
		out["error"] = tk.err
	}
	return out
}

type taskParams struct {
	TaskID string `json:"taskId"`
}

// taskFor finds the task a tasks/* request names, for a client that
// declares the extension in it.
func (s *Session) taskFor(ctx context.Context, method string, raw json.RawMessage) (*task, error) {
	if st := s.stateFor(ctx); !st.stateless() || !st.client.tasks {
		return nil, missingCapability{tasksExtension}
	}
	p, err := decodeParams[taskParams](raw, method)
	if err != nil || p.TaskID == "" {
		return nil, fmt.Errorf("%w: %s needs {taskId}", ErrInvalidParams, method)
	}
	s.mu.Lock()
	tk, ok := s.tasks[p.TaskID]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w: %s: no task %q in this session", ErrInvalidParams, method, p.TaskID)
	}
	return tk, nil
}

func (s *Session) tasksGet(ctx context.Context, raw json.RawMessage) (any, error) {
	tk, err := s.taskFor(ctx, "tasks/get", raw)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return tk.detailLocked(), nil
}

// tasksUpdate acknowledges input for a task. Our tasks never wait for
// input (ask_user is not a long tool), so there is nothing to take.
func (s *Session) tasksUpdate(ctx context.Context, raw json.RawMessage) (any, error) {
	if _, err := s.taskFor(ctx, "tasks/update", raw); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

// tasksCancel cancels a running task's call, and waits (bounded) for the
// tool to return, so that a tasks/get after the acknowledgement says
// cancelled for a tool that honours cancellation.
func (s *Session) tasksCancel(ctx context.Context, raw json.RawMessage) (any, error) {
	tk, err := s.taskFor(ctx, "tasks/cancel", raw)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if tk.status == "working" {
		tk.cancelled = true
	}
	s.mu.Unlock()
	tk.cancel()
	select {
	case <-tk.done:
	case <-time.After(taskCancelWait):
	}
	return struct{}{}, nil
}

// taskCancelWait bounds how long tasks/cancel waits for the call to end.
const taskCancelWait = 5 * time.Second

// shutdownTasks cancels every running task. Call with s.mu held.
func (s *Session) shutdownTasksLocked() {
	for _, tk := range s.tasks {
		if tk.cancel != nil {
			tk.cancel()
		}
	}
}

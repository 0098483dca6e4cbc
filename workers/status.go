// This file defines what the vibe_* tools report about workers, and its
// text form.

package workers

import (
	"fmt"
	"strings"
	"time"
)

// maxResult bounds the result carried in a status; listResult bounds it
// in vibe_list.
const (
	maxResult  = 32 << 10
	listResult = 160
)

// Status is one worker as the vibe_* tools report it.
type Status struct {
	ID         string          `json:"id" jsonschema_description:"the worker id, for vibe_wait, vibe_send and vibe_kill"`
	Label      string          `json:"label" jsonschema_description:"the label given at vibe_spawn"`
	Tier       string          `json:"tier" jsonschema_description:"fast or good"`
	State      State           `json:"state" jsonschema_description:"running, done, failed or killed"`
	Attempts   int             `json:"attempts" jsonschema_description:"how many times it ran (vibe_send re-runs it)"`
	ElapsedMs  int64           `json:"elapsedMs" jsonschema_description:"the current attempt's run time so far, or its whole run time once it ended"`
	Pid        int             `json:"pid,omitempty" jsonschema_description:"the current attempt's process id (its process group)"`
	Result     string          `json:"result,omitempty" jsonschema_description:"the current attempt's final message, once it ended"`
	Truncated  bool            `json:"truncated,omitempty" jsonschema_description:"true when result was cut"`
	Exit       string          `json:"exit,omitempty" jsonschema_description:"why a failed attempt failed (its exit status)"`
	Stopped    string          `json:"stopped,omitempty" jsonschema_description:"why a killed attempt was stopped"`
	StderrTail string          `json:"stderrTail,omitempty" jsonschema_description:"the last lines of a failed attempt's stderr"`
	History    []AttemptStatus `json:"history,omitempty" jsonschema_description:"the earlier attempts, oldest first"`
}

// AttemptStatus is one earlier attempt of a worker.
type AttemptStatus struct {
	Attempt   int    `json:"attempt" jsonschema_description:"1 for the first run"`
	State     State  `json:"state" jsonschema_description:"done, failed or killed"`
	ElapsedMs int64  `json:"elapsedMs" jsonschema_description:"its run time"`
	Result    string `json:"result,omitempty" jsonschema_description:"its final message, cut to 160 characters"`
}

// WaitResult is vibe_wait's answer.
type WaitResult struct {
	Status
	StillRunning bool   `json:"stillRunning,omitempty" jsonschema_description:"true when the timeout passed first; the worker goes on"`
	WaitedMs     int64  `json:"waitedMs,omitempty" jsonschema_description:"how long this call waited, when it timed out"`
	Log          string `json:"log,omitempty" jsonschema_description:"with show_log: the last lines of the current attempt's stdout and stderr"`
}

// ListResult is vibe_list's answer.
type ListResult struct {
	Workers    []Status `json:"workers" jsonschema_description:"every worker of the run, oldest first"`
	Running    int      `json:"running" jsonschema_description:"how many are running"`
	MaxRunning int      `json:"maxRunning" jsonschema_description:"how many may run at once"`
}

// statusLocked builds w's status; p.mu must be held.
func (p *Pool) statusLocked(w *worker) Status {
	a := w.latest()
	st := Status{ID: w.id, Label: w.label, Tier: w.tier, State: a.state, Attempts: len(w.attempts),
		ElapsedMs: a.elapsed().Milliseconds(), Stopped: a.stopReason}
	if a.proc != nil {
		st.Pid = a.proc.Pid()
	}
	if a.state != Running {
		st.Result, st.Truncated = cut(a.result, maxResult)
	}
	if a.state == Failed {
		st.Exit = a.exit
		if a.proc != nil {
			st.StderrTail = a.proc.StderrTail(20)
		}
	}
	if a.state == Running {
		st.Stopped = "" // a stop under way is not an outcome yet
	}
	for _, old := range w.attempts[:len(w.attempts)-1] {
		r, _ := cut(oneLine(old.result), listResult)
		st.History = append(st.History, AttemptStatus{Attempt: old.n, State: old.state, ElapsedMs: old.elapsed().Milliseconds(), Result: r})
	}
	return st
}

func (a *attempt) elapsed() time.Duration {
	if a.ended.IsZero() {
		return time.Since(a.started)
	}
	return a.ended.Sub(a.started)
}

// cut returns s cut to at most n bytes (at a rune start), and whether it
// was cut.
func cut(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…", true
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// roundSeconds formats d in whole seconds ("12s", "1m5s").
func roundSeconds(d time.Duration) string {
	return d.Truncate(time.Second).String()
}

// head is a status's first line: "w1 done (attempt 1, fast): label".
func (s Status) head() string {
	h := fmt.Sprintf("%s %s (attempt %d, %s): %s", s.ID, s.State, s.Attempts, s.Tier, s.Label)
	if s.State == Running {
		h = fmt.Sprintf("%s running for %s (attempt %d, %s): %s", s.ID, roundSeconds(time.Duration(s.ElapsedMs)*time.Millisecond), s.Attempts, s.Tier, s.Label)
	}
	return h
}

// Text is the status as the agent reads it (vibe_spawn, vibe_send,
// vibe_kill).
func (s Status) Text() string {
	if s.State == Running {
		return fmt.Sprintf("%s %s (attempt %d, %s): %s\nvibe_wait {\"worker_id\": %q} returns its result", s.ID, s.State, s.Attempts, s.Tier, s.Label, s.ID)
	}
	return s.body()
}

// body is the head plus the outcome.
func (s Status) body() string {
	var b strings.Builder
	b.WriteString(s.head())
	switch {
	case s.State == Failed && s.Exit != "":
		fmt.Fprintf(&b, "\nfailed: %s", s.Exit)
	case s.State == Killed && s.Stopped != "":
		fmt.Fprintf(&b, "\n%s", s.Stopped)
	}
	if s.Result != "" {
		fmt.Fprintf(&b, "\n\n%s", s.Result)
		if s.Truncated {
			b.WriteString("\n(result cut to 32 KiB)")
		}
	} else if s.State != Running {
		b.WriteString("\n(no final message on stdout)")
	}
	if s.StderrTail != "" {
		fmt.Fprintf(&b, "\n\nstderr (last lines):\n%s", s.StderrTail)
	}
	return b.String()
}

// Text is vibe_wait's answer as the agent reads it.
func (r WaitResult) Text() string {
	text := r.text()
	if r.Log != "" {
		text += "\n\n" + r.Log
	}
	return text
}

func (r WaitResult) text() string {
	if r.StillRunning {
		return fmt.Sprintf("%s still running after this wait of %s (attempt %d, %s): %s\nwait again with vibe_wait, steer it with vibe_send, or stop it with vibe_kill",
			r.ID, roundSeconds(time.Duration(r.WaitedMs)*time.Millisecond), r.Attempts, r.Tier, r.Label)
	}
	return r.body()
}

// Text is vibe_list's answer: one line per worker. Elapsed time is shown
// for running workers only.
func (r ListResult) Text() string {
	if len(r.Workers) == 0 {
		return fmt.Sprintf("no workers (0 of %d may run at once)", r.MaxRunning)
	}
	var b strings.Builder
	noun := "workers"
	if len(r.Workers) == 1 {
		noun = "worker"
	}
	fmt.Fprintf(&b, "%d %s, %d running (at most %d at once)\n", len(r.Workers), noun, r.Running, r.MaxRunning)
	for _, s := range r.Workers {
		state := string(s.State)
		if s.State == Running {
			state += " " + roundSeconds(time.Duration(s.ElapsedMs)*time.Millisecond)
		}
		fmt.Fprintf(&b, "%s  %s  %s  attempts %d  %s", s.ID, s.Tier, state, s.Attempts, s.Label)
		if s.Result != "" {
			res, cutOff := cut(oneLine(s.Result), listResult)
			fmt.Fprintf(&b, "  result: %s", res)
			if cutOff || s.Truncated {
				fmt.Fprintf(&b, " (cut; vibe_wait %s shows it all)", s.ID)
			}
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

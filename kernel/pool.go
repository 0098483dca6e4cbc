// This file defines the Pool: one lazily started kernel per language,
// cells of a language serialized, crashed kernels replaced, and the result
// of a cell as the eval tool returns it.

package kernel

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// Pool owns the kernels of a run: at most one per language, started on
// the first cell of that language.
//
// Each language has a slot whose sem (a one-token channel) serializes its
// cells; the holder of the token owns the slot's kernel and note. Python and
// JavaScript cells run independently.
type Pool struct {
	opts  Options
	log   zerolog.Logger // the supervisor's log: starts, exits, resets, kills
	slots map[Language]*slot
}

type slot struct {
	sem  chan struct{} // holds the token while a cell runs
	k    *Kernel       // owned by the token holder
	note string        // why the previous kernel is gone, for the next cell
}

// NewPool returns a pool; nil opts means the defaults. log receives the
// kernels' starts, exits, restarts, resets, interrupts and kills; nil (or
// the zero Logger) discards them.
func NewPool(opts *Options, log *zerolog.Logger) *Pool {
	o := defaultOptions
	if opts != nil {
		o = *opts
		if o.Timeout <= 0 {
			o.Timeout = defaultOptions.Timeout
		}
		if o.Grace <= 0 {
			o.Grace = defaultOptions.Grace
		}
	}
	p := &Pool{opts: o, slots: map[Language]*slot{}}
	if log != nil {
		p.log = *log
	}
	for _, l := range []Language{Python, JavaScript} {
		p.slots[l] = &slot{sem: make(chan struct{}, 1)}
	}
	return p
}

// Options returns the pool's settings.
func (p *Pool) Options() Options { return p.opts }

// Request is one eval call.
type Request struct {
	Code        string
	Language    Language // "" means Python
	Description string   // the label echoed in the result
	Reset       bool     // discard the kernel and start clean first
	Root        string   // the run's root: the kernel's working directory, where the venv is looked for
	Bridge      Bridge
	Progress    func(elapsed time.Duration, msg string)
}

// Result is what one cell produced.
type Result struct {
	Label     string   `json:"label" jsonschema_description:"the call's description"`
	Language  Language `json:"language" jsonschema_description:"python or javascript"`
	Status    string   `json:"status" jsonschema_description:"ok, error, timeout, interrupted or crashed"`
	Outputs   []Output `json:"outputs" jsonschema_description:"the cell's output in order: stdout and stderr as printed, displays, the value, images"`
	Error     string   `json:"error,omitempty" jsonschema_description:"what went wrong, when status is not ok"`
	Notes     []string `json:"notes,omitempty" jsonschema_description:"kernel events: started, reset, restarted after a crash"`
	StateLost bool     `json:"stateLost,omitempty" jsonschema_description:"the kernel's variables are gone; the next cell starts fresh"`
	ElapsedMs int64    `json:"elapsedMs" jsonschema_description:"wall time of the call"`
}

// OK reports whether the cell ran to completion.
func (r *Result) OK() bool { return r.Status == StatusOK }

// Text is the result for a model: the label, the output in order, then
// what went wrong.
func (r *Result) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s (%s)\n", r.Label, r.Language)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "[%s]\n", n)
	}
	for _, o := range r.Outputs {
		text := o.Text
		switch o.Kind {
		case KindValue:
			if strings.Contains(text, "\n") {
				text = "Out:\n" + text
			} else {
				text = "Out: " + text
			}
		}
		b.WriteString(text)
		if !strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
	}
	if r.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", r.Error)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Images returns the image outputs, with their bytes.
func (r *Result) Images() []Output {
	var out []Output
	for _, o := range r.Outputs {
		if o.Kind == KindImage {
			out = append(out, o)
		}
	}
	return out
}

// Eval runs one cell. Errors are reserved for calls that could not run at
// all (no interpreter, cancelled while waiting for the previous cell);
// everything the cell did, failures included, is in the Result.
func (p *Pool) Eval(ctx context.Context, req Request) (*Result, error) {
	lang := req.Language
	if lang == "" {
		lang = Python
	}
	s, ok := p.slots[lang]
	if !ok {
		return nil, fmt.Errorf("language %q: want python or javascript", lang)
	}
	started := time.Now()
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the running %s cell to finish: %w", lang, ctx.Err())
	}
	defer func() { <-s.sem }()

	res := &Result{Label: req.Description, Language: lang}
	s.dropExited(lang)
	if req.Reset && s.k != nil {
		s.k.log.Info().Msg("kernel reset: stopping it to start clean")
		s.k.Stop(context.WithoutCancel(ctx))
		s.k = nil
		res.Notes = append(res.Notes, "kernel reset: started clean")
	}
	if s.note != "" {
		res.Notes = append(res.Notes, s.note)
		s.note = ""
	}
	query := isKernelQuery(req.Code)
	if s.k == nil {
		if err := p.startIn(ctx, s, lang, req.Root); err != nil {
			return nil, err
		}
		if !query {
			// The status line: which interpreter this session's cells run in.
			res.Notes = append(res.Notes, s.k.describe())
		}
	}
	if query {
		res.Status = StatusOK
		res.Outputs = []Output{{Kind: KindDisplay, Text: p.kernelReport(ctx, s.k, req.Root), MIME: "text/plain"}}
	} else {
		p.runCell(ctx, s, lang, req, res)
	}
	res.ElapsedMs = time.Since(started).Milliseconds()
	return res, nil
}

// dropExited forgets a kernel that exited since the last cell, noting why
// for the next answer.
func (s *slot) dropExited(lang Language) {
	if s.k == nil {
		return
	}
	if exited, err := s.k.Exited(); exited {
		s.note = fmt.Sprintf("the previous %s kernel had exited (%s): kernel restarted; state lost", lang, exitText(err))
		s.k.log.Warn().Str("status", exitText(err)).Str("stderr", cleanStderr(s.k.proc.StderrTail(logStderrLines))).
			Msg("the kernel had exited between cells: restarting it")
		s.k = nil
	}
}

// startIn starts the slot's kernel with the interpreter chosen for root.
func (p *Pool) startIn(ctx context.Context, s *slot, lang Language, root string) error {
	interp, err := FindInterpreter(lang, p.opts, root)
	if err != nil {
		p.log.Warn().Str("lang", string(lang)).Err(err).Msg("no interpreter")
		return err
	}
	k, err := Start(ctx, StartSpec{Lang: lang, Interp: interp, Dir: root, Prefix: p.opts.Prefix, Log: &p.log})
	if err != nil {
		return err
	}
	s.k = k
	return nil
}

// runCell runs req's code in the slot's kernel into res. A missing Python
// module gets a hint; a kernel whose state is lost is stopped.
func (p *Pool) runCell(ctx context.Context, s *slot, lang Language, req Request, res *Result) {
	rr := s.k.Run(ctx, RunSpec{Code: req.Code, Budget: p.opts.Timeout, Grace: p.opts.Grace, Bridge: req.Bridge, Progress: req.Progress})
	res.Status, res.Outputs, res.Error, res.StateLost = rr.Status, rr.Outputs, rr.Err, rr.StateLost
	if res.Outputs == nil {
		res.Outputs = []Output{}
	}
	if rr.MissingModule != "" && lang == Python {
		res.Error += "\n" + p.moduleHint(context.WithoutCancel(ctx), s.k, rr.MissingModule, req.Root)
	}
	if rr.StateLost {
		s.k.Stop(context.WithoutCancel(ctx))
		s.k = nil
	}
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return exitStatus(err)
}

// Close stops every kernel.
func (p *Pool) Close(ctx context.Context) error {
	var errs []string
	for lang, s := range p.slots {
		select {
		case s.sem <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		if s.k != nil {
			if err := s.k.Stop(ctx); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", lang, err))
			}
			s.k = nil
		}
		<-s.sem
	}
	if len(errs) > 0 {
		return fmt.Errorf("stopping kernels: %s", strings.Join(errs, "; "))
	}
	return nil
}

// This file defines the tool registry and the surfaces that filter it.

package rpc

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Surface is the view of the registry a client gets. Plan mode and
// read-only subagents see only read-tier tools; hidden tools are absent from
// tools/list, and a call of one by name is an error result saying why.
type Surface string

const (
	SurfaceFull     Surface = "full"
	SurfacePlan     Surface = "plan"
	SurfaceReadonly Surface = "readonly"
)

// ParseSurface checks a surface name.
func ParseSurface(s string) (Surface, error) {
	switch Surface(s) {
	case SurfaceFull, SurfacePlan, SurfaceReadonly:
		return Surface(s), nil
	}
	return "", fmt.Errorf("unknown surface %q: want full, plan or readonly", s)
}

// Ceiling is the highest tier the surface shows.
func (s Surface) Ceiling() Tier {
	if s == SurfaceFull {
		return TierExec
	}
	return TierRead
}

// Visibility is what decides whether a registered tool is shown to a
// session: the surface's tier ceiling and the session conditions that
// [Requirement]s name.
type Visibility struct {
	Surface     Surface
	Vibe        bool
	Elicitation bool
}

func (v Visibility) allows(s Spec) bool { return v.hiddenBy(s) == shown }

// hideCause is why a visibility hides a tool.
type hideCause uint8

const (
	shown               hideCause = iota
	hiddenByTier                  // above the surface's ceiling
	hiddenByVibe                  // vibe_* exist only while vibe mode is on
	hiddenByElicitation           // ask_user needs a client that can show a question
)

func (v Visibility) hiddenBy(s Spec) hideCause {
	switch {
	case s.Tier > v.Surface.Ceiling():
		return hiddenByTier
	case s.Requires&RequiresVibe != 0 && !v.Vibe:
		return hiddenByVibe
	case s.Requires&RequiresElicitation != 0 && !v.Elicitation:
		return hiddenByElicitation
	}
	return shown
}

// Registry holds every attached tool. It is safe for concurrent use; tools
// may be added after serving has started (a resource that attached late),
// and each session then sends notifications/tools/list_changed.
type Registry struct {
	mu         sync.Mutex // guards tools, methods, listeners, afterWrite and beforeCall
	tools      map[string]*Tool
	methods    map[string]MethodHandler
	listeners  []func()
	afterWrite []afterWrite
	beforeCall []BeforeCallFunc
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]*Tool{}, methods: map[string]MethodHandler{}}
}

// HandleMethod registers an extension method such as agent-tools/didWrite.
// The name must start with "agent-tools/" and may not shadow a built-in
// method; either mistake panics (start-up registration).
func (r *Registry) HandleMethod(name string, h MethodHandler) {
	if !strings.HasPrefix(name, "agent-tools/") || len(name) == len("agent-tools/") {
		panic(fmt.Sprintf("rpc: extension method %q must be named agent-tools/<name>", name))
	}
	if _, builtin := methods[name]; builtin {
		panic(fmt.Sprintf("rpc: extension method %q shadows a built-in method", name))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.methods[name]; dup {
		panic(fmt.Sprintf("rpc: extension method %q registered twice", name))
	}
	r.methods[name] = h
}

func (r *Registry) method(name string) (MethodHandler, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.methods[name]
	return h, ok
}

// Add registers tools. A duplicate name panics: registration happens at
// start-up and a clash is a programming error.
func (r *Registry) Add(tools ...*Tool) {
	r.mu.Lock()
	for _, t := range tools {
		if _, dup := r.tools[t.spec.Name]; dup {
			r.mu.Unlock()
			panic(fmt.Sprintf("rpc: tool %q registered twice", t.spec.Name))
		}
		r.tools[t.spec.Name] = t
	}
	r.mu.Unlock()
	r.changed()
}

// Remove unregisters tools by name (a resource that went away).
func (r *Registry) Remove(names ...string) {
	r.mu.Lock()
	for _, n := range names {
		delete(r.tools, n)
	}
	r.mu.Unlock()
	r.changed()
}

// All returns every registered tool, sorted by name.
func (r *Registry) All() []*Tool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Tool, 0, len(r.tools))
	for _, t := range r.tools {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *Tool) int { return cmpString(a.spec.Name, b.spec.Name) })
	return out
}

// Visible returns the tools v shows, sorted by name.
func (r *Registry) Visible(v Visibility) []*Tool {
	all := r.All()
	out := all[:0]
	for _, t := range all {
		if v.allows(t.spec) {
			out = append(out, t)
		}
	}
	return out
}

// Lookup returns the tool named name if v shows it.
func (r *Registry) Lookup(name string, v Visibility) (*Tool, bool) {
	t, ok := r.lookupAny(name)
	if !ok || !v.allows(t.spec) {
		return nil, false
	}
	return t, true
}

// lookupAny returns the tool named name, shown or hidden.
func (r *Registry) lookupAny(name string) (*Tool, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.tools[name]
	return t, ok
}

// onChange registers f to run after every Add or Remove.
func (r *Registry) onChange(f func()) (remove func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.listeners = append(r.listeners, f)
	idx := len(r.listeners) - 1
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.listeners[idx] = nil
	}
}

func (r *Registry) changed() {
	r.mu.Lock()
	ls := slices.Clone(r.listeners)
	r.mu.Unlock()
	for _, f := range ls {
		if f != nil {
			f()
		}
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// toolInfo is a tool as tools/list shows it.
type toolInfo struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  annotations     `json:"annotations"`
	Meta         map[string]any  `json:"_meta"`
}

type annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   bool   `json:"openWorldHint"`
}

// info is the one place a tier becomes MCP annotations and _meta.
// withOutput is false for clients older than 2025-06-18, which know no
// output schemas.
func (t *Tool) info(withOutput bool) toolInfo {
	s := t.spec
	a := annotations{Title: s.Title, ReadOnlyHint: s.Tier == TierRead, IdempotentHint: s.Idempotent}
	if s.Tier != TierRead {
		destructive := !s.NonDestructive
		a.DestructiveHint = &destructive
	}
	ti := toolInfo{
		Name:        s.Name,
		Title:       s.Title,
		Description: s.Description,
		InputSchema: t.inputSchema,
		Annotations: a,
		Meta:        map[string]any{"agent-tools/tier": s.Tier.String()},
	}
	if withOutput {
		ti.OutputSchema = t.outputSchema
	}
	return ti
}

// This file defines tools: their tier, their spec, the typed constructor
// and the result types they produce.

package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"

	"github.com/agent-tools/agent-tools/schema"
)

// Tier is what a tool may do. It decides visibility: a surface shows only
// the tools at or below its ceiling.
type Tier int

const (
	// TierRead tools have no side effects (lsp, ast_grep, ask_user, vibe_*).
	TierRead Tier = iota + 1
	// TierWrite tools modify files (lsp_rename, ast_edit, resolve).
	TierWrite
	// TierExec tools start or control processes (debug, eval).
	TierExec
)

func (t Tier) String() string {
	switch t {
	case TierRead:
		return "read"
	case TierWrite:
		return "write"
	case TierExec:
		return "exec"
	}
	return fmt.Sprintf("Tier(%d)", int(t))
}

// Requirement is a session condition, besides the tier, that a tool needs
// to be visible. A call of a tool hidden by one is an error result saying
// why.
type Requirement uint

const (
	// RequiresVibe: visible only while vibe mode is on (the vibe_* tools).
	RequiresVibe Requirement = 1 << iota
	// RequiresElicitation: visible only when the client declared the
	// elicitation capability, i.e. a person can be asked (ask_user).
	RequiresElicitation
)

// Spec describes a tool. Every field but Title and the hints is required.
type Spec struct {
	Name        string // [a-z][a-z0-9_]*, unique in a registry
	Title       string // human-readable name; optional
	Description string // what it does, with an example of the arguments
	Tier        Tier   // no default: every tool states its tier
	Requires    Requirement
	// NonDestructive marks a write or exec tool whose effects are only
	// additive or staged (ast_edit stages and writes nothing); MCP's
	// destructiveHint defaults to true, so the hint is set from this.
	NonDestructive bool
	// Idempotent marks a tool whose repeated call with the same
	// arguments has no further effect.
	Idempotent bool
	// Long marks a tool whose call may run long (a debuggee running to
	// its next stop, a cell, waiting for a worker or an index). To a
	// client that declares the Tasks extension (MCP 2026-07-28), such a
	// call that is not done within [Options].TaskAfter is answered with a
	// task to poll instead; see tasks.go.
	Long bool
}

// Tool is a registered tool: its spec, its schemas and its untyped handler.
// Build one with [NewTool].
type Tool struct {
	spec         Spec
	inputSchema  json.RawMessage
	outputSchema json.RawMessage // nil when the result is not structured
	handle       func(ctx context.Context, args json.RawMessage) (*CallToolResult, error)
}

// Spec returns the tool's spec.
func (t *Tool) Spec() Spec { return t.spec }

// MarkLong sets the tool's [Spec] Long, for wiring that decides it where
// the tool is not declared. Call it before the tool is registered.
func (t *Tool) MarkLong() *Tool {
	t.spec.Long = true
	return t
}

// InputSchema returns the JSON Schema of the tool's arguments.
func (t *Tool) InputSchema() json.RawMessage { return t.inputSchema }

// OutputSchema returns the JSON Schema of the structured result, or nil.
func (t *Tool) OutputSchema() json.RawMessage { return t.outputSchema }

// Call runs the tool with raw arguments, as tools/call does: argument
// errors and handler errors become isError results; only a *WireError
// returned by the handler comes back as an error.
func (t *Tool) Call(ctx context.Context, args json.RawMessage) (*CallToolResult, error) {
	res, err := t.handle(ctx, args)
	if err != nil {
		if we := (*WireError)(nil); errors.As(err, &we) {
			return nil, err
		}
		return ErrorResult(err.Error()), nil
	}
	return res, nil
}

var toolName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Texter is implemented by a result that has a text form written for a
// model (short, greppable lines). Without it the text content is the
// result's JSON.
type Texter interface{ Text() string }

// Contenter is implemented by a result that supplies its own content
// blocks, such as images; they follow the text block.
type Contenter interface{ Content() []Content }

// NewTool builds a tool from a typed handler. The input schema is generated
// once from In (a struct) and arguments are validated against it before h
// runs, so a bad argument is reported naming its JSON field. When Out is a
// struct (or pointer to one) the result is also returned as
// structuredContent with an output schema, to a session that asked for
// structured results (see [Mode] Structured). If Out is *CallToolResult, it is
// sent as is. NewTool panics on a bad spec or a type that has no schema:
// both are programming errors found at start-up.
func NewTool[In, Out any](spec Spec, h func(context.Context, In) (Out, error)) *Tool {
	mustValidSpec(spec)
	in, err := schema.For[In]()
	if err != nil {
		panic(fmt.Sprintf("rpc.NewTool %s: input schema: %v", spec.Name, err))
	}
	t := &Tool{spec: spec, inputSchema: in}
	outType := reflect.TypeFor[Out]()
	passThrough := outType == reflect.TypeFor[*CallToolResult]()
	if !passThrough && isStruct(outType) {
		if t.outputSchema, err = schema.ForType(outType); err != nil {
			panic(fmt.Sprintf("rpc.NewTool %s: output schema: %v", spec.Name, err))
		}
	}
	t.handle = func(ctx context.Context, raw json.RawMessage) (*CallToolResult, error) {
		args, dropped, err := schema.DecodeIgnoring[In](raw, injectedKeys)
		if len(dropped) > 0 {
			if s := SessionFrom(ctx); s != nil {
				s.log.Debug().Str("tool", spec.Name).Strs("keys", dropped).Msg("ignored argument keys the client injects into every tool")
			}
		}
		if err != nil {
			return ErrorResult("invalid arguments: " + err.Error()), nil
		}
		out, err := h(ctx, args)
		if err != nil {
			return nil, err
		}
		if passThrough {
			res := any(out).(*CallToolResult)
			if res == nil {
				return nil, fmt.Errorf("tool %s returned no result", spec.Name)
			}
			return res, nil
		}
		return resultOf(out, t.outputSchema != nil && wantsStructured(ctx))
	}
	return t
}

// injectedKeys are the argument keys an agent CLI is known to add to every
// tool's input schema and to send with every call, whatever the tool. They
// mean nothing to our tools, so a call carrying one is not refused: the key
// is dropped before decoding (unless the tool declares it) and logged at
// debug level. Any other unknown key is still an error naming the known
// fields.
//
//   - wait_for_previous: Gemini CLI (google-gemini/gemini-cli #27403)
//     adds it as a boolean and forwards the model's value.
var injectedKeys = []string{"wait_for_previous"}

func mustValidSpec(s Spec) {
	switch {
	case !toolName.MatchString(s.Name):
		panic(fmt.Sprintf("rpc: tool name %q: want [a-z][a-z0-9_]*", s.Name))
	case s.Tier < TierRead || s.Tier > TierExec:
		panic(fmt.Sprintf("rpc: tool %s: no tier set", s.Name))
	case s.Description == "":
		panic(fmt.Sprintf("rpc: tool %s: no description", s.Name))
	}
}

func isStruct(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// resultOf turns a handler's value into a CallToolResult. The value is
// encoded only when it is needed: as structuredContent, or as the text of
// a result that has no text form of its own.
func resultOf(out any, structured bool) (*CallToolResult, error) {
	res := &CallToolResult{}
	tx, hasText := out.(Texter)
	var text string
	if structured || !hasText {
		data, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("encoding the result: %w", err)
		}
		if structured {
			res.StructuredContent = data
		}
		text = string(data)
	}
	if hasText {
		text = tx.Text()
	}
	res.Content = append(res.Content, TextContent(text))
	if c, ok := out.(Contenter); ok {
		res.Content = append(res.Content, c.Content()...)
	}
	return res, nil
}

// CallToolResult is the result of tools/call.
type CallToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// Content is one MCP content block: text or image.
type Content struct {
	Type     string `json:"type"` // "text" or "image"
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"` // base64, for images
	MIMEType string `json:"mimeType,omitempty"`
}

// TextContent returns a text block.
func TextContent(s string) Content { return Content{Type: "text", Text: s} }

// ImageContent returns an image block from base64 data.
func ImageContent(base64Data, mimeType string) Content {
	return Content{Type: "image", Data: base64Data, MIMEType: mimeType}
}

// ErrorResult is a tool failure the model can read and act on.
func ErrorResult(msg string) *CallToolResult {
	return &CallToolResult{Content: []Content{TextContent(msg)}, IsError: true}
}

// This file defines ask_user's engine: the question card, the elicitation
// schema, and what the person's answer (or silence) means for the agent.

package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Option is one choice offered to the person.
type Option struct {
	Label       string `json:"label" jsonschema_description:"the choice, unique"`
	Description string `json:"description,omitempty" jsonschema_description:"what choosing it means"`
}

// Question is what ask_user shows.
type Question struct {
	Question      string
	Context       string
	Options       []Option
	AllowFreeText bool
	MultiSelect   bool
}

// Asker shows a form to the person: message, and a flat requestedSchema
// (MCP elicitation, form mode). It returns the action ("accept",
// "decline" or "cancel") and, on accept, the content. When ctx is done it
// withdraws the question and returns ctx's error.
type Asker interface {
	Elicit(ctx context.Context, message string, schema json.RawMessage) (action string, content map[string]any, err error)
}

// Answer is the person's answer.
type Answer struct {
	Action   string   `json:"action" jsonschema_description:"accept (answered), decline or cancel (skipped)"`
	Skipped  bool     `json:"skipped" jsonschema_description:"true when the person did not answer: continue on a stated assumption and do not ask again"`
	Choices  []string `json:"choices,omitempty" jsonschema_description:"the labels chosen"`
	FreeText string   `json:"text,omitempty" jsonschema_description:"the answer the person typed"`
}

// assumeAndGoOn is the instruction given to the agent whenever the person
// does not answer.
const assumeAndGoOn = "Continue on a stated assumption (say which one you make) and do not ask this question again."

// Text is the answer as the agent reads it.
func (a Answer) Text() string {
	if a.Skipped {
		return fmt.Sprintf("skipped: the person did not answer (%s). %s", a.Action, assumeAndGoOn)
	}
	var b strings.Builder
	switch len(a.Choices) {
	case 0:
	case 1:
		fmt.Fprintf(&b, "answer: %s\n", a.Choices[0])
	default:
		fmt.Fprintf(&b, "answers: %s\n", strings.Join(a.Choices, ", "))
	}
	if a.FreeText != "" {
		fmt.Fprintf(&b, "text: %s\n", a.FreeText)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// ErrAskTimeout is wrapped by Ask's error when the person did not answer
// in time.
var ErrAskTimeout = errors.New("no answer in time")

// timeoutError is Ask's error after the timeout; it matches ErrAskTimeout.
type timeoutError struct{ msg string }

func (e timeoutError) Error() string { return e.msg }
func (e timeoutError) Unwrap() error { return ErrAskTimeout }

// Property names of the requested schema.
const (
	propChoice  = "choice"  // single choice
	propChoices = "choices" // several choices
	propText    = "text"    // free text
)

// Ask asks q through asker and waits at most timeout. legacy selects the
// pre-2025-11-25 schema forms (enumNames instead of oneOf, one boolean per
// option instead of an array). A skip is an Answer; a timeout, or an asker
// that fails (no person attached), is an error that tells the agent to go
// on without asking again.
func Ask(ctx context.Context, asker Asker, q Question, timeout time.Duration, legacy bool) (Answer, error) {
	if err := q.validate(); err != nil {
		return Answer{}, err
	}
	schema, err := json.Marshal(q.schema(legacy))
	if err != nil {
		return Answer{}, fmt.Errorf("encoding the question: %w", err)
	}
	askCtx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("ask_user: the person did not answer within %v", timeout))
	defer cancel()
	action, content, err := asker.Elicit(askCtx, q.card(), schema)
	switch {
	case err == nil:
		return q.answer(action, content)
	case ctx.Err() != nil:
		return Answer{}, ctx.Err() // the call itself was cancelled
	case askCtx.Err() != nil, errors.Is(err, context.DeadlineExceeded):
		// The second: the answer came back too late in a later request
		// (a multi round-trip request), when this one's timer is new.
		return Answer{}, timeoutError{fmt.Sprintf("the person did not answer within %v; the question was withdrawn. %s", timeout, assumeAndGoOn)}
	}
	return Answer{}, fmt.Errorf("asking the person: %v. Nobody can answer now: %s", err, assumeAndGoOn)
}

func (q Question) validate() error {
	if strings.TrimSpace(q.Question) == "" {
		return errors.New("argument 'question': empty; say what you want to know")
	}
	if len(q.Options) == 0 && !q.AllowFreeText {
		return errors.New("ask_user needs options, allow_free_text: true, or both: otherwise the person has no way to answer")
	}
	if q.MultiSelect && len(q.Options) == 0 {
		return errors.New("argument 'multi_select': true needs options to choose from")
	}
	seen := map[string]int{}
	for i, o := range q.Options {
		if strings.TrimSpace(o.Label) == "" {
			return fmt.Errorf("argument 'options[%d].label': empty label", i)
		}
		if j, dup := seen[o.Label]; dup {
			return fmt.Errorf("argument 'options[%d].label': %q repeats options[%d]; labels must be unique", i, o.Label, j)
		}
		seen[o.Label] = i
	}
	return nil
}

// card is the elicitation message: the question, its context, and the
// options numbered "1. label — description".
func (q Question) card() string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(q.Question))
	if c := strings.TrimSpace(q.Context); c != "" {
		b.WriteString("\n\n" + c)
	}
	if len(q.Options) > 0 {
		b.WriteString("\n")
	}
	for i, o := range q.Options {
		fmt.Fprintf(&b, "\n%d. %s", i+1, o.Label)
		if d := strings.TrimSpace(o.Description); d != "" {
			b.WriteString(" — " + d)
		}
	}
	switch {
	case q.MultiSelect && q.AllowFreeText:
		b.WriteString("\n\n(choose any, and/or type your own answer)")
	case q.MultiSelect:
		b.WriteString("\n\n(choose any)")
	case len(q.Options) > 0 && q.AllowFreeText:
		b.WriteString("\n\n(choose one, or type your own answer)")
	}
	return b.String()
}

// schema is the requestedSchema: flat primitives and enums only, as the
// MCP elicitation spec allows.
func (q Question) schema(legacy bool) map[string]any {
	props := map[string]any{}
	var required []string
	labels := make([]string, len(q.Options))
	titled := make([]map[string]any, len(q.Options))
	for i, o := range q.Options {
		labels[i] = o.Label
		titled[i] = map[string]any{"const": o.Label, "title": o.Label}
	}
	switch {
	case len(q.Options) > 0 && q.MultiSelect && legacy:
		// 2025-06-18 and older have no arrays: one checkbox per option.
		for i, o := range q.Options {
			p := map[string]any{"type": "boolean", "title": o.Label, "default": false}
			if o.Description != "" {
				p["description"] = o.Description
			}
			props[optionKey(i)] = p
		}
	case len(q.Options) > 0 && q.MultiSelect:
		props[propChoices] = map[string]any{"type": "array", "title": "Choose any", "items": map[string]any{"anyOf": titled}}
	case len(q.Options) > 0 && legacy:
		props[propChoice] = map[string]any{"type": "string", "title": "Choose one", "enum": labels, "enumNames": labels}
	case len(q.Options) > 0:
		props[propChoice] = map[string]any{"type": "string", "title": "Choose one", "oneOf": titled}
	}
	if len(q.Options) > 0 && !q.MultiSelect && !q.AllowFreeText {
		required = append(required, propChoice)
	}
	if q.AllowFreeText {
		props[propText] = map[string]any{"type": "string", "title": "Your answer"}
		if len(q.Options) == 0 {
			required = append(required, propText)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func optionKey(i int) string { return fmt.Sprintf("option_%d", i+1) }

// answer reads the client's result.
func (q Question) answer(action string, content map[string]any) (Answer, error) {
	switch action {
	case "decline", "cancel":
		return Answer{Action: action, Skipped: true}, nil
	case "accept":
	default:
		return Answer{}, fmt.Errorf("the client answered with action %q (want accept, decline or cancel). %s", action, assumeAndGoOn)
	}
	a := Answer{Action: action}
	if s, ok := content[propChoice].(string); ok && s != "" {
		a.Choices = append(a.Choices, s)
	}
	if list, ok := content[propChoices].([]any); ok {
		for _, v := range list {
			if s, ok := v.(string); ok && s != "" {
				a.Choices = append(a.Choices, s)
			}
		}
	}
	for i, o := range q.Options {
		if b, ok := content[optionKey(i)].(bool); ok && b {
			a.Choices = append(a.Choices, o.Label)
		}
	}
	if s, ok := content[propText].(string); ok {
		a.FreeText = strings.TrimSpace(s)
	}
	if len(a.Choices) == 0 && a.FreeText == "" {
		a.Skipped = true // accepted an empty form: nothing was answered
	}
	return a, nil
}

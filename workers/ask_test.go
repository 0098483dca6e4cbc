package workers

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// scripted is an Asker that answers with a fixed result, for the engine's
// table tests (the real client is exercised in cmd/agent-tools).
type scripted struct {
	action  string
	content map[string]any
	err     error
	block   bool // wait until ctx is done
	message string
	schema  map[string]any
}

func (s *scripted) Elicit(ctx context.Context, message string, schema json.RawMessage) (string, map[string]any, error) {
	s.message = message
	json.Unmarshal(schema, &s.schema)
	if s.block {
		<-ctx.Done()
		return "", nil, ctx.Err()
	}
	return s.action, s.content, s.err
}

var dbQuestion = Question{
	Question: "Which database?",
	Context:  "The migration depends on it.",
	Options:  []Option{{Label: "Postgres", Description: "what production runs"}, {Label: "SQLite"}},
}

func TestAskCardAndSchema(t *testing.T) {
	tests := []struct {
		name   string
		q      Question
		legacy bool
		card   string
		schema string
	}{
		{
			name:   "single choice",
			q:      dbQuestion,
			card:   "Which database?\n\nThe migration depends on it.\n\n1. Postgres — what production runs\n2. SQLite",
			schema: `{"properties":{"choice":{"oneOf":[{"const":"Postgres","title":"Postgres"},{"const":"SQLite","title":"SQLite"}],"title":"Choose one","type":"string"}},"required":["choice"],"type":"object"}`,
		},
		{
			name:   "single choice, 2025-06-18",
			q:      dbQuestion,
			legacy: true,
			card:   "Which database?\n\nThe migration depends on it.\n\n1. Postgres — what production runs\n2. SQLite",
			schema: `{"properties":{"choice":{"enum":["Postgres","SQLite"],"enumNames":["Postgres","SQLite"],"title":"Choose one","type":"string"}},"required":["choice"],"type":"object"}`,
		},
		{
			name:   "multi select with free text",
			q:      Question{Question: "Which?", Options: []Option{{Label: "a"}, {Label: "b"}}, MultiSelect: true, AllowFreeText: true},
			card:   "Which?\n\n1. a\n2. b\n\n(choose any, and/or type your own answer)",
			schema: `{"properties":{"choices":{"items":{"anyOf":[{"const":"a","title":"a"},{"const":"b","title":"b"}]},"title":"Choose any","type":"array"},"text":{"title":"Your answer","type":"string"}},"type":"object"}`,
		},
		{
			name:   "multi select, 2025-06-18",
			q:      Question{Question: "Which?", Options: []Option{{Label: "a", Description: "first"}, {Label: "b"}}, MultiSelect: true},
			legacy: true,
			card:   "Which?\n\n1. a — first\n2. b\n\n(choose any)",
			schema: `{"properties":{"option_1":{"default":false,"description":"first","title":"a","type":"boolean"},"option_2":{"default":false,"title":"b","type":"boolean"}},"type":"object"}`,
		},
		{
			name:   "free text only",
			q:      Question{Question: "Name it?", AllowFreeText: true},
			card:   "Name it?",
			schema: `{"properties":{"text":{"title":"Your answer","type":"string"}},"required":["text"],"type":"object"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &scripted{action: "cancel"}
			if _, err := Ask(t.Context(), s, tt.q, time.Minute, tt.legacy); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.card, s.message); diff != "" {
				t.Errorf("card (-want +got):\n%s", diff)
			}
			got, _ := json.Marshal(s.schema)
			if diff := cmp.Diff(tt.schema, string(got)); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAskAnswers(t *testing.T) {
	multi := Question{Question: "Which?", Options: []Option{{Label: "a"}, {Label: "b"}, {Label: "c"}}, MultiSelect: true}
	tests := []struct {
		name    string
		q       Question
		action  string
		content map[string]any
		want    Answer
		text    string
	}{
		{"choice", dbQuestion, "accept", map[string]any{"choice": "SQLite"}, Answer{Action: "accept", Choices: []string{"SQLite"}}, "answer: SQLite"},
		{"choices", multi, "accept", map[string]any{"choices": []any{"a", "c"}}, Answer{Action: "accept", Choices: []string{"a", "c"}}, "answers: a, c"},
		{"legacy booleans", multi, "accept", map[string]any{"option_1": false, "option_2": true, "option_3": true}, Answer{Action: "accept", Choices: []string{"b", "c"}}, "answers: b, c"},
		{"free text", Question{Question: "?", AllowFreeText: true}, "accept", map[string]any{"text": " call it Zed "}, Answer{Action: "accept", FreeText: "call it Zed"}, "text: call it Zed"},
		{"decline", dbQuestion, "decline", nil, Answer{Action: "decline", Skipped: true}, "skipped: the person did not answer (decline). " + assumeAndGoOn},
		{"cancel", dbQuestion, "cancel", nil, Answer{Action: "cancel", Skipped: true}, "skipped: the person did not answer (cancel). " + assumeAndGoOn},
		{"empty accept", Question{Question: "?", AllowFreeText: true}, "accept", map[string]any{}, Answer{Action: "accept", Skipped: true}, "skipped: the person did not answer (accept). " + assumeAndGoOn},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Ask(t.Context(), &scripted{action: tt.action, content: tt.content}, tt.q, time.Minute, false)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.text, got.Text()); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAskFailures(t *testing.T) {
	tests := []struct {
		name  string
		q     Question
		asker *scripted
		want  string
		is    error
	}{
		{"no way to answer", Question{Question: "?"}, &scripted{}, "needs options, allow_free_text: true, or both", nil},
		{"empty question", Question{AllowFreeText: true}, &scripted{}, "argument 'question': empty", nil},
		{"duplicate label", Question{Question: "?", Options: []Option{{Label: "a"}, {Label: "a"}}}, &scripted{}, `argument 'options[1].label': "a" repeats options[0]`, nil},
		{"multi without options", Question{Question: "?", MultiSelect: true, AllowFreeText: true}, &scripted{}, "argument 'multi_select'", nil},
		{"client error", dbQuestion, &scripted{err: errors.New("the client answered with error -32601: no person")}, "asking the person: the client answered with error -32601: no person. Nobody can answer now: " + assumeAndGoOn, nil},
		{"timeout", dbQuestion, &scripted{block: true}, "the person did not answer within 20ms; the question was withdrawn. " + assumeAndGoOn, ErrAskTimeout},
		{"odd action", dbQuestion, &scripted{action: "maybe"}, `action "maybe"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Ask(t.Context(), tt.asker, tt.q, 20*time.Millisecond, false)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err = %v, want errors.Is %v", err, tt.is)
			}
		})
	}
}

func TestAskCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Ask(ctx, &scripted{block: true}, dbQuestion, time.Minute, false); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

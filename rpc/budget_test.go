package rpc

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCutText checks the last-resort cut on its edges: a text that fits is
// never given to it, the cut text stays within the budget whenever the
// budget leaves room for the note, it ends at a line boundary unless the
// first line alone is too long, and it is always valid UTF-8.
func TestCutText(t *testing.T) {
	lines := strings.Repeat("ünïcödé line of text\n", 200)
	tests := []struct {
		name     string
		text     string
		budget   int
		wantHead string // the cut text starts with it
		partial  bool   // the head is part of the first line
	}{
		{name: "many lines", text: lines, budget: 1000, wantHead: "ünïcödé line of text\n"},
		{name: "no final newline", text: strings.TrimSuffix(lines, "\n"), budget: 1000, wantHead: "ünïcödé line of text\n"},
		{name: "one long line", text: strings.Repeat("€", 2000), budget: 500, wantHead: "€€€", partial: true},
		{name: "long first line then short ones", text: strings.Repeat("x", 3000) + "\nshort\n", budget: 400, wantHead: "xxx", partial: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cutText(tt.text, tt.budget)
			if len(got) > tt.budget || !utf8.ValidString(got) || !strings.HasPrefix(got, tt.wantHead) {
				t.Fatalf("%d bytes for a budget of %d (valid UTF-8 %v): %q", len(got), tt.budget, utf8.ValidString(got), got)
			}
			head, note := got[:strings.LastIndexByte(got[:len(got)-1], '\n')+1], got[strings.LastIndexByte(got[:len(got)-1], '\n')+1:]
			if !strings.HasPrefix(note, "[cut: ") || strings.Contains(note, "\n") {
				t.Errorf("note %q", note)
			}
			if strings.Contains(note, "the rest of line 1") != tt.partial {
				t.Errorf("partial = %v, note %q", !tt.partial, note)
			}
			if !tt.partial && !strings.HasPrefix(tt.text, head) {
				t.Errorf("the head is not a prefix of whole lines: %q", head)
			}
		})
	}
	// A budget too small for the note keeps nothing but the note.
	if got := cutText(lines, 10); !strings.HasPrefix(got, "[cut: 200 of 200 lines (") {
		t.Errorf("tiny budget: %q", got)
	}
	// cutResult leaves what fits alone and does not copy content then.
	res := &CallToolResult{Content: []Content{TextContent("fits"), ImageContent("AA==", "image/png")}}
	before := &res.Content[0]
	cutResult(res, 4)
	if &res.Content[0] != before || res.Content[0].Text != "fits" {
		t.Errorf("a text within the budget was touched: %+v", res.Content)
	}
	shared := []Content{TextContent(lines)}
	res = &CallToolResult{Content: shared}
	cutResult(res, 1000)
	if shared[0].Text != lines || len(res.Content[0].Text) > 1000 {
		t.Errorf("cutResult changed the tool's own slice, or did not cut")
	}
}

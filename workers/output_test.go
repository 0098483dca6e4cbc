package workers

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtractor(t *testing.T) {
	tests := []struct {
		name   string
		stdout string
		want   string
	}{
		{"plain text", "Renamed 3 files.\nAll tests pass.\n", "Renamed 3 files.\nAll tests pass."},
		{"claude stream-json result wins", `{"type":"system","subtype":"init"}
{"type":"assistant","message":{"content":[{"type":"text","text":"thinking"}]}}
{"type":"result","subtype":"success","result":"Final answer."}
{"type":"assistant","message":{"content":[{"type":"text","text":"after"}]}}`, "Final answer."},
		{"amp assistant blocks", `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"edit"},{"type":"text","text":"a"},{"type":"text","text":"b"}]}}`, "a\nb"},
		{"codex exec --json", `{"type":"thread.started","thread_id":"t"}
{"type":"item.completed","item":{"id":"i0","type":"reasoning","text":"hmm"}}
{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"Done: 2 files."}}
{"type":"turn.completed","usage":{}}`, "Done: 2 files."},
		{"older codex", `{"id":"0","msg":{"type":"agent_message","message":"Old style."}}`, "Old style."},
		{"opencode", `{"type":"text","part":{"type":"text","text":"From opencode."}}`, "From opencode."},
		{"generic role", `{"role":"assistant","content":"Generic."}`, "Generic."},
		{"events but no message falls back to plain", "{\"type\":\"progress\"}\nplain words\n", "plain words"},
		{"nothing", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e Extractor
			readLines(strings.NewReader(tt.stdout), e.Line)
			if diff := cmp.Diff(tt.want, e.Final()); diff != "" {
				t.Errorf("final (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadLinesCutsLongLines(t *testing.T) {
	long := strings.Repeat("x", maxLine+100)
	var got []int
	readLines(strings.NewReader(long+"\nshort\nlast"), func(l string) { got = append(got, len(l)) })
	if diff := cmp.Diff([]int{maxLine, 5, 4}, got); diff != "" {
		t.Errorf("line lengths (-want +got):\n%s", diff)
	}
}

func TestTail(t *testing.T) {
	tl := tail{max: 10}
	tl.Write([]byte("line one\nline two\n"))
	if got := tl.String(); got != "line two\n" || !tl.dropped {
		t.Errorf("tail = %q (dropped %v)", got, tl.dropped)
	}
}

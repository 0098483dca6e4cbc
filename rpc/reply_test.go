package rpc

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// TestWriteResponseAsJSONRPC2: the one-pass reply writes the very bytes
// jsonrpc2's own Response encoding does (fields, order, escaping), for
// number and string ids and every kind of result.
func TestWriteResponseAsJSONRPC2(t *testing.T) {
	results := []any{
		nil,
		map[string]any{},
		map[string]any{"content": []map[string]string{{"type": "text", "text": "a < b && c > \"d\"\n\u2028é"}}, "isError": false},
		struct {
			N int     `json:"n"`
			F float64 `json:"f"`
		}{3, 0.5},
		[]int{1, 2},
	}
	ids := []jsonrpc2.ID{{Num: 7}, {Str: "req-1", IsString: true}, {Num: 0}}
	for _, id := range ids {
		for _, res := range results {
			var out bytes.Buffer
			s := newLineStream(bytes.NewReader(nil), &out, 0)
			if err := s.writeResponse(id, res); err != nil {
				t.Fatal(err)
			}
			raw, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			msg := json.RawMessage(raw)
			want, err := json.Marshal(&jsonrpc2.Response{ID: id, Result: &msg})
			if err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != string(want)+"\n" {
				t.Errorf("id %v, result %v:\n got %s\nwant %s", id, res, got, want)
			}
		}
	}
	// Once the session is over, nothing is written.
	var out bytes.Buffer
	s := newLineStream(bytes.NewReader(nil), &out, 0)
	s.closed.Store(true)
	if err := s.writeResponse(jsonrpc2.ID{Num: 1}, nil); err != jsonrpc2.ErrClosed || out.Len() != 0 {
		t.Errorf("after close: err %v, wrote %q", err, out.String())
	}
}

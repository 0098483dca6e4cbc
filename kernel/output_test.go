package kernel

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCleanText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello\n", "hello\n"},
		{"colours", "\x1b[1;31mError\x1b[0m: bad\n", "Error: bad\n"},
		{"osc title", "\x1b]0;title\x07text", "text"},
		{"progress redraw", "  0%|     |\r 50%|##   |\r100%|#####|\n", "100%|#####|\n"},
		{"erase line", "\x1b[2K\x1b[Aline\n", "line\n"},
		{"crlf", "a\r\nb\r\n", "a\nb\n"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, cleanText(tt.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestOutputsMergeAndCap(t *testing.T) {
	var o outputs
	o.add(Output{Kind: KindStdout, Text: "a"})
	o.add(Output{Kind: KindStdout, Text: "b\n"})
	o.add(Output{Kind: KindStderr, Text: "warn\n"})
	o.add(Output{Kind: KindValue, Text: "42"})
	want := []Output{{Kind: KindStdout, Text: "ab\n"}, {Kind: KindStderr, Text: "warn\n"}, {Kind: KindValue, Text: "42"}}
	if diff := cmp.Diff(want, o.finish()); diff != "" {
		t.Errorf("merge (-want +got):\n%s", diff)
	}

	var big outputs
	line := strings.Repeat("x", 99) + "\n"
	for range 10 * maxText / len(line) {
		big.add(Output{Kind: KindStdout, Text: line})
	}
	big.add(Output{Kind: KindValue, Text: "last"})
	got := big.finish()
	total := 0
	for _, it := range got {
		total += len(it.Text)
	}
	if total > maxText+200 {
		t.Errorf("capped output is %d bytes, want about %d", total, maxText)
	}
	if len(got) != 4 || got[1].Kind != KindNote || !strings.HasPrefix(got[1].Text, fmt.Sprintf("[output truncated: %d of %d bytes shown]", maxText, 10*maxText/len(line)*len(line)+4)) || got[3].Text != "last" {
		t.Errorf("capped output: %d items, note %q, last %q", len(got), got[1].Text, got[len(got)-1].Text)
	}

	var imgs outputs
	for range maxImages + 2 {
		imgs.add(Output{Kind: KindImage})
	}
	got = imgs.finish()
	if n := len(got); n != maxImages+1 || got[n-1].Text != fmt.Sprintf("[%d of %d images shown]", maxImages, maxImages+2) {
		t.Errorf("image cap: %+v", got[len(got)-1])
	}
}

func TestFitImage(t *testing.T) {
	encode := func(w, h int) []byte {
		img := image.NewNRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				img.SetNRGBA(x, y, color.NRGBA{R: uint8(x), G: uint8(y), B: 7, A: 255})
			}
		}
		var buf bytes.Buffer
		png.Encode(&buf, img)
		return buf.Bytes()
	}
	tests := []struct {
		w, h, wantW, wantH int
	}{
		{100, 50, 100, 50},
		{4000, 1000, maxImageSide, maxImageSide / 4},
		{500, 3000, 500 * maxImageSide / 3000, maxImageSide},
	}
	for _, tt := range tests {
		data, w, h, err := fitImage(encode(tt.w, tt.h), "image/png")
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width != w || cfg.Height != h || w != tt.wantW || h != tt.wantH {
			t.Errorf("%d×%d: got %d×%d (decoded %+v, %v), want %d×%d", tt.w, tt.h, w, h, cfg, err, tt.wantW, tt.wantH)
		}
	}
	if _, _, _, err := fitImage([]byte("not a png"), "image/png"); err == nil {
		t.Error("garbage accepted as a PNG")
	}
}

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Options
		wantErr string
	}{
		{"empty", ``, defaultOptions, ""},
		{"null", `null`, defaultOptions, ""},
		{"all", `{"python":"/usr/bin/python3","node":"node","timeout":"90s","grace":"1s","prefix":["env","A=1"]}`,
			Options{Python: "/usr/bin/python3", Node: "node", Timeout: 90 * time.Second, Grace: time.Second, Prefix: []string{"env", "A=1"}}, ""},
		{"unknown key", `{"pyton":"x"}`, defaultOptions, `config eval: unknown key "pyton" (known: python, node, timeout, grace, prefix)`},
		{"bad duration", `{"timeout":"5 minutes"}`, defaultOptions, `config eval.timeout: want a positive duration such as "90s" or "5m", got "5 minutes"`},
		{"negative", `{"grace":"-1s"}`, defaultOptions, `config eval.grace: want a positive duration`},
		{"seconds as a number", `{"timeout":90}`, defaultOptions, `config eval.timeout: want a duration string such as "90s", got the number 90`},
		{"prefix not a list", `{"prefix":"bwrap"}`, defaultOptions, `config section "eval": key "prefix": want []string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseConfig([]byte(tt.in), nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestBudgetPauses(t *testing.T) {
	b := newBudget(time.Hour)
	defer b.stop()
	b.pause()
	b.pause()
	b.resume()
	if b.paused != 1 || !b.started.IsZero() {
		t.Errorf("one call still pending: paused=%d started=%v", b.paused, b.started)
	}
	left := b.left
	b.resume()
	if b.paused != 0 || b.started.IsZero() || b.left != left {
		t.Errorf("after the last call: paused=%d started=%v left=%v (was %v)", b.paused, b.started, b.left, left)
	}
	b.resume() // unbalanced: ignored
	if b.paused != 0 {
		t.Errorf("paused = %d", b.paused)
	}
}

func TestResultText(t *testing.T) {
	r := &Result{Label: "show the answer to everything", Language: Python, Status: StatusError,
		Notes:   []string{"kernel reset: started clean"},
		Outputs: []Output{{Kind: KindStdout, Text: "hi\n"}, {Kind: KindValue, Text: "a\nb"}, {Kind: KindImage, Text: "[image image/png 10×10]"}},
		Error:   "the cell raised ValueError: x"}
	want := "# show the answer to everything (python)\n[kernel reset: started clean]\nhi\nOut:\na\nb\n[image image/png 10×10]\nerror: the cell raised ValueError: x"
	if diff := cmp.Diff(want, r.Text()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

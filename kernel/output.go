// This file defines a cell's output: the accumulator that keeps it in
// order, merges stream chunks, strips terminal control sequences and caps
// what goes back to the model.

package kernel

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Output kinds, in the order a notebook shows them.
const (
	KindStdout  = "stdout"
	KindStderr  = "stderr"
	KindDisplay = "display" // display(obj): text or markdown
	KindValue   = "value"   // the last expression's value
	KindImage   = "image"   // a PNG/JPEG from display(), plt.show() or an open figure
	KindError   = "error"   // the traceback
	KindNote    = "note"    // something agent-tools says about the output
)

// Output is one piece of a cell's output.
type Output struct {
	Kind   string `json:"kind" jsonschema_description:"stdout, stderr, display, value, image, error or note"`
	Text   string `json:"text,omitempty" jsonschema_description:"the text; for images a short description"`
	MIME   string `json:"mime,omitempty" jsonschema_description:"text/plain, text/markdown, image/png or image/jpeg"`
	Width  int    `json:"width,omitempty" jsonschema_description:"image width in pixels, after downscaling"`
	Height int    `json:"height,omitempty" jsonschema_description:"image height in pixels, after downscaling"`
	Data   []byte `json:"-"` // image bytes
}

// Caps on what one cell returns.
const (
	maxText      = 40_000 // bytes of text output (head and tail kept)
	maxTraceback = 8_000  // bytes of one traceback (head and tail kept)
	maxImages    = 8
	maxImageSide = 1024    // pixels, longest side, after downscaling
	maxImageSize = 1 << 20 // bytes per encoded image after downscaling
)

// outputs accumulates a cell's output in arrival order. Not safe for
// concurrent use: the cell runner owns it.
type outputs struct {
	items   []Output
	dropped int // text bytes cut while accumulating
	// open is the text of the last item while it is a stream: chunks are
	// appended here (appending to a string would copy all of it at every
	// chunk), and seal stores it in the item's Text.
	open []byte
}

func isStream(kind string) bool { return kind == KindStdout || kind == KindStderr }

// add appends one piece, merging consecutive chunks of the same stream.
func (o *outputs) add(out Output) {
	if n := len(o.items); n > 0 && isStream(out.Kind) && o.items[n-1].Kind == out.Kind {
		o.open = append(o.open, out.Text...)
		o.boundOpen()
		return
	}
	o.seal()
	o.items = append(o.items, out)
	if isStream(out.Kind) {
		o.open = append(o.open, out.Text...)
		o.boundOpen()
		return
	}
	o.bound(&o.items[len(o.items)-1])
}

// seal stores the open stream's text in its item.
func (o *outputs) seal() {
	if n := len(o.items); n > 0 && isStream(o.items[n-1].Kind) {
		o.items[n-1].Text = string(o.open)
	}
	o.open = nil
}

// boundOpen is bound for the open stream.
func (o *outputs) boundOpen() {
	if len(o.open) <= 4*maxText {
		return
	}
	it := Output{Text: string(o.open)}
	o.bound(&it)
	o.open = append(o.open[:0], it.Text...)
}

// bound keeps a runaway stream from growing without limit: past 4×maxText
// its middle is cut (the final cap in finish cuts to maxText).
func (o *outputs) bound(it *Output) {
	if len(it.Text) <= 4*maxText {
		return
	}
	// The cut lies in the middle that capText drops anyway.
	head, tail := cutUTF8(it.Text, 2*maxText), tailUTF8(it.Text, maxText)
	o.dropped += len(it.Text) - len(head) - len(tail)
	it.Text = head + tail
}

// finish cleans and caps the output and returns it.
func (o *outputs) finish() []Output {
	o.seal()
	var out []Output
	for _, it := range o.items {
		switch it.Kind {
		case KindImage:
		case KindError:
			it.Text = truncateMiddle(cleanText(it.Text), maxTraceback)
		default:
			it.Text = cleanText(it.Text)
			if it.Text == "" {
				continue
			}
		}
		out = append(out, it)
	}
	out = capText(out, o.dropped)
	return capImages(out)
}

var (
	// CSI, OSC, and the other two-byte escape sequences.
	ansiRE = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|[\x07\x08\x0e\x0f\x7f]`)
)

// cleanText strips terminal control sequences and collapses carriage-return
// redraws (progress bars) to their final state.
func cleanText(s string) string {
	s = ansiRE.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if strings.Contains(s, "\r") {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			if j := strings.LastIndexByte(strings.TrimRight(l, "\r"), '\r'); j >= 0 {
				l = strings.TrimRight(l, "\r")[j+1:]
			}
			lines[i] = strings.TrimRight(l, "\r")
		}
		s = strings.Join(lines, "\n")
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}

// capText keeps the first and last maxText/2 bytes of the text outputs
// (errors are capped on their own) and says how much was left out.
func capText(items []Output, dropped int) []Output {
	isText := func(it Output) bool { return it.Kind != KindImage && it.Kind != KindError }
	total := dropped
	for _, it := range items {
		if isText(it) {
			total += len(it.Text)
		}
	}
	if total <= maxText {
		return items
	}
	heads, tails := make([]string, len(items)), make([]string, len(items))
	left := maxText / 2
	for i, it := range items {
		if isText(it) {
			heads[i] = cutUTF8(it.Text, left)
			left -= len(heads[i])
		}
	}
	left = maxText / 2
	for i := len(items) - 1; i >= 0; i-- {
		if isText(items[i]) {
			tails[i] = tailUTF8(items[i].Text[len(heads[i]):], left)
			left -= len(tails[i])
		}
	}
	shown := 0
	for i := range items {
		shown += len(heads[i]) + len(tails[i])
	}
	var out []Output
	noted := false
	for i, it := range items {
		if !isText(it) {
			out = append(out, it)
			continue
		}
		if heads[i] != "" {
			out = append(out, Output{Kind: it.Kind, Text: heads[i], MIME: it.MIME})
		}
		if !noted && len(heads[i])+len(tails[i]) < len(it.Text) {
			out = append(out, Output{Kind: KindNote, Text: fmt.Sprintf("[output truncated: %d of %d bytes shown]", shown, total)})
			noted = true
		}
		if tails[i] != "" {
			out = append(out, Output{Kind: it.Kind, Text: tails[i], MIME: it.MIME})
		}
	}
	return out
}

// capImages keeps the first maxImages images and says how many were left
// out.
func capImages(items []Output) []Output {
	n := 0
	for _, it := range items {
		if it.Kind == KindImage {
			n++
		}
	}
	if n <= maxImages {
		return items
	}
	var out []Output
	seen := 0
	for _, it := range items {
		if it.Kind == KindImage {
			seen++
			if seen > maxImages {
				continue
			}
		}
		out = append(out, it)
	}
	return append(out, Output{Kind: KindNote, Text: fmt.Sprintf("[%d of %d images shown]", maxImages, n)})
}

func truncateMiddle(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	head, tail := cutUTF8(s, limit/2), tailUTF8(s, limit/2)
	return fmt.Sprintf("%s\n[… %d of %d bytes shown …]\n%s", head, len(head)+len(tail), len(s), tail)
}

// cutUTF8 returns at most n bytes of s from the start, on a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// tailUTF8 returns at most n bytes of s from the end, on a rune boundary.
func tailUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

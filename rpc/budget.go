// This file defines the output budget: how many bytes of text a tool
// result may carry before its listing is cut, and the server's last-resort
// cut of a text that is still longer.

package rpc

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// DefaultOutputBudget is the default size, in bytes, of a tool result's
// text. Agent CLIs cut long results their own way (keeping the head, the
// tail, or a short preview), so a tool whose listing may be long puts its
// summary and warnings first and stops listing at this budget, saying how
// many entries it left out and how to get them.
const DefaultOutputBudget = 10 << 10

// NoBudget is what [OutputBudget] returns for a session that asked for no
// budget (serve --max-output-bytes 0, or maxOutputBytes 0 in initialize).
const NoBudget = math.MaxInt

// OutputBudget returns the text budget, in bytes, for the call ctx belongs
// to: the session's (serve --max-output-bytes N, or
// capabilities.experimental["agent-tools"].maxOutputBytes in initialize),
// [DefaultOutputBudget] unless one was set, [NoBudget] when the session
// turned it off. Tools that list (matches, references, diagnostics) stop
// their listing there; the server cuts any longer text as a last resort.
func OutputBudget(ctx context.Context) int {
	if c := callFrom(ctx); c != nil {
		return c.budget
	}
	if s := SessionFrom(ctx); s != nil {
		return s.Mode().OutputBudget()
	}
	return DefaultOutputBudget
}

// cutResult cuts every text block of res longer than budget (see
// cutText). It copies the content slice before changing it, and does
// nothing, allocating nothing, when every text fits.
func cutResult(res *CallToolResult, budget int) {
	copied := false
	for i, c := range res.Content {
		if c.Type != "text" || len(c.Text) <= budget {
			continue
		}
		if !copied {
			res.Content = append([]Content(nil), res.Content...)
			copied = true
		}
		res.Content[i].Text = cutText(c.Text, budget)
	}
}

// cutText keeps the head of text (our texts put their summary and
// warnings first) and ends it with a line saying what was left out and how
// to get it, the whole at most budget bytes when the budget leaves room
// for that line at all. The head ends at a line boundary; only when the
// first line alone is too long is it cut inside the line, and then never
// inside a UTF-8 sequence.
func cutText(text string, budget int) string {
	total := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		total++ // the last line has no newline
	}
	// The note's length with the largest numbers it can hold, so that
	// the head chosen for it leaves room for the real note (and for the
	// newline that ends a partial first line).
	room := budget - len(cutNote(total, total, len(text), budget, true)) - 1
	if room < 0 {
		room = 0
	}
	head := text[:room]
	partial := false
	if nl := strings.LastIndexByte(head, '\n'); nl >= 0 {
		head = head[:nl+1]
	} else {
		// Not even the first line fits: keep what does of it, on a rune
		// boundary.
		for len(head) > 0 && !utf8.RuneStart(text[len(head)]) {
			head = head[:len(head)-1]
		}
		partial = len(head) > 0
		if partial {
			head += "\n"
		}
	}
	kept := strings.Count(head, "\n")
	if partial {
		kept-- // the first line is only partly shown
	}
	leftBytes := len(text) - len(head)
	if partial {
		leftBytes++ // the newline added after the partial line is ours
	}
	return head + cutNote(total-kept, total, leftBytes, budget, partial)
}

// cutNote is the last line of a cut text: what was left out, and how to
// get it (narrow the call, or raise the budget, naming both options).
func cutNote(lines, total, bytes, budget int, partial bool) string {
	what := fmt.Sprintf("%d of %d lines (%d bytes)", lines, total, bytes)
	if partial {
		what = fmt.Sprintf("the rest of line 1 and %d more of %d lines (%d bytes)", lines-1, total, bytes)
	}
	return fmt.Sprintf("[cut: %s left out, over the %d-byte output budget; narrow the call, or raise the budget: serve --max-output-bytes, or maxOutputBytes in initialize]", what, budget)
}

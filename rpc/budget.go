// This file defines the output budget: how many bytes of text a tool
// result may carry before its listing is cut.

package rpc

import "context"

// DefaultOutputBudget is the default size, in bytes, of a tool result's
// text. Agent CLIs cut long results their own way (keeping the head, the
// tail, or a short preview), so a tool whose listing may be long puts its
// summary and warnings first and stops listing at this budget, saying how
// many entries it left out and how to get them.
const DefaultOutputBudget = 10 << 10

// OutputBudget returns the text budget, in bytes, for the call ctx belongs
// to. Tools that list (matches, references, diagnostics) stop their listing
// there; the server cuts any longer text as a last resort.
func OutputBudget(ctx context.Context) int {
	return DefaultOutputBudget
}

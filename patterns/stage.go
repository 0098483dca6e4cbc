// This file stages rewrites and resolves them: a staged edit records each
// file's hash at staging time and its new content; accepting re-checks
// every hash (any drift rejects the whole edit, nothing written), then
// writes the files all or nothing through internal/atomicfile.

package patterns

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agent-tools/agent-tools/internal/atomicfile"
	"github.com/aymanbagabas/go-udiff"
)

// StagedFile is one file of a staged edit.
type StagedFile struct {
	Path         string // relative to the root, slash-separated
	Abs          string
	Replacements int
	Diff         string // unified diff of this file
	// Dropped are the comments the rewrite removes from this file.
	Dropped []DroppedComment
	// CommentsUnread says the file's comments could not be read (its
	// second parse did not finish): Dropped may miss some.
	CommentsUnread bool
	// Semicolons are the lines (1-based, in the new text) where a ';' was
	// written before a replacement, lest JavaScript read it as continuing
	// the statement before (see checkRewrite).
	Semicolons []int
	// JoinsUnchecked says the original could not be parsed again to read
	// the replacements with the code around them (checkRewrite): a
	// rewrite the parser would join with its neighbours went unseen.
	JoinsUnchecked bool
	hash           [32]byte
	newText        []byte
}

// Staged is a staged edit.
type Staged struct {
	ID           string
	Files        []StagedFile
	Replacements int
	// SyntaxErrors are the syntax errors the rewrite introduced (staged
	// only when the caller allowed them).
	SyntaxErrors []SyntaxError
	// Dropped are the comments of the replaced text that the rewrite
	// does not carry, in every file (by path, then offset).
	Dropped []DroppedComment
	// CommentsUnread are the files whose comments could not be read, so
	// Dropped may miss some of theirs.
	CommentsUnread []string
	// Semicolons are the places where a ';' was written before a
	// replacement (StagedFile.Semicolons), "path:line".
	Semicolons []string
	// JoinsUnchecked are the files whose replacements were not read with
	// the code around them (StagedFile.JoinsUnchecked).
	JoinsUnchecked []string
	state          string // "", "accepted", "discarded", "rejected"
}

// DroppedComment is a comment a rewrite removes: it was in a replaced
// span and no capture the template places holds it (the matcher passes
// over comments, so a pattern never needs to spell them).
type DroppedComment struct {
	Path string `json:"path" jsonschema_description:"file, relative to the workspace root"`
	Line int    `json:"line" jsonschema_description:"1-based line of the comment in the original file"`
	Text string `json:"text" jsonschema_description:"the comment's first line"`
}

// Stager holds the staged edits of a run.
type Stager struct {
	mu    sync.Mutex // guards edits and next
	edits map[string]*Staged
	next  int
}

// NewStager returns an empty stager.
func NewStager() *Stager {
	return &Stager{edits: map[string]*Staged{}}
}

// Stage rewrites every file of a search (run with KeepSource) and stages
// the change. A search with no match is an error: there is nothing to
// stage.
//
// The template must name only metavariables the pattern binds (see
// CheckTemplate). Every rewritten file is parsed again with its grammar:
// a syntax error the rewrite introduced refuses the whole edit with a
// *SyntaxErrorsError, unless allowSyntaxErrors, when the edit is staged
// and Staged.SyntaxErrors lists them.
func (s *Stager) Stage(res *SearchResult, template string, allowSyntaxErrors bool) (*Staged, error) {
	if res.Total == 0 {
		return nil, fmt.Errorf("no matches: nothing to stage")
	}
	if err := CheckTemplate(res.Patterns, template); err != nil {
		return nil, err
	}
	if err := CheckRuleTemplate(res.Rules, template); err != nil {
		return nil, err
	}
	st := &Staged{}
	var lost []DroppedComment
	for _, o := range rewriteFiles(res.Files, template) {
		if o == nil {
			continue
		}
		if o.err != nil {
			return nil, o.err
		}
		lost = append(lost, o.lost...)
		st.SyntaxErrors = append(st.SyntaxErrors, o.errs...)
		st.Files = append(st.Files, o.file)
		st.Replacements += o.file.Replacements
	}
	for _, f := range st.sortedFiles() {
		st.Dropped = append(st.Dropped, f.Dropped...)
		if f.CommentsUnread {
			st.CommentsUnread = append(st.CommentsUnread, f.Path)
		}
		if f.JoinsUnchecked {
			st.JoinsUnchecked = append(st.JoinsUnchecked, f.Path)
		}
		for _, line := range f.Semicolons {
			st.Semicolons = append(st.Semicolons, fmt.Sprintf("%s:%d", f.Path, line))
		}
	}
	if len(st.Files) == 0 {
		return nil, fmt.Errorf("%d matches, but the rewrite leaves every file unchanged: nothing to stage", res.Total)
	}
	if len(lost) > 0 {
		slices.SortStableFunc(lost, func(a, b DroppedComment) int { return strings.Compare(a.Path, b.Path) })
		return nil, &UnspelledCodeError{Code: lost}
	}
	if len(st.SyntaxErrors) > 0 && !allowSyntaxErrors {
		return nil, &SyntaxErrorsError{Errors: st.SyntaxErrors, Files: len(st.Files)}
	}
	s.mu.Lock()
	s.next++
	st.ID = fmt.Sprintf("edit_%d", s.next)
	s.edits[st.ID] = st
	s.mu.Unlock()
	return st, nil
}

// stagedFile is one file's rewrite: the staged file, the syntax errors it
// introduces, or why it could not be checked.
type stagedFile struct {
	file StagedFile
	errs []SyntaxError
	err  error
	lost []DroppedComment // code the replacements would drop (unspelledCode)
}

// rewriteFiles rewrites, re-parses and diffs each file, one worker a
// core; a file the rewrite leaves unchanged is nil.
func rewriteFiles(files []FileMatches, template string) []*stagedFile {
	out := make([]*stagedFile, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(cores, len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := newParser()
			defer p.close()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return
				}
				if out[i] = rewriteFile(p, &files[i], template); out[i] != nil {
					p.trim()
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// rewriteFile is one file's part of rewriteFiles.
func rewriteFile(p *parser, fm *FileMatches, template string) *stagedFile {
	newText, reps, unread := rewrite(p, fm, template)
	if len(reps) == 0 || string(newText) == string(fm.Src) {
		return nil
	}
	c, err := checkRewrite(p, fm, newText, reps)
	return &stagedFile{errs: c.errs, err: err, lost: unspelledCode(fm, reps), file: StagedFile{
		Path: fm.Path, Abs: fm.Abs, Replacements: len(reps), Dropped: droppedComments(fm, reps), CommentsUnread: unread,
		Diff: unifiedDiff(fm.Path, fm.Src, c.text), hash: sha256.Sum256(fm.Src), newText: c.text, Semicolons: c.semis,
		JoinsUnchecked: c.unjoined,
	}}
}

// unspelledCode lists the code a file's replacements would drop: what the
// matches passed over without the pattern spelling it.
func unspelledCode(fm *FileMatches, reps []Replacement) []DroppedComment {
	return namedLines(fm, reps, func(r Replacement) []Span { return r.Unspelled })
}

// namedLines names each of the spans that of gives for a file's
// replacements by its path, line and first line of text (from its first
// byte that is no blank).
func namedLines(fm *FileMatches, reps []Replacement, of func(Replacement) []Span) []DroppedComment {
	var out []DroppedComment
	var li *lineIndex
	for _, r := range reps {
		for _, d := range of(r) {
			if li == nil {
				li = newLineIndex(fm.Src)
			}
			for d.Start < d.End && isSpace(fm.Src[d.Start]) {
				d.Start++
			}
			first, _, _ := strings.Cut(string(fm.Src[d.Start:d.End]), "\n")
			out = append(out, DroppedComment{Path: fm.Path, Line: li.pos(d.Start).Line, Text: clip(strings.TrimSpace(first), 80)})
		}
	}
	return out
}

// UnspelledCodeError refuses an edit whose rewrite would drop code that
// its matches passed over (README, ast_edit).
type UnspelledCodeError struct {
	Code []DroppedComment // the code, by file and line
}

func (e *UnspelledCodeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "refused: the rewrite would drop code the pattern does not spell, which its matches passed over (%s); nothing was staged. "+
		"Spell that code in the pattern (a $$$ takes any run of it, and the template can then place it), or narrow the pattern so that it does not match there:",
		plural(len(e.Code), "place"))
	for i, c := range e.Code {
		if i == maxSyntaxErrorsListed {
			fmt.Fprintf(&b, "\n… and %d more", len(e.Code)-i)
			break
		}
		fmt.Fprintf(&b, "\n%s:%d: %s", c.Path, c.Line, c.Text)
	}
	return b.String()
}

// droppedComments lists the comments a file's replacements drop.
func droppedComments(fm *FileMatches, reps []Replacement) []DroppedComment {
	return namedLines(fm, reps, func(r Replacement) []Span { return r.Dropped })
}

// Resolve accepts or discards a staged edit and returns it.
func (s *Stager) Resolve(id, action string) (*Staged, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.edits[id]
	if !ok {
		return nil, fmt.Errorf("unknown edit_id %q: use the id ast_edit returned (edit_1, edit_2, …)", id)
	}
	if st.state != "" {
		return nil, fmt.Errorf("%s was already %s: run ast_edit again for a new change", id, st.state)
	}
	switch action {
	case "discard":
		st.state = "discarded"
		return st, nil
	case "accept":
	default:
		return nil, fmt.Errorf("unknown action %q: want accept or discard", action)
	}
	originals := make([][]byte, len(st.Files))
	for i, f := range st.Files {
		cur, err := os.ReadFile(f.Abs)
		if err != nil || sha256.Sum256(cur) != f.hash {
			st.state = "rejected"
			why := "changed on disk"
			if err != nil {
				why = "cannot be read (" + err.Error() + ")"
			}
			return nil, fmt.Errorf("%s rejected: %s %s since it was staged; nothing was written; run ast_edit again", id, f.Path, why)
		}
		// The staged path was canonical: a symlink swapped in since
		// (the file, or a directory above it) would redirect the write.
		if real, err := filepath.EvalSymlinks(f.Abs); err != nil || real != f.Abs {
			st.state = "rejected"
			return nil, fmt.Errorf("%s rejected: %s is now a symlink or under one (it resolves elsewhere) since it was staged; nothing was written; run ast_edit again", id, f.Path)
		}
		originals[i] = cur
	}
	changes := make([]atomicfile.Change, len(st.Files))
	for i, f := range st.Files {
		changes[i] = atomicfile.Change{Path: f.Abs, Name: f.Path, Old: originals[i], New: f.newText}
	}
	if err := atomicfile.WriteAll(changes); err != nil {
		st.state = "rejected"
		return nil, fmt.Errorf("%s: %v", id, err)
	}
	st.state = "accepted"
	return st, nil
}

// unifiedDiff renders one file's change as a unified diff that patch -p1
// applies to the original (a/PATH → b/PATH, three lines of context, "\ No
// newline at end of file" where a side lacks one). go-udiff computes it:
// gopls's diff algorithm, published as a module; TestDiffRoundTrip holds
// it to patch(1).
func unifiedDiff(path string, src, newText []byte) string {
	return udiff.Unified("a/"+path, "b/"+path, string(src), string(newText))
}

// sortedFiles returns the staged files by path.
func (st *Staged) sortedFiles() []StagedFile {
	fs := append([]StagedFile(nil), st.Files...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
	return fs
}

// SyntaxError is a syntax error a rewrite introduced: the first ERROR or
// MISSING node, at or after one replacement, that the original's parse
// does not have.
type SyntaxError struct {
	Path   string `json:"path" jsonschema_description:"file, relative to the workspace root"`
	Line   int    `json:"line" jsonschema_description:"1-based line in the rewritten file"`
	Column int    `json:"column" jsonschema_description:"1-based column (characters) in the rewritten file"`
	// Node is "ERROR" or "MISSING <kind>" (the token error recovery
	// inserted), or "JOINED" for a replacement that parses but is read
	// with the code around it (Joined says how).
	Node string `json:"node" jsonschema_description:"ERROR, or MISSING and the kind of the token the parser had to insert, or JOINED: the file parses, but the parser reads the replacement together with the code around it, which changes its meaning"`
	// Joined says how a JOINED replacement is read.
	Joined string `json:"joined,omitempty" jsonschema_description:"for JOINED: how the parser now reads the replacement with its neighbours"`
	Text   string `json:"text" jsonschema_description:"the line of the error, as rewritten"`
	// RewriteLine is where the replacement the error follows starts.
	RewriteLine int `json:"rewriteLine" jsonschema_description:"1-based line in the rewritten file where the replacement that broke the syntax starts"`
}

func (e SyntaxError) String() string {
	if e.Node == "JOINED" {
		return fmt.Sprintf("%s:%d:%d: parses, but means something else: %s: %s", e.Path, e.Line, e.Column, e.Joined, clip(strings.TrimSpace(e.Text), 100))
	}
	where := "in the rewrite"
	if e.RewriteLine != e.Line {
		where = fmt.Sprintf("after the rewrite at line %d", e.RewriteLine)
	}
	return fmt.Sprintf("%s:%d:%d: %s %s: %s", e.Path, e.Line, e.Column, e.Node, where, clip(strings.TrimSpace(e.Text), 100))
}

// SyntaxErrorsError refuses an edit whose rewrite breaks the syntax.
type SyntaxErrorsError struct {
	Errors []SyntaxError
	Files  int // files the edit would change
}

const maxSyntaxErrorsListed = 20

// syntaxHarm says what a list of SyntaxErrors did to the code.
func syntaxHarm(errs []SyntaxError) string {
	joined := 0
	for _, e := range errs {
		if e.Node == "JOINED" {
			joined++
		}
	}
	switch joined {
	case 0:
		return "breaks the syntax"
	case len(errs):
		return "changes what the code around it means (it parses, but is read with its neighbours)"
	}
	return "breaks the syntax, or changes what the code around it means,"
}

func (e *SyntaxErrorsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "refused: the rewrite %s after %s (%s changed in all); nothing was staged. Fix the rewrite, or pass allow_syntax_errors: true to stage it anyway:", syntaxHarm(e.Errors), plural(len(e.Errors), "replacement"), plural(e.Files, "file"))
	for i, se := range e.Errors {
		if i == maxSyntaxErrorsListed {
			fmt.Fprintf(&b, "\n… and %d more", len(e.Errors)-i)
			break
		}
		b.WriteString("\n" + se.String())
	}
	return b.String()
}

// checkRewrite parses a file before and after its rewrite and returns
// what the rewrite broke: the ERROR and MISSING nodes of the new tree
// that the old one lacks, or, where it parses, the replacements the
// parser reads with the code around them (joinedReplacements).
//
// Old error nodes outside every replacement are carried to their new
// offsets; a new error node is introduced when no old one of the same
// kind sits at its place (one old node excuses one new node). An error
// the rewrite moved or reshaped is thus reported too: the rewrite touched
// broken code.
//
// In the JavaScript family a replacement that the statement before it
// would take in (a line with no ';' before a template that starts with
// '(') gets a leading ';' (semicolonBefore): the text returned is then
// the one written, reps hold it, and its semis are the lines (1-based, in
// the new text) where one was added.
func checkRewrite(p *parser, fm *FileMatches, newText []byte, reps []Replacement) (checked, error) {
	c := checked{text: newText}
	if fm.Lang == nil {
		return c, nil
	}
	newTree, err := p.parse(fm.Lang, newText, true)
	if err != nil {
		return c, fmt.Errorf("%s: parsing the rewrite: %v", fm.Path, err)
	}
	oldTree, err := p.parse(fm.Lang, fm.Src, true)
	if err != nil {
		if _, bad := newTree.firstError(); !bad {
			// The search may have read only the parts it needed, so the
			// whole original can fail to parse where the rewrite does
			// not: the rewrite parses, and the answer says its joins
			// went unchecked.
			c.unjoined = true
			return c, nil
		}
		return c, fmt.Errorf("%s: parsing the original to check the rewrite: %v", fm.Path, err)
	}
	if found := newErrorNodes(oldTree, newTree, reps); len(found) > 0 {
		c.errs = reportIntroduced(fm.Path, newTree, newText, found, rewrittenSpans(reps))
		return c, nil
	}
	joins := joinedReplacements(oldTree, newTree, reps)
	if len(joins) == 0 {
		return c, nil
	}
	was := make([]string, len(reps))
	for i, r := range reps {
		was[i] = r.Text
	}
	if semicolonBefore(fm.Lang, newText, reps, joins) {
		fixed := applyReplacements(fm.Src, reps)
		fixedTree, err := p.parse(fm.Lang, fixed, true)
		if err == nil && len(newErrorNodes(oldTree, fixedTree, reps)) == 0 {
			newText, newTree = fixed, fixedTree
			joins = joinedReplacements(oldTree, newTree, reps)
			li := newLineIndex(newText)
			for i, sp := range rewrittenSpans(reps) {
				if reps[i].Text != was[i] {
					c.semis = append(c.semis, li.pos(sp[0]).Line)
				}
			}
		} else {
			for i := range reps {
				reps[i].Text = was[i]
			}
		}
	}
	c.text, c.errs = newText, reportJoins(fm.Path, newText, joins, rewrittenSpans(reps))
	return c, nil
}

// checked is what checkRewrite found of one file's rewrite.
type checked struct {
	text     []byte        // the text to write (with any ';' added)
	errs     []SyntaxError // what the rewrite broke or joined
	semis    []int         // lines where a ';' was added
	unjoined bool          // the original did not parse again: joins unchecked
}

// reportJoins describes joined replacements as SyntaxErrors: the edit is
// refused as for a syntax error.
func reportJoins(path string, newText []byte, joins []joined, newSpans [][2]uint32) []SyntaxError {
	var out []SyntaxError
	var li *lineIndex
	for _, jn := range joins {
		if li == nil {
			li = newLineIndex(newText)
		}
		pos := li.pos(min(jn.at, uint32(len(newText))))
		out = append(out, SyntaxError{Path: path, Line: pos.Line, Column: pos.Column, Node: "JOINED", Joined: jn.how,
			Text: lineAt(newText, li, pos.Line), RewriteLine: li.pos(newSpans[jn.rep][0]).Line})
	}
	return out
}

// errorKey is an error node by where it stands and what it is.
type errorKey struct {
	start, end uint32
	node       string
}

// newErrorNodes lists the error nodes of newTree (in pre-order) that
// oldTree, its offsets moved by reps, does not have.
func newErrorNodes(oldTree, newTree *Tree, reps []Replacement) []int {
	old := map[errorKey]int{}
	for i := range oldTree.nodes {
		n := &oldTree.nodes[i]
		if n.flags&(flagError|flagMissing) == 0 {
			continue
		}
		s, ok1 := shiftOffset(n.start, reps)
		e, ok2 := shiftOffset(n.end, reps)
		if ok1 && ok2 {
			old[errorKey{s, e, errorNodeName(oldTree, i)}]++
		}
	}
	var found []int
	for i := range newTree.nodes {
		n := &newTree.nodes[i]
		if n.flags&(flagError|flagMissing) == 0 {
			continue
		}
		k := errorKey{n.start, n.end, errorNodeName(newTree, i)}
		if old[k] > 0 {
			old[k]--
			continue
		}
		found = append(found, i)
	}
	return found
}

// rewrittenSpans are the replacements' ranges in the new text.
func rewrittenSpans(reps []Replacement) [][2]uint32 {
	var spans [][2]uint32
	delta := int64(0)
	for _, r := range reps {
		s := uint32(int64(r.Start) + delta)
		spans = append(spans, [2]uint32{s, s + uint32(len(r.Text))})
		delta += int64(len(r.Text)) - int64(r.End-r.Start)
	}
	return spans
}

// reportIntroduced describes the introduced error nodes found.
//
// One broken replacement can turn hundreds of nodes after it into
// ERRORs: each introduced error is laid to the last replacement that
// starts before it ends, and only the first per replacement is
// reported. Error recovery may also wrap much of the file in an ERROR,
// so only the innermost error nodes count, and an ERROR is placed at the
// first rewritten text it holds rather than where it starts.
func reportIntroduced(path string, newTree *Tree, newText []byte, found []int, newSpans [][2]uint32) []SyntaxError {
	var out []SyntaxError
	var li *lineIndex
	taken := map[int]bool{}
	for x, i := range found {
		n := &newTree.nodes[i]
		if x+1 < len(found) && uint32(found[x+1]) < n.next {
			continue // holds another introduced error node
		}
		rep := 0
		for j, sp := range newSpans {
			if sp[0] < n.end || sp[0] == n.start {
				rep = j
			}
		}
		if taken[rep] {
			continue
		}
		taken[rep] = true
		at := n.start
		if n.flags&flagError != 0 && newSpans[rep][1] > n.start && newSpans[rep][0] < n.end {
			at = max(newSpans[rep][0], n.start)
		}
		if li == nil {
			li = newLineIndex(newText)
		}
		pos := li.pos(at)
		out = append(out, SyntaxError{Path: path, Line: pos.Line, Column: pos.Column, Node: errorNodeName(newTree, i),
			Text: lineAt(newText, li, pos.Line), RewriteLine: li.pos(newSpans[rep][0]).Line})
	}
	return out
}

// errorNodeName is "ERROR" or "MISSING kind" for an error node of t.
func errorNodeName(t *Tree, i int) string {
	n := &t.nodes[i]
	if n.flags&flagError != 0 {
		return "ERROR"
	}
	name := t.Lang.kindName(t.Lang.kind(n.sym))
	if !n.named() {
		name = strconv.Quote(name)
	}
	return "MISSING " + name
}

// shiftOffset maps an offset of the original text to the rewritten one;
// false when it falls strictly inside a replaced span.
func shiftOffset(off uint32, reps []Replacement) (uint32, bool) {
	delta := int64(0)
	for _, r := range reps {
		if off <= r.Start {
			break
		}
		if off < r.End {
			return 0, false
		}
		delta += int64(len(r.Text)) - int64(r.End-r.Start)
	}
	return uint32(int64(off) + delta), true
}

// lineAt is line n (1-based) of src, without its newline.
func lineAt(src []byte, li *lineIndex, n int) string {
	start := li.starts[n-1]
	end := len(src)
	if n < len(li.starts) {
		end = li.starts[n] - 1
	}
	return strings.TrimSuffix(string(src[start:end]), "\r")
}

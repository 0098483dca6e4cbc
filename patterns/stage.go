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
	"sort"
	"sync"

	"github.com/agent-tools/agent-tools/internal/atomicfile"
	"github.com/aymanbagabas/go-udiff"
)

// StagedFile is one file of a staged edit.
type StagedFile struct {
	Path         string // relative to the root, slash-separated
	Abs          string
	Replacements int
	Diff         string // unified diff of this file
	hash         [32]byte
	newText      []byte
}

// Staged is a staged edit.
type Staged struct {
	ID           string
	Files        []StagedFile
	Replacements int
	state        string // "", "accepted", "discarded", "rejected"
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
func (s *Stager) Stage(res *SearchResult, template string) (*Staged, error) {
	if res.Total == 0 {
		return nil, fmt.Errorf("no matches: nothing to stage")
	}
	st := &Staged{}
	for i := range res.Files {
		fm := &res.Files[i]
		newText, reps := Rewrite(fm, template)
		if len(reps) == 0 || string(newText) == string(fm.Src) {
			continue
		}
		st.Files = append(st.Files, StagedFile{
			Path: fm.Path, Abs: fm.Abs, Replacements: len(reps),
			Diff: unifiedDiff(fm.Path, fm.Src, newText), hash: sha256.Sum256(fm.Src), newText: newText,
		})
		st.Replacements += len(reps)
	}
	if len(st.Files) == 0 {
		return nil, fmt.Errorf("%d matches, but the rewrite leaves every file unchanged: nothing to stage", res.Total)
	}
	s.mu.Lock()
	s.next++
	st.ID = fmt.Sprintf("edit_%d", s.next)
	s.edits[st.ID] = st
	s.mu.Unlock()
	return st, nil
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

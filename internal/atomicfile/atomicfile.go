// Package atomicfile writes a set of files all or nothing: the one writer
// behind every tool that changes several files at once (lsp_rename,
// resolve accept). Each file is replaced by renaming a synced temp file
// over it (github.com/google/renameio/v2), so a reader sees the old or the
// new content, never a mix; when one replacement fails, the files already
// replaced get their old content back the same way.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// A Change replaces the content of one file.
type Change struct {
	Path string // absolute
	Name string // how errors name the file (e.g. relative to the root); Path when empty
	Old  []byte // the content to restore if a later file fails
	New  []byte
	// Mode is the new file's permission bits; 0 keeps the existing
	// file's (0644 for a new file).
	Mode fs.FileMode
}

// BeforeReplace, when set (by tests of a disk that fails), runs before each
// file is replaced; an error makes that replacement fail.
var BeforeReplace func(path string) error

// WriteAll writes every change or none. It first writes each new content
// to a temp file beside its target; if that fails, nothing was changed.
// Then it replaces the targets one by one; if one fails, the targets
// already replaced are restored to Old. The error says which of the two
// happened, and names any file it could not restore.
func WriteAll(changes []Change) error {
	pending := make([]*renameio.PendingFile, len(changes))
	defer func() {
		for _, p := range pending {
			if p != nil {
				p.Cleanup()
			}
		}
	}()
	for i, c := range changes {
		p, err := stage(c.Path, c.New, c.Mode)
		if err != nil {
			return fmt.Errorf("writing %s: %w; nothing was changed", c.name(), cause(err))
		}
		pending[i] = p
	}
	for i, c := range changes {
		var err error
		if BeforeReplace != nil {
			err = BeforeReplace(c.Path)
		}
		if err == nil {
			err = pending[i].CloseAtomicallyReplace()
		}
		if err != nil {
			if rerr := restore(changes[:i]); rerr != nil {
				return errors.Join(fmt.Errorf("replacing %s: %w", c.name(), cause(err)), rerr)
			}
			what := "nothing was changed"
			if i > 0 {
				what = fmt.Sprintf("the %d file(s) already replaced were restored, so nothing was changed", i)
			}
			return fmt.Errorf("replacing %s: %w; %s", c.name(), cause(err), what)
		}
	}
	return nil
}

func (c Change) name() string {
	if c.Name != "" {
		return c.Name
	}
	return c.Path
}

// cause drops the temp file's path from an *fs.PathError or
// *os.LinkError: the message names the target file already, and the
// temp name means nothing to the reader. errors.Is still sees the cause
// (ENOSPC, EPERM, …).
func cause(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// Write replaces one file atomically.
func Write(path string, data []byte, mode fs.FileMode) error {
	return WriteAll([]Change{{Path: path, New: data, Mode: mode}})
}

// stage writes data to a temp file beside path, with path's mode.
func stage(path string, data []byte, mode fs.FileMode) (*renameio.PendingFile, error) {
	if mode == 0 {
		mode = 0o644
		if info, err := os.Stat(path); err == nil {
			mode = info.Mode().Perm()
		}
	}
	p, err := renameio.NewPendingFile(path, renameio.WithTempDir(filepath.Dir(path)), renameio.WithStaticPermissions(mode))
	if err != nil {
		return nil, err
	}
	if _, err := p.Write(data); err != nil {
		p.Cleanup()
		return nil, err
	}
	return p, nil
}

// restore puts the old content back into files already replaced.
func restore(done []Change) error {
	var errs []error
	for _, c := range done {
		p, err := stage(c.Path, c.Old, c.Mode)
		if err == nil {
			err = p.CloseAtomicallyReplace()
			p.Cleanup()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("could not restore %s: %w", c.name(), cause(err)))
		}
	}
	return errors.Join(errs...)
}

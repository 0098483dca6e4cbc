// Package probe finds external programs for the doctor table and for the
// attach decisions of the capability packages.
package probe

import (
	"os/exec"
)

// Binary is the result of looking for one program.
type Binary struct {
	Name string // as searched, e.g. "gopls"
	Path string // resolved path; "" when missing
}

// Found reports whether the program was found.
func (b Binary) Found() bool { return b.Path != "" }

// Look searches PATH for the first of names that exists (versioned names
// such as lldb-dap-19 are listed after the plain one).
func Look(names ...string) Binary {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return Binary{Name: n, Path: p}
		}
	}
	if len(names) == 0 {
		return Binary{}
	}
	return Binary{Name: names[0]}
}

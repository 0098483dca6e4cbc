// This file defines how the interpreter of each language is chosen.

package kernel

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Language is a kernel's language.
type Language string

const (
	Python     Language = "python"
	JavaScript Language = "javascript"
)

// Interpreter is a resolved interpreter binary and why it was chosen.
type Interpreter struct {
	Path string // absolute, or as configured when a prefix is used
	Why  string // "configured", "project .venv", "PATH", ...
}

// FindInterpreter chooses the interpreter for lang in the project at root:
// for Python a configured path, else root/.venv/bin/python or
// root/venv/bin/python, else python3 on PATH; for JavaScript a configured
// path, else node on PATH.
func FindInterpreter(lang Language, opts Options, root string) (Interpreter, error) {
	configured := opts.Python
	if lang == JavaScript {
		configured = opts.Node
	}
	if configured != "" {
		if len(opts.Prefix) > 0 {
			return Interpreter{Path: configured, Why: "configured"}, nil // resolved inside the prefix
		}
		p, err := exec.LookPath(configured)
		if err != nil {
			return Interpreter{}, fmt.Errorf("the configured %s interpreter %q: %w", lang, configured, err)
		}
		return Interpreter{Path: p, Why: "configured"}, nil
	}
	if lang == Python && root != "" {
		for _, venv := range []string{".venv", "venv"} {
			p := filepath.Join(root, venv, "bin", "python")
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return Interpreter{Path: p, Why: "project " + venv}, nil
			}
		}
	}
	name := "python3"
	if lang == JavaScript {
		name = "node"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return Interpreter{}, fmt.Errorf("no %s interpreter: %s is not on PATH (set \"%s\" in the eval section of --config)", lang, name, map[Language]string{Python: "python", JavaScript: "node"}[lang])
	}
	return Interpreter{Path: p, Why: "PATH"}, nil
}

// This file defines what eval says about its interpreters: the status line
// of a kernel's first cell, the %kernel query, and the hint that follows a
// ModuleNotFoundError (which interpreter ran, which others have the module,
// and the config line that selects one).

package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// kernelQuery is the cell that asks which interpreter the kernel runs
// (in either language), like IPython's %env asks about the environment.
const kernelQuery = "%kernel"

func isKernelQuery(code string) bool { return strings.TrimSpace(code) == kernelQuery }

// describe is the kernel's status line: "python kernel: /usr/bin/python3
// (Python 3.11.2; configured)".
func (k *Kernel) describe() string {
	return fmt.Sprintf("%s kernel: %s (%s; %s)", k.Lang, k.Interp.Path, k.versionText(), k.Interp.Why)
}

func (k *Kernel) versionText() string {
	if k.Lang == JavaScript {
		return "Node " + k.Version
	}
	return "Python " + k.Version
}

// kernelReport answers %kernel: the running interpreter, why it was
// chosen, and (for Python) the other interpreters found with their
// versions.
func (p *Pool) kernelReport(ctx context.Context, k *Kernel, root string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\npid %d", k.describe(), k.Pid())
	if k.Lang != Python {
		return b.String()
	}
	if len(p.opts.Prefix) > 0 {
		b.WriteString("\nthe kernel runs under a prefix (" + strings.Join(p.opts.Prefix, " ") + "): other interpreters are not looked for")
		return b.String()
	}
	others := otherPythons(k.Interp.Path, root)
	if len(others) == 0 {
		b.WriteString("\nno other python interpreter found")
		return b.String()
	}
	b.WriteString("\nother python interpreters found:")
	for _, r := range probePython(ctx, others, root) {
		fmt.Fprintf(&b, "\n  %s (%s)", r.Path, r.describe())
	}
	fmt.Fprintf(&b, "\nto choose one, set {\"eval\": {\"python\": PATH}} in agent-tools' config file")
	return b.String()
}

// describe is "Python 3.11.2; first python3 on PATH", or why the probe
// failed.
func (r probeResult) describe() string {
	if r.Err != nil {
		return r.Why + "; " + firstLine(r.Err.Error())
	}
	return "Python " + r.Version + "; " + r.Why
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// otherPythons are the Python candidates for root other than the
// interpreter at path.
func otherPythons(path, root string) []Interpreter {
	self := interpKey(path)
	var out []Interpreter
	for _, c := range pythonCandidates(root) {
		if interpKey(c.Path) != self {
			out = append(out, c)
		}
	}
	return out
}

// moduleHint follows a ModuleNotFoundError for module: which interpreter
// ran the cell, which other interpreters found here have module, and how
// to select one.
func (p *Pool) moduleHint(ctx context.Context, k *Kernel, module, root string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the kernel runs %s (Python %s; %s), which has no module %s.", k.Interp.Path, k.Version, k.Interp.Why, module)
	if len(p.opts.Prefix) > 0 {
		b.WriteString(" It runs under a prefix, so other interpreters were not looked for.")
		return b.String()
	}
	others := otherPythons(k.Interp.Path, root)
	var have []probeResult
	var looked []string
	for _, r := range probePython(ctx, others, root, module) {
		looked = append(looked, r.Path)
		if r.Has[module] {
			have = append(have, r)
		}
	}
	if len(have) == 0 {
		if len(looked) > 0 {
			fmt.Fprintf(&b, " No other interpreter found here has it either (looked at %s).", strings.Join(looked, ", "))
		}
		fmt.Fprintf(&b, " %%pip install of the package that provides %s installs it for the kernel's interpreter.", module)
		return b.String()
	}
	var names []string
	for _, r := range have {
		names = append(names, fmt.Sprintf("%s (%s)", r.Path, r.describe()))
	}
	verb := "has"
	if len(have) > 1 {
		verb = "have"
	}
	fmt.Fprintf(&b, " %s %s it.", strings.Join(names, ", "), verb)
	quoted, _ := json.Marshal(have[0].Path)
	fmt.Fprintf(&b, " To run cells with %s, put {\"eval\": {\"python\": %s}} in agent-tools' config file (--config, read when agent-tools starts)", have[0].Path, quoted)
	if !k.Interp.Own && root != "" {
		fmt.Fprintf(&b, ", or make the project's .venv from it (%s -m venv --system-site-packages .venv) and run the next cell with reset: true", have[0].Path)
	}
	b.WriteString(".")
	return b.String()
}

// This file defines how the interpreter of each language is chosen, and
// the other Python interpreters a person would look at when an import
// fails.

package kernel

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
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
	Why  string // "configured", "project .venv", "first python3 on PATH", ...
	// Own is true for the configured interpreter and for the project's own
	// environments (.venv, venv, uv, poetry): choices a new project .venv
	// would not replace.
	Own bool
}

// FindInterpreter chooses the interpreter for lang in the project at root,
// as a person would: a configured path first; for Python then the
// project's own environment (root/.venv, root/venv, $UV_PROJECT_ENVIRONMENT,
// the project's poetry env), an activated one ($VIRTUAL_ENV,
// $CONDA_PREFIX), else the first python3 on PATH; for JavaScript node on
// PATH.
func FindInterpreter(lang Language, opts Options, root string) (Interpreter, error) {
	configured := opts.Python
	if lang == JavaScript {
		configured = opts.Node
	}
	if configured != "" {
		if len(opts.Prefix) > 0 {
			return Interpreter{Path: configured, Why: "configured", Own: true}, nil // resolved inside the prefix
		}
		p, err := proc.LookPath(configured)
		if err != nil {
			return Interpreter{}, fmt.Errorf("the configured %s interpreter %q: %w", lang, configured, err)
		}
		return Interpreter{Path: p, Why: "configured", Own: true}, nil
	}
	if lang == Python {
		if cands := pythonCandidates(root); len(cands) > 0 {
			return cands[0], nil
		}
		return Interpreter{}, fmt.Errorf(`no python interpreter: no project virtualenv and no python3 on PATH (set "python" in the eval section of --config)`)
	}
	p, err := proc.LookPath("node")
	if err != nil {
		return Interpreter{}, fmt.Errorf(`no javascript interpreter: node is not on PATH (set "node" in the eval section of --config)`)
	}
	return Interpreter{Path: p, Why: "node on PATH"}, nil
}

// pythonCandidates lists the Python interpreters found for the project at
// root, best first, each once: the project's environments, the activated
// ones, every python3 on PATH, then the usual system locations.
func pythonCandidates(root string) []Interpreter {
	var out []Interpreter
	seen := map[string]bool{}
	add := func(path, why string, own bool) {
		if !isExecutable(path) {
			return
		}
		if k := interpKey(path); !seen[k] {
			seen[k] = true
			out = append(out, Interpreter{Path: path, Why: why, Own: own})
		}
	}
	if root != "" {
		for _, venv := range []string{".venv", "venv"} {
			add(filepath.Join(root, venv, "bin", "python"), "project "+venv, true)
		}
		if dir := os.Getenv("UV_PROJECT_ENVIRONMENT"); dir != "" {
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(root, dir)
			}
			add(filepath.Join(dir, "bin", "python"), "uv project environment ($UV_PROJECT_ENVIRONMENT)", true)
		}
		if env := poetryEnv(root); env != "" {
			add(filepath.Join(env, "bin", "python"), "the project's poetry env", true)
		}
	}
	if dir := os.Getenv("VIRTUAL_ENV"); dir != "" {
		add(filepath.Join(dir, "bin", "python"), "$VIRTUAL_ENV", false)
	}
	if dir := os.Getenv("CONDA_PREFIX"); dir != "" {
		add(filepath.Join(dir, "bin", "python"), "$CONDA_PREFIX", false)
	}
	first := true
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue // proc.LookPath refuses relative PATH entries too
		}
		p := filepath.Join(dir, "python3")
		if !isExecutable(p) {
			continue
		}
		if first {
			add(p, "first python3 on PATH", false)
			first = false
		} else {
			add(p, "python3 on PATH", false)
		}
	}
	for _, p := range []string{"/usr/bin/python3", "/usr/local/bin/python3"} {
		add(p, "system python3", false)
	}
	return out
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// interpKey identifies an interpreter environment: the binary (symlinks
// resolved) and, for a virtualenv's python, the virtualenv (whose python
// is usually a symlink to the system's, with different packages).
func interpKey(path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	env := filepath.Dir(filepath.Dir(path))
	if _, err := os.Stat(filepath.Join(env, "pyvenv.cfg")); err == nil {
		return real + "\x00" + env
	}
	return real
}

// poetryEnv returns the virtualenv poetry keeps for the project at root
// outside the project ({cache-dir}/virtualenvs/<name>-<hash>-py<X.Y>), or
// "" when root is not a poetry project or has none. <hash> is poetry's:
// the first 8 characters of the URL-safe base64 SHA-256 of the project's
// real path; the active one of several is recorded in envs.toml.
func poetryEnv(root string) string {
	if !isPoetryProject(root) {
		return ""
	}
	dir := poetryVirtualenvs()
	real, err := filepath.EvalSymlinks(root)
	if dir == "" || err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(real))
	tag := "-" + base64.URLEncoding.EncodeToString(sum[:])[:8]
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var envs []string
	for _, e := range entries {
		if i := strings.LastIndex(e.Name(), tag+"-py"); i > 0 && e.IsDir() {
			envs = append(envs, e.Name())
		}
	}
	if len(envs) == 0 {
		return ""
	}
	if name := activePoetryEnv(filepath.Join(dir, "envs.toml"), tag, envs); name != "" {
		return filepath.Join(dir, name)
	}
	slices.Sort(envs)
	return filepath.Join(dir, envs[len(envs)-1])
}

// isPoetryProject reports whether root has a poetry.lock, or a
// pyproject.toml with a [tool.poetry…] table.
func isPoetryProject(root string) bool {
	if _, err := os.Stat(filepath.Join(root, "poetry.lock")); err == nil {
		return true
	}
	data, err := os.ReadFile(filepath.Join(root, "pyproject.toml"))
	return err == nil && bytes.Contains(data, []byte("[tool.poetry"))
}

// poetryVirtualenvs is the directory where poetry keeps virtualenvs:
// $POETRY_VIRTUALENVS_PATH, else {cache-dir}/virtualenvs with the cache
// dir $POETRY_CACHE_DIR or $XDG_CACHE_HOME/pypoetry (~/.cache/pypoetry).
// "" when no home directory is known.
func poetryVirtualenvs() string {
	if dir := os.Getenv("POETRY_VIRTUALENVS_PATH"); dir != "" {
		return dir
	}
	cache := os.Getenv("POETRY_CACHE_DIR")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return ""
			}
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "pypoetry")
	}
	return filepath.Join(cache, "virtualenvs")
}

// activePoetryEnv reads envs.toml, where [<name>-<hash>] minor = "3.11"
// marks the active env, and returns that env's name if it is one of envs.
func activePoetryEnv(path, tag string, envs []string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.Trim(line, `[]" `)
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.HasSuffix(section, tag) && strings.TrimSpace(k) == "minor" {
			name := section + "-py" + strings.Trim(strings.TrimSpace(v), `"'`)
			if slices.Contains(envs, name) {
				return name
			}
		}
	}
	return ""
}

// probeTimeout bounds one interpreter probe (a pyenv shim may take a
// second; a broken interpreter must not hold up a cell's result).
const probeTimeout = 5 * time.Second

// pythonProbe prints the interpreter's version, then for each module named
// in argv whether it is found (importlib.util.find_spec: nothing is
// imported, so the probe is quick and has no side effects).
const pythonProbe = `import sys
print("%d.%d.%d" % sys.version_info[:3])
import importlib.util as u
for m in sys.argv[1:]:
    try:
        print(u.find_spec(m) is not None)
    except Exception:
        print(False)`

// probeResult is what a probe learned about one interpreter.
type probeResult struct {
	Interpreter
	Version string          // "3.11.2"; "" when the probe failed
	Has     map[string]bool // module → found
	Err     error
}

// probePython runs pythonProbe with each interpreter at once, in dir, and
// returns the results in the order given.
func probePython(ctx context.Context, interps []Interpreter, dir string, modules ...string) []probeResult {
	out := make([]probeResult, len(interps))
	var wg sync.WaitGroup
	for i, in := range interps {
		wg.Go(func() {
			r := probeResult{Interpreter: in, Has: map[string]bool{}}
			text, err := runProbe(ctx, in.Path, dir, append([]string{"-c", pythonProbe}, modules...)...)
			lines := strings.Split(strings.TrimSpace(text), "\n")
			if err != nil || len(lines) != 1+len(modules) {
				if err == nil {
					err = fmt.Errorf("unexpected output %q", text)
				}
				r.Err = err
			} else {
				r.Version = lines[0]
				for j, m := range modules {
					r.Has[m] = lines[1+j] == "True"
				}
			}
			out[i] = r
		})
	}
	wg.Wait()
	return out
}

// interpVersion is the version an interpreter reports ("3.11.2",
// "v20.20.2"), or why it could not say.
func interpVersion(ctx context.Context, lang Language, path, dir string) (string, error) {
	if lang == JavaScript {
		text, err := runProbe(ctx, path, dir, "--version")
		return strings.TrimSpace(text), err
	}
	r := probePython(ctx, []Interpreter{{Path: path}}, dir)[0]
	return r.Version, r.Err
}

// runProbe runs one short-lived interpreter under the supervisor and
// returns its stdout.
func runProbe(ctx context.Context, path, dir string, args ...string) (string, error) {
	if dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			dir = ""
		}
	}
	res, err := proc.Output(ctx, proc.Spec{Name: filepath.Base(path), Path: path, Args: args, Dir: dir, StderrTail: 4 << 10}, probeTimeout, 64<<10)
	if ctx.Err() != nil {
		return "", fmt.Errorf("%s: %w", path, ctx.Err())
	}
	if e, ok := errors.AsType[*proc.Ended](err); ok && e.Timeout > 0 {
		return "", fmt.Errorf("%s did not answer within %v", path, probeTimeout)
	}
	if err != nil {
		return string(res.Stdout), fmt.Errorf("%s: %s%s", path, exitStatus(err), stderrNote(res.StderrTail(stderrNoteLines)))
	}
	return string(res.Stdout), nil
}

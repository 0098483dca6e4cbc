package kernel

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
	"github.com/google/go-cmp/cmp"
)

// isolatePythonEnv clears the variables that name an activated
// environment and sets PATH, so that the candidates come from the test's
// fixture only.
func isolatePythonEnv(t *testing.T, path string) {
	t.Helper()
	for _, k := range []string{"VIRTUAL_ENV", "CONDA_PREFIX", "UV_PROJECT_ENVIRONMENT", "POETRY_VIRTUALENVS_PATH"} {
		t.Setenv(k, "")
	}
	t.Setenv("PATH", path)
}

// fakeExe writes an executable file (never run: the candidates are only
// looked up).
func fakeExe(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPythonCandidates checks the order of preference and the
// de-duplication, on fake interpreters (no process runs).
func TestPythonCandidates(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "proj")
	pathA := filepath.Join(dir, "a")
	pathB := filepath.Join(dir, "b")
	fakeExe(t, filepath.Join(pathA, "python3"))
	fakeExe(t, filepath.Join(pathB, "python3"))
	// A symlink to a's python3 is the same interpreter and is listed once.
	linked := filepath.Join(dir, "c")
	os.MkdirAll(linked, 0o755)
	if err := os.Symlink(filepath.Join(pathA, "python3"), filepath.Join(linked, "python3")); err != nil {
		t.Fatal(err)
	}
	active := filepath.Join(dir, "active")
	fakeExe(t, filepath.Join(active, "bin", "python"))
	isolatePythonEnv(t, strings.Join([]string{pathA, "relative/dir", linked, pathB}, string(os.PathListSeparator)))
	t.Setenv("VIRTUAL_ENV", active)

	whys := func() []string {
		var out []string
		for _, c := range pythonCandidates(root) {
			if c.Path == "/usr/bin/python3" || c.Path == "/usr/local/bin/python3" {
				continue // the machine's own, whatever it has
			}
			out = append(out, strings.TrimPrefix(c.Path, dir+"/")+" ("+c.Why+")")
		}
		return out
	}
	want := []string{"active/bin/python ($VIRTUAL_ENV)", "a/python3 (first python3 on PATH)", "b/python3 (python3 on PATH)"}
	if diff := cmp.Diff(want, whys()); diff != "" {
		t.Errorf("without a project env (-want +got):\n%s", diff)
	}

	// The project's own environments come first: venv, then .venv ahead of it.
	fakeExe(t, filepath.Join(root, "venv", "bin", "python"))
	fakeExe(t, filepath.Join(root, ".venv", "bin", "python"))
	want = append([]string{"proj/.venv/bin/python (project .venv)", "proj/venv/bin/python (project venv)"}, want...)
	if diff := cmp.Diff(want, whys()); diff != "" {
		t.Errorf("with .venv and venv (-want +got):\n%s", diff)
	}
	in, err := FindInterpreter(Python, Options{}, root)
	if err != nil || in.Path != filepath.Join(root, ".venv", "bin", "python") {
		t.Errorf("FindInterpreter = %+v, %v; want the project .venv", in, err)
	}
	in, err = FindInterpreter(Python, Options{Python: filepath.Join(pathB, "python3")}, root)
	if err != nil || in.Path != filepath.Join(pathB, "python3") || in.Why != "configured" {
		t.Errorf("configured: FindInterpreter = %+v, %v", in, err)
	}
}

// TestPoetryEnv checks that a poetry project's env outside the project is
// found by poetry's own naming (<name>-<hash>-py<X.Y>, the hash computed by
// poetry's formula in Python as the oracle) and that envs.toml picks the
// active one of two.
func TestPoetryEnv(t *testing.T) {
	testutil.NeedsFunc(t, debianPython, func() string {
		if _, err := os.Stat(debianPython); err != nil {
			return err.Error()
		}
		return ""
	})
	root := t.TempDir()
	envs := t.TempDir()
	isolatePythonEnv(t, "/nonexistent")
	t.Setenv("POETRY_VIRTUALENVS_PATH", envs)
	if err := os.WriteFile(filepath.Join(root, "pyproject.toml"), []byte("[tool.poetry]\nname = \"My App\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// poetry.utils.env.EnvManager.generate_env_name.
	out, err := exec.Command(debianPython, "-c", `import base64, hashlib, os, re, sys
name = re.sub(r'[ $`+"`"+`!*@"\\\r\n\t]', "_", "My App".lower())[:42]
h = hashlib.sha256(os.path.normcase(os.path.realpath(sys.argv[1])).encode()).digest()
print(name + "-" + base64.urlsafe_b64encode(h).decode()[:8])`, root).Output()
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSpace(string(out))
	if got := poetryEnv(root); got != "" {
		t.Errorf("no env yet, got %q", got)
	}
	fakeExe(t, filepath.Join(envs, base+"-py3.9", "bin", "python"))
	fakeExe(t, filepath.Join(envs, base+"-py3.11", "bin", "python"))
	fakeExe(t, filepath.Join(envs, "other-AAAAAAAA-py3.11", "bin", "python"))
	os.WriteFile(filepath.Join(envs, "envs.toml"), []byte(fmt.Sprintf("[%s]\nminor = \"3.9\"\npatch = \"3.9.18\"\n", base)), 0o644)
	in, err := FindInterpreter(Python, Options{}, root)
	if want := filepath.Join(envs, base+"-py3.9", "bin", "python"); err != nil || in.Path != want || in.Why != "the project's poetry env" {
		t.Errorf("FindInterpreter = %+v, %v; want %s", in, err, want)
	}
}

// leanVenv makes a virtualenv from Debian's python without its site
// packages (so without pandas) and without pip: the interpreter that
// cannot import pandas.
func leanVenv(t *testing.T, dir string, systemSite bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testutil.IntegrationTimeout())
	defer cancel()
	args := []string{"-m", "venv", "--without-pip"}
	if systemSite {
		args = append(args, "--system-site-packages")
	}
	if out, err := exec.CommandContext(ctx, debianPython, append(args, dir)...).CombinedOutput(); err != nil {
		testutil.NeedsFunc(t, "python3 -m venv (Debian's python3-venv)", func() string { return fmt.Sprintf("%v: %s", err, out) })
	}
	return filepath.Join(dir, "bin")
}

// TestWrongInterpreterSaysWhichHasIt is issue 16's first case with real
// interpreters: the first python3 on PATH (a venv without site packages)
// cannot import pandas, a second one (Debian's) can. The error names both
// and the config line; a project .venv then wins after a reset; %kernel
// tells which interpreter runs.
func TestWrongInterpreterSaysWhichHasIt(t *testing.T) {
	needsPython(t) // Debian's python3 can import pandas
	lean := leanVenv(t, filepath.Join(t.TempDir(), "lean"), false)
	isolatePythonEnv(t, lean+":/usr/bin:/bin")
	s := newSession(t, nil)
	s.pool.opts.Python = "" // choose as a person would

	res := s.run(Python, "import pandas as pd")
	if res.Status != StatusError {
		t.Fatalf("import pandas in the lean venv: %s", res.Text())
	}
	text := res.Text()
	leanPy := filepath.Join(lean, "python3")
	for _, want := range []string{
		"[python kernel: " + leanPy + " (Python 3.",                                // the status line of the first cell
		"ModuleNotFoundError: No module named 'pandas'",                            // the traceback
		"the kernel runs " + leanPy + " (Python 3.",                                // which one ran
		"; first python3 on PATH), which has no module pandas.",                    // and why
		" /usr/bin/python3 (Python 3.",                                             // the one that has it
		`put {"eval": {"python": "/usr/bin/python3"}} in agent-tools' config file`, // the config line
		"/usr/bin/python3 -m venv --system-site-packages .venv",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("result lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "[python kernel:") != 1 {
		t.Errorf("want one status line:\n%s", text)
	}
	if res := s.run(Python, "1 + 1"); strings.Contains(res.Text(), "[python kernel:") {
		t.Errorf("the status line is for the first cell only: %s", res.Text())
	}

	// A project .venv is preferred once it exists (the next kernel start).
	venv := filepath.Join(s.root, ".venv")
	leanVenv(t, venv, true)
	res = s.runReq(Request{Code: "import sys, pandas\nsys.prefix", Reset: true})
	if !res.OK() || !strings.HasSuffix(res.Text(), "Out: '"+venv+"'") || !strings.Contains(res.Text(), "[python kernel: "+filepath.Join(venv, "bin", "python")+" (Python 3.") || !strings.Contains(res.Text(), "; project .venv)]") {
		t.Errorf("after making the project .venv:\n%s", res.Text())
	}

	// A configured interpreter: the hint is the config line only (a new
	// .venv would not be chosen over it).
	conf := newSession(t, &Options{Python: leanPy})
	res = conf.run(Python, "import pandas")
	if text := res.Text(); res.Status != StatusError || !strings.Contains(text, "the kernel runs "+leanPy+" (Python 3.") ||
		!strings.Contains(text, "; configured), which has no module pandas.") || !strings.Contains(text, `{"eval": {"python": "/usr/bin/python3"}}`) || strings.Contains(text, "-m venv") {
		t.Errorf("configured interpreter without pandas:\n%s", text)
	}

	// %kernel: the running interpreter and the others found.
	got := s.py("%kernel")
	for _, want := range []string{"python kernel: " + filepath.Join(venv, "bin", "python") + " (Python 3.", "; project .venv)", "other python interpreters found:", leanPy + " (Python 3.", "; first python3 on PATH)"} {
		if !strings.Contains(got, want) {
			t.Errorf("%%kernel lacks %q:\n%s", want, got)
		}
	}
}

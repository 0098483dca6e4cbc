package kernel

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// writeWheel builds a minimal pure-Python wheel of package hello_offline
// (no PyPI here: %pip installs it from the file).
func writeWheel(t *testing.T, dir, version string) string {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("hello_offline-%s-py3-none-any.whl", version))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := zip.NewWriter(f)
	info := fmt.Sprintf("hello_offline-%s.dist-info/", version)
	files := [][2]string{
		{"hello_offline/__init__.py", fmt.Sprintf("VERSION = %q\n", version)},
		{info + "METADATA", fmt.Sprintf("Metadata-Version: 2.1\nName: hello-offline\nVersion: %s\n", version)},
		{info + "WHEEL", "Wheel-Version: 1.0\nGenerator: agent-tools-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
		{info + "top_level.txt", "hello_offline\n"},
	}
	var record strings.Builder
	for _, fl := range files {
		fw, err := w.Create(fl[0])
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(fl[1]))
		sum := sha256.Sum256([]byte(fl[1]))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", fl[0], base64.RawURLEncoding.EncodeToString(sum[:]), len(fl[1]))
	}
	fmt.Fprintf(&record, "%sRECORD,,\n", info)
	fw, _ := w.Create(info + "RECORD")
	fw.Write([]byte(record.String()))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPipInstallIntoProjectVenv makes a --system-site-packages venv from
// Debian's python as the project's .venv (so the kernel picks it), installs
// a local wheel with %pip, imports it, then upgrades it and sees the new
// version in the same kernel (sys.modules flushed).
func TestPipInstallIntoProjectVenv(t *testing.T) {
	needsPython(t)
	root := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), testutil.IntegrationTimeout())
	defer cancel()
	if out, err := exec.CommandContext(ctx, debianPython, "-m", "venv", "--system-site-packages", filepath.Join(root, ".venv")).CombinedOutput(); err != nil {
		testutil.NeedsFunc(t, "python3 -m venv (Debian's python3-venv)", func() string { return fmt.Sprintf("%v: %s", err, out) })
	}
	wheels := t.TempDir()
	v1, v2 := writeWheel(t, wheels, "1.0"), writeWheel(t, wheels, "2.0")

	s := newSession(t, &Options{})
	s.pool.opts.Python = "" // choose per project: the .venv
	s.root = root
	if got := s.py("import sys\nsys.prefix"); got != fmt.Sprintf("Out: '%s'", filepath.Join(root, ".venv")) {
		t.Fatalf("the kernel did not pick the project's .venv: %s", got)
	}
	if res := s.run(Python, "import hello_offline"); res.Status != StatusError || !strings.Contains(res.Text(), "ModuleNotFoundError") {
		t.Fatalf("hello_offline is importable before %%pip: %s", res.Text())
	}
	got := s.py("%pip install --no-index " + v1)
	if !strings.Contains(got, "Successfully installed hello-offline-1.0") {
		t.Fatalf("%%pip install:\n%s", got)
	}
	if got := s.py("import hello_offline\nhello_offline.VERSION"); got != "Out: '1.0'" {
		t.Fatalf("after %%pip install: %s", got)
	}
	got = s.py("%pip install --no-index --upgrade " + v2)
	if !strings.Contains(got, "Successfully installed hello-offline-2.0") || !strings.Contains(got, "modules reloaded on next import: hello_offline") {
		t.Fatalf("%%pip upgrade:\n%s", got)
	}
	if got := s.py("import hello_offline\nhello_offline.VERSION"); got != "Out: '2.0'" {
		t.Errorf("after the upgrade the old module is still loaded: %s", got)
	}
}

// TestPipWithoutIndexFailsFast: %pip install with a package index that
// cannot be reached (a .invalid host: no DNS answer, as on a machine
// without network) gets agent-tools' short timeout and single retry, so
// pip gives up after one retry instead of five; the cell fails with pip's
// status and says the index could not be reached. A --retries the user
// gave is kept.
func TestPipWithoutIndexFailsFast(t *testing.T) {
	needsPython(t)
	testutil.NeedsFunc(t, "pip for "+debianPython+" (Debian's python3-pip)", func() string {
		if out, err := exec.Command(debianPython, "-m", "pip", "--version").CombinedOutput(); err != nil {
			return fmt.Sprintf("%v: %s", err, out)
		}
		return ""
	})
	root := t.TempDir()
	// A venv that sees Debian's pip (not externally managed, so pip goes
	// as far as the index).
	leanVenv(t, filepath.Join(root, ".venv"), true)
	for _, k := range []string{"PIP_TIMEOUT", "PIP_DEFAULT_TIMEOUT", "PIP_RETRIES", "PIP_CONFIG_FILE", "PIP_FIND_LINKS", "PIP_NO_INDEX"} {
		t.Setenv(k, "")
	}
	t.Setenv("PIP_INDEX_URL", "https://pypi.invalid/simple")
	s := newSession(t, &Options{})
	s.pool.opts.Python = "" // the project's .venv
	s.root = root
	res := s.run(Python, "%pip install agent-tools-no-such-package")
	text := res.Text()
	t.Logf("%%pip install without an index: %d ms", res.ElapsedMs)
	if res.Status != StatusError {
		t.Fatalf("status %s, want error:\n%s", res.Status, text)
	}
	for _, want := range []string{"[exit status 1]", "error: `%pip install agent-tools-no-such-package` failed: exit status 1; the package index (https://pypi.invalid/simple) could not be reached: "} {
		if !strings.Contains(text, want) {
			t.Errorf("result lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "WARNING: Retrying"); n != 1 {
		t.Errorf("pip retried %d times, want 1 (our --retries 1):\n%s", n, text)
	}
	res = s.run(Python, "%pip install --retries 0 agent-tools-no-such-package")
	if n := strings.Count(res.Text(), "WARNING: Retrying"); res.Status != StatusError || n != 0 {
		t.Errorf("--retries 0 given: pip retried %d times, want 0:\n%s", n, res.Text())
	}
}

package kernel

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPythonCells(t *testing.T) {
	needsPython(t)
	s := newSession(t, nil)
	steps := []struct {
		code, want string
	}{
		{"x = 40\nx + 2", "Out: 42"},
		{"x * 2", "Out: 80"},
		{"x + 1;", ""},
		{"x + 1  ;  # quiet", ""},
		{"y = x", ""},
		{"_", "Out: 80"}, // the last value shown: a quiet cell does not set _, as in IPython
		{"print('a')\ndisplay(1, 'two')\nprint('b')\n[x, 3]", "a\n1\n'two'\nb\nOut: [40, 3]"},
		{"import asyncio\nv = await asyncio.sleep(0, result=41)\nv + 1", "Out: 42"},
		{"v * 2", "Out: 82"},
		{"class M:\n    def _repr_markdown_(self): return '**bold**'\ndisplay(M())", "**bold**"},
		{"class H:\n    def _repr_html_(self): return '<b>hi</b> <i>there</i>'\nH()", "Out: hi there"},
		{"import sys\nprint('err', file=sys.stderr)", "err"},
		{"print('\\x1b[31mred\\x1b[0m')\nprint('10%\\r50%\\r100%')", "red\n100%"},
		{"for i in range(3):\n    i", ""},
		{"if True:\n    'inner'\n'last'", "Out: 'last'"},
		{"  indented = 5\n  indented", "Out: 5"},
		{">>> a = 2\n>>> a + 1", "Out: 3"},
		{"None", ""},
		{"{'b': 1, 'a': 2}", "Out: {'b': 1, 'a': 2}"},
	}
	for _, st := range steps {
		if diff := cmp.Diff(st.want, s.py(st.code)); diff != "" {
			t.Errorf("cell %q (-want +got):\n%s", st.code, diff)
		}
	}
}

func TestPythonErrors(t *testing.T) {
	needsPython(t)
	s := newSession(t, nil)
	res := s.run(Python, "def f():\n    return 1/0\nprint('before')\nf()")
	if res.Status != StatusError {
		t.Fatalf("status %s, want error: %s", res.Status, res.Text())
	}
	text := res.Text()
	for _, want := range []string{"before\n", `File "<cell 1>", line 4, in <module>`, `File "<cell 1>", line 2, in f`, "    return 1/0", "ZeroDivisionError: division by zero", "error: the cell raised ZeroDivisionError: division by zero"} {
		if !strings.Contains(text, want) {
			t.Errorf("result lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "<string>") || strings.Contains(text, "_run") {
		t.Errorf("traceback shows the driver's frames:\n%s", text)
	}
	res = s.run(Python, "x = (")
	if res.Status != StatusError || !strings.Contains(res.Text(), "SyntaxError") {
		t.Errorf("syntax error: %s", res.Text())
	}
	res = s.run(Python, "name = input('name? ')")
	if res.Status != StatusError || !strings.Contains(res.Text(), "input() is not available in eval") {
		t.Errorf("input(): %s", res.Text())
	}
	res = s.run(Python, "%frobnicate")
	if res.Status != StatusError || !strings.Contains(res.Text(), "%frobnicate is not supported here; supported: %pip") {
		t.Errorf("unknown magic: %s", res.Text())
	}
	if got := s.py("1 + 1"); got != "Out: 2" {
		t.Errorf("after errors: %q", got)
	}
}

func TestPythonDataFrame(t *testing.T) {
	needsPython(t)
	s := newSession(t, nil)
	got := s.py("import pandas as pd\ndf = pd.DataFrame({'a': [1, 2], 'b': ['x', 'y']})\ndf")
	want := "Out:\n|    |   a | b   |\n|---:|----:|:----|\n|  0 |   1 | x   |\n|  1 |   2 | y   |\n[2 rows x 2 columns]"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DataFrame (-want +got):\n%s", diff)
	}
	got = s.py("big = pd.DataFrame({'n': range(100)})\ndisplay(big)")
	if !strings.Contains(got, "[100 rows x 1 columns; 20 of 100 rows shown]") || !strings.Contains(got, "| 99 |  99 |") || strings.Contains(got, "|  50 |") {
		t.Errorf("big DataFrame:\n%s", got)
	}
	got = s.py("df['a']")
	if !strings.Contains(got, "|   a |") {
		t.Errorf("Series:\n%s", got)
	}
}

func TestPythonMatplotlib(t *testing.T) {
	needsPython(t)
	s := newSession(t, nil)
	res := s.run(Python, "import matplotlib.pyplot as plt\nprint('plotting')\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.show()\nprint('after show')\nplt.figure(figsize=(40, 30))\nplt.plot([1, 2])\n'done'")
	if !res.OK() {
		t.Fatal(res.Text())
	}
	var kinds []string
	for _, o := range res.Outputs {
		kinds = append(kinds, o.Kind)
	}
	if diff := cmp.Diff([]string{"stdout", "image", "stdout", "value", "image"}, kinds); diff != "" {
		t.Errorf("output order (-want +got):\n%s\n%s", diff, res.Text())
	}
	imgs := res.Images()
	if len(imgs) != 2 {
		t.Fatalf("%d images, want 2", len(imgs))
	}
	for i, img := range imgs {
		cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
		if err != nil {
			t.Fatalf("image %d is not a PNG: %v", i, err)
		}
		if cfg.Width != img.Width || cfg.Height != img.Height || max(cfg.Width, cfg.Height) > maxImageSide {
			t.Errorf("image %d: %d×%d, reported %d×%d", i, cfg.Width, cfg.Height, img.Width, img.Height)
		}
	}
	if imgs[1].Width != maxImageSide {
		t.Errorf("the 40×30 inch figure was not downscaled to %d px: %d×%d", maxImageSide, imgs[1].Width, imgs[1].Height)
	}
	if got := s.py("len(plt.get_fignums())"); got != "Out: 0" {
		t.Errorf("figures left open: %s", got)
	}
}

func TestPythonMagics(t *testing.T) {
	needsPython(t)
	s := newSession(t, nil)
	if err := os.Mkdir(filepath.Join(s.root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(s.root)
	steps := []struct {
		code string
		want string // a regexp the output must match in full
	}{
		{"%pwd", "Out: '" + regexp.QuoteMeta(real) + "'"},
		{"%cd sub", regexp.QuoteMeta(real) + "/sub"},
		{"here = %pwd\nhere", "Out: '" + regexp.QuoteMeta(real) + "/sub'"},
		{"%cd ..", regexp.QuoteMeta(real)},
		{"!echo hello; echo oops >&2", "hello\noops"},
		{"name = 'world'\n!echo hi $name {1+2}", "hi world 3"},
		{"files = !printf 'a\\nb\\n'\nfiles", `Out: \['a', 'b'\]`},
		{"files.n", `Out: 'a\\nb'`},
		{"!exit 3\n_exit_code", "Out: 3"},
		{"%%bash\necho from bash\necho $((1+2))", "from bash\n3"},
		{"%%writefile notes.txt\nline one", "Writing notes.txt"},
		{"open('notes.txt').read()", `Out: 'line one\\n'`},
		{"%env GREETING=hi there", "env: GREETING=hi there"},
		{"%env GREETING", "Out: 'hi there'"},
		{"%timeit -n 10 -r 3 sum(range(10))", `\d+(\.\d+)? (ns|µs|ms) ± \d+(\.\d+)? (ns|µs|ms) per loop \(mean ± std\. dev\. of 3 runs, 10 loops each\)`},
		{"%%timeit -n 5 -r 2\nsum(range(100))", `\d+(\.\d+)? (ns|µs|ms) ± \d+(\.\d+)? (ns|µs|ms) per loop \(mean ± std\. dev\. of 2 runs, 5 loops each\)`},
		{"r = %timeit -o -q -n 1 -r 1 pass\nr.loops", "Out: 1"},
		{"%time z = sum(range(10))\nz", `CPU times: user .*, sys: .*, total: .*\nWall time: .*\nOut: 45`},
		{"%matplotlib inline", ""},
		{"s = '''\n!not a command\n%not a magic\n'''\ns.count('!')", "Out: 1"},
		{"x = (1,\n  2)\nx", `Out: \(1, 2\)`},
	}
	for _, st := range steps {
		got := s.py(st.code)
		if !regexp.MustCompile(`^(?s:` + st.want + `)$`).MatchString(got) {
			t.Errorf("cell %q:\ngot  %q\nwant %q", st.code, got, st.want)
		}
	}
}

func TestPythonIPythonDisplayShim(t *testing.T) {
	needsPython(t)
	s := newSession(t, nil)
	if exec.Command(debianPython, "-c", "import IPython").Run() == nil {
		// A real IPython is installed: the shim must stay out of its way.
		got := s.py("import IPython\ntype(IPython.__spec__.loader).__name__")
		if got == "Out: '_IPythonShim'" || !strings.HasPrefix(got, "Out: ") {
			t.Errorf("with IPython installed, import IPython gave %q: the shim took its place", got)
		}
		return
	}
	got := s.py("from IPython.display import display, Markdown, HTML\ndisplay(Markdown('**hi**'), HTML('<p>para</p>'))")
	if got != "**hi**\npara" {
		t.Errorf("IPython.display shim: %q", got)
	}
}

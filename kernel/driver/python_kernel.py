# agent-tools Python kernel driver (embedded in the Go binary, run with -c).
#
# Protocol: newline-delimited JSON. fd 3 carries requests from agent-tools,
# fd 4 carries messages to it. User output never touches them: print() goes
# through sys.stdout, which this driver replaces with a writer that sends
# "out" messages; anything written to fd 1 or 2 directly (subprocesses, C
# code) reaches agent-tools through the real stdout pipe, which is flushed
# with a sync marker at the end of every cell.
#
# The messages and their fields are listed once, in the table in
# kernel/protocol.go; kernel/protocol_test.go checks this driver against it.

import ast
import base64
import builtins
import io
import json
import linecache
import os
import queue
import signal
import sys
import threading
import tokenize
import traceback
import types

_REQ_FD, _MSG_FD = 3, 4

# Keep the original stderr (agent-tools' stderr capture) for fatal errors,
# then send fd 2 where fd 1 goes, so subprocess stderr is captured in order.
_CRASH_FD = os.dup(2)
os.set_inheritable(_CRASH_FD, False)
os.dup2(1, 2)
try:
    import faulthandler
    faulthandler.enable(file=_CRASH_FD, all_threads=False)
except Exception:
    pass
os.set_inheritable(_REQ_FD, False)
os.set_inheritable(_MSG_FD, False)

_send_lock = threading.Lock()
_SIGINT = {signal.SIGINT}


def _send(msg):
    data = (json.dumps(msg, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
    # A KeyboardInterrupt in the middle of a frame would corrupt the
    # protocol: hold SIGINT until the frame is written.
    main = threading.current_thread() is threading.main_thread()
    with _send_lock:
        if main:
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGINT)
        try:
            view = memoryview(data)
            while view:
                n = os.write(_MSG_FD, view)
                view = view[n:]
        finally:
            if main:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)


class _State:
    cell = 0  # id of the running cell, 0 when idle
    calls = 0
    shell_failures = []  # the running cell's failed shell commands, as one-line reports
    figures = {}  # id -> (figure, PNG) of the matplotlib figures the running cell showed


# Frames of the driver's own functions (tool(), the magics, the cell
# runner) share these globals; tracebacks leave them out.
_DRIVER_GLOBALS = globals()


_state = _State()

# ---------------------------------------------------------------- requests


_requests = queue.Queue()  # exec requests, for the main loop
_replies = {}  # call id -> reply message
_replies_cv = threading.Condition()


def _reader():
    f = os.fdopen(_REQ_FD, "rb", buffering=0)
    buf = b""
    while True:
        chunk = f.read(65536)
        if not chunk:
            _requests.put(None)
            with _replies_cv:
                _replies[-1] = None
                _replies_cv.notify_all()
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if not line.strip():
                continue
            msg = json.loads(line)
            t = msg.get("t")
            if t == "reply":
                with _replies_cv:
                    _replies[msg["call"]] = msg
                    _replies_cv.notify_all()
            elif t == "exec":
                _requests.put(msg)
            elif t != "interrupt":  # SIGINT, sent with it, stops the cell
                _send({"t": "out", "id": _state.cell, "name": "stderr",
                       "text": "agent-tools kernel driver: ignored a request of unknown kind %r\n" % (t,)})


# ------------------------------------------------------------------ output


class _Stream(io.TextIOBase):
    def __init__(self, name):
        self.name = name

    def writable(self):
        return True

    def isatty(self):
        return False

    @property
    def encoding(self):
        return "utf-8"

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not %s" % type(s).__name__)
        if s:
            _send({"t": "out", "id": _state.cell, "name": self.name, "text": s})
        return len(s)

    def flush(self):
        pass

    def fileno(self):
        return 1

    @property
    def buffer(self):
        return _BinaryStream(self)


class _BinaryStream(io.RawIOBase):
    """sys.stdout.buffer: bytes written to it are decoded as UTF-8."""

    def __init__(self, text):
        self.text = text

    def writable(self):
        return True

    def write(self, b):
        self.text.write(bytes(b).decode("utf-8", "replace"))
        return len(b)


class _NoStdin(io.TextIOBase):
    def readable(self):
        return True

    def read(self, *a):
        raise _no_input()

    readline = read

    def fileno(self):
        raise io.UnsupportedOperation("stdin is not available in eval")


def _no_input(*a, **k):
    raise RuntimeError("input() is not available in eval: the kernel has no stdin and nobody to type; put the value in the code instead")


def _input(*a, **k):
    raise _no_input()


sys.stdout = _Stream("stdout")
sys.stderr = _Stream("stderr")
sys.stdin = _NoStdin()
builtins.input = _input

# ------------------------------------------------------------------ display

_MAX_ROWS, _MAX_COLS = 20, 20


def _frame_markdown(df):
    """df as a markdown table of at most _MAX_ROWS rows and _MAX_COLS
    columns (head and tail), with an explicit … row and … column where
    some were left out, and a footer with the shape."""
    import pandas as pd
    rows, cols = df.shape
    notes = []
    view = df
    cut_col = cut_row = None
    if cols > _MAX_COLS:
        half = _MAX_COLS // 2
        view = pd.concat([view.iloc[:, :half], view.iloc[:, -half:]], axis=1)
        cut_col = half
        notes.append("%d of %d columns shown" % (_MAX_COLS, cols))
    if rows > _MAX_ROWS:
        half = _MAX_ROWS // 2
        view = pd.concat([view.iloc[:half], view.iloc[-half:]])
        cut_row = half
        notes.append("%d of %d rows shown" % (_MAX_ROWS, rows))
    if cut_col is not None:
        # A column of … between the halves: a copy, so df keeps its
        # dtypes; the name is unique even if … is already a column.
        view = view.copy()
        name = "\u2026"
        while name in view.columns:
            name += "\u2026"
        if view.columns.nlevels > 1:
            name = (name,) * view.columns.nlevels
        view.insert(cut_col, name, "\u2026", allow_duplicates=True)
    try:
        lines = view.to_markdown().split("\n")
        if cut_row is not None:
            if len(lines) == 2 + len(view):
                # The … row goes after the header, the separator and the
                # head; the separator's segments give the column widths.
                segs = lines[1].strip("|").split("|")
                lines.insert(2 + cut_row, "|" + "|".join((" \u2026").ljust(len(seg)) for seg in segs) + "|")
            else:  # rows of several lines: let tabulate place it
                lines = _with_dots_row(view, cut_row).to_markdown().split("\n")
        text = "\n".join(lines)
    except ImportError:  # no tabulate
        if cut_row is not None:
            view = _with_dots_row(view, cut_row)
        text = view.to_string()
    text += "\n[%d rows x %d columns%s]" % (rows, cols, "; " + ", ".join(notes) if notes else "")
    return text


def _with_dots_row(view, at):
    import pandas as pd
    dots = pd.DataFrame([["\u2026"] * view.shape[1]], columns=view.columns, index=["\u2026"])
    return pd.concat([view.iloc[:at], dots, view.iloc[at:]])


def _figure_png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", dpi=100, facecolor=fig.get_facecolor())
    return buf.getvalue()


def _html_text(html):
    from html.parser import HTMLParser

    class P(HTMLParser):
        def __init__(self):
            super().__init__()
            self.out = []

        def handle_data(self, d):
            self.out.append(d)

        def handle_starttag(self, tag, attrs):
            if tag in ("br", "p", "div", "tr", "li", "h1", "h2", "h3"):
                self.out.append("\n")

        def handle_endtag(self, tag):
            if tag in ("td", "th"):
                self.out.append("\t")

    p = P()
    p.feed(html)
    return "\n".join(l.rstrip() for l in "".join(p.out).strip().splitlines() if l.strip())


def _plain(obj):
    if isinstance(obj, (list, dict, tuple, set, frozenset)):
        import pprint
        try:
            return pprint.pformat(obj, sort_dicts=False, width=100)
        except Exception:
            pass
    return repr(obj)


def _custom_repr(obj):
    return type(obj).__repr__ is not object.__repr__


def _bundle(obj):
    """Returns a list of (kind, text_or_bytes, mime) for obj, best first."""
    mod = type(obj).__module__ or ""
    if mod.startswith("pandas"):
        try:
            import pandas as pd
            if isinstance(obj, pd.DataFrame):
                return [("markdown", _frame_markdown(obj), "text/markdown")]
            if isinstance(obj, pd.Series):
                return [("markdown", _frame_markdown(obj.to_frame()), "text/markdown")]
            Styler = getattr(getattr(pd.io.formats, "style", None), "Styler", None)
            if Styler is not None and isinstance(obj, Styler):
                return [("markdown", _frame_markdown(obj.data), "text/markdown")]
        except Exception:
            pass
    if mod.startswith("matplotlib"):
        try:
            from matplotlib.figure import Figure
            if isinstance(obj, Figure):
                return [("image", _figure_png(obj), "image/png")]
        except Exception:
            pass
    meth = getattr(obj, "_repr_mimebundle_", None)
    if callable(meth) and not isinstance(obj, type):
        try:
            data = meth()
            if isinstance(data, tuple):
                data = data[0]
        except Exception:
            data = None
        if data:
            for mime, kind in (("image/png", "image"), ("image/jpeg", "image"), ("text/markdown", "markdown")):
                if mime in data:
                    v = data[mime]
                    if kind == "image" and isinstance(v, str):
                        v = base64.b64decode(v)
                    return [(kind, v, mime)]
            if "text/plain" in data:
                return [("text", data["text/plain"], "text/plain")]
            if "text/html" in data:
                return [("text", _html_text(data["text/html"]), "text/plain")]
    for attr, kind, mime in (("_repr_png_", "image", "image/png"), ("_repr_jpeg_", "image", "image/jpeg"),
                             ("_repr_markdown_", "markdown", "text/markdown")):
        meth = getattr(obj, attr, None)
        if callable(meth) and not isinstance(obj, type):
            try:
                v = meth()
            except Exception:
                v = None
            if isinstance(v, tuple):
                v = v[0]
            if v:
                if kind == "image" and isinstance(v, str):
                    v = base64.b64decode(v)
                return [(kind, v, mime)]
    meth = getattr(obj, "_repr_html_", None)
    if callable(meth) and not isinstance(obj, type) and not _custom_repr(obj):
        try:
            v = meth()
        except Exception:
            v = None
        if v:
            return [("text", _html_text(v), "text/plain")]
    return [("text", _plain(obj), "text/plain")]


def _emit(t, obj):
    kind, v, mime = _bundle(obj)[0]
    _emit_as(t, obj, kind, v, mime)


def _emit_as(t, obj, kind, v, mime):
    msg = {"t": t, "id": _state.cell, "kind": kind, "mime": mime}
    if kind == "image":
        msg["data"] = base64.b64encode(v).decode("ascii")
        if (type(obj).__module__ or "").startswith("matplotlib"):
            # The end of the cell (and plt.show) shows the open figures:
            # not again one shown here that has not changed since.
            _state.figures[id(obj)] = (obj, v)
    else:
        msg["text"] = v
    _send(msg)


def display(*objs, **kwargs):
    """Shows each object in the cell's output, as a notebook would."""
    for obj in objs:
        ipd = getattr(obj, "_ipython_display_", None)
        if callable(ipd) and not isinstance(obj, type):
            ipd()
            continue
        _emit("display", obj)


def _flush_figures():
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    try:
        from matplotlib._pylab_helpers import Gcf
        managers = Gcf.get_all_fig_managers()
    except Exception:
        return
    for m in managers:
        fig = m.canvas.figure
        try:
            png = _figure_png(fig)
            shown = _state.figures.get(id(fig))
            if shown is not None and shown[0] is fig and shown[1] == png:
                continue  # display(fig) or the cell's value showed it as it is
            _emit_as("display", fig, "image", png, "image/png")
        except Exception as e:
            sys.stderr.write("saving a figure failed: %s\n" % e)
    try:
        plt.close("all")
    except Exception:
        pass


def _patch_pyplot(plt):
    if getattr(plt, "_agent_tools_patched", False):
        return
    def show(*args, **kwargs):
        _flush_figures()
    plt.show = show
    plt._agent_tools_patched = True


class _PyplotHook:
    """Patches plt.show as soon as matplotlib.pyplot is imported."""

    def find_spec(self, name, path=None, target=None):
        if name != "matplotlib.pyplot":
            return None
        import importlib.machinery
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                orig = spec.loader.exec_module

                def exec_module(module, orig=orig):
                    orig(module)
                    _patch_pyplot(module)
                spec.loader.exec_module = exec_module
                return spec
        return None


sys.meta_path.insert(0, _PyplotHook())


class Markdown:
    """IPython.display.Markdown for the shim below."""

    def __init__(self, data=None, url=None, filename=None, **kwargs):
        if data is None and filename:
            with open(filename, encoding="utf-8") as f:
                data = f.read()
        self.data = data or ""

    def _repr_markdown_(self):
        return self.data


class HTML(Markdown):
    """IPython.display.HTML for the shim below (shown as text)."""

    _repr_markdown_ = None

    def _repr_html_(self):
        return self.data


class Image:
    """IPython.display.Image for the shim below."""

    def __init__(self, data=None, url=None, filename=None, format=None, **kwargs):
        if data is None and filename:
            with open(filename, "rb") as f:
                data = f.read()
        elif isinstance(data, str) and os.path.exists(data):
            with open(data, "rb") as f:
                data = f.read()
        self.data = data or b""

    def _repr_png_(self):
        return self.data if self.data[:8] == b"\x89PNG\r\n\x1a\n" else None

    def _repr_jpeg_(self):
        return self.data if self.data[:2] == b"\xff\xd8" else None


class _IPythonShim:
    """Lets `from IPython.display import display, Markdown, HTML, Image`
    work when IPython is not installed. It sits at the end of sys.meta_path,
    so a real IPython always wins."""

    names = ("IPython", "IPython.display", "IPython.core", "IPython.core.display")

    def find_spec(self, name, path=None, target=None):
        if name not in self.names:
            return None
        import importlib.machinery
        return importlib.machinery.ModuleSpec(name, self, is_package=name in ("IPython", "IPython.core"))

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.display = display
        module.get_ipython = lambda: None
        if module.__name__ != "IPython":
            module.Markdown, module.HTML, module.Image = Markdown, HTML, Image
            module.clear_output = lambda wait=False: None


sys.meta_path.append(_IPythonShim())

# ------------------------------------------------------------------ tool()


class ToolError(Exception):
    """A harness tool called with tool() failed."""


def tool(name, args=None):
    """Calls one of the harness's tools and returns its text result.

    tool("read", {"path": "README.md"}) -> str. Raises ToolError when the
    tool fails, RuntimeError when no harness bridge is available.
    """
    if not isinstance(name, str) or not name:
        raise TypeError("tool(name, args): name must be a non-empty string")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise TypeError("tool(name, args): args must be a dict")
    _state.calls += 1
    call = _state.calls
    _send({"t": "call", "id": _state.cell, "call": call, "name": name, "args": args})
    with _replies_cv:
        while call not in _replies and -1 not in _replies:
            _replies_cv.wait()
        reply = _replies.pop(call, None)
    if reply is None:
        raise RuntimeError("tool(): agent-tools went away")
    if reply.get("error"):
        raise RuntimeError(reply["error"])
    if not reply.get("ok"):
        raise ToolError(reply.get("text", ""))
    return reply.get("text", "")


# ------------------------------------------------------------------ magics


class SList(list):
    """The list of output lines of x = !cmd, as IPython returns it."""

    @property
    def l(self):
        return list(self)

    @property
    def n(self):
        return "\n".join(self)

    @property
    def s(self):
        return " ".join(self)

    nlstr, spstr = n, s


def _expand(cmd, depth=2):
    """IPython's $name and {expr} interpolation in ! and % lines."""
    ns = _ns
    import re

    def brace(m):
        try:
            return str(eval(m.group(1), ns))
        except Exception:
            return m.group(0)

    def dollar(m):
        name = m.group(1)
        if name in ns:
            return str(ns[name])
        return m.group(0)
    out = re.sub(r"(?<!\{)\{([^{}]+)\}(?!\})", brace, cmd)
    out = re.sub(r"(?<!\$)\$([A-Za-z_]\w*)", dollar, out)
    return out.replace("$$", "$").replace("{{", "{").replace("}}", "}")


def _shell():
    return os.environ.get("SHELL") or "/bin/sh"


def _status_text(rc):
    """A return code as a shell would say it."""
    if rc < 0:
        try:
            return "killed by signal %s" % signal.Signals(-rc).name
        except ValueError:
            return "killed by signal %d" % -rc
    return "exit status %d" % rc


def _shell_status(what, rc, why="", whole=False):
    """Records a shell command's return code in _exit_code and, when it
    failed, says so right after its output ("[exit status 3]") and marks
    the cell failed: a cell whose shell part failed is a failed cell (the
    rest of it still runs, as in IPython)."""
    _ns["_exit_code"] = rc
    if rc == 0:
        return
    status = _status_text(rc)
    sys.stderr.write("[%s]\n" % status)
    if len(what) > 80:
        what = what[:77] + "..."
    _state.shell_failures.append(("%s failed: %s%s" % (what, status, why), whole))


def _shell_summary(failures):
    text = failures[0][0]
    if len(failures) > 1:
        text += " (and %d more failed shell command%s)" % (len(failures) - 1, "" if len(failures) == 2 else "s")
    if _state.one_line or all(whole for _, whole in failures):
        return text
    return text + "; the rest of the cell ran (_exit_code holds the last status)"


def _system(cmd):
    import subprocess
    what = "`!%s`" % cmd.strip()
    cmd = _expand(cmd)
    p = subprocess.Popen(cmd, shell=True, executable=_shell(), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        for line in iter(p.stdout.readline, b""):
            sys.stdout.write(line.decode("utf-8", "replace"))
        p.wait()
    except KeyboardInterrupt:
        p.kill()
        p.wait()
        raise
    _shell_status(what, p.returncode)


def _getoutput(cmd):
    import subprocess
    what = "`!%s`" % cmd.strip()
    cmd = _expand(cmd)
    p = subprocess.run(cmd, shell=True, executable=_shell(), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    _shell_status(what, p.returncode)
    return SList(p.stdout.decode("utf-8", "replace").splitlines())


def _format_time(timespan, precision=3):
    """IPython's time formatting (IPython/core/magics/execution.py)."""
    import math
    if timespan >= 60.0:
        parts = [("d", 60 * 60 * 24), ("h", 60 * 60), ("min", 60), ("s", 1)]
        time = []
        leftover = timespan
        for suffix, length in parts:
            value = int(leftover / length)
            if value > 0:
                leftover = leftover % length
                time.append("%s%s" % (str(value), suffix))
            if leftover < 1:
                break
        return " ".join(time)
    units = ["s", "ms", "\xb5s", "ns"]
    scaling = [1, 1e3, 1e6, 1e9]
    if timespan > 0.0:
        order = min(-int(math.floor(math.log10(timespan)) // 3), 3)
    else:
        order = 3
    return "%.*g %s" % (precision, timespan * scaling[order], units[order])


class TimeitResult:
    """What %timeit -o returns, printed as IPython prints it."""

    def __init__(self, loops, repeat, best, worst, all_runs, precision=3):
        self.loops, self.repeat, self.best, self.worst = loops, repeat, best, worst
        self.all_runs = all_runs
        self.timings = [dt / loops for dt in all_runs]
        self._precision = precision
        import math
        self.average = sum(self.timings) / len(self.timings)
        self.stdev = math.sqrt(sum((x - self.average) ** 2 for x in self.timings) / len(self.timings))

    def __str__(self):
        pm = "\xb1"
        return "{mean} {pm} {std} per loop (mean {pm} std. dev. of {runs} run{run_plural}, {loops:,} loop{loop_plural} each)".format(
            pm=pm, runs=self.repeat, loops=self.loops,
            loop_plural="" if self.loops == 1 else "s",
            run_plural="" if self.repeat == 1 else "s",
            mean=_format_time(self.average, self._precision),
            std=_format_time(self.stdev, self._precision))

    __repr__ = __str__


# %timeit's time budget. IPython takes the first power of ten whose run
# lasts 0.2 s or more and makes 7 more runs of it: up to 7 × 2 s (10.8 s
# for sum(range(100)) here). We calibrate in 1-2-5 steps up to 0.1 s, then
# choose the loop count so that a run lasts about 0.2 s (7 runs ≈ 1.4 s),
# and a statement slower than that gets as many one-loop runs as fit in
# 2 s (at least one; -r overrides).
_TIMEIT_CALIBRATE = 0.1
_TIMEIT_RUN = 0.2
_TIMEIT_SLOW_BUDGET = 2.0


def _autorange(timer):
    """The first loop count in 1, 2, 5, 10, 20, ... whose run lasts at
    least _TIMEIT_CALIBRATE, with that run's time."""
    scale = 1
    while True:
        for k in (1, 2, 5):
            number = k * scale
            t = timer.timeit(number)
            if t >= _TIMEIT_CALIBRATE or number >= 10 ** 9:
                return number, t
        scale *= 10


def _nice_floor(x):
    """The largest of 1, 2, 5, 10, 20, ... not above x (at least 1)."""
    import math
    if x < 2:
        return 1
    scale = 10 ** int(math.floor(math.log10(x)))
    for k in (5, 2, 1):
        if k * scale <= x:
            return k * scale
    return scale


def _timeit(args, body=None):
    import timeit
    number, repeat, quiet, ret = 0, 7, False, False
    explicit_repeat = False
    # Options come first, the statement after them (line magic).
    rest = args
    while True:
        rest = rest.lstrip()
        if rest.startswith("-n"):
            tok = rest[2:].lstrip().split(None, 1)
            number = int(tok[0]); rest = tok[1] if len(tok) > 1 else ""
        elif rest.startswith("-r"):
            tok = rest[2:].lstrip().split(None, 1)
            repeat = int(tok[0]); rest = tok[1] if len(tok) > 1 else ""
            explicit_repeat = True
        elif rest.startswith("-q"):
            quiet = True; rest = rest[2:]
        elif rest.startswith("-o"):
            ret = True; rest = rest[2:]
        else:
            break
    if body is None:
        stmt, setup = rest, "pass"
    else:
        stmt, setup = body, (rest or "pass")
    if repeat < 1:
        raise ValueError("%timeit -r: want at least 1 run")
    timer = timeit.Timer(stmt, setup, timer=timeit.default_timer, globals=_ns)
    first = []  # a calibration run that counts as a run
    if number <= 0:
        n, t = _autorange(timer)
        if n == 1 and t >= _TIMEIT_RUN:
            number, first = 1, [t]
            if not explicit_repeat:
                repeat = max(1, min(repeat, int(_TIMEIT_SLOW_BUDGET / t)))
        else:
            number = _nice_floor(_TIMEIT_RUN * n / t) if t > 0 else n
    all_runs = first + timer.repeat(repeat - len(first), number)
    best, worst = min(all_runs) / number, max(all_runs) / number
    result = TimeitResult(number, repeat, best, worst, all_runs)
    if not quiet:
        if worst > 4 * best and best > 0 and worst > 1e-6:
            print("The slowest run took %0.2f times longer than the fastest. "
                  "This could mean that an intermediate result is being cached." % (worst / best))
        print(result)
    return result if ret else None


def _time(stmt_src, body=False):
    import time
    src = stmt_src
    tree = ast.parse(src, "<timed>")
    last = None
    if not body and tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    t0, c0 = time.time(), time.process_time()
    st = os.times()
    exec(compile(tree, "<timed>", "exec"), _ns)
    value = eval(compile(last, "<timed>", "eval"), _ns) if last is not None else None
    en = os.times()
    wall = time.time() - t0
    cpu_user, cpu_sys = en.user - st.user, en.system - st.system
    print("CPU times: user %s, sys: %s, total: %s" % (
        _format_time(cpu_user), _format_time(cpu_sys), _format_time(cpu_user + cpu_sys)))
    print("Wall time: %s" % _format_time(wall))
    return value


# pip's network settings when the user gave none: pip's own defaults (a
# 15 s timeout, 5 retries with backoff) spend ~9 s before saying that an
# unreachable index is unreachable; a person at a notebook would rather
# hear it at once. Slow but working indexes still answer within 2 s per
# socket operation.
_PIP_TIMEOUT, _PIP_RETRIES = "2", "1"

# What in pip's output means the package index could not be reached, the
# most telling first (one line often has several).
_PIP_UNREACHABLE = ("Name or service not known", "Temporary failure in name resolution", "Network is unreachable",
                    "No route to host", "Connection refused", "ProxyError", "Read timed out", "ConnectTimeoutError",
                    "Failed to establish a new connection", "NewConnectionError")


def _pip_configured(option):
    """Whether the user set pip's option (timeout or retries) anywhere pip
    would read it: the environment or a pip config file."""
    env = {"timeout": ("PIP_TIMEOUT", "PIP_DEFAULT_TIMEOUT"), "retries": ("PIP_RETRIES",)}[option]
    if any(os.environ.get(k) for k in env):
        return True
    import configparser
    files = [os.environ.get("PIP_CONFIG_FILE") or "", "/etc/pip.conf", "/etc/xdg/pip/pip.conf",
             os.path.expanduser("~/.pip/pip.conf"), os.path.expanduser("~/.config/pip/pip.conf"),
             os.path.join(sys.prefix, "pip.conf")]
    keys = {option, "default-timeout", "default_timeout"} if option == "timeout" else {option}
    for f in files:
        if not f or not os.path.isfile(f):
            continue
        cp = configparser.RawConfigParser()
        try:
            cp.read(f)
        except Exception:
            continue
        if any(k in cp[sec] for sec in cp.sections() for k in keys):
            return True
    return False


def _pip(args):
    import importlib
    import shlex
    import subprocess
    before = _dists()
    words = shlex.split(_expand(args))
    extra = []
    for opt, value in (("timeout", _PIP_TIMEOUT), ("retries", _PIP_RETRIES)):
        flag = "--" + opt
        if opt == "timeout" and any(w in ("--default-timeout",) or w.startswith("--default-timeout=") for w in words):
            continue
        if not any(w == flag or w.startswith(flag + "=") for w in words) and not _pip_configured(opt):
            extra += [flag, value]
    # General options go before the command: pip accepts them there for
    # every command.
    cmd = [sys.executable, "-m", "pip"] + extra + words
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PIP_PROGRESS_BAR="off")
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    unreachable = None
    index = "https://pypi.org/simple"
    try:
        for line in iter(p.stdout.readline, b""):
            text = line.decode("utf-8", "replace")
            if text.startswith("Looking in indexes: "):
                index = text[len("Looking in indexes: "):].strip()
            if unreachable is None:
                unreachable = next((m for m in _PIP_UNREACHABLE if m in text), None)
            sys.stdout.write(text)
        p.wait()
    except KeyboardInterrupt:
        p.kill()
        p.wait()
        raise
    importlib.invalidate_caches()
    import site
    try:
        user = site.getusersitepackages()
        if os.path.isdir(user) and user not in sys.path:
            site.addsitedir(user)
    except Exception:
        pass
    after = _dists()
    changed = {name for name, ver in after.items() if before.get(name) != ver}
    changed |= set(before) - set(after)
    tops = set()
    for name in changed:
        tops |= _top_levels(name)
    flushed = sorted(m for m in list(sys.modules) if m.split(".")[0] in tops)
    for m in flushed:
        del sys.modules[m]
    if flushed:
        print("agent-tools: modules reloaded on next import: %s" % ", ".join(sorted({m.split('.')[0] for m in flushed})))
    why = ""
    if p.returncode != 0 and unreachable:
        why = ("; the package index (%s) could not be reached: %s (no network, or the index needs a proxy);"
               " install from local files with %%pip install --no-index --find-links DIR NAME" % (index, unreachable))
    _shell_status("`%%pip %s`" % args.strip(), p.returncode, why)


def _dists():
    from importlib import metadata
    out = {}
    for d in metadata.distributions():
        try:
            out[(d.metadata["Name"] or "").lower()] = d.version
        except Exception:
            pass
    return out


def _top_levels(name):
    from importlib import metadata
    tops = {name.replace("-", "_")}
    try:
        d = metadata.distribution(name)
    except Exception:
        return tops
    txt = d.read_text("top_level.txt")
    if txt:
        tops |= {l.strip() for l in txt.splitlines() if l.strip()}
    for f in d.files or []:
        parts = f.parts
        if not parts or parts[0].endswith((".dist-info", ".egg-info")) or parts[0] in ("..", "__pycache__"):
            continue
        top = parts[0]
        if top.endswith(".py"):
            top = top[:-3]
        tops.add(top)
    return tops


def _cd(arg):
    arg = _expand(arg.strip())
    if arg.startswith("-q "):
        arg, quiet = arg[3:].strip(), True
    else:
        quiet = False
    if not arg:
        target = os.path.expanduser("~")
    elif arg == "-":
        target = _ns.get("_oldpwd", os.getcwd())
    else:
        target = os.path.expanduser(arg.strip("'\""))
    old = os.getcwd()
    os.chdir(target)
    _ns["_oldpwd"] = old
    if not quiet:
        print(os.getcwd())


def _env(arg):
    arg = arg.strip()
    if not arg:
        return dict(os.environ)
    if "=" in arg:
        k, v = arg.split("=", 1)
    elif " " in arg:
        k, v = arg.split(None, 1)
    else:
        return os.environ[arg]
    k, v = k.strip(), _expand(v.strip())
    os.environ[k] = v
    print("env: %s=%s" % (k, v))


def _writefile(args, body):
    import shlex
    words = shlex.split(args)
    append = "-a" in words or "--append" in words
    names = [w for w in words if not w.startswith("-")]
    if not names:
        raise ValueError("%%writefile needs a file name")
    fn = os.path.expanduser(names[0])
    if os.path.exists(fn):
        print("Appending to %s" % fn if append else "Overwriting %s" % fn)
    else:
        print("Writing %s" % fn)
    with open(fn, "a" if append else "w", encoding="utf-8") as f:
        f.write(body)


def _script(shell, args, body):
    import subprocess
    p = subprocess.Popen([shell], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(body.encode("utf-8"))
    except KeyboardInterrupt:
        p.kill()
        p.wait()
        raise
    if out:
        sys.stdout.write(out.decode("utf-8", "replace"))
    if err:
        sys.stderr.write(err.decode("utf-8", "replace"))
    _shell_status("the %%%%%s cell" % shell, p.returncode, whole=True)


_LINE_MAGICS = ("pip", "cd", "pwd", "env", "timeit", "time", "matplotlib", "load_ext", "autoreload")
_CELL_MAGICS = ("bash", "sh", "timeit", "time", "writefile")


def line_magic(name, arg):
    if name == "pip":
        return _pip(arg)
    if name == "cd":
        return _cd(arg)
    if name == "pwd":
        return os.getcwd()
    if name == "env":
        return _env(arg)
    if name == "timeit":
        return _timeit(arg)
    if name == "time":
        return _time(arg)
    if name in ("matplotlib", "load_ext", "autoreload"):
        return None  # figures are always captured; extensions are not loaded
    if name == "kernel":
        raise NameError("%kernel is answered by agent-tools as a cell of its own: run a cell that is just %kernel")
    raise NameError("line magic %%%s is not supported here; supported: %s, !cmd and x = !cmd" % (
        name, ", ".join("%" + m for m in _LINE_MAGICS)))


def cell_magic(name, arg, body):
    if name in ("bash", "sh"):
        return _script(name, arg, body)
    if name == "timeit":
        return _timeit(arg, body)
    if name == "time":
        return _time(body, body=True)
    if name == "writefile":
        return _writefile(arg, body)
    raise NameError("cell magic %%%%%s is not supported here; supported: %s" % (
        name, ", ".join("%%" + m for m in _CELL_MAGICS)))


def _line_starts(src):
    """For each line of src, whether it begins a new logical line: not in a
    string, not inside brackets, not after a backslash continuation."""
    starts = []
    depth = 0
    quote = None  # the open string's delimiter
    cont = False
    for line in src.split("\n"):
        starts.append(depth == 0 and quote is None and not cont)
        cont = False
        i, n = 0, len(line)
        while i < n:
            c = line[i]
            if quote:
                if c == "\\":
                    i += 2
                    continue
                if line.startswith(quote, i):
                    i += len(quote)
                    quote = None
                    continue
                i += 1
                continue
            if c == "#":
                break
            if c in "\"'":
                q = line[i:i + 3] if line[i:i + 3] in ('"""', "'''") else c
                quote = q
                i += len(q)
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth = max(0, depth - 1)
            elif c == "\\" and i == n - 1:
                cont = True
            i += 1
        if quote in ('"', "'"):
            quote = None  # an unterminated one-line string: let Python report it
    return starts


import re as _re

_ASSIGN = _re.compile(r"^([ \t]*)([\w.\[\], \t*]+?)[ \t]*=[ \t]*(!|%)(.*)$")


def transform(src):
    """Rewrites IPython idioms to plain Python, as IPython's input
    transformers do (IPython/core/inputtransformer2.py)."""
    return _rewrite(_normalize(src))


def _normalize(src):
    """The cell without leading blank lines, >>> prompts and common
    indentation: the source its line numbers refer to."""
    lines = src.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    # Strip >>> / ... prompts when every non-blank line has one.
    if lines and all(l.lstrip().startswith((">>> ", "... ", ">>>", "...")) or not l.strip() for l in lines) and lines[0].lstrip().startswith(">>>"):
        lines = [l.lstrip()[4:] if l.lstrip()[3:4] == " " else l.lstrip()[3:] for l in lines]
    src = "\n".join(lines)
    import textwrap
    return textwrap.dedent(src)


def _rewrite(src):
    """The normalized cell with its magics and shell lines rewritten to
    calls of __agent_tools__, line for line (a cell magic becomes one
    line)."""
    first = src.split("\n", 1)
    if first[0].startswith("%%"):
        head = first[0][2:]
        name, _, arg = head.partition(" ")
        body = first[1] if len(first) > 1 else ""
        if body and not body.endswith("\n"):
            body += "\n"
        return "__agent_tools__.cell_magic(%r, %r, %r)\n" % (name, arg.strip(), body)
    out = []
    lines = src.split("\n")
    starts = _line_starts(src)
    for line, start in zip(lines, starts):
        if start:
            out.append(_transform_line(line))
        else:
            out.append(line)
    return "\n".join(out)


def _transform_line(line):
    stripped = line.lstrip()
    indent = line[: len(line) - len(stripped)]
    if stripped.startswith("!!"):
        return "%s__agent_tools__.getoutput(%r)" % (indent, stripped[2:])
    if stripped.startswith("!"):
        return "%s__agent_tools__.system(%r)" % (indent, stripped[1:])
    if stripped.startswith("%") and not stripped.startswith("%%"):
        name, _, arg = stripped[1:].partition(" ")
        return "%s__agent_tools__.line_magic(%r, %r)" % (indent, name, arg)
    m = _ASSIGN.match(line)
    if m and not m.group(2).rstrip().endswith(("=", "!", "<", ">")):
        ind, target, kind, rest = m.groups()
        if kind == "!":
            return "%s%s = __agent_tools__.getoutput(%r)" % (ind, target.strip(), rest)
        name, _, arg = rest.partition(" ")
        return "%s%s = __agent_tools__.line_magic(%r, %r)" % (ind, target.strip(), name, arg)
    return line


class _Helpers:
    pass


_helpers = _Helpers()
_helpers.system = _system
_helpers.getoutput = _getoutput
_helpers.line_magic = line_magic
_helpers.cell_magic = cell_magic
_helpers.transform = transform

# ------------------------------------------------------------------ cells

_main = types.ModuleType("__main__")
_main.__dict__.update({
    "__builtins__": builtins,
    "display": display,
    "tool": tool,
    "ToolError": ToolError,
    "__agent_tools__": _helpers,
})
sys.modules["__main__"] = _main
_ns = _main.__dict__
_loop = None
_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
_CO_COROUTINE = 0x80


def _quiet(src):
    """Whether the cell ends with ';' (IPython's DisplayHook.quiet)."""
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
    except Exception:
        return False
    for tok in reversed(toks):
        if tok.type in (tokenize.ENDMARKER, tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT,
                        tokenize.INDENT, tokenize.DEDENT):
            continue
        return tok.type == tokenize.OP and tok.string == ";"
    return False


def _run(code):
    global _loop
    res = eval(code, _ns)
    if code.co_flags & _CO_COROUTINE:
        import asyncio  # lazily: it costs ~60 ms of start-up
        if _loop is None or _loop.is_closed():
            _loop = asyncio.new_event_loop()
        asyncio.set_event_loop(_loop)
        res = _loop.run_until_complete(res)
    return res


def _run_code(src, filename):
    """Runs src in the user namespace and returns the value of its last
    expression (None when it has none or ends with ';')."""
    if filename is None:
        filename = "<cell>"
    tree = ast.parse(src, filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not _quiet(src):
        last = ast.Expression(tree.body.pop().value)
    if tree.body:
        _run(compile(tree, filename, "exec", flags=_FLAGS))
    if last is not None:
        return _run(compile(last, filename, "eval", flags=_FLAGS))
    return None


def _user_tb(tb, from_cell):
    """tb without the driver's frames: from the first frame of the cell
    (when from_cell and there is one) on, with every frame of a driver
    function left out. None when nothing is left."""
    t = tb
    if from_cell:
        while t is not None and not t.tb_frame.f_code.co_filename.startswith("<cell"):
            t = t.tb_next
        if t is None:
            t = tb
    kept = []
    while t is not None:
        if t.tb_frame.f_globals is not _DRIVER_GLOBALS:
            kept.append(t)
        t = t.tb_next
    out = None
    for t in reversed(kept):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def _has_cell_frame(tb):
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith("<cell"):
            return True
        tb = tb.tb_next
    return False


def _trimmed_traceback(etype, value, tb):
    """The traceback as the user should see it: starting at the cell's own
    frames, without the driver's (also in chained exceptions). An error
    that never reached the cell's code (a syntax error in the cell) is
    shown without a traceback."""
    if not _has_cell_frame(tb):
        return "".join(traceback.format_exception_only(etype, value))
    value.__traceback__ = _user_tb(tb, True)
    seen = {id(value)}
    chain = [value.__cause__, value.__context__]
    while chain:
        e = chain.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        e.__traceback__ = _user_tb(e.__traceback__, True)
        chain += [e.__cause__, e.__context__]
    return "".join(traceback.format_exception(etype, value, value.__traceback__))


def _sync(msg):
    """Marks the end of the cell's own output: the marker on fd 1 (where
    child processes write) and a sync message, so that agent-tools puts
    their output before the value."""
    try:
        os.write(1, msg.get("sync", "").encode())
    except OSError:
        pass
    _send({"t": "sync", "id": msg["id"]})


def _exec(msg):
    cid = msg["id"]
    _state.cell = cid
    _state.shell_failures = []
    _state.figures = {}
    _state.one_line = False
    filename = "<cell %d>" % cid
    status = "ok"
    value = exc = None
    try:
        norm = _normalize(msg["code"])
        _state.one_line = sum(1 for l in norm.splitlines() if l.strip()) == 1
        src = _rewrite(norm)
        # Tracebacks quote the cell as written (%cd, not its rewrite).
        linecache.cache[filename] = (len(norm), None, norm.splitlines(True), filename)
        value = _run_code(src, filename)
    except BaseException as e:  # KeyboardInterrupt and SystemExit included
        if not (isinstance(e, SystemExit) and e.code in (None, 0)):
            exc = sys.exc_info()
    # The cell is over: an interrupt from now on must not cut the report
    # short. Hold SIGINT, and drop one that arrived late (see _end_report).
    signal.pthread_sigmask(signal.SIG_BLOCK, _SIGINT)
    _sync(msg)
    try:
        if exc is not None:
            etype, evalue, tb = exc
            status = "interrupted" if issubclass(etype, KeyboardInterrupt) else "error"
            err = {"t": "error", "id": cid, "ename": etype.__name__, "evalue": str(evalue),
                   "traceback": _trimmed_traceback(etype, evalue, tb)}
            if isinstance(evalue, ModuleNotFoundError) and isinstance(evalue.name, str):
                err["module"] = evalue.name
            _send(err)
        elif value is not None:
            _ns["_"] = value
            _emit("value", value)
        if exc is None and _state.shell_failures:
            status = "error"
            _send({"t": "error", "id": cid, "shell": True, "ename": "", "traceback": "",
                   "evalue": _shell_summary(_state.shell_failures)})
    except BaseException as e:
        status = "error"
        _send({"t": "error", "id": cid, "ename": type(e).__name__, "evalue": str(e),
               "traceback": "displaying the value failed: %s: %s\n" % (type(e).__name__, e)})
    del exc
    try:
        _flush_figures()
    except BaseException:
        pass
    _state.figures = {}
    _state.cell = 0
    _send({"t": "done", "id": cid, "status": status})
    _end_report()


def _end_report():
    if signal.SIGINT in signal.sigpending():
        signal.sigwait(_SIGINT)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGINT)


def main():
    os.environ.setdefault("MPLBACKEND", "Agg")
    threading.Thread(target=_reader, name="agent-tools-reader", daemon=True).start()
    _send({"t": "ready", "version": "%d.%d.%d" % sys.version_info[:3], "pid": os.getpid()})
    while True:
        try:
            msg = _requests.get()
        except KeyboardInterrupt:
            continue  # an interrupt that arrived after its cell ended
        if msg is None:
            break
        try:
            _exec(msg)
        except KeyboardInterrupt:
            _state.cell = 0
            _send({"t": "done", "id": msg["id"], "status": "interrupted"})
    os._exit(0)


main()

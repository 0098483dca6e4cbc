package kernel

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/proc"
	"github.com/agent-tools/agent-tools/internal/testutil"
)

// requestTypes are the Go types that carry each request kind.
var requestTypes = map[string]any{
	"exec":      execRequest{},
	"reply":     replyRequest{},
	"interrupt": interruptRequest{},
}

func TestProtocolTable(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range protocol {
		key := fmt.Sprint(k.From, " ", k.T)
		if seen[key] {
			t.Errorf("%s is in the table twice", key)
		}
		seen[key] = true
		names := map[string]bool{"t": true}
		for _, f := range k.Fields {
			if names[f.Name] {
				t.Errorf("%s: field %q twice (or named t)", k.T, f.Name)
			}
			names[f.Name] = true
			if f.Values != nil && f.Type != jsonString {
				t.Errorf("%s.%s: values on a %s field", k.T, f.Name, f.Type)
			}
			if k.From == fromGo && f.Only != "" {
				t.Errorf("%s.%s: a request field for one driver only: agent-tools sends the same requests to both", k.T, f.Name)
			}
		}
	}
}

// TestProtocolGoTypes checks that the Go side writes and reads exactly the
// table's fields, with their types: each request type has its kind's
// fields (omitempty exactly on the ones not always there), message has
// those of every driver message.
func TestProtocolGoTypes(t *testing.T) {
	driverFields := map[string]msgField{}
	for _, k := range protocol {
		if k.From == fromDriver {
			for _, f := range k.Fields {
				if prev, ok := driverFields[f.Name]; ok && prev.Type != f.Type {
					t.Errorf("field %q is a %s in one message and a %s in another: message cannot decode both", f.Name, prev.Type, f.Type)
				}
				driverFields[f.Name] = f
			}
			continue
		}
		v, ok := requestTypes[k.T]
		if !ok {
			t.Errorf("request %q has no Go type", k.T)
			continue
		}
		want := map[string]msgField{}
		for _, f := range k.Fields {
			want[f.Name] = f
		}
		checkStruct(t, reflect.TypeOf(v), want, true)
	}
	for kind := range requestTypes {
		if _, ok := lookupKind(kind, fromGo); !ok {
			t.Errorf("Go type for request %q, which the table does not list", kind)
		}
	}
	checkStruct(t, reflect.TypeOf(message{}), driverFields, false)
}

// goTypes are the Go types that decode each JSON type.
var goTypes = map[jsonType]reflect.Type{
	jsonString: reflect.TypeFor[string](),
	jsonInt:    reflect.TypeFor[int](),
	jsonBool:   reflect.TypeFor[bool](),
	jsonObject: reflect.TypeFor[json.RawMessage](),
	jsonBase64: reflect.TypeFor[[]byte](),
}

// checkStruct checks that st's JSON fields are t and exactly want, with
// their types; for a request (omit) a field carries omitempty exactly
// when it is not always there.
func checkStruct(t *testing.T, st reflect.Type, want map[string]msgField, omit bool) {
	t.Helper()
	got := map[string]bool{}
	for sf := range st.Fields() {
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		got[name] = true
		if name == "t" {
			continue
		}
		f, ok := want[name]
		if !ok {
			t.Errorf("%s.%s (json %q) is not in the table", st.Name(), sf.Name, name)
			continue
		}
		if sf.Type != goTypes[f.Type] {
			t.Errorf("%s.%s is a %s; the table says %s (%s)", st.Name(), sf.Name, sf.Type, f.Type, goTypes[f.Type])
		}
		if omitempty := opts == "omitempty"; omit && omitempty == f.Always {
			t.Errorf("%s.%s: omitempty %v on a field the table says is always there: %v (omitempty goes on exactly the others)", st.Name(), sf.Name, omitempty, f.Always)
		}
	}
	if !got["t"] {
		t.Errorf("%s has no t", st.Name())
	}
	for name := range want {
		if !got[name] {
			t.Errorf("%s has no field for %q", st.Name(), name)
		}
	}
}

// TestProtocolGoDropsUnknown: what agent-tools accepts from a driver is
// the table's messages; any other line is logged and dropped.
func TestProtocolGoDropsUnknown(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var log testutil.LogBuffer
	k := &Kernel{msgs: make(chan message, 16), log: log.Logger()}
	go k.readMessages(r)
	for _, line := range []string{
		`{"t":"sync","id":1}`,
		`{"t":"exec","id":2,"code":"x","sync":"m"}`, // a request, not a message
		`{"t":"bogus","id":3}`,
		`not json`,
		``,
		`{"t":"done","id":1,"status":"ok"}`,
	} {
		fmt.Fprintln(w, line)
	}
	w.Close()
	var got []string
	for m := range k.msgs {
		got = append(got, m.T)
	}
	if want := []string{"sync", "done"}; !slices.Equal(got, want) {
		t.Errorf("messages accepted: %q, want %q", got, want)
	}
	if n := strings.Count(log.String(), "not a message of the protocol"); n != 3 {
		t.Errorf("%d lines logged as dropped, want 3:\n%s", n, log.String())
	}
}

// protoTrace collects the protocol lines of one kernel.
type protoTrace struct {
	mu    sync.Mutex
	lines []tracedLine
}

type tracedLine struct {
	from side
	line string
}

func (p *protoTrace) add(from side, line []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines = append(p.lines, tracedLine{from, string(line)})
}

// protoStep is one cell of a driver's protocol scenario.
type protoStep struct {
	code    string
	budget  time.Duration // 0: the default
	before  []string      // request kinds the table does not list, sent before the cell
	status  string        // "": StatusOK
	want    []string      // in the cell's text (its outputs and error)
	missing string        // the RunResult's MissingModule
}

// unknownNote starts what a driver says about a request kind it does not
// know.
const unknownNote = "agent-tools kernel driver: ignored a request of unknown kind "

// testPNG is a small PNG, base64.
func testPNG(t *testing.T) string {
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func pythonProtoSteps(t *testing.T) []protoStep {
	return []protoStep{
		{code: "print('to stdout')\nimport sys\nsys.stderr.write('to stderr\\n')", want: []string{"stdout: to stdout", "stderr: to stderr"}},
		{code: "import base64\nclass Md:\n    def _repr_markdown_(self):\n        return '**bold**'\n" +
			"class Png:\n    def _repr_png_(self):\n        return base64.b64decode('" + testPNG(t) + "')\n" +
			"display('shown', Md(), Png())\nPng()",
			want: []string{"display: 'shown'", "display: **bold**", "image: [image image/png 3×2]\nimage: [image image/png 3×2]"}},
		{code: "Md()", want: []string{"value: **bold**"}},
		{code: "6 * 7", want: []string{"value: 42"}},
		{code: "1 / 0", status: StatusError, want: []string{"ZeroDivisionError: division by zero"}},
		{code: "import agent_tools_no_such_module", status: StatusError, missing: "agent_tools_no_such_module"},
		{code: "!exit 3", status: StatusError, want: []string{"`!exit 3` failed"}},
		{code: "r = tool('echo', {'x': 1})\n" +
			"try:\n    tool('fail')\nexcept ToolError as e:\n    print('ToolError:', e)\n" +
			"try:\n    tool('gone', {})\nexcept RuntimeError as e:\n    print('RuntimeError:', e)\nr",
			want: []string{"ToolError: it failed", "RuntimeError: the client is gone", `value: 'echo {"x": 1}'`}},
		{code: "import time\ntime.sleep(120)", budget: 300 * time.Millisecond, status: StatusTimeout, want: []string{"KeyboardInterrupt"}},
		{code: "'alive'", before: []string{"bogus", "eof"}, want: []string{unknownNote + "'bogus'", unknownNote + "'eof'", "value: 'alive'"}},
		{code: ""},
	}
}

func nodeProtoSteps() []protoStep {
	return []protoStep{
		{code: "console.log('to stdout'); console.error('to stderr')", want: []string{"stdout: to stdout", "stderr: to stderr"}},
		{code: "display('shown', {a: 1})", want: []string{"display: shown", "display: { a: 1 }"}},
		{code: "6 * 7", want: []string{"value: 42"}},
		{code: "null.x", status: StatusError, want: []string{"TypeError: Cannot read properties of null"}},
		{code: "const r = await tool('echo', {x: 1});\n" +
			"try { await tool('fail') } catch (e) { console.log(e.name + ': ' + e.message) }\n" +
			"try { await tool('gone', {}) } catch (e) { console.log('Error: ' + e.message) }\nr",
			want: []string{"ToolError: it failed", "Error: the client is gone", `value: 'echo {"x":1}'`}},
		{code: "await new Promise(() => {})", budget: 300 * time.Millisecond, status: StatusTimeout, want: []string{"interrupted"}},
		{code: "'alive'", before: []string{"bogus", "eof"}, want: []string{unknownNote + `"bogus"`, unknownNote + `"eof"`, "value: 'alive'"}},
		{code: ""},
	}
}

// protoBridge stands in for the harness's tools: echo answers with its
// arguments, fail fails, and gone cannot be called at all.
func protoBridge(_ context.Context, name string, args json.RawMessage) (string, bool, error) {
	switch name {
	case "echo":
		return "echo " + string(args), false, nil
	case "fail":
		return "it failed", true, nil
	}
	return "", false, errors.New("the client is gone")
}

// TestProtocolDrivers runs each driver under its real interpreters through
// cells that make it send every message kind, and checks every line either
// side wrote against the table: a kind the table lists for that side,
// only its fields, of their types and values, with those it always has;
// and that each kind, field and value the table gives a driver was seen.
// Request kinds the table does not list are answered with the driver's
// note (an "eof" too, which once ended the node driver), and the table's
// own never are.
func TestProtocolDrivers(t *testing.T) {
	for _, c := range []struct {
		name  string
		lang  Language
		bin   string
		needs func(t *testing.T)
		steps func(t *testing.T) []protoStep
	}{
		{"python3 on PATH", Python, "python3", func(t *testing.T) { testutil.Needs(t, "python3") }, pythonProtoSteps},
		{debianPython, Python, debianPython, needsPython, pythonProtoSteps},
		{"node", JavaScript, "node", needsNode, func(*testing.T) []protoStep { return nodeProtoSteps() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.needs(t)
			path, err := proc.LookPath(c.bin)
			if err != nil {
				t.Fatal(err)
			}
			var tr protoTrace
			ctx, cancel := context.WithTimeout(t.Context(), testutil.IntegrationTimeout())
			defer cancel()
			k, err := Start(ctx, StartSpec{Lang: c.lang, Interp: Interpreter{Path: path, Why: "test"}, Dir: t.TempDir(), trace: tr.add})
			if err != nil {
				t.Fatal(err)
			}
			probes := map[string]bool{}
			for _, st := range c.steps(t) {
				for _, kind := range st.before {
					probes[kind] = true
					if err := k.send(struct {
						T string `json:"t"`
					}{kind}); err != nil {
						t.Fatal(err)
					}
				}
				res := k.Run(ctx, RunSpec{Code: st.code, Budget: st.budget, Grace: time.Minute, Bridge: protoBridge})
				text := runText(res)
				if want := cmpOr(st.status, StatusOK); res.Status != want {
					t.Errorf("cell %q: status %s, want %s:\n%s", st.code, res.Status, want, text)
				}
				for _, w := range st.want {
					if !strings.Contains(text, w) {
						t.Errorf("cell %q: no %q in:\n%s", st.code, w, text)
					}
				}
				if strings.Contains(text, unknownNote) && st.before == nil {
					t.Errorf("cell %q: the driver did not know a request of the table:\n%s", st.code, text)
				}
				if res.MissingModule != st.missing {
					t.Errorf("cell %q: missing module %q, want %q", st.code, res.MissingModule, st.missing)
				}
			}
			if err := k.Stop(context.WithoutCancel(ctx)); err != nil {
				t.Errorf("stopping the kernel: %v", err)
			}
			tr.mu.Lock()
			defer tr.mu.Unlock()
			cov := coverage{}
			for _, l := range tr.lines {
				if l.from == fromGo && probes[probeKind(l.line)] {
					continue
				}
				for _, p := range checkLine(c.lang, l.from, l.line, cov) {
					t.Errorf("%s wrote %s: %s", l.from, truncateMiddle(l.line, 300), p)
				}
			}
			for _, miss := range cov.missing(c.lang) {
				t.Errorf("never seen with %s: %s", c.name, miss)
			}
		})
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// runText is a cell's outputs, one "kind: text" each, and its error.
func runText(res RunResult) string {
	var b strings.Builder
	for _, o := range res.Outputs {
		fmt.Fprintf(&b, "%s: %s\n", o.Kind, strings.TrimSuffix(o.Text, "\n"))
	}
	if res.Err != "" {
		fmt.Fprintf(&b, "error: %s\n", res.Err)
	}
	return b.String()
}

func probeKind(line string) string {
	var m struct {
		T string `json:"t"`
	}
	json.Unmarshal([]byte(line), &m)
	return m.T
}

// coverage is what the lines checked so far exercised: "exec",
// "exec.code", "done.status=ok", each keyed by side.
type coverage map[string]bool

func covKey(from side, parts ...string) string {
	return fmt.Sprint(from) + " " + strings.Join(parts, "")
}

// missing lists the table's entries for lang that were not exercised.
func (c coverage) missing(lang Language) []string {
	var out []string
	need := func(from side, parts ...string) {
		if k := covKey(from, parts...); !c[k] {
			out = append(out, k)
		}
	}
	for _, k := range protocol {
		need(k.From, k.T)
		for _, f := range k.Fields {
			if f.Only != "" && f.Only != lang {
				continue
			}
			need(k.From, k.T, ".", f.Name)
			for v, only := range f.Values {
				if only == "" || only == lang {
					need(k.From, k.T, ".", f.Name, "=", v)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// checkLine checks one protocol line against the table and records what
// it exercised; it returns what is wrong with it.
func checkLine(lang Language, from side, line string, cov coverage) []string {
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return []string{"not a JSON object: " + err.Error()}
	}
	t, _ := m["t"].(string)
	k, ok := lookupKind(t, from)
	if !ok {
		return []string{fmt.Sprintf("kind %q, which the table does not list for %s", t, from)}
	}
	cov[covKey(from, t)] = true
	var probs []string
	for _, f := range k.Fields {
		v, present := m[f.Name]
		if !present {
			if f.Always {
				probs = append(probs, fmt.Sprintf("no %s, which every %s has", f.Name, t))
			}
			continue
		}
		if f.Only != "" && f.Only != lang {
			probs = append(probs, fmt.Sprintf("%s, which only the %s driver sends", f.Name, f.Only))
		}
		if p := checkType(f.Type, v); p != "" {
			probs = append(probs, f.Name+": "+p)
			continue
		}
		cov[covKey(from, t, ".", f.Name)] = true
		if f.Values != nil {
			s := v.(string)
			only, known := f.Values[s]
			switch {
			case !known:
				probs = append(probs, fmt.Sprintf("%s %q, which is not one of the table's values", f.Name, s))
			case only != "" && only != lang:
				probs = append(probs, fmt.Sprintf("%s %q, which only the %s driver sends", f.Name, s, only))
			}
			cov[covKey(from, t, ".", f.Name, "=", s)] = true
		}
	}
	for name := range m {
		if name != "t" && !slices.ContainsFunc(k.Fields, func(f msgField) bool { return f.Name == name }) {
			probs = append(probs, fmt.Sprintf("field %q, which %s does not have", name, t))
		}
	}
	return probs
}

// checkType says what is wrong with v as a value of type typ ("" if
// nothing).
func checkType(typ jsonType, v any) string {
	ok := false
	switch typ {
	case jsonString:
		_, ok = v.(string)
	case jsonInt:
		n, isNum := v.(json.Number)
		_, err := n.Int64()
		ok = isNum && err == nil
	case jsonBool:
		_, ok = v.(bool)
	case jsonObject:
		_, ok = v.(map[string]any)
	case jsonBase64:
		s, isStr := v.(string)
		_, err := base64.StdEncoding.DecodeString(s)
		ok = isStr && err == nil
	}
	if ok {
		return ""
	}
	return fmt.Sprintf("%v is not a %s", v, typ)
}

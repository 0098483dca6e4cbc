package lspdiff

import "testing"

// TestCompare checks the verdicts on made-up answers, so that the
// differential tests cannot pass by comparing nothing.
func TestCompare(t *testing.T) {
	raw := answer{keys: []string{"a.go:1:1", "a.go:2:5", "b.go:3:1"}, total: 3}
	cases := []struct {
		name   string
		action string
		ours   answer
		raw    answer
		want   string
	}{
		{"same", "references", answer{keys: raw.keys, total: 3}, raw, agreeSome},
		{"both none", "definition", answer{}, answer{}, agreeEmpty},
		{"one missing, silent", "references", answer{keys: raw.keys[:2], total: 2, text: "2 of 2 references shown"}, raw, fewerUnmarked},
		{"one missing, said", "references", answer{keys: raw.keys[:2], total: 2, text: "gopls is still busy (indexing): references may be incomplete"}, raw, fewerMarked},
		{"not loaded", "definition", answer{text: "server still loading: gopls has not finished loading x after 10s"}, raw, fewerMarked},
		{"capped, total right", "references", answer{keys: raw.keys[:2], total: 3}, raw, agreeSome},
		{"capped, total short", "references", answer{keys: raw.keys[:1], total: 2}, raw, fewerUnmarked},
		{"capped, total over", "references", answer{keys: raw.keys[:1], total: 4}, raw, differs},
		{"an extra one", "definition", answer{keys: []string{"a.go:1:1", "c.go:9:9"}, total: 2}, raw, differs},
		{"an extra one, said", "definition", answer{keys: []string{"c.go:9:9"}, total: 1, text: "busy: definitions may be incomplete"}, raw, differsMarked},
		{"hover same signature", "hover", answer{hover: "```go\nfunc F(x  int)\n```\n\nDoc."}, answer{hover: "```go\nfunc F(x int)\n```"}, agreeSome},
		{"hover other signature", "hover", answer{hover: "```go\nfunc G()\n```"}, answer{hover: "```go\nfunc F(x int)\n```"}, differs},
		{"hover missing, silent", "hover", answer{}, answer{hover: "x: int"}, fewerUnmarked},
		{"hover extra", "hover", answer{hover: "x"}, answer{}, differs},
		{"hover cut, said", "hover", answer{hover: "```go\ntype T struct {\n\ta int\n```\n… (3 more lines)"}, answer{hover: "```go\ntype T struct {\n\ta int\n\tb int\n}\n```"}, fewerMarked},
		{"hover cut, other", "hover", answer{hover: "```go\ntype U struct {\n```\n… (3 more lines)"}, answer{hover: "```go\ntype T struct {\n\ta int\n}\n```"}, differs},
	}
	d := &differ{}
	for _, c := range cases {
		if got, detail := d.compare(c.action, c.ours, c.raw); got != c.want {
			t.Errorf("%s: got %q (%s), want %q", c.name, got, detail, c.want)
		}
	}
}

// TestOccurrence checks the occurrence the test gives lspbridge against
// its counting: whole names only.
func TestOccurrence(t *testing.T) {
	line := `x := xs[x] + x_x + x // x`
	for _, c := range []struct{ at, want int }{{0, 1}, {8, 2}, {19, 3}, {24, 4}} {
		if got := occurrenceOf(line, c.at, "x"); got != c.want {
			t.Errorf("occurrence of x at byte %d = %d, want %d", c.at, got, c.want)
		}
	}
}

// TestCListed checks that the listed C difference covers only names that
// several programs of the corpus define.
func TestCListed(t *testing.T) {
	root := canonicalTemp(t)
	writeFile(t, root+"/a.c", "static int f(int x) { return x; }\nint main(void) { return f(1); }\n")
	writeFile(t, root+"/b.c", "int\nmain (int argc, char **argv)\n{ return g(); }\n")
	d := &differ{c: &corpus{ours: root}}
	sp := spot{file: "a.c", line: 2, col: 5, name: "main"}
	if got := cListed(d, "definition", sp, answer{keys: []string{"a.c:2:5"}}, answer{keys: []string{"b.c:2:1"}}); got == "" {
		t.Errorf("main, defined by two programs: not listed")
	}
	sp.name = "f"
	if got := cListed(d, "definition", sp, answer{keys: []string{"a.c:1:12"}}, answer{keys: []string{"b.c:1:1"}}); got != "" {
		t.Errorf("f, defined once: listed as %q", got)
	}
	if got := cListed(d, "incoming_calls", sp, answer{keys: []string{"a.c:2:25 main"}}, answer{keys: []string{"b.c:2:25 main"}}); got == "" {
		t.Errorf("a call line from main: not listed")
	}
	if got := cListed(d, "incoming_calls", sp, answer{keys: []string{"a.c:2:25 main", "a.c:9:1 f"}}, answer{}); got != "" {
		t.Errorf("a call line from f among them: listed as %q", got)
	}
}

package patterns

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestDump prints the tree of DUMP_SRC (or of DUMP_PAT in each scaffold
// of DUMP_LANG's ladder), for debugging how something is read. Without
// them it checks the outline of a lone $$$ body: the block holds the
// $$$ itself, not an ERROR around it.
func TestDump(t *testing.T) {
	lang, pat, src := os.Getenv("DUMP_LANG"), os.Getenv("DUMP_PAT"), os.Getenv("DUMP_SRC")
	if lang == "" {
		l, _ := LanguageByName("java")
		p, err := Compile(l, "if ($X == null) { $$$ }", CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := "if_statement\n  if \"if\" named=false\n  parenthesized_expression\n    ( \"(\" named=false\n    binary_expression\n      meta1 \"X\"\n      == \"==\" named=false\n      null_literal \"null\" named=true\n    ) \")\" named=false\n  block\n    { \"{\" named=false\n    meta3 \"\"\n    } \"}\" named=false\n"
		if got := dumpPattern(p); got != want {
			t.Errorf("outline:\n%s\nwant:\n%s", got, want)
		}
		return
	}
	l, err := LanguageByName(lang)
	if err != nil {
		t.Fatal(err)
	}
	p := newParser()
	defer p.close()
	if src != "" {
		tree, err := p.parse(l, []byte(src), true)
		if err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + dumpTree(tree))
		if pat != "" {
			t.Log(find(t, lang, pat, src, CompileOptions{}))
		}
		return
	}
	for _, s := range l.ladder {
		body := l.expand(pat)
		if s.indent != "" {
			body = strings.ReplaceAll(body, "\n", "\n"+s.indent)
		}
		tree, err := p.parse(l, []byte(s.prefix+body+s.suffix), true)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s:\n%s", s.name, dumpTree(tree))
	}
	cp, err := Compile(l, pat, CompileOptions{})
	t.Log(cp, err)
	if cp != nil {
		t.Log(cp.ReadAs() + "\n" + dumpPattern(cp))
	}
}

// dumpPattern renders a compiled pattern's nodes.
func dumpPattern(p *Pattern) string {
	var b strings.Builder
	var walk func(n *pnode, depth int)
	walk = func(n *pnode, depth int) {
		b.WriteString(strings.Repeat("  ", depth))
		switch {
		case n.meta != metaNone:
			fmt.Fprintf(&b, "meta%d %q\n", n.meta, n.name)
		case n.leaf:
			fmt.Fprintf(&b, "%s %q named=%v\n", p.Lang.kindName(n.kind), n.text, n.named)
		default:
			fmt.Fprintf(&b, "%s\n", p.Lang.kindName(n.kind))
		}
		for _, c := range n.children {
			walk(c, depth+1)
		}
	}
	for _, n := range p.nodes {
		walk(n, 0)
	}
	return b.String()
}

// TestDumpOption holds ast_grep's dump option: how a pattern is read,
// the tree of a snippet as code, and the errors when no language is
// known.
func TestDumpOption(t *testing.T) {
	d, err := dump(grepArgs{Pattern: "fmt.Errorf($MSG, $$$ARGS)", Language: "go", Dump: "pattern"})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + d.Text())
	wantTree := `call_expression
  selector_expression
    identifier "fmt"
    "."
    field_identifier "Errorf"
  argument_list
    "("
    $MSG  metavariable: one named node
    ","
    $$$ARGS  metavariable: zero or more sibling nodes
    ")"
`
	if d.Tree != wantTree || d.ReadAs == nil || d.ReadAs.Node != "call_expression" || d.Language != "go" {
		t.Errorf("pattern dump %+v, tree:\n%s\nwant:\n%s", d, d.Tree, wantTree)
	}

	// A path naming a file gives the language; the code dump is the plain
	// parse, with ranges and leaf texts, and counts the error nodes.
	d, err = dump(grepArgs{Pattern: "def f(x):\n    return x\n", Path: "pkg/mod.py", Dump: "code"})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + d.Text())
	for _, want := range []string{"module 1:1-3:1\n", "  function_definition 1:1-2:13\n", "    identifier 1:5-1:6 \"f\"\n", "\"def\" 1:1-1:4\n"} {
		if !strings.Contains(d.Tree, want) {
			t.Errorf("code dump lacks %q:\n%s", want, d.Tree)
		}
	}
	if d.Language != "python" || d.SyntaxErrors != 0 || d.ReadAs != nil {
		t.Errorf("code dump %+v", d)
	}
	d, err = dump(grepArgs{Pattern: "def f(:\n", Language: "python", Dump: "code"})
	if err != nil {
		t.Fatal(err)
	}
	if d.SyntaxErrors == 0 || !strings.Contains(d.Tree, `MISSING ")" 1:7-1:7`) || !strings.Contains(d.Text(), "python code, ") {
		t.Errorf("broken code dump:\n%s", d.Text())
	}

	for _, tt := range []struct {
		a    grepArgs
		want string
	}{
		{grepArgs{Pattern: "f($X)", Dump: "pattern"}, `dump needs a language and no path was given: pass language, e.g. "go" or "python"`},
		{grepArgs{Pattern: "f($X)", Path: "notes.txt", Dump: "code"}, `dump needs a language and the language of notes.txt cannot be told from its extension: pass language, e.g. "go" or "python"`},
		{grepArgs{Pattern: "f($X)", Language: "go", Dump: "tree"}, `unknown dump "tree": want "pattern" (how the pattern is read) or "code" (the tree of the text as plain code)`},
		{grepArgs{Pattern: "f($X)", Language: "cobol", Dump: "code"}, "unknown language"},
		{grepArgs{Pattern: "f(", Language: "go", Dump: "pattern"}, "unparseable pattern for go"},
		{grepArgs{Pattern: " ", Language: "go", Dump: "code"}, "empty pattern"},
	} {
		_, err := dump(tt.a)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("dump(%+v) = %v, want %q", tt.a, err, tt.want)
		}
	}
}

package patterns

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// dumpTree renders a flattened tree as an indented outline, for debugging
// how a pattern or source is read.
func dumpTree(t *Tree) string {
	var b strings.Builder
	var walk func(i, depth int)
	walk = func(i, depth int) {
		n := &t.nodes[i]
		name := t.Lang.kindName(t.Lang.kind(n.sym))
		if n.flags&flagError != 0 {
			name = "ERROR"
		}
		flags := ""
		if n.flags&flagMissing != 0 {
			flags += " MISSING"
		}
		if !n.named() {
			name = fmt.Sprintf("%q", name)
		}
		fmt.Fprintf(&b, "%s%s [%d,%d)%s", strings.Repeat("  ", depth), name, n.start, n.end, flags)
		if n.next == uint32(i)+1 {
			fmt.Fprintf(&b, " %q", t.Src[n.start:n.end])
		}
		b.WriteByte('\n')
		for c := i + 1; c < int(n.next); c = int(t.nodes[c].next) {
			walk(c, depth+1)
		}
	}
	if len(t.nodes) > 0 {
		walk(0, 0)
	}
	return b.String()
}

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

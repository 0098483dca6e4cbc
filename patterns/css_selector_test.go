package patterns

import (
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestCSSSelectorPatterns: a CSS selector alone is a pattern, read in the
// selector context; one with a pseudo-class is read as a selector though
// it also reads as a declaration, while a minified declaration whose
// value is spelled like no pseudo-class stays one.
func TestCSSSelectorPatterns(t *testing.T) {
	src := ".btn.big { color: red }\n#main > ul li { float:left }\na[href]::before, a:not(.x) { content: \"\" }\n" +
		"a:hover { transform:rotate(2deg) }\n@media (max-width: 10px) { .btn { cursor:default } }\n"
	runPatCases(t, []patCase{
		{name: "class", lang: "css", pattern: ".btn", src: src, want: []string{".btn", ".btn"}},
		{name: "class meta", lang: "css", pattern: ".$C", src: src, want: []string{".btn {C=btn}", ".x {C=x}", ".btn {C=btn}"}},
		{name: "child", lang: "css", pattern: "#main > $A", src: src, want: []string{"#main > ul {A=ul}"}},
		{name: "attribute", lang: "css", pattern: "a[$A]", src: src, want: []string{"a[href] {A=href}"}},
		{name: "pseudo-element", lang: "css", pattern: "$A::before", src: src, want: []string{"a[href]::before {A=a[href]}"}},
		{name: "pseudo-class", lang: "css", pattern: "$A:hover", src: src, want: []string{"a:hover {A=a}"}},
		{name: "pseudo-class arguments", lang: "css", pattern: "a:not($X)", src: src, want: []string{"a:not(.x) {X=.x}"}},
		{name: "minified declaration", lang: "css", pattern: "float:$A", src: src, want: []string{"float:left {A=left}"}},
		{name: "value spelled like a page pseudo-class", lang: "css", pattern: "$P:left", src: src, want: []string{"float:left {P=float}"}},
		{name: "value spelled like a pseudo-class left out", lang: "css", pattern: "cursor:default", src: src, want: []string{"cursor:default"}},
		{name: "declaration with a call", lang: "css", pattern: "transform:$A(2deg)", src: src, want: []string{"transform:rotate(2deg) {A=rotate}"}},
	})
	// A value alone is read in a declaration (the expression context),
	// and its digits, which no child node holds, are compared.
	values := ".x { color: rgba(0, 0, 0, 0.5); margin: 10px 2px; w: calc(100% - 2px) }\n"
	runPatCases(t, []patCase{
		{name: "call value", lang: "css", pattern: "rgba($$$)", src: values, want: []string{"rgba(0, 0, 0, 0.5)"}},
		{name: "call value arguments", lang: "css", pattern: "calc($A - $B)", src: values, want: []string{"calc(100% - 2px) {A=100%} {B=2px}"}},
		{name: "dimension", lang: "css", pattern: "2px", src: values, want: []string{"2px", "2px"}},
		{name: "dimension's digits", lang: "css", pattern: "10px", src: values, want: []string{"10px"}},
	})
}

// TestHTMLMetaTagName: a metavariable may name an element (its '$' is
// written as ast-grep writes it, a 'z', since a tag name starts with a
// letter); <$A>$B</$A> was refused.
func TestHTMLMetaTagName(t *testing.T) {
	src := "<html><head><meta charset=\"UTF-8\" /></head><body><p>hi</p><b>.npmrc</b><ul><li>x</li></ul></body></html>\n"
	runPatCases(t, []patCase{
		{name: "element", lang: "html", pattern: "<$A>$B</$A>", src: src,
			want: []string{"<head><meta charset=\"UTF-8\" /></head> {A=head} {B=<meta charset=\"UTF-8\" />}", "<p>hi</p> {A=p} {B=hi}",
				"<b>.npmrc</b> {A=b} {B=.npmrc}", "<ul><li>x</li></ul> {A=ul} {B=<li>x</li>}", "<li>x</li> {A=li} {B=x}"}},
		{name: "self-closing", lang: "html", pattern: "<$A charset=\"UTF-8\" />", src: src, want: []string{"<meta charset=\"UTF-8\" /> {A=meta}"}},
		{name: "literal tag", lang: "html", pattern: "<li>$X</li>", src: src, want: []string{"<li>x</li> {X=x}"}},
	})
}

// TestCSSSelectorsOfRealFiles copies each selector of real style sheets
// (drawn at random from the corpus; the seed is printed) into a pattern:
// each must find itself. Before the selector context, no selector
// alone could be read, and one with a pseudo-class read as a
// declaration and found nothing.
func TestCSSSelectorsOfRealFiles(t *testing.T) {
	l, _ := LanguageByName("css")
	testutil.NeedsFunc(t, "css grammar", func() string { _, why := l.Available(); return why })
	files := genCandidates()["css"]
	testutil.NeedsFunc(t, "real CSS files (the module cache, node_modules)", func() string {
		if len(files) == 0 {
			return "none found under " + strings.Join(genCorpusRoots(), ", ")
		}
		return ""
	})
	seed := uint64(20261207)
	if os.Getenv("AGENT_TOOLS_SOAK") == "1" {
		seed = uint64(time.Now().UnixNano())
	}
	if v := os.Getenv("AGENT_TOOLS_GEN_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (replay: AGENT_TOOLS_GEN_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	files = slices.Clone(files)
	rng.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	pr := newParser()
	defer pr.close()
	tried, read := 0, 0
	for _, f := range files[:min(len(files), 12)] {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := pr.parse(l, src, true)
		if err != nil {
			t.Fatal(err)
		}
		if _, bad := tree.firstError(); bad {
			continue
		}
		seen := map[string]bool{}
		for i := range tree.nodes {
			n := &tree.nodes[i]
			if l.kindName(l.kind(n.sym)) != "selectors" {
				continue
			}
			for c := i + 1; c < int(n.next); c = int(tree.nodes[c].next) {
				cn := &tree.nodes[c]
				text := string(src[cn.start:cn.end])
				if !cn.named() || cn.skipped() || seen[text] || strings.ContainsAny(text, "\n/") || len(seen) >= 40 {
					continue
				}
				seen[text] = true
				tried++
				p, err := Compile(l, text, CompileOptions{})
				if err != nil {
					t.Errorf("%s: selector %q: %v", f, text, err)
					continue
				}
				if !slices.ContainsFunc(p.Find(tree), func(s Span) bool { return s.Start == cn.start && s.End == cn.end }) {
					t.Errorf("%s: selector %q (read as %s) does not find itself at byte %d", f, text, p.ReadAs(), cn.start)
					continue
				}
				read++
			}
		}
	}
	t.Logf("%d selectors of %d files, %d find themselves", tried, min(len(files), 12), read)
	if tried == 0 {
		t.Fatalf("no selector drawn (seed %d)", seed)
	}
}

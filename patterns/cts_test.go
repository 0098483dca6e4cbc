package patterns

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestArenaParses checks the per-parse arena against itself under stress:
// the same sources parsed by fresh parsers, by parsers reused across many
// files, by parsers whose arena overflows into libc mid-parse, and by
// several goroutines at once must give identical trees.
func TestArenaParses(t *testing.T) {
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "func f%d(a, b int) (int, error) {\n\tif a == b { return 0, fmt.Errorf(\"x %%d\", a) }\n\tfor i := range a { b += i }\n\treturn a + b, nil\n}\n\n", i)
	}
	srcs := map[string][]byte{
		"go":     []byte(b.String()),
		"python": []byte(strings.Repeat("def f(x):\n    if x is None:\n        return [i for i in range(3)]\n    print(f\"{x!r}\")\n\n", 500)),
		"rust":   []byte(strings.Repeat("fn main() { let v: Vec<u8> = vec![1, 2]; println!(\"{}\", v.len()); }\n", 500)),
		"broken": []byte("func ( { if } ] ) package"),
		"empty":  nil,
	}
	langOf := map[string]string{"go": "go", "python": "python", "rust": "rust", "broken": "go", "empty": "go"}
	want := map[string][]node{}
	for name, src := range srcs {
		lang, err := LanguageByName(langOf[name])
		if err != nil {
			t.Fatal(err)
		}
		p := newParser()
		tree, err := p.parse(lang, src, true)
		p.close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(tree.nodes) == 0 {
			t.Fatalf("%s: no nodes", name)
		}
		want[name] = tree.nodes
	}
	if len(want["go"]) < 50000 {
		t.Fatalf("the Go source parsed to only %d nodes", len(want["go"]))
	}
	check := func(t *testing.T, p *parser, rounds int) {
		for range rounds {
			for name, src := range srcs {
				lang, _ := LanguageByName(langOf[name])
				tree, err := p.parse(lang, src, false)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					return
				}
				if !slices.Equal(tree.nodes, want[name]) {
					t.Errorf("%s: %d nodes, want %d identical ones", name, len(tree.nodes), len(want[name]))
					return
				}
			}
		}
	}
	t.Run("reused", func(t *testing.T) {
		p := newParser()
		defer p.close()
		check(t, p, 5)
	})
	t.Run("spilling", func(t *testing.T) {
		// 64 KiB is far less than the Go source needs: most of its parse
		// is served by libc and freed by a real tree delete.
		p := newParserLimit(64 << 10)
		defer p.close()
		check(t, p, 3)
	})
	t.Run("concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := newParser()
				defer p.close()
				check(t, p, 3)
			}()
		}
		wg.Wait()
	})
}

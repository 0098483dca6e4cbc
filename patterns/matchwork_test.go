package patterns

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMatchWorkIsLinear holds the matcher's cost to the tree's size: the
// steps Find takes (seq calls) on four times the input stay within a
// small multiple of four times those on one. A sequence pattern whose
// next item passes over unnamed tokens once rescanned the siblings from
// each start: FuzzMatch's C "$$A $" over 0#!::::…#! took 2.4 s on 8,000
// tokens (quadratic), and 0.8 s on 3,000, which a loaded fuzzing worker
// reported as hung. The inputs are runs of one token in an ERROR or a
// list, in several grammars, and the random real files of the generated
// suite repeated.
func TestMatchWorkIsLinear(t *testing.T) {
	type input struct {
		lang string
		src  func(n int) []byte
	}
	rep := func(head, unit, tail string) func(int) []byte {
		return func(n int) []byte { return []byte(head + strings.Repeat(unit, n) + tail) }
	}
	inputs := []input{
		{"c", rep("0#!", ":", "#!")},
		{"c", rep("int x = f(", "a,", "a);\n")},
		{"go", rep("package p\nvar _ = ", "!", "x\n")},
		{"python", rep("x = [", "1, ", "1]\n")},
		{"javascript", rep("f(", "(", "")},
		{"rust", rep("fn f() { ", "; ", "}\n")},
	}
	// Real files, each repeated: the same code n times.
	size, seed, _ := genSampleSize()
	cands := genCandidates()
	for _, lang := range []string{"go", "c", "python", "typescript"} {
		l := mustLang(t, lang)
		rng := rand.New(rand.NewPCG(seed^0x11ea, uint64(len(lang))*131+uint64(lang[0])))
		for _, src := range genPickFiles(rng, l, cands[lang], min(2, size.files)) {
			src := src
			inputs = append(inputs, input{lang, func(n int) []byte { return bytes.Repeat(src, max(1, n/500)) }})
		}
	}
	pats := map[string][]string{
		"c":          {"$$A $", "$A $B", "f($$$)", "$X;", "int $A = $B;"},
		"go":         {"$$A $", "$A $B", "!$X", "f($$$)"},
		"python":     {"$$A $", "[$$$]", "$A, $B", "def $F($$$): $$$"},
		"javascript": {"$$A $", "f($X)", "($$$)"},
		"rust":       {"$$A $", "$A; $B"},
		"typescript": {"$$A $", "$X.$M($$$)", "const $A = $B"},
	}
	const n = 2000
	for _, in := range inputs {
		l := mustLang(t, in.lang)
		pr := newParser()
		one, err := pr.parse(l, in.src(n), true)
		if err != nil {
			t.Fatal(err)
		}
		four, err := pr.parse(l, in.src(4*n), true)
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range pats[in.lang] {
			p, err := Compile(l, src, CompileOptions{})
			if err != nil {
				continue
			}
			_, w1 := p.find(one)
			_, w4 := p.find(four)
			// Four times the nodes, a little more than four times the
			// work at most (a constant per start, and the memo's first
			// steps); quadratic work is sixteen times.
			if limit := 6*w1 + 4*memoAfter + 1000; w4 > limit {
				t.Errorf("%s %q over %s…: %d steps on %d nodes, %d on %d nodes (limit %d): not linear",
					in.lang, src, fmt.Sprintf("%.20q", in.src(1)), w1, len(one.nodes), w4, len(four.nodes), limit)
			}
		}
		pr.close()
	}
}

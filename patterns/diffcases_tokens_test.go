package patterns

// Differential cases about target tokens a pattern does not spell: a
// keyword or operator that changes the meaning (yield*, yield from,
// export default, chan<-, &mut, not in) must not be stepped over by a
// metavariable or a whole node, while a leading modifier before a token
// the pattern spells (async def) may be; and a match always covers whole
// nodes. Run by TestDifferentialTokens (differential_test.go).

var tokenLangs = []diffLang{
	{lang: "rust", ag: "rust", ext: ".rs", src: `use std::sync::Arc;

// &x and &mut x in a comment; "&y" in a string
pub fn borrow(x: &mut Vec<u8>, y: &str) -> usize {
    let a = &mut x;
    let b = &y;
    let n = a.len() + b.len();
    n
}

fn private_helper() -> u8 { 7 }

pub unsafe fn raw(p: *const u8) -> u8 {
    unsafe { *p }
}

pub fn spawn_all(v: Arc<Vec<u8>>) {
    let f = move || v.len();
    let g = || 3;
    let _ = (f(), g());
}
`, cases: []diffCase{
		// $X takes the first named child (mut), but the match is the
		// whole reference: a span never ends inside a node.
		{pattern: "&$X"},
		{pattern: "&mut $X"},
		{pattern: "let $A = &$B;"},
		{pattern: "fn $F($$$) -> $T { $$$ }"},
		{pattern: "pub fn $F($$$P) { $$$ }"},
		{pattern: "unsafe { $$$ }"},
		{pattern: "|| $E"},
		{pattern: "move || $E"},
	}},
	{lang: "javascript", ag: "javascript", ext: ".js", src: `// yield* inner() in a comment
function* outer() {
  yield* inner();
  yield step();
  const s = "yield later()";
  yield;
}

const load = async (url) => fetch(url);
const parse = (text) => JSON.parse(text);
async function main() {
  const r = await load("/a");
  return parse(r);
}
`, cases: []diffCase{
		{pattern: "yield $X"},
		{pattern: "yield* $X"},
		{pattern: "($P) => $B"},
		{pattern: "async ($P) => $B"},
		{pattern: "await $X"},
		{pattern: "function $F() { $$$ }"},
	}},
	{lang: "python", ag: "python", ext: ".py", src: `import asyncio

# yield from gen() in a comment
def walk(items):
    yield from sub(items)
    yield items[0]
    text = "yield from nowhere"


async def fetch(url):
    data = await get(url)
    return data


def check(a, b, seen):
    if a not in seen and b in seen:
        return a is not None
    return a is b
`, cases: []diffCase{
		{pattern: "yield $X"},
		{pattern: "yield from $X"},
		{pattern: "def $F($$$P): $$$"},
		{pattern: "async def $F($$$P): $$$"},
		{pattern: "$A in $B"},
		{pattern: "$A not in $B"},
		{pattern: "$A is $B"},
		{pattern: "$A is not $B"},
		{pattern: "await $X"},
	}},
	{lang: "typescript", ag: "typescript", ext: ".ts", src: `// export function h() {} in a comment
export default function f() {}
export function g() {}
function local() {}
export const answer = 42;
const hidden = "export const x = 1";
declare function external(x: number): string;
export abstract class Shape {}
export class Circle {}
`, cases: []diffCase{
		{pattern: "export function $F() {}"},
		{pattern: "export default function $F() {}"},
		{pattern: "function $F() {}"},
		{pattern: "export const $X = $Y"},
		{pattern: "declare function $F($$$P): $T;"},
		{pattern: "export class $C {}"},
	}},
	{lang: "go", ag: "go", ext: ".go", src: `package pipe

// var c chan<- int in a comment
var c chan<- int
var d chan int
var e <-chan int

func drain(in <-chan int, out chan<- int) {
	for v := range in {
		out <- v
	}
	s := "var d chan int"
	_ = s
}
`, cases: []diffCase{
		// chan<- after the spelled chan is not skipped; <- before it is
		// (a token before one the pattern spells, like async before
		// def): spell <-chan to tell the directions apart.
		{pattern: "var $V chan $T"},
		{pattern: "var $V chan<- $T"},
		{pattern: "var $V <-chan $T"},
		{pattern: "$C <- $V"},
	}},
	{lang: "c", ag: "c", ext: ".c", src: `#include <stdio.h>

/* static int count = 0; in a comment */
static int count = 0;
int total = 0;
const int limit = 10;

static int bump(int by) { count += by; return count; }
int reset(void) { count = 0; return 0; }

void show(const char *msg) {
    const char *s = "int total = 0;";
    printf("%s %s\n", msg, s);
}
`, cases: []diffCase{
		{pattern: "int $X = $V;"},
		{pattern: "static int $X = $V;"},
		{pattern: "int $F($$$P) { $$$ }"},
		{pattern: "const char *$P = $V;"},
	}},
	{lang: "java", ag: "java", ext: ".java", src: `package shop;

// final int LIMIT = 3; in a comment
class Cart {
    final int limit = 3;
    int count = 0;
    static int created = 0;

    static void reset() { created = 0; }
    void add() { count++; }
    public final void clear() { count = 0; }
}
`, cases: []diffCase{
		{pattern: "int $X = $V;", context: "member", peer: "class A { int $X = $V; }", peerSel: "field_declaration"},
		{pattern: "final int $X = $V;", context: "member", peer: "class A { final int $X = $V; }", peerSel: "field_declaration"},
		{pattern: "void $M() { $$$ }"},
		{pattern: "static void $M() { $$$ }"},
	}},
}

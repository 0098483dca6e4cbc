package patterns

import "testing"

// TestFragmentReadings: fragments only a larger construct holds are
// read, each in the scaffold that holds it, and find what they spell.
// The generated differential found each refused while ast-grep read it
// and found the code it was cut from (2026-12-07).
func TestFragmentReadings(t *testing.T) {
	for _, c := range []struct {
		lang, pattern, src, readAs string
		want                       []string
	}{
		{"lua", "tbl:$M", "local x = tbl:go(1)\nlocal y = other:go()\n", "expression: method_index_expression", []string{"tbl:go {M=go}"}},
		{"typescript", "<$A, $B>", "function g<A, B>(a: A): B {}\nconst m = new Map<string, number>();\n", "declaration: type_parameters", []string{"<A, B> {A=A} {B=B}"}},
		{"typescript", "<typeof $A>", "const a = f<typeof b>();\n", "type: type_arguments", []string{"<typeof b> {A=b}"}},
		{"dart", "Widget build($A $B)", "abstract class W {\n  Widget build(BuildContext context);\n  Widget other(int x) { return x; }\n}\n",
			"member: function_signature", []string{"Widget build(BuildContext context) {A=BuildContext} {B=context}"}},
		{"java", "(String $A)", "class A {\n  void f(String s) {}\n  void g(int x, String y) {}\n}\n", "member: formal_parameters", []string{"(String s) {A=s}"}},
		{"tsx", "<div {...$A} $$$>", "const a = <div {...props} style={{ ...s }}>hi</div>;\nconst b = <div />;\n", "expression: jsx_opening_element",
			[]string{"<div {...props} style={{ ...s }}> {A=props}"}},
		{"scala", "$A.mods.isSynthetic\n  || $A.mods.$B", "object X {\n  def f(md: M) = (md.mods.isSynthetic\n      || md.mods.isX)\n  def g = md.mods.isSynthetic || md.mods.isY\n}\n",
			"expression: infix_expression", []string{"md.mods.isSynthetic\n      || md.mods.isX {A=md} {B=isX}", "md.mods.isSynthetic || md.mods.isY {A=md} {B=isY}"}},
		{"bash", "BASH_REMATCH[$A]", "if [[ $x =~ a(b) ]]; then\n  echo \"${BASH_REMATCH[1]}\"\n  BASH_REMATCH[2]=y\n  echo ${OTHER[1]}\nfi\n", "expression: subscript",
			[]string{"BASH_REMATCH[1] {A=1}", "BASH_REMATCH[2] {A=2}"}},
		{"javascript", "(...$A)", "function f(...args) { return g(...args); }\nconst h = (...rest) => rest;\nfunction k(a, ...more) {}\n", "declaration: formal_parameters",
			[]string{"(...args) {A=args}", "(...rest) {A=rest}"}},
		{"cpp", "[&$A, $B, $C, wa]", "int main() {\n  auto f = [&a, b, c, wa]() { return 1; };\n  auto g = [&a, b, c, wb]() { return 2; };\n  int v[3] = {1, 2, 3};\n}\n", "expression: lambda_capture_specifier",
			[]string{"[&a, b, c, wa] {A=a} {B=b} {C=c}"}},
		{"haskell", "(~($A, a), $B)", "module A where\nf (~(x, a), y) = x\ng (~(x, b), y) = x\nh = (x, y)\n", "pattern: tuple", []string{"(~(x, a), y) {A=x} {B=y}"}},
		{"haskell", "!$A", "module A where\ng !x (Just y) = x\nh = a ! b\n", "pattern: strict",
			[]string{" !x {A=x}"}}, // the grammar's strict node starts at the blank before its '!'

		{"html", `<div class="$C">`, "<html><body><div class=\"a\">x</div><div id=\"b\"></div><p class=\"c\">y</p></body></html>\n", "declaration: start_tag",
			[]string{`<div class="a"> {C=a}`}},
		{"swift", "$A<ImageResponse, $B>", "let r: Result<ImageResponse, Error> = f()\nvar x: Array<Int> = []\n", "type: user_type",
			[]string{"Result<ImageResponse, Error> {A=Result} {B=Error}"}},
		{"haskell", "(<), (<=), $A, (>)", "module A where\nclass Ord a where\n  (<), (<=), max, (>) :: a -> a -> Bool\n  (<), (>=) :: a -> a -> Bool\n", "declaration: binding_list",
			[]string{"(<), (<=), max, (>) {A=max}"}},
		{"c", "$F(int $A)", "int f(int a);\nchar *g(void);\nint h(int b) { return f(b); }\n", "declaration: function_declarator", []string{"f(int a) {F=f} {A=a}", "h(int b) {F=h} {A=b}"}},
	} {
		l, err := LanguageByName(c.lang)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Compile(l, c.pattern, CompileOptions{})
		if err != nil {
			t.Errorf("%s %q: %v", c.lang, c.pattern, err)
			continue
		}
		if p.ReadAs() != c.readAs {
			t.Errorf("%s %q read as %s, want %s", c.lang, c.pattern, p.ReadAs(), c.readAs)
		}
		runPatCases(t, []patCase{{name: c.lang + " " + c.pattern, lang: c.lang, pattern: c.pattern, src: c.src, want: c.want}})
	}
}

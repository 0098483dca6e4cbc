package lspbridge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLocate(t *testing.T) {
	text := "package main\n\nfunc f() {\n\tfoo(foo)\n\tx := pkg.Name(héllo, Name)\n\tfoobar := 1\n\tv := a::b::Name\n}\n"
	tests := []struct {
		name       string
		line       int
		symbol     string
		occurrence int
		want       target
		wantErr    string
	}{
		{name: "single", line: 3, symbol: "f", want: target{Line: 2, StartByte: 5, EndByte: 6}},
		{name: "duplicate needs occurrence", line: 4, symbol: "foo", wantErr: `"foo" occurs 2 times on line 4 (1 at column 2, 2 at column 6): pass occurrence (1-based) to pick one`},
		{name: "occurrence 2", line: 4, symbol: "foo", occurrence: 2, want: target{Line: 3, StartByte: 5, EndByte: 8}},
		{name: "occurrence too big", line: 4, symbol: "foo", occurrence: 3, wantErr: `argument 'occurrence': 3, but "foo" occurs 2 time(s) on line 4`},
		{name: "substring when no boundary match", line: 6, symbol: "foo", want: target{Line: 5, StartByte: 1, EndByte: 4, Inside: "foobar"}},
		{name: "qualified aims at last segment", line: 5, symbol: "pkg.Name", want: target{Line: 4, StartByte: 10, EndByte: 14}},
		{name: "rust path", line: 7, symbol: "a::b::Name", want: target{Line: 6, StartByte: 12, EndByte: 16}},
		{name: "qualified not on line falls back to segment", line: 7, symbol: "x::Name", want: target{Line: 6, StartByte: 12, EndByte: 16}},
		{name: "only inside longer names, twice", line: 4, symbol: "fo", wantErr: "`fo` is on line 4 only inside longer names (1 at column 2 in foo, 2 at column 6 in foo): pass the whole name, or occurrence (1-based) to pick one"},
		{name: "substring inside a word", line: 6, symbol: "bar", want: target{Line: 5, StartByte: 4, EndByte: 7, Inside: "foobar"}},
		{name: "not on line names the lines", line: 2, symbol: "Name", wantErr: "`Name` is not on line 2; it is on lines 5, 7"},
		{name: "not on line, one line", line: 1, symbol: "f", wantErr: "`f` is not on line 1; it is on line 3"},
		{name: "not on line, only inside a name", line: 1, symbol: "bar", wantErr: "`bar` is not on line 1; it is on line 6 (only as part of a longer name)"},
		{name: "nowhere", line: 1, symbol: "zzz", wantErr: "`zzz` is not on line 1, nor anywhere in the file: check the symbol and the file (line 1 is \"package main\")"},
		{name: "expression", line: 5, symbol: "pkg.Name(héllo, Name)", wantErr: "argument 'symbol': `pkg.Name(héllo, Name)` is an expression, not a name: pass one name on the line, e.g. `Name` (a qualified name such as pkg.Name is fine)"},
		{name: "expression with an operator first", line: 4, symbol: "*foo", wantErr: "argument 'symbol': `*foo` is an expression, not a name: pass one name on the line, e.g. `foo` (a qualified name such as pkg.Name is fine)"},
		{name: "a destructor is a name, not an expression", line: 7, symbol: "~Name", wantErr: "`~Name` is not on line 7, nor anywhere in the file: check the symbol and the file (line 7 is \"v := a::b::Name\")"},
		{name: "line out of range", line: 99, symbol: "f", wantErr: "argument 'line': 99 is outside the file (it has 9 lines)"},
		{name: "no symbol", line: 3, symbol: "", wantErr: "argument 'symbol': required for this action: the name on that line to aim at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := locate(text, tt.line, tt.symbol, tt.occurrence)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error:\n got %v\nwant %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestEncoding(t *testing.T) {
	line := "a := \"é😀\" + b"
	b := len("a := \"é😀\" + ") // byte offset of b
	tests := []struct {
		enc  encoding
		want int
	}{
		{utf16Enc, 13}, // é is 1 unit, 😀 is 2
		{utf8Enc, b},
		{utf32Enc, 12},
	}
	for _, tt := range tests {
		t.Run(string(tt.enc), func(t *testing.T) {
			c := tt.enc.character(line, b)
			if c != tt.want {
				t.Errorf("character: got %d, want %d", c, tt.want)
			}
			if back := tt.enc.byteOffset(line, c); back != b {
				t.Errorf("byteOffset: got %d, want %d", back, b)
			}
			if col := tt.enc.column(line, c); col != 13 {
				t.Errorf("column: got %d, want 13", col)
			}
		})
	}
}

// TestLocateQuoted: among several matches, the only one outside a string
// on the line is aimed at without occurrence (an import of ./foo); two in
// code still need it.
func TestLocateQuoted(t *testing.T) {
	text := "import { foo } from './foo';\nlog('it\\'s foo', foo);\nfoo(foo, 'foo');\nconst c = 'a; foo(foo\n"
	for _, c := range []struct {
		line  int
		start int
		err   string
	}{
		{line: 1, start: 9},
		{line: 2, start: 17},
		{line: 3, err: `"foo" occurs 3 times on line 3 (1 at column 1, 2 at column 5, 3 at column 11): pass occurrence (1-based) to pick one`},
		// A quote that does not close on the line hides nothing.
		{line: 4, err: `"foo" occurs 2 times on line 4 (1 at column 15, 2 at column 19): pass occurrence (1-based) to pick one`},
	} {
		got, err := locate(text, c.line, "foo", 0)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("line %d: got %v, %v; want error %s", c.line, got, err, c.err)
			}
			continue
		}
		if err != nil || got.StartByte != c.start {
			t.Errorf("line %d: got %+v, %v; want start %d", c.line, got, err, c.start)
		}
	}
}

// TestLocateInsideNames: a symbol on its line only inside longer names,
// more than once, is refused with those names and the lines where it is
// a name of its own.
func TestLocateInsideNames(t *testing.T) {
	text := "func (c *Conn) DispatchCall(opts ...CallOption) {}\nfunc (c *Conn) Call() {}\n"
	_, err := locate(text, 1, "Call", 0)
	want := "`Call` is on line 1 only inside longer names (1 at column 24 in DispatchCall, 2 at column 37 in CallOption): pass the whole name, or occurrence (1-based) to pick one; as a name of its own it is on line 2"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	got, err := locate(text, 1, "Call", 2)
	if err != nil || got.Inside != "CallOption" {
		t.Errorf("occurrence 2: %+v, %v", got, err)
	}
}

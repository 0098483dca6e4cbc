//go:build linux

package proc

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRing(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		writes []string
		want   string
	}{
		{name: "under limit", limit: 16, writes: []string{"a\n", "b\n"}, want: "a\nb\n"},
		{name: "exactly full", limit: 4, writes: []string{"a\nb\n"}, want: "a\nb\n"},
		{name: "drops front, trims cut line", limit: 8, writes: []string{"first\n", "second\n", "third\n"}, want: "third\n"},
		{name: "partial last line kept", limit: 10, writes: []string{"aaaa\nbbbb\ncc"}, want: "bbbb\ncc"},
		{name: "one write over limit", limit: 6, writes: []string{"xxxxxxxx\nyy\nz"}, want: "yy\nz"},
		{name: "no newline keeps bytes", limit: 4, writes: []string{"abcdefgh"}, want: "efgh"},
		{name: "only newline at end", limit: 5, writes: []string{"abcdefg\n"}, want: "defg\n"},
		{name: "cut UTF-8 rune dropped", limit: 3, writes: []string{"aé€"}, want: "€"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRing(tt.limit)
			for _, w := range tt.writes {
				if n, err := r.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			got := r.String()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("String() (-want +got):\n%s", diff)
			}
			if len(got) > tt.limit {
				t.Errorf("len = %d > limit %d", len(got), tt.limit)
			}
		})
	}
}

func TestRingManySmallWrites(t *testing.T) {
	r := newRing(100)
	for range 10000 {
		r.Write([]byte("0123456789\n"))
	}
	got := r.String()
	if len(got) > 100 || strings.Trim(got, "0123456789\n") != "" || !strings.HasPrefix(got, "0123456789\n") {
		t.Errorf("String() = %q", got)
	}
}

func TestApplyEvent(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  map[int]bool
	}{
		{name: "add", lines: []string{"+100", "+200"}, want: map[int]bool{100: true, 200: true}},
		{name: "add remove", lines: []string{"+100", "+200", "-100"}, want: map[int]bool{200: true}},
		{name: "remove unknown", lines: []string{"-5"}, want: map[int]bool{}},
		{name: "never 0, 1 or negative (kill(-1) is everyone)", lines: []string{"+0", "+1", "+-7", "+ 9"}, want: map[int]bool{}},
		{name: "garbage", lines: []string{"", "+", "x100", "+abc", "*12"}, want: map[int]bool{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make(map[int]bool)
			for _, l := range tt.lines {
				applyEvent(got, l)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTimeoutsOrDefault(t *testing.T) {
	d := DefaultTimeouts
	tests := []struct {
		name string
		in   *Timeouts
		want Timeouts
	}{
		{name: "nil", in: nil, want: d},
		{name: "zero", in: &Timeouts{}, want: d},
		{name: "partial", in: &Timeouts{Term: time.Millisecond}, want: Timeouts{Goodbye: d.Goodbye, Grace: d.Grace, Term: time.Millisecond, Kill: d.Kill}},
		{name: "full", in: &Timeouts{1, 2, 3, 4}, want: Timeouts{1, 2, 3, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.in.orDefault()); diff != "" {
				t.Errorf("orDefault (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRingExcerpt: the cause a program prints first survives a long
// backtrace after it.
func TestRingExcerpt(t *testing.T) {
	var trace strings.Builder
	trace.WriteString("\nerror: Unknown binary 'rust-analyzer' in official toolchain 'stable'.\n\n")
	for i := range 5000 {
		trace.WriteString("   frame " + strings.Repeat("x", i%40) + "\n")
	}
	trace.WriteString("last frame\n")
	cases := []struct {
		name   string
		limit  int
		writes []string
		want   string
	}{
		{name: "short: all of it", limit: 64, writes: []string{"a\n\n", "b\nc\n"}, want: "a\nb\nc"},
		{name: "kept whole, cut in the middle", limit: 1 << 10, writes: []string{"1\n2\n3\n4\n5\n6\n"}, want: "1\n2\n…\n5\n6"},
		{name: "front dropped: the head is kept", limit: 256, writes: []string{trace.String()},
			want: "error: Unknown binary 'rust-analyzer' in official toolchain 'stable'.\n   frame\n…\n   frame " + strings.Repeat("x", 4999%40) + "\nlast frame"},
	}
	for _, c := range cases {
		r := newRing(c.limit)
		for _, w := range c.writes {
			r.Write([]byte(w))
		}
		if got := r.excerpt(2, 2); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestZombie: a child that exited and was not waited for is a zombie in
// /proc; a running process is not.
func TestZombie(t *testing.T) {
	if zombie(os.Getpid()) {
		t.Fatal("this process is not a zombie")
	}
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	// Not waited for yet: it turns zombie once it has exited. The state is
	// read until then (the child exits at once; a loaded machine may take
	// a while to run it).
	for !zombie(cmd.Process.Pid) {
		time.Sleep(10 * time.Millisecond)
	}
}

package workspace

import (
	"bytes"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

func TestIgnores(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("# comment\n/build\n*.log\n!keep.log\ndocs/**/*.md\nout/\n\\#hash\n\\*.go\nnum[[:digit:]]\nsp\\ \n"), 0o644)
	ig := ignores(nil).withFile(dir, "")
	tests := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"build", true, true},
		{"sub/build", true, false}, // anchored to the .gitignore's directory
		{"a.log", false, true},
		{"sub/b.log", false, true},
		{"keep.log", false, false}, // negated
		{"docs/x.md", false, true},
		{"docs/a/b/x.md", false, true},
		{"x.md", false, false},
		{"out", true, true},
		{"out", false, false}, // dir-only rule
		{"#hash", false, true},
		{"main.go", false, false}, // \*.go is a file named *.go, not every .go file
		{"*.go", false, true},
		{"num7", false, true},
		{"numx", false, false},
		{"sp ", false, true}, // escaped trailing space stays
		{"sp", false, false},
	}
	for _, tt := range tests {
		if got := ig.ignored(tt.path, tt.isDir); got != tt.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", tt.path, tt.isDir, got, tt.want)
		}
	}
}

// The paths of TestIgnoresMatchGit's tree: a trailing / marks a directory.
// Names with glob characters, spaces and backslashes are real files here,
// so an escape that is read wrongly shows.
var gitProbeTree = []string{
	"a.go", "b.go", "*.go", "a.txt", "b.log", "keep.log", "x1", "x12", "xa", "X1",
	"foo ", "foo", "bar  ", "#hash", "!bang", "q?", "[ab]", "a", "b", "a[b", `back\slash`,
	"build/", "build/out.o", "build/keep.o",
	"src/", "src/main.go", "src/build/", "src/build/gen.go", "src/a.log", "src/x1",
	"docs/", "docs/readme.md", "docs/a/", "docs/a/b/", "docs/a/b/deep.md", "docs/a/note.txt",
	"abc/", "abc/def/", "abc/def/ghi.txt", "abc/x.md",
	"vendor/", "vendor/lib/", "vendor/lib/v.go", "vendor/keep.go",
	"tmp1/", "tmp1/t.go", "tmpx/", "tmpx/t.go",
}

// Pattern lines the probes draw from: every gitignore(5) feature, and the
// escapes, classes and ** placements that a regexp translation gets wrong.
var gitProbeLines = []string{
	"*.go", `\*.go`, "*.log", "!keep.log", `\!bang`, `\#hash`, "#hash",
	"x[0-9]", "x[[:digit:]]", "x[[:digit:]]*", "x[![:digit:]]", "x[^0-9]", "[[:upper:]]1", "x[[:alpha:]]",
	"x[[:bogus:]]", "x[", "[ab]", `\[ab\]`, `a\[b`, "q?", `q\?`, "?", "??", "x?", "x??",
	`foo\ `, "foo ", `bar\ \ `, "bar  ", `back\\slash`, `back\slash`, "trailing\\",
	"build/", "/build", "build", "build/*", "build/**", "/build/**", "!build/keep.o", "build/**/*.o",
	"**/build", "**/build/", "src/**", "src/**/", "**/*.go", "**/gen.go", "**", "/**", "*/",
	"docs/**/*.md", "docs/*.md", "docs/**/b", "docs/**/a/**", "a/**/b", "**/a/b/", "docs/a**",
	"abc/def", "/abc/def/", "abc/**/ghi.txt", "abc/*/ghi.txt", "abc/**x.md", "abc**",
	"vendor/", "!vendor/keep.go", "vendor/*", "!vendor/lib/", "vendor/**", "!vendor/**/",
	"tmp[0-9]/", "tmp[!0-9]/", "tmp*", "/tmp?/t.go", "t.go", "src/*.log", "/src/x1", "x1",
	"a", "/a", "b/", "!a.go", "*", "!*.txt", "*.*", "[a-c].go", "[!a].go", "[a-].go", "[]ab].go",
}

// TestIgnoresMatchGit holds the walk to git itself: for each probe (a
// .gitignore at the root, sometimes another in src/), the files the walk
// visits must be exactly what `git ls-files --others --exclude-standard`
// lists in a fresh repository, dot-files aside. That covers the rules, their
// order, negation and git's refusal to re-include below an ignored
// directory.
func TestIgnoresMatchGit(t *testing.T) {
	testutil.Needs(t, "git")
	git, _ := exec.LookPath("git")
	dir := t.TempDir()
	for _, p := range gitProbeTree {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(abs, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(abs, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(stdin []byte, args ...string) []byte {
		cmd := exec.Command(git, append([]string{"-c", "core.excludesFile=/dev/null", "-c", "core.quotePath=false"}, args...)...)
		cmd.Dir, cmd.Stdin = dir, bytes.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return out
	}
	run(nil, "init", "-q")

	probes := make([][2]string, 0, 2*len(gitProbeLines)+200)
	for _, l := range gitProbeLines {
		probes = append(probes, [2]string{l + "\n", ""})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(gitProbeLines[rng.IntN(len(gitProbeLines))] + "\n")
		}
		return b.String()
	}
	for range 200 {
		sub := ""
		if rng.IntN(3) == 0 {
			sub = pick(1 + rng.IntN(2))
		}
		probes = append(probes, [2]string{pick(1 + rng.IntN(4)), sub})
	}
	// Line endings and a BOM, which git reads its own way.
	probes = append(probes, [2]string{"\xef\xbb\xbf*.log\n", ""}, [2]string{"*.log\r\nx1\r\n", ""}, [2]string{"*.log", ""})

	for _, pr := range probes {
		os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(pr[0]), 0o644)
		subIgnore := filepath.Join(dir, "src", ".gitignore")
		if pr[1] != "" {
			os.WriteFile(subIgnore, []byte(pr[1]), 0o644)
		} else {
			os.Remove(subIgnore)
		}
		var want []string
		for _, f := range bytes.Split(run(nil, "ls-files", "-z", "--others", "--exclude-standard"), []byte{0}) {
			if s := string(f); s != "" && !strings.HasPrefix(filepath.Base(s), ".") {
				want = append(want, s)
			}
		}
		var got []string
		Walk(dir, dir, func(_, rel string, d fs.DirEntry) error {
			if !d.IsDir() {
				got = append(got, rel)
			}
			return nil
		})
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("root .gitignore %q, src/.gitignore %q:\n  walk only: %q\n  git only:  %q",
				pr[0], pr[1], minus(got, want), minus(want, got))
		}
	}
	t.Logf("%d probes over %d paths", len(probes), len(gitProbeTree))
}

func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

func TestWildmatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/xb", false},
		{"a**", "a/b", false}, // not a whole segment: a plain *
		{"a/**", "a/b/c", true},
		{"a/**", "a", false},
		{"**/b", "x/y/b", true},
		{"*", "a/b", false},
		{"x[[:digit:]]", "x5", true},
		{"x[[:bogus:]]", "x5", false},
		{"x[", "x[", false}, // an unterminated class matches nothing
		{`\*.go`, "a.go", false},
		{`\*.go`, "*.go", true},
		{"[]a]", "]", true},
		{"[!]a]", "b", true},
		{"[a-]", "-", true},
		{strings.Repeat("*a", 20) + "b", strings.Repeat("a", 60), false}, // must not take exponential time
	}
	for _, tt := range tests {
		if got := wildmatch(tt.pattern, tt.path) == matched; got != tt.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// TestWalkFromSubdir: a walk that starts below the root still applies the
// ancestors' rules, and SkipDir / SkipAll work.
func TestWalkFromSubdir(t *testing.T) {
	root := t.TempDir()
	testutil.WriteTree(t, root, "-- .gitignore --\n*.log\n-- a/.gitignore --\ngen/\n-- a/x.go --\n-- a/x.log --\n-- a/gen/y.go --\n-- a/b/z.go --\n-- a/c/w.go --\n")
	var got []string
	err := Walk(root, filepath.Join(root, "a"), func(_, rel string, d fs.DirEntry) error {
		got = append(got, rel)
		if rel == "a/b" {
			return fs.SkipDir
		}
		if rel == "a/c/w.go" {
			return fs.SkipAll
		}
		return nil
	})
	want := []string{"a/b", "a/c", "a/c/w.go"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Walk from a/ = %q, %v; want %q", got, err, want)
	}
	if err := Walk(root, t.TempDir(), func(string, string, fs.DirEntry) error { return nil }); err == nil {
		t.Errorf("Walk outside the root succeeded")
	}
}

// TestWalkReportsDeps: node_modules directories are never entered; those
// .gitignore does not already leave out are reported (nested ones too),
// and a walk that starts inside one walks it.
func TestWalkReportsDeps(t *testing.T) {
	root := t.TempDir()
	testutil.WriteTree(t, root, "-- .gitignore --\n/web/node_modules/\n-- web/node_modules/a/i.js --\n-- web/src/x.js --\n"+
		"-- tools/node_modules/b/j.js --\n-- tools/node_modules/b/node_modules/c/k.js --\n-- tools/t.js --\n")
	var files, deps []string
	visit := func(_, rel string, d fs.DirEntry) error {
		if !d.IsDir() {
			files = append(files, rel)
		}
		return nil
	}
	if err := WalkReporting(root, root, visit, func(rel string) { deps = append(deps, rel) }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"tools/t.js", "web/src/x.js"}; !slices.Equal(files, want) {
		t.Errorf("files = %q, want %q", files, want)
	}
	if want := []string{"tools/node_modules"}; !slices.Equal(deps, want) {
		t.Errorf("reported deps = %q, want %q (the ignored web/node_modules is not reported)", deps, want)
	}
	files, deps = nil, nil
	if err := WalkReporting(root, filepath.Join(root, "tools", "node_modules"), visit, func(rel string) { deps = append(deps, rel) }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"tools/node_modules/b/j.js"}; !slices.Equal(files, want) {
		t.Errorf("files from inside node_modules = %q, want %q", files, want)
	}
	if want := []string{"tools/node_modules/b/node_modules"}; !slices.Equal(deps, want) {
		t.Errorf("reported deps from inside = %q, want %q", deps, want)
	}
}

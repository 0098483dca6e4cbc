package patterns

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocMapNamesEveryFile holds the package doc's map to the directory:
// every source file is on it, and every file on it exists.
func TestDocMapNamesEveryFile(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var mapped []string
	entry := regexp.MustCompile(`^//\t([a-z_]+\.go) `)
	for _, line := range strings.Split(string(doc), "\n") {
		if m := entry.FindStringSubmatch(line); m != nil {
			mapped = append(mapped, m[1])
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") && f != "doc.go" && !slices.Contains(mapped, f) {
			t.Errorf("%s is not on doc.go's map", f)
		}
	}
	for _, f := range mapped {
		if !slices.Contains(files, f) {
			t.Errorf("doc.go's map names %s, which does not exist", f)
		}
	}
}

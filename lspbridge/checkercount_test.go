package lspbridge

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"testing"

	"github.com/agent-tools/agent-tools/internal/testutil"
)

// TestProjectCountMatchesChecker is a differential check of diagnostics
// "*" against each project checker run by hand, on a file with two
// identical findings on one line (at different columns): the answer's
// total is the number the checker prints. On node-pty, "*" said "115 of
// 115" where tsc printed 117: a second "Parameter 'p' implicitly has an
// 'any' type." on a line was merged into the first.
func TestProjectCountMatchesChecker(t *testing.T) {
	lines := func(re string) func(t *testing.T, out []byte) int {
		return func(t *testing.T, out []byte) int {
			return len(regexp.MustCompile(re).FindAll(out, -1))
		}
	}
	tests := []struct {
		name  string
		tools []string
		tree  string
		cmd   []string
		count func(t *testing.T, out []byte) int
	}{
		{
			name:  "go vet",
			tools: []string{"go"},
			tree: `-- go.mod --
module example.com/m

go 1.21
-- a.go --
package m

import "fmt"

func F() { fmt.Printf("%d\n", "s"); fmt.Printf("%d\n", "s") }
`,
			cmd:   []string{"go", "vet", "./..."},
			count: lines(`(?m)^(?:vet: )?(?:\./)?a\.go:\d+:\d+: `),
		},
		{
			name:  "tsc",
			tools: []string{"tsc"},
			tree: `-- tsconfig.json --
{"compilerOptions": {"strict": true, "noEmit": true}}
-- a.ts --
export const f = (p) => 0, g = (p) => 1;
`,
			cmd:   []string{"tsc", "--noEmit", "--pretty", "false"},
			count: lines(`(?m)^a\.ts\(\d+,\d+\): error TS`),
		},
		{
			name:  "pyright",
			tools: []string{"pyright"},
			tree: `-- pyrightconfig.json --
{}
-- a.py --
x = undefined_name + undefined_name
`,
			cmd: []string{"pyright", "--outputjson"},
			count: func(t *testing.T, out []byte) int {
				var rep struct {
					Summary struct{ ErrorCount, WarningCount int }
				}
				if err := json.Unmarshal(out, &rep); err != nil {
					t.Fatalf("pyright's output: %v\n%s", err, out)
				}
				return rep.Summary.ErrorCount + rep.Summary.WarningCount
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			testutil.Needs(t, tc.tools...)
			root := canonical(t.TempDir())
			testutil.WriteTree(t, root, tc.tree)
			cmd := exec.Command(tc.cmd[0], tc.cmd[1:]...)
			cmd.Dir = root
			out, _ := cmd.CombinedOutput() // fails: it found something
			want := tc.count(t, out)
			if want != 2 {
				t.Fatalf("the oracle (%v) should print two findings, got %d:\n%s", tc.cmd, want, out)
			}
			s := newSup(t, nil)
			r, err := s.Diagnostics(testCtx(t), Request{Root: root, File: "*"})
			if err != nil {
				t.Fatal(err)
			}
			if r.Total != want {
				t.Errorf("diagnostics \"*\": %d in all, the checker printed %d:\n%s\nchecker:\n%s", r.Total, want, r.Text(), out)
			}
		})
	}
}

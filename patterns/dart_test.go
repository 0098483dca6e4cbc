//go:build dart

package patterns

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMatchDart(t *testing.T) {
	tests := []struct {
		name, pattern, src string
		want               []string
	}{
		{"call needs the statement context", "print($$$A)",
			"void main() {\n  print('a');\n  // print('b');\n}\n", []string{"print('a') {A='a'}"}},
		{"guard disposes what it checked", "if ($X != null) $X.dispose();",
			"void f() {\n  if (c != null) c.dispose();\n  if (c != null) d.dispose();\n}\n", []string{"if (c != null) c.dispose(); {X=c}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, find(t, "dart", tt.pattern, tt.src, CompileOptions{})); diff != "" {
				t.Errorf("matches (-want +got):\n%s", diff)
			}
		})
	}
}

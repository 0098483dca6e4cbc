package kernel

import "testing"

func TestCutLabel(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"two words", "plot sales", "plot sales"},
		{"one word", "check", "check"},
		{"spaces and newlines", "  load\tthe\n data  ", "load the data"},
		{"ten words", "one two three four five six seven eight nine ten", "one two three four five six seven eight nine ten"},
		{"eleven words", "one two three four five six seven eight nine ten eleven", "one two three four five six seven eight nine ten …"},
		{"blank", " \n\t ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cutLabel(tt.in); got != tt.want {
				t.Errorf("cutLabel(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

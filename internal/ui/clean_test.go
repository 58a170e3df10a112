package ui

import "testing"

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain name team-alpha", "plain name team-alpha"},
		{"ünïcode ✓ stays", "ünïcode ✓ stays"},
		// The review's forged message: retitle, clear, home.
		{"\x1b]0;owned\x07\x1b[2J\x1b[Hall checks passed", `\x1b]0;owned\x07\x1b[2J\x1b[Hall checks passed`},
		{"two\nlines\r\tand tab", `two\nlines\r\tand tab`},
		{"del\x7f c1\u009b[2J", `del\x7f c1\u009b[2J`},
		{"bidi \u202eevil", `bidi \u202eevil`},
		{"bad utf8 \xff\xfe", `bad utf8 \xff\xfe`},
	}
	for _, tt := range tests {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
	if got, want := CleanLines("a\x1b[2J\nb"), "a\\x1b[2J\nb"; got != want {
		t.Errorf("CleanLines: got %q, want %q", got, want)
	}
}

package ui

import (
	"strings"
	"testing"
)

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

// Review rows 6 and 11: a refused request is quoted whole, its end
// included, however wide the terminal.
func TestWhole(t *testing.T) {
	refused := `Error from server (Forbidden): namespaces "team-x" is forbidden: ValidatingAdmissionPolicy 'cnpa-controller' with binding 'cnpa-controller' denied request: cnpa-controller may not set or change the finalizers or annotations of a namespace it does not own: skip a team-<name> that is not labelled platform.labhub.io/teamspace=<name>`
	if got := Whole(refused, 2000); got != refused {
		t.Errorf("got %q, want the line whole", got)
	}
	long := strings.Repeat("a sentence. ", 300)
	got := Whole(long, 2000)
	if !strings.HasSuffix(got, "more characters]") || !strings.Contains(got, "sentence. [") || len(got) > 2100 {
		t.Errorf("a line of %d characters: got %d characters ending %q, want it cut after a whole sentence, saying so", len(long), len(got), got[len(got)-40:])
	}
}

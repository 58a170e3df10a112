package main

import "testing"

func TestANSIToHTML(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain <b>", "plain &lt;b&gt;"},
		{"\x1b[32m✓\x1b[0m ok", `<span style="color:#98c379;">✓</span> ok`},
		{"\x1b[1mStep 5\x1b[22m done", `<span style="font-weight:bold;">Step 5</span> done`},
		{"\x1b[2mfaint\x1b[m", `<span style="opacity:.62;">faint</span>`},
		{"\x1b[38;5;196mred\x1b[39m", `<span style="color:#ff0000;">red</span>`},
		{"\x1b[38;2;1;2;3mrgb", `<span style="color:#010203;">rgb</span>`},
		{"\x1b[91;1mx", `<span style="color:#ff7b86;font-weight:bold;">x</span>`},
		{"a\x1b[2Kb\x1b(Bc", "abc"}, // not colour: dropped
	}
	for _, c := range cases {
		if got := ansiToHTML(c.in); got != c.want {
			t.Errorf("ansiToHTML(%q):\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

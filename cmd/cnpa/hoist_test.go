package main

import (
	"reflect"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestHoistGlobalFlags(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"cnpa", "doctor", "--kubeconfig", "k"}, []string{"cnpa", "--kubeconfig", "k", "doctor"}},
		{[]string{"cnpa", "step", "3", "-o", "json"}, []string{"cnpa", "-o", "json", "step", "3"}},
		{[]string{"cnpa", "step", "all", "--engine", "shell", "--dir=/x"}, []string{"cnpa", "--dir=/x", "step", "--engine", "shell", "all"}},
		{[]string{"cnpa", "--no-color", "check", "--step", "5"}, []string{"cnpa", "--no-color", "check", "--step", "5"}},
		{[]string{"cnpa", "service", "logs", "--", "--dir"}, []string{"cnpa", "service", "logs", "--", "--dir"}},
	}
	for _, tt := range tests {
		if got := hoistGlobalFlags(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("hoistGlobalFlags(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestHoistEveryGlobalFlag: every name and alias of every global flag is
// hoisted, with its value when it takes one; hoist reads globalFlags, so a
// new global flag is hoisted without a second list.
func TestHoistEveryGlobalFlag(t *testing.T) {
	n := 0
	for _, f := range globalFlags {
		_, isBool := f.(*cli.BoolFlag)
		for _, name := range f.Names() {
			flag := "--" + name
			if len(name) == 1 {
				flag = "-" + name
			}
			in, want := []string{"cnpa", "doctor", flag, "v"}, []string{"cnpa", flag, "v", "doctor"}
			if isBool {
				in, want = []string{"cnpa", "doctor", flag}, []string{"cnpa", flag, "doctor"}
			}
			if got := hoistGlobalFlags(in); !reflect.DeepEqual(got, want) {
				t.Errorf("hoistGlobalFlags(%q): got %q, want %q", in, got, want)
			}
			n++
		}
	}
	if n < len(globalFlags) {
		t.Errorf("%d names for %d global flags", n, len(globalFlags))
	}
}

// TestServiceFlagsOnce: --service-manager and --unit-dir are the one
// definition in serviceFlags on every command that takes them.
func TestServiceFlagsOnce(t *testing.T) {
	one := map[string]cli.Flag{}
	for _, f := range serviceFlags {
		one[f.Names()[0]] = f
	}
	seen := 0
	var walk func(path string, cmds []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			for _, f := range c.Flags {
				if want, ok := one[f.Names()[0]]; ok {
					seen++
					if f != want {
						t.Errorf("%s %s: --%s is defined apart from serviceFlags", path, c.Name, f.Names()[0])
					}
				}
			}
			walk(path+" "+c.Name, c.Subcommands)
		}
	}
	walk("cnpa", appCommands())
	if seen == 0 {
		t.Errorf("no command takes --service-manager: got 0, want the commands that find the service")
	}
}

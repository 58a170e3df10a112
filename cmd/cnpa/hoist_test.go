package main

import (
	"reflect"
	"testing"
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

package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestFaultInjectionOnlyWithTag: the cnpa that ships cannot kill itself on
// CNPA_FAULT; only the build the fault tests make (-tags faultinject) can.
func TestFaultInjectionOnlyWithTag(t *testing.T) {
	t.Parallel()
	const pkg = "github.com/labhub/cnpa/internal/faultinject"
	for _, tt := range []struct {
		tags string
		want bool
	}{{"", false}, {"faultinject", true}} {
		t.Run("tags="+tt.tags, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-tags", tt.tags, "-deps", "github.com/labhub/cnpa/cmd/cnpa").Output()
			if err != nil {
				t.Fatalf("go list: %v", err)
			}
			if got := slices.Contains(strings.Fields(string(out)), pkg); got != tt.want {
				t.Errorf("cmd/cnpa depends on %s: got %v, want %v", pkg, got, tt.want)
			}
		})
	}
}

package judge

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestFileFormatLinksNoGrader holds the layout: the submission file and
// the report page, and the judgement they read, link none of the grader's
// hands (check), the lab's environment (labenv), the service managers,
// the service's identity or the assets. A file format never links the
// machinery that produced it.
func TestFileFormatLinksNoGrader(t *testing.T) {
	const mod = "github.com/labhub/cnpa/internal/"
	out, err := exec.Command("go", "list", "-deps", mod+"submission", mod+"report", mod+"judge").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, mod+"judge") || !slices.Contains(deps, mod+"lab") {
		t.Fatalf("go list -deps names neither judge nor lab: is this the module? %v", deps)
	}
	for _, pkg := range []string{"check", "labenv", "service", "identity", "kube"} {
		if slices.Contains(deps, mod+pkg) {
			t.Errorf("submission, report or judge links %s%s", mod, pkg)
		}
	}
	if slices.Contains(deps, "github.com/labhub/cnpa/assets") {
		t.Errorf("submission, report or judge links github.com/labhub/cnpa/assets")
	}
}

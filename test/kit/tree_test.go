package kit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProductImportsNoTestPackage: what ships (cmd/cnpa and everything it
// links) imports nothing under test/. The test tooling lives there so
// that it never reaches the product; internal/ packages may use it in
// their _test.go files only, which go list -deps leaves out.
func TestProductImportsNoTestPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/labhub/cnpa/cmd/cnpa").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps cmd/cnpa: %v\n%s", err, out)
	}
	n := 0
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/labhub/cnpa/") {
			n++
		}
		if strings.HasPrefix(pkg, "github.com/labhub/cnpa/test/") {
			t.Errorf("cmd/cnpa links %s, a package of the test tree", pkg)
		}
	}
	if n == 0 {
		t.Fatalf("go list -deps cmd/cnpa names no package of the module:\n%s", out)
	}
}

// TestReadmeIsShort: the README is the learner's path, read in five
// minutes; the reference lives in docs/, one file per topic. 150 lines is
// the bound the project set for it.
func TestReadmeIsShort(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > 150 {
		t.Errorf("README.md has %d lines, want at most 150: move the detail into docs/ and link it", n)
	}
}

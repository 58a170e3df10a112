package kit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RunWithCnpa builds the cnpa binary once for a test package into a
// temporary directory, sets *bin to it, runs the package's tests and exits
// with their code: the TestMain of every package that runs cnpa as a
// learner would, from the binary, not in-process. A build failure exits 2
// with the compiler's output.
func RunWithCnpa(m *testing.M, bin *string) {
	dir, err := os.MkdirTemp("", "cnpa-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	*bin = filepath.Join(dir, "cnpa")
	if out, err := exec.Command("go", "build", "-o", *bin, "github.com/labhub/cnpa/cmd/cnpa").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build cnpa: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

package kit

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// PrebuiltEnv names a cnpa binary already built from this checkout: `make
// test` sets it to .bin/cnpa, which its build target has just brought up
// to date, so that the test packages that run cnpa copy one binary
// instead of each linking its own (a link of cnpa is 2-3 CPU s, and a
// package waits for it before its first test starts). Unset, as under a
// bare `go test`, each package builds cnpa from the source it was
// compiled from.
const PrebuiltEnv = "CNPA_BIN"

// PlaceCnpa puts a cnpa binary (cmd/cnpa, with the given build tags) at
// path: a copy of $CNPA_BIN when it is set and no tags are asked for,
// else `go build`. A copy, not the path itself: the binary stays where
// the tests have always run it from (their own temporary directories, as
// the units they write name it), and nothing a test does to its binary
// reaches .bin/cnpa.
func PlaceCnpa(path string, tags ...string) error {
	if p := os.Getenv(PrebuiltEnv); p != "" && len(tags) == 0 {
		if err := copyFile(p, path); err != nil {
			return fmt.Errorf("$%s: %w", PrebuiltEnv, err)
		}
		return nil
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out, err := exec.Command(goTool, "build", "-tags", strings.Join(tags, ","), "-o", path, "github.com/labhub/cnpa/cmd/cnpa").CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build cmd/cnpa: %v\n%s", err, out)
	}
	return nil
}

// copyFile copies the executable at from to a new file at to (mode 0755).
func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// RunWithCnpa places the cnpa binary once for a test package into a
// temporary directory (PlaceCnpa), sets *bin to it, runs the package's
// tests and exits with their code: the TestMain of every package that
// runs cnpa as a learner would, from the binary, not in-process. A build
// failure exits 2 with the compiler's output.
func RunWithCnpa(m *testing.M, bin *string) {
	dir, err := os.MkdirTemp("", "cnpa-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	*bin = filepath.Join(dir, "cnpa")
	if err := PlaceCnpa(*bin); err != nil {
		fmt.Fprintf(os.Stderr, "cnpa binary: %v\n", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

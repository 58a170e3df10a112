// Package cli tests cnpa's command line where what it says depends on a
// real cluster: doctor's view of the server and of kubectl, the choices a
// lab remembers and when they lock, and `make cluster`. One control plane
// (kubebox) serves the package; each test has its own evidence dir, and
// the tests that run steps, which use the fixed TeamSpace names of the
// lab, start a control plane of their own.
package cli

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"testing"

	"github.com/labhub/cnpa/test/kit/cluster"
)

func TestMain(m *testing.M) { cluster.Main(m) }

// run runs cnpa against c with env, returning its exit code and output
// (stdout and stderr apart).
func run(ctx context.Context, t *testing.T, bin string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("run cnpa %q: %v", args, err)
	}
	return code, out.String(), errb.String()
}

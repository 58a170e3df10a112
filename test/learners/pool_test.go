package learners

import (
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/labhub/cnpa/test/kit"
)

// pool keeps the corpus's control planes from case to case (kit.Pool):
// each case starts on one with nothing of the lab on it, and ends with
// `cnpa reset --yes --purge`, after which a valid controller's cluster
// must hold nothing the fresh one did not.
var pool = &kit.Pool{}

// classMark marks a pooled cluster that a class learner's lab ran on
// (kit.Pooled.Mark).
const classMark = "class learner"

// giveBack resets the case's cluster and gives it back to the pool.
func (l *lab) giveBack() {
	pool.GiveBack(l.t, l.pooled, l.reset, l.valid)
}

// reset runs `cnpa reset --yes --purge` on the case's cluster and
// evidence dir; a failed reset returns its output in the error.
func (l *lab) reset(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, cnpaBin, "--kubeconfig", l.cluster.Kubeconfig, "--dir", l.dir, "--no-color",
		"reset", "--yes", "--purge", "--timeout", "2m", "--service-manager", "process", "--unit-dir", l.unitDir)
	cmd.Env = l.env()
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	return nil
}

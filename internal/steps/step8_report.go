package steps

import (
	"context"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/expect"
	"github.com/labhub/cnpa/internal/labenv"
)

var step8 = &Step{
	Number: 8, Title: "Leave what the controller did as values", File: evidence.ReportFile,
	Teaches: "report.json condenses the lab into values computed from the files above: the controller\n" +
		"is level-triggered, so it converges from the current state whatever happened in between.",
	Run: func(ctx context.Context, env *labenv.Env, s *Step) (*Result, error) {
		ev, err := expect.ComputeReport(env.Dir)
		if err != nil {
			return nil, err
		}
		r := &Result{Step: 8, Title: s.Title}
		var backup string
		if r.File, backup, err = evidence.WriteForce(env.Dir, s.File, ev, env.Force); err != nil {
			return nil, err
		}
		kept(env, r.File, backup)
		show(env).cmd(reportCmd(env.Dir, r.File))
		r.Evidence = ev
		// report.json's rules compare with what the other files give.
		if err := r.judge(env, s.File, ev, nil); err != nil {
			return nil, err
		}
		return r, nil
	},
}

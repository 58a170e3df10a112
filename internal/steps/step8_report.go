package steps

import (
	"context"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
)

// RunReport runs step 8 (course/step8 binds it to the step).
func RunReport(ctx context.Context, env *Lab, s *Step) (*Result, error) {
	// report.json written by hand is the learner's: judged key by key
	// against what the other files give, kept when every key holds
	// (keep); --force computes cnpa's and keeps theirs as a backup.
	var theirs lab.ReportRecord
	if r, ok, err := keep(ctx, env, s, &theirs); ok || err != nil {
		return r, err
	}
	// One read of the evidence: report.json is computed from it and
	// then judged against it.
	st := env.Steps.Lab().Read(env.Dir)
	ev, err := lab.ComputeReport(st)
	if err != nil {
		return nil, err
	}
	r := &Result{Step: s.Number, Title: s.EnglishTitle()}
	var backup string
	if r.File, backup, err = evidence.WriteForce(env.Dir, s.File, ev, env.Force); err != nil {
		return nil, err
	}
	kept(env, r.File, backup)
	show(env).cmd(reportCmd(env.Dir, r.File))
	r.Evidence = ev
	// report.json's rules compare with what the other files give.
	if err := r.judge(st, s.File, ev, nil); err != nil {
		return nil, err
	}
	return r, nil
}

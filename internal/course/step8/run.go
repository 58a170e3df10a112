package step8

import (
	"context"
	"path/filepath"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/steps"
)

// Run computes report.json from the other evidence files (the lab's
// records, lab.ComputeReport) and judges it against them.
func Run(ctx context.Context, env *steps.Lab, s *steps.Step) (*steps.Result, error) {
	// report.json written by hand is the learner's: judged key by key
	// against what the other files give, kept when every key holds
	// (steps.Keep); --force computes cnpa's and keeps theirs as a backup.
	var theirs lab.ReportRecord
	if r, ok, err := steps.Keep(ctx, env, s, &theirs); ok || err != nil {
		return r, err
	}
	// One read of the evidence: report.json is computed from it and
	// then judged against it.
	st := env.Steps.Lab().Read(env.Dir)
	ev, err := lab.ComputeReport(st)
	if err != nil {
		return nil, err
	}
	r := &steps.Result{Step: s.Number, Title: s.EnglishTitle()}
	var backup string
	if r.File, backup, err = evidence.WriteForce(env.Dir, s.File, ev, env.Force); err != nil {
		return nil, err
	}
	steps.KeptBackup(env, r.File, backup)
	steps.Show(env).Cmd(reportCmd(env.Dir, r.File))
	r.Evidence = ev
	// report.json's rules compare with what the other files give.
	if err := r.Judge(st, s.File, ev, nil); err != nil {
		return nil, err
	}
	return r, nil
}

// reportCmd is the jq command that computes report.json from the files of
// steps 1-7 and the archive record, as lab.ComputeReport does.
func reportCmd(dir, path string) string {
	args := []string{"jq", "-n"}
	for _, in := range lab.ReportJQInputs {
		args = append(args, "--slurpfile", in.Var, filepath.Join(dir, in.File))
	}
	return steps.Words(args...) + " \\\n  " + steps.Quote(lab.ReportJQ) + " > " + steps.Quote(path)
}

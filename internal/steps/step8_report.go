package steps

import (
	"context"
	"fmt"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/teamspace"
)

var step8 = &Step{
	Number: 8, Title: "Leave what the controller did as values", File: evidence.ReportFile,
	Teaches: "report.json condenses the lab into values computed from the files above: the controller\n" +
		"is level-triggered, so it converges from the current state whatever happened in between.",
	Run: func(ctx context.Context, env *labenv.Env, s *Step) (*Result, error) {
		ev, err := ComputeReport(env.Dir)
		if err != nil {
			return nil, err
		}
		r := &Result{Step: 8, Title: s.Title}
		if r.File, err = evidence.Write(env.Dir, s.File, ev); err != nil {
			return nil, err
		}
		r.Evidence = ev
		r.check("crd_alone_created_namespace", ev.CRDAloneCreatedNamespace, false)
		r.check("status_bumps_generation", ev.StatusBumpsGeneration, false)
		r.check("restore_seconds ≥ 1", ev.RestoreSeconds >= 1, true)
		r.check("finalizer", ev.Finalizer, teamspace.Finalizer)
		r.check("archived is set", ev.Archived != "", true)
		r.check("generations_behind_while_stopped", ev.GenerationsBehindWhileStopped, 1)
		r.check("trigger", ev.Trigger, "level")
		return r, nil
	},
}

// ComputeReport derives report.json from the evidence of steps 1-7 and the
// archive record. Every input is read strictly; a missing or malformed one
// names the step that writes it.
func ComputeReport(dir string) (*evidence.Report, error) {
	var (
		before evidence.Before
		gen    evidence.Generation
		drift  evidence.Drift
		catch  evidence.Catchup
	)
	for _, in := range []struct {
		file string
		step int
		v    any
	}{{evidence.BeforeFile, 1, &before}, {evidence.GenerationFile, 2, &gen}, {evidence.DriftFile, 5, &drift}, {evidence.CatchupFile, 7, &catch}} {
		problems, err := evidence.Read(dir, in.file, in.v)
		if err != nil {
			return nil, fmt.Errorf("step 8 needs %s: run `cnpa step %d` (%v)", in.file, in.step, err)
		}
		if len(problems) > 0 {
			return nil, fmt.Errorf("%s is malformed (%v): run `cnpa step %d` again or start over with `cnpa reset --yes`", in.file, problems, in.step)
		}
	}
	rec, err := evidence.ReadArchive(dir+"/"+evidence.ArchiveDir, "beta")
	if err != nil || rec == nil {
		return nil, fmt.Errorf("step 8 needs archive/beta.json: run `cnpa step 6` (%v)", err)
	}
	return &evidence.Report{
		CRDAloneCreatedNamespace: before.NamespaceExists,
		// The status patch came between the label and the spec change; the
		// spec change adds exactly one, so anything more came from status.
		StatusBumpsGeneration:         gen.GenAfterSpec-gen.GenAfterLabel > 1,
		RestoreSeconds:                drift.RestoreSeconds,
		Finalizer:                     teamspace.Finalizer,
		Archived:                      rec.UID,
		GenerationsBehindWhileStopped: catch.Generation - catch.ObservedWhileStopped,
		Trigger:                       "level",
	}, nil
}

package lab

import (
	"fmt"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/teamspace"
)

// ReportFinalizer and ReportTrigger are report.json's values that no other file gives: the finalizer the lab
// names, and the trigger a controller built as the lab teaches follows.
const (
	ReportFinalizer = teamspace.Finalizer
	ReportTrigger   = "level"
)

// ComputeReport derives report.json from the evidence of steps 1-7 and the
// archive record in st: the one computation step 8, check and the tests
// use. Every input is read strictly; a missing or malformed one names the
// step that writes it.
func ComputeReport(st *State) (*ReportRecord, error) {
	var (
		before BeforeRecord
		gen    GenerationRecord
		drift  DriftRecord
		catch  CatchupRecord
	)
	for _, in := range []struct {
		file string
		v    any
	}{{BeforeFile, &before}, {GenerationFile, &gen}, {DriftFile, &drift}, {CatchupFile, &catch}} {
		step := st.steps.StepOf(in.file).Number
		problems, err := st.Records[in.file].decode(in.v)
		if err != nil {
			return nil, i18n.NewError("lab.report.needs", i18n.Args{"N": st.steps.StepOf(ReportFile).Number, "File": in.file, "Step": step, "Err": fmt.Sprint(err)})
		}
		if len(problems) > 0 {
			return nil, i18n.NewError("lab.report.malformed", i18n.Args{"File": in.file, "Problems": fmt.Sprint(problems), "Step": step})
		}
	}
	if st.ArchiveErr != nil || st.Archive == nil {
		return nil, i18n.NewError("lab.report.needs", i18n.Args{"N": st.steps.StepOf(ReportFile).Number, "File": BetaArchive, "Step": ArchiveStep, "Err": fmt.Sprint(st.ArchiveErr)})
	}
	return &ReportRecord{
		CRDAloneCreatedNamespace: before.NamespaceExists,
		// The status patch came between the label and the spec change; the
		// spec change adds exactly one, so anything more came from status.
		StatusBumpsGeneration:         gen.GenAfterSpec-gen.GenAfterLabel > 1,
		RestoreSeconds:                drift.RestoreSeconds,
		Finalizer:                     ReportFinalizer,
		Archived:                      st.Archive.UID,
		GenerationsBehindWhileStopped: catch.Generation - catch.ObservedWhileStopped,
		Trigger:                       ReportTrigger,
	}, nil
}

// ReportJQ is ComputeReport as a jq program, for the command `cnpa step 8`
// shows: run as `jq -n --slurpfile before before.json --slurpfile generation
// generation.json --slurpfile drift drift.json --slurpfile catchup
// catchup.json --slurpfile archive archive/beta.json ReportJQ`, it gives
// the same report (TestReportJQ holds the two together).
const ReportJQ = `{crd_alone_created_namespace: $before[0].namespace_exists, ` +
	`status_bumps_generation: ($generation[0].gen_after_spec - $generation[0].gen_after_label > 1), ` +
	`restore_seconds: $drift[0].restore_seconds, ` +
	`finalizer: "` + ReportFinalizer + `", ` +
	`archived: $archive[0].uid, ` +
	`generations_behind_while_stopped: ($catchup[0].generation - $catchup[0].observed_while_stopped), ` +
	`trigger: "` + ReportTrigger + `"}`

// ReportJQInputs are the files ReportJQ reads, by the variable it reads
// each as, in LAB.md's order.
var ReportJQInputs = []struct{ Var, File string }{
	{"before", BeforeFile}, {"generation", GenerationFile}, {"drift", DriftFile},
	{"catchup", CatchupFile}, {"archive", BetaArchive},
}

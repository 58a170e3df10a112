package judge

import (
	"errors"
	"strings"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// Evidence is the lab's state as read once (lab.Read), with the
// grader's wording of what is wrong with archive/beta.json.
type Evidence struct {
	*lab.State
	// archiveProblem says why archive/beta.json is unusable, "" when it is
	// usable (then State.Archive is it).
	ArchiveProblem string
	// engine is the lab's, for the hints.
	engine string
	// facts say who wrote each file (Facts.Authors), for the hints.
	facts *Facts
	// steps is the table graded.
	steps lab.Table
}

// gradeState is the grader's view of a state read once, beside the facts
// it is judged against.
func gradeState(t lab.Table, st *lab.State, f *Facts) *Evidence {
	return &Evidence{steps: t, State: st, ArchiveProblem: betaArchiveProblem(st.Archive, st.ArchiveErr), engine: f.Engine, facts: f}
}

// Theirs tells whether the evidence file is the learner's now: cnpa's
// manifest does not say cnpa wrote what it holds (edited by hand, say).
func (ev *Evidence) Theirs(file string) bool { return ev.facts.Theirs(file) }

// betaArchiveProblem says in the grader's words what is wrong with
// archive/beta.json as read strictly (evidence.ReadArchive): name, uid and
// pods must be there with their types, since report.archived and
// cleanup.uid are checked against its uid.
func betaArchiveProblem(rec *evidence.ArchiveRecord, err error) string {
	file := lab.BetaArchive
	var shape *evidence.ArchiveError
	switch {
	case errors.As(err, &shape):
		return i18n.T("check.archive.problem", i18n.Args{"File": file, "Problem": archiveProblem(shape.Problems)})
	case err != nil:
		return i18n.T("check.archive.unreadable", i18n.Args{"File": file, "Err": err.Error()})
	case rec == nil:
		return i18n.T("check.archive.missing", i18n.Args{"File": file})
	}
	return ""
}

// archiveProblem says in one phrase what is wrong with an archive record.
func archiveProblem(problems []evidence.Problem) string {
	var out []string
	for _, p := range problems {
		switch {
		case p.Key == "":
			return i18n.T("check.archive.not_object")
		case p.What == evidence.MissingKey:
			out = append(out, i18n.T("check.archive.has_no", i18n.Args{"Key": p.Key}))
		default:
			out = append(out, p.String())
		}
	}
	return strings.Join(out, ", ")
}

package class

import (
	"context"
	"os"
	"strconv"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/labfile"
	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/internal/submit"
)

// A lab kept as a file (labs/<name>/lab.yaml) is graded by its own
// engine: the submission's evidence and the facts its learner's run read,
// judged again offline by the lab's rules (labfile.OfflineEngine), in the
// same gradebook as the TeamSpace lab's. A class is graded with one lab:
// a submission of another, or of another version of it, is refused.

// FileLab is the lab kept as a file a class is graded with.
type FileLab struct {
	Lab *labfile.Lab
	// Hash is the lab's content hash (labfile.Hash); Where names it for
	// the instructor (labs/vap, or the dir given).
	Hash, Where string
	// Lang is the language the checks' titles are said in.
	Lang i18n.Lang
}

// shortHash is as much of a hash as a line says.
func shortHash(h string) string { return h[:min(12, len(h))] }

// Admit sorts subs into those of the lab the class is graded with (fl,
// nil for the TeamSpace lab) and those it refuses, each refusal naming
// both labs and the fix: grade it with the lab it was made with.
func Admit(subs []*submission.Submission, fl *FileLab) (keep []*submission.Submission, refused []*submission.Error) {
	for _, s := range subs {
		var problem, fix string
		switch {
		case fl == nil && s.Lab == nil, fl != nil && s.Lab != nil && s.Lab.Name == fl.Lab.Metadata.Name && s.Lab.SHA256 == fl.Hash:
			keep = append(keep, s)
			continue
		case fl == nil:
			problem = i18n.T("class.lab.file_not_teamspace", i18n.Args{"Lab": strconv.Quote(s.Lab.Name), "Hash": shortHash(s.Lab.SHA256)})
			fix = i18n.T("class.lab.fix_file", i18n.Args{"Lab": s.Lab.Name})
		case s.Lab == nil:
			problem = i18n.T("class.lab.teamspace_not_file", i18n.Args{"Lab": fl.Lab.Metadata.Name})
			fix = i18n.T("class.lab.fix_teamspace")
		case s.Lab.Name != fl.Lab.Metadata.Name:
			problem = i18n.T("class.lab.other", i18n.Args{"Lab": strconv.Quote(s.Lab.Name), "Hash": shortHash(s.Lab.SHA256),
				"Want": fl.Lab.Metadata.Name, "Where": fl.Where})
			fix = i18n.T("class.lab.fix_file", i18n.Args{"Lab": s.Lab.Name})
		default:
			problem = i18n.T("class.lab.other_hash", i18n.Args{"Lab": s.Lab.Name, "Hash": shortHash(s.Lab.SHA256),
				"Want": shortHash(fl.Hash), "Where": fl.Where})
			fix = i18n.T("class.lab.fix_hash", i18n.Args{"Lab": s.Lab.Name})
		}
		refused = append(refused, &submission.Error{Path: s.Path, Problem: problem, Fix: fix})
	}
	return keep, refused
}

// offline judges a file lab's submission again: its evidence, unpacked,
// and the facts its learner's run recorded, graded by the lab's engine
// with no cluster. It returns the checks and the ids whose recorded
// status disagrees, or that the record lacks or has too many of; and the
// row's diagnosis: the mistake the first failing check shows (else its
// title), as the gradebook keeps it (the lab's English, or its first
// language: the same in every language, as an LMS reads it) and as the
// reader of fl.Lang is told it.
func (fl *FileLab) offline(s *submission.Submission) (checks []judge.Check, disagree []string, diag, said string, err error) {
	facts, err := labfile.DecodeFacts(s.LabFacts)
	if err != nil {
		return nil, nil, "", "", i18n.NewError("class.lab.bad_facts", i18n.Args{"Path": s.Path, "Err": err.Error()})
	}
	dir, err := os.MkdirTemp("", "cnpa-class-")
	if err != nil {
		return nil, nil, "", "", err
	}
	defer os.RemoveAll(dir)
	if err := s.MaterializeEvidence(dir, submit.EvidenceFiles(fl.Lab)); err != nil {
		return nil, nil, "", "", err
	}
	rep, err := labfile.OfflineEngine(fl.Lab, facts).Grade(context.Background(), dir, "")
	if err != nil {
		return nil, nil, "", "", err
	}
	diag, said = fl.diagnosis(rep)
	checks = submit.LabChecks(fl.Lab, fl.Lang, rep)
	recorded := map[string]judge.Status{}
	for _, c := range s.Checks {
		if _, twice := recorded[c.ID]; twice {
			disagree = append(disagree, i18n.T("class.recorded_twice", i18n.Args{"ID": c.ID}))
		}
		recorded[c.ID] = c.Status
	}
	for i, c := range checks {
		r, ok := recorded[c.ID]
		switch {
		case !ok:
			disagree = append(disagree, i18n.T("class.not_recorded", i18n.Args{"ID": c.ID}))
		case r != c.Status:
			checks[i].Recorded = r
			disagree = append(disagree, i18n.T("class.recorded_differs", i18n.Args{"ID": c.ID, "Recorded": r, "Status": c.Status}))
		}
		delete(recorded, c.ID)
	}
	for _, c := range s.Checks {
		if _, left := recorded[c.ID]; left {
			disagree = append(disagree, i18n.T("class.not_a_check", i18n.Args{"ID": strconv.QuoteToASCII(c.ID)}))
			delete(recorded, c.ID)
		}
	}
	return checks, disagree, diag, said, nil
}

// diagnosis is a file lab's row's diagnosis, kept and said (see
// offline): the mistake the first failing check of rep shows, or that
// check's title when it shows none; "" when none fails.
func (fl *FileLab) diagnosis(rep *labfile.Report) (kept, said string) {
	for _, st := range rep.Steps {
		for _, c := range st.Checks {
			if c.Status != labfile.Fail {
				continue
			}
			id := c.Check
			if c.Mistake != "" {
				id = c.Mistake
			}
			return fl.Lab.Word(i18n.English, id), fl.Lab.Word(fl.Lang, id)
		}
	}
	return "", ""
}

// stepTitles are the lab's steps' headings, in order.
func (fl *FileLab) stepTitles() []string {
	var out []string
	for _, s := range fl.Lab.Steps {
		out = append(out, fl.Lab.Heading(fl.Lang, s.ID))
	}
	return out
}

package lab

import (
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Judged is one rule applied to one value.
type Judged struct {
	Rule
	Verdict
	// Value is the value judged, as JSON.
	Value string
}

// Judge applies the rules of file to a record's values (see Values).
func (t Table) Judge(file string, values map[string]any, in *Inputs) []Judged {
	var out []Judged
	for _, r := range t.For(file) {
		v := values[r.Key]
		out = append(out, Judged{Rule: r, Verdict: r.Apply(v, in), Value: Show(v)})
	}
	return out
}

// Inputs gathers what the rules compare with from the state: the other
// records, the archive record, report.json as computed, and the live alpha
// (nil when it does not exist).
func (st *State) Inputs(alpha *teamspace.TeamSpace) *Inputs {
	in := &Inputs{Alpha: alpha, Value: st.Value}
	switch {
	case st.ArchiveErr != nil:
		in.ArchiveProblem = i18n.T("lab.archive.unusable", i18n.Args{"File": BetaArchive, "Err": st.ArchiveErr.Error()})
	case st.Archive == nil:
		in.ArchiveProblem = i18n.T("check.archive.missing", i18n.Args{"File": BetaArchive})
	default:
		in.ArchiveUID = st.Archive.UID
	}
	report, err := ComputeReport(st)
	if err == nil {
		in.Report, err = st.steps.Values(ReportFile, report)
	}
	if err != nil {
		in.ReportProblem = err.Error()
	}
	return in
}

// Value is one key of an evidence file, or why it cannot be used: the
// file is read whole (Record.Strict) or not at all.
func (st *State) Value(file, key string) (any, string) {
	r, ok := st.Records[file]
	if !ok {
		return nil, file + " is not an evidence file of the lab"
	}
	values, err := r.Strict()
	if err != nil {
		return nil, err.Error()
	}
	return values[key], ""
}

package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/labhub/cnpa/internal/evidence"
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
func Judge(file string, values map[string]any, in *Inputs) []Judged {
	var out []Judged
	for _, r := range For(file) {
		v := values[r.Key]
		out = append(out, Judged{Rule: r, Verdict: r.Judge(v, in), Value: Show(v)})
	}
	return out
}

// FromDir gathers the inputs of the rules from the evidence files in dir
// and the live alpha (nil when it does not exist).
func FromDir(dir string, alpha *teamspace.TeamSpace) *Inputs {
	in := &Inputs{Alpha: alpha, Value: func(file, key string) (any, string) { return readValue(dir, file, key) }}
	rec, err := evidence.ReadArchive(filepath.Join(dir, evidence.ArchiveDir), "beta")
	switch {
	case err != nil:
		in.ArchiveProblem = "archive/beta.json is unusable: " + err.Error()
	case rec == nil:
		in.ArchiveProblem = "archive/beta.json is missing"
	default:
		in.ArchiveUID = rec.UID
	}
	report, err := ComputeReport(dir)
	if err == nil {
		in.Report, err = Values(evidence.ReportFile, report)
	}
	if err != nil {
		in.ReportProblem = err.Error()
	}
	return in
}

// readValue reads one key of an evidence file, or says why it cannot be
// used.
func readValue(dir, file, key string) (any, string) {
	values, err := ReadValues(dir, file)
	if err != nil {
		return nil, err.Error()
	}
	return values[key], ""
}

// ReadValues reads one evidence file strictly (evidence.Validate) and
// decodes every key as the rules read it. Any deviation is an error that
// names the file and every problem.
func ReadValues(dir, file string) (map[string]any, error) {
	data, err := os.ReadFile(filepath.Join(dir, file))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is missing", file)
	}
	if err != nil {
		return nil, fmt.Errorf("%s is unreadable: %w", file, err)
	}
	if problems := evidence.Validate(file, data); len(problems) > 0 {
		return nil, fmt.Errorf("%s: %v", file, problems)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s does not decode: %w", file, err)
	}
	values := map[string]any{}
	for _, k := range evidence.Shapes[file] {
		if values[k.Name], err = Decode(k.Kind, raw[k.Name]); err != nil {
			return nil, fmt.Errorf("%s %s does not decode: %w", file, k.Name, err)
		}
	}
	return values, nil
}

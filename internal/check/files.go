package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/expect"
)

// record is one evidence file as read for grading. Problems are sorted by
// whom they concern: the file as a whole (it is missing, not JSON, has an
// extra key) or one named key (missing, wrong type). That is what lets a
// damaged key fail its own check and nothing else.
type record struct {
	file string
	step int
	// fileProblem makes the whole record unreadable (missing, not an object).
	fileProblem string
	// extra lists whole-file problems that still leave the keys readable:
	// keys LAB.md does not name, keys written twice.
	extra []string
	// keyProblem is, per key, why its value cannot be used.
	keyProblem map[string]string
	values     map[string]any
	kinds      map[string]evidence.Kind
}

// readRecord reads dir/file strictly (evidence.Validate) and decodes every
// key whose type is right: strings as string, integers as int64, booleans as
// bool, null-or-object keys as json.RawMessage.
func readRecord(dir, file string, step int) *record {
	r := &record{file: file, step: step, keyProblem: map[string]string{}, values: map[string]any{}, kinds: map[string]evidence.Kind{}}
	for _, k := range evidence.Shapes[file] {
		r.kinds[k.Name] = k.Kind
	}
	data, err := os.ReadFile(filepath.Join(dir, file))
	if errors.Is(err, fs.ErrNotExist) {
		r.fileProblem = "missing"
		return r
	}
	if err != nil {
		r.fileProblem = "unreadable: " + err.Error()
		return r
	}
	for _, p := range evidence.Validate(file, data) {
		switch _, named := r.kinds[p.Key]; {
		case p.Key == "":
			r.fileProblem = p.Detail
		case named && !strings.HasPrefix(p.Detail, "appears more than once"):
			r.keyProblem[p.Key] = p.Detail
		default:
			r.extra = append(r.extra, p.String())
		}
	}
	if r.fileProblem != "" {
		return r
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		// Validate accepted it, so this is a value Go cannot hold (an
		// integer beyond int64, say): the whole file is then unusable.
		r.fileProblem = "does not decode: " + err.Error()
		return r
	}
	for key, kind := range r.kinds {
		if _, bad := r.keyProblem[key]; bad {
			continue
		}
		v, err := expect.Decode(kind, raw[key])
		if err != nil {
			r.keyProblem[key] = "does not decode: " + err.Error()
			continue
		}
		r.values[key] = v
	}
	return r
}

// unusable tells why the record cannot be read at all, or "".
func (r *record) unusable() string {
	if r.fileProblem == "" {
		return ""
	}
	return fmt.Sprintf("%s is %s (see step%d.file)", r.file, strings.TrimPrefix(r.fileProblem, "is "), r.step)
}

// get returns key's value, or why it cannot be used (for checks that only
// read it: they are then skipped, the key's own check fails).
func (r *record) get(key string) (any, string) {
	if why := r.unusable(); why != "" {
		return nil, why
	}
	if p, bad := r.keyProblem[key]; bad {
		return nil, fmt.Sprintf("%s %s %s", r.file, key, p)
	}
	return r.values[key], ""
}

func (r *record) str(key string) (string, string) {
	v, why := r.get(key)
	s, _ := v.(string)
	return s, why
}

func (r *record) int(key string) (int64, string) {
	v, why := r.get(key)
	n, _ := v.(int64)
	return n, why
}

// evidenceSet is every record of the lab plus the archive record of beta.
type evidenceSet struct {
	dir     string
	records map[string]*record
	// archive is archive/beta.json; archiveProblem says why it is unusable.
	archive        *evidence.ArchiveRecord
	archiveProblem string
	// engine is the lab's, for the hints (set by evaluate).
	engine string
}

// stepOfFile maps each evidence file to the step that writes it.
var stepOfFile = map[string]int{
	evidence.BeforeFile: 1, evidence.GenerationFile: 2, evidence.ReconcileFile: 3, evidence.DriftFile: 5,
	evidence.CleanupFile: 6, evidence.CatchupFile: 7, evidence.ReportFile: 8,
}

func readEvidence(dir string) *evidenceSet {
	ev := &evidenceSet{dir: dir, records: map[string]*record{}}
	for _, f := range evidence.Files {
		ev.records[f] = readRecord(dir, f, stepOfFile[f])
	}
	ev.archive, ev.archiveProblem = readBetaArchive(dir)
	return ev
}

// readBetaArchive reads archive/beta.json strictly (evidence.ReadArchive):
// name, uid and pods must be there with their types, since report.archived
// and cleanup.uid are checked against its uid.
func readBetaArchive(dir string) (*evidence.ArchiveRecord, string) {
	const file = evidence.ArchiveDir + "/beta.json"
	rec, err := evidence.ReadArchive(filepath.Join(dir, evidence.ArchiveDir), "beta")
	var shape *evidence.ArchiveError
	switch {
	case errors.As(err, &shape):
		return nil, file + " " + archiveProblem(shape.Problems)
	case err != nil:
		return nil, file + " is unreadable: " + err.Error()
	case rec == nil:
		return nil, file + " is missing"
	}
	return rec, ""
}

// archiveProblem says in one phrase what is wrong with an archive record.
func archiveProblem(problems []evidence.Problem) string {
	var out []string
	for _, p := range problems {
		switch {
		case p.Key == "":
			return "is not a JSON object"
		case strings.HasPrefix(p.Detail, "missing"):
			out = append(out, "has no "+p.Key)
		default:
			out = append(out, p.String())
		}
	}
	return strings.Join(out, ", ")
}

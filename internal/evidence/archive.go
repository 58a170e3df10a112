package evidence

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/manifest"
	"github.com/labhub/cnpa/internal/safefs"
)

// ArchiveFile stands for every archive record, <ArchiveDir>/<name>.json:
// the records are named after their TeamSpace, their shape is one.
const ArchiveFile = ArchiveDir + "/<name>.json"

// ArchiveShape is every archive record's keys, as LAB.md names them. The
// record is the controller's, not a step's, so its shape lives here with
// its reading and writing, not in package lab.
var ArchiveShape = []Key{{"name", String}, {"uid", String}, {"pods", Integer}}

// ArchiveRecord is what stays of a TeamSpace after it is deleted:
// <archive-dir>/<name>.json, written by the controller (or by reset, when no
// controller runs) before it lets the TeamSpace go.
type ArchiveRecord struct {
	Name string `json:"name"`
	UID  string `json:"uid"`
	Pods int64  `json:"pods"`
}

// NameError is a TeamSpace name no archive path is built from: not a
// DNS-1123 subdomain, as the API server requires of every TeamSpace's
// name. Only a hostile or broken server sends one ("../../tmp/x", a NUL,
// a newline); the record is refused before any path exists.
type NameError struct {
	Name string
	Why  string
}

func (e *NameError) Error() string {
	return i18n.T("evidence.archive.bad_name", i18n.Args{"Name": strconv.Quote(e.Name), "Why": e.Why})
}

// CheckName refuses a TeamSpace name that is not a DNS-1123 subdomain
// (lowercase letters, digits, '-' and '.', at most 253 characters, no
// "/", "..", NUL or control character) before it becomes a file name.
func CheckName(name string) error {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return &NameError{Name: name, Why: strings.Join(errs, "; ")}
	}
	return nil
}

// WriteArchive writes rec to dir/<name>.json atomically and durably
// (package atomicfile): a reader never sees a partial record under the
// final name, and once WriteArchive returns the record survives a crash.
// The directory is created when missing. A name that is not a TeamSpace's
// (CheckName) is refused: nothing is written.
func WriteArchive(dir string, rec ArchiveRecord) error {
	if err := CheckName(rec.Name); err != nil {
		return err
	}
	return WriteArchiveAs(dir, rec.Name+".json", rec)
}

// WriteArchiveAs is WriteArchive under another file name in dir: reset
// keeps a record of another uid where it is and writes beside it. file
// must be one plain name in dir (no separator, not . or ..).
func WriteArchiveAs(dir, file string, rec ArchiveRecord) error {
	if file == "" || file == "." || file == ".." || strings.ContainsAny(file, "/\x00") {
		return &NameError{Name: file, Why: i18n.T("evidence.archive.not_one_file")}
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if err := atomicfile.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
		return fmt.Errorf("write archive: %w", err)
	}
	// In the archive dir's own manifest: `cnpa reset --purge` removes the
	// records cnpa wrote, never other files a learner keeps there.
	return manifest.Record(dir, file, data)
}

// MaxArchive is the most ReadArchive reads of one record: a record is
// about a hundred bytes.
const MaxArchive = 1 << 20

// ReadArchive reads dir/<name>.json strictly, with ArchiveShape; a missing file is (nil, nil). A record of another shape is
// an *ArchiveError listing every problem. The dir is the service user's
// (cnpa-op's) and root may be the reader: the record is read as a regular
// file with one link, reached without a symlink beneath dir, of at most
// MaxArchive bytes (safefs.ReadRegular); a FIFO, a device or a link in
// its place is an error, never a hang or another file's bytes.
func ReadArchive(dir, name string) (*ArchiveRecord, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, name+".json")
	data, err := safefs.ReadRegular(dir, name+".json", MaxArchive)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if problems := Validate(ArchiveShape, data); len(problems) > 0 {
		return nil, &ArchiveError{Path: path, Problems: problems}
	}
	var rec ArchiveRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("archive %s: %w", path, err)
	}
	return &rec, nil
}

// ArchiveError is an archive record whose shape is wrong.
type ArchiveError struct {
	Path     string
	Problems []Problem
}

func (e *ArchiveError) Error() string {
	var ps []string
	for _, p := range e.Problems {
		ps = append(ps, p.String())
	}
	return fmt.Sprintf("archive %s: %s", e.Path, strings.Join(ps, "; "))
}

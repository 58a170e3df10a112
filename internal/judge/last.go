package judge

import (
	"errors"
	"path/filepath"
	"time"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// LastFile is where `cnpa check` keeps its last report, in the directory
// cnpa writes for itself under the evidence dir: `cnpa report --html`
// shows it without grading again (grading takes a minute and changes the
// cluster).
const LastFile = "check.json"

// LastPath is LastFile's path under dir.
func LastPath(dir string) string { return filepath.Join(dir, lab.OwnDir, LastFile) }

// Last is a saved report and when it was made, so a reader can tell it
// from evidence written after it.
type Last struct {
	At     time.Time `json:"checked_at"`
	Report *Report   `json:"report"`
}

// SaveLast writes rep, checked at at, to LastPath(dir) atomically.
func SaveLast(dir string, rep *Report, at time.Time) error {
	return atomicfile.WriteJSON(LastPath(dir), Last{At: at, Report: rep})
}

// LoadLast reads the last saved report; (nil, nil) when check never saved
// one here.
func LoadLast(dir string) (*Last, error) {
	var l Last
	found, err := atomicfile.ReadJSON(LastPath(dir), &l)
	var bad *atomicfile.DecodeError
	switch {
	case !found && err == nil:
		return nil, nil
	case errors.As(err, &bad):
		return nil, i18n.NewError("check.last.bad", i18n.Args{"Path": bad.Path, "Err": bad.Err.Error()})
	case err != nil:
		return nil, err
	case l.Report == nil:
		return nil, i18n.NewError("check.last.empty", i18n.Args{"Path": LastPath(dir)})
	}
	return &l, nil
}

package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/timeline"
)

// LastFile is where `cnpa check` keeps its last report, in the directory
// cnpa writes for itself under the evidence dir: `cnpa report --html`
// shows it without grading again (grading takes a minute and changes the
// cluster).
const LastFile = "check.json"

// LastPath is LastFile's path under dir.
func LastPath(dir string) string { return filepath.Join(dir, timeline.OwnDir, LastFile) }

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
	p := LastPath(dir)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var l Last
	if err := json.Unmarshal(data, &l); err != nil || l.Report == nil {
		if err == nil {
			err = errors.New("no report in it")
		}
		return nil, fmt.Errorf("%s: %v (run `cnpa check` again to rewrite it)", p, err)
	}
	return &l, nil
}

package watch

import (
	"os"
	"path/filepath"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/lab"
)

// PositionFile is where watch keeps the step the learner is on, in the
// directory cnpa writes for itself under the evidence dir: a restart of
// watch, or of the VM, goes on from there.
const PositionFile = "watch.json"

// PositionPath is PositionFile's path under dir.
func PositionPath(dir string) string { return filepath.Join(dir, lab.OwnDir, PositionFile) }

type position struct {
	Step int `json:"step"`
}

// LoadPosition is the step watch last left dir's learner on; 0 when it
// never did, or the file cannot be read (watch then starts where the
// evidence says).
func LoadPosition(steps lab.Table, dir string) int {
	var p position
	if found, err := atomicfile.ReadJSON(PositionPath(dir), &p); !found || err != nil {
		return 0
	}
	if _, err := steps.Get(p.Step); err != nil {
		return 0
	}
	return p.Step
}

// SavePosition keeps step as dir's learner's position.
func SavePosition(dir string, step int) error {
	if err := os.MkdirAll(filepath.Dir(PositionPath(dir)), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteJSON(PositionPath(dir), position{Step: step})
}

// FirstUndone is the first step not done yet, the last step when all
// are: where a learner new to watch is (Written).
func FirstUndone(steps lab.Table, dir string) int {
	done := Written(steps, dir)
	for _, s := range steps {
		if !done[s.Number] {
			return s.Number
		}
	}
	return steps[len(steps)-1].Number
}

// Written are the steps done in dir: a step is done when its evidence
// file is written and whole; a step that writes none (step 4 installs the
// service) is done once a later step's file is.
func Written(steps lab.Table, dir string) map[int]bool {
	st := steps.Read(dir)
	done := map[int]bool{}
	var fileless []int
	for _, s := range steps {
		if s.File == "" {
			fileless = append(fileless, s.Number)
			continue
		}
		if r := st.Records[s.File]; r == nil || r.Problem != "" {
			fileless = nil
			continue
		}
		done[s.Number] = true
		for _, n := range fileless {
			done[n] = true
		}
		fileless = nil
	}
	return done
}

package judge

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/ui"
)

// StressFile is where `cnpa stress` keeps its last result, beside
// LastFile: `cnpa check` and `cnpa report` show it as a section of their
// own, which never changes the lab's grade.
const StressFile = "stress.json"

// StressPath is StressFile's path under dir.
func StressPath(dir string) string { return filepath.Join(dir, lab.OwnDir, StressFile) }

// StressFaults are `cnpa stress`'s faults, in the order they run. A
// grading policy may count them (each one's id is StressID of its name).
var StressFaults = []string{"kill9", "conflict", "error", "timeout", "stale", "drop", "latency", "burst",
	"poison", "recreate"}

// StressOptIn are faults run only when named (`--faults blackhole`): a
// controller that fails one may hang for the whole bound, or the fault
// itself lasts long (restart's 20 s outage), which the default set's time
// budget does not hold.
var StressOptIn = []string{"blackhole", "restart", "gone", "forbidden", "throttle"}

// StressID is fault name's check id in a gradebook: "stress.kill9".
func StressID(name string) string { return "stress." + name }

// StressTitle is fault name's short title, in the reader's language.
func StressTitle(name string) string { return i18n.T("stress.fault_title." + name) }

// StressProperty ids: what is judged after each fault.
const (
	StressConverged = "converged" // every TeamSpace converged within the bound
	StressArchived  = "archived"  // each deleted one archived before its release
	StressForeign   = "foreign"   // foreign finalizers kept
	StressKept      = "kept"      // namespaces and quotas not recreated
	// StressQuiet was one quiet pass after convergence; stable, which
	// asks for StressStablePasses of them, took its place (kept for the
	// stress.json files of an earlier cnpa).
	StressQuiet   = "quiet"
	StressStable  = "stable"  // converged, then no write for StressStablePasses whole passes
	StressOwner   = "owner"   // a TeamSpace made again: its namespace owned by the new one (uid)
	StressRunning = "running" // the service running
	// StressStartLimit: the unit not started so often that systemd gives
	// up on it (its start limit, 5 starts in 10 s by default).
	StressStartLimit = "start_limit"
	// StressReleased: each TeamSpace deleted during the fault released by
	// the controller's own write, no finalizer stripped past it.
	StressReleased = "released"
	// StressBackoff: throttled (429), no more requests than before.
	StressBackoff = "backoff"
)

// StressStablePasses is how many whole passes of the controller's loop
// must go by with no write once it converged: eventually stable
// reconciliation (Anvil, OSDI'24), which one quiet pass does not show.
const StressStablePasses = 3

// StressFinding is one property that did not hold after a fault.
type StressFinding struct {
	Property string `json:"property"`
	Found    string `json:"found"`
	Expected string `json:"expected"`
}

// StressFault is the verdict of one fault.
type StressFault struct {
	Name   string `json:"name"`
	Status Status `json:"status"` // pass, fail or skip
	// Injected counts what the proxy did, by kind (error, conflict, …).
	Injected map[string]int64 `json:"injected,omitempty"`
	// Seconds is how long the fault and its judging took.
	Seconds  float64         `json:"seconds"`
	Findings []StressFinding `json:"findings,omitempty"`
	// TimeToConverge is the seconds from the fault's end until every
	// TeamSpace was converged; nil when none was within the bound.
	TimeToConverge *float64 `json:"time_to_converge,omitempty"`
	// TimeToStable is the seconds from the fault's end until the last
	// change after which StressStablePasses whole passes went by with no
	// write (eventually stable reconciliation); nil when not stable.
	TimeToStable *float64 `json:"time_to_stable,omitempty"`
	// StableFor is the seconds of that quiet stretch, as observed.
	StableFor float64 `json:"stable_for,omitempty"`
	Hint      string  `json:"hint,omitempty"`
	// Log is the tail of the controller's output, errors first, on a
	// failure.
	Log string `json:"log,omitempty"`
	// Why says why a skipped fault was not judged.
	Why string `json:"why,omitempty"`
}

// StressReport is a whole `cnpa stress` run.
type StressReport struct {
	At      time.Time     `json:"at"`
	Engine  string        `json:"engine"`
	Server  string        `json:"server"`
	Faults  []StressFault `json:"faults"`
	Passed  int           `json:"passed"`
	Failed  int           `json:"failed"`
	Skipped int           `json:"skipped"`
	Seconds float64       `json:"seconds"`
	// Baseline says why the run failed before any fault: without faults,
	// the controller did not converge the run's TeamSpaces ("" when it
	// did). Such a run judges no fault and is a failure, not a pass
	// with every fault skipped.
	Baseline string `json:"baseline,omitempty"`
}

// Count fills Passed, Failed and Skipped.
func (r *StressReport) Count() {
	r.Passed, r.Failed, r.Skipped = 0, 0, 0
	for _, f := range r.Faults {
		switch f.Status {
		case Pass:
			r.Passed++
		case Fail:
			r.Failed++
		default:
			r.Skipped++
		}
	}
}

// OK tells whether the baseline converged and no fault failed.
func (r *StressReport) OK() bool { return r.Failed == 0 && r.Baseline == "" }

// FailedFaults names the faults that failed, in run order.
func (r *StressReport) FailedFaults() []string {
	var names []string
	for _, f := range r.Faults {
		if f.Status == Fail {
			names = append(names, f.Name)
		}
	}
	return names
}

// SaveStress writes r to StressPath(dir) atomically.
func SaveStress(dir string, r *StressReport) error { return atomicfile.WriteJSON(StressPath(dir), r) }

// Fault is the verdict of fault name in r, nil when r did not run it.
func (r *StressReport) Fault(name string) *StressFault {
	for i := range r.Faults {
		if r.Faults[i].Name == name {
			return &r.Faults[i]
		}
	}
	return nil
}

// LoadStress reads the last stress result; (nil, nil) when stress never
// ran here.
func LoadStress(dir string) (*StressReport, error) {
	var r StressReport
	found, err := atomicfile.ReadJSON(StressPath(dir), &r)
	var bad *atomicfile.DecodeError
	switch {
	case !found && err == nil:
		return nil, nil
	case errors.As(err, &bad):
		return nil, i18n.NewError("stress.bad", i18n.Args{"Path": bad.Path, "Err": bad.Err.Error()})
	case err != nil:
		return nil, err
	}
	return &r, nil
}

// WriteStressText prints a stress result for people: ✓ or ✗ and the
// fault, then for a failure each property found beside expected, the hint
// and the end of the controller's output.
func WriteStressText(p *ui.Printer, r *StressReport) {
	found, expected := i18n.T("check.label.found"), i18n.T("check.label.expected")
	p.Title("%s", i18n.T("stress.title", i18n.Args{"Engine": r.Engine, "At": r.At.Format(time.RFC3339)}))
	if r.Baseline != "" {
		p.Line("%s", prose(fmt.Sprintf("  %s %-12s ", p.Mark(false), "baseline"), ui.Clean(r.Baseline)))
		p.Warn("%s", prose("      → ", i18n.T("stress.baseline_hint")))
	}
	for _, f := range r.Faults {
		switch f.Status {
		case Pass:
			p.Line("  %s %-12s %s", p.Mark(true), ui.Clean(f.Name), stressLine(f))
		case Fail:
			p.Line("  %s %-12s %s", p.Mark(false), ui.Clean(f.Name), stressLine(f))
			for _, x := range f.Findings {
				// Found carries the cluster's words (an API error): cleaned,
				// as everything a stress.json holds, which may be hand-made;
				// each wrapped under itself, 80 columns in every language.
				label := "      " + ui.Clean(x.Property) + ": "
				p.Line("%s", prose(label+found+" ", ui.Clean(x.Found)))
				p.Line("%s", prose(strings.Repeat(" ", ui.Width(label))+expected+" ", ui.Clean(x.Expected)))
			}
			if f.Hint != "" {
				p.Warn("%s", prose("      → ", ui.Clean(f.Hint)))
			}
			if f.Log != "" {
				p.Note("      %s", i18n.T("stress.log"))
				for _, l := range strings.Split(strings.TrimRight(f.Log, "\n"), "\n") {
					p.Note("%s", prose("        ", ui.Clean(l)))
				}
			}
		default:
			p.Note("%s", prose(fmt.Sprintf("  - %-12s ", ui.Clean(f.Name)), ui.Clean(f.Why)))
		}
	}
	p.Line("")
	p.Title("%s", i18n.T("stress.summary", i18n.Args{"Passed": r.Passed, "Failed": r.Failed, "Seconds": int(r.Seconds + 0.5)}))
}

// stressLine is what a fault's line says after its name: what the proxy
// did, then how long the controller took to converge and to be stable.
func stressLine(f StressFault) string {
	in := StressInjected(f.Injected)
	var t string
	switch {
	case f.TimeToConverge != nil && f.TimeToStable != nil:
		t = i18n.T("stress.times", i18n.Args{"Converge": seconds(*f.TimeToConverge), "Stable": seconds(*f.TimeToStable)})
	case f.TimeToConverge != nil:
		t = i18n.T("stress.times_unstable", i18n.Args{"Converge": seconds(*f.TimeToConverge)})
	}
	if in == "" || t == "" {
		return in + t
	}
	return in + "  " + t
}

// seconds is a duration in seconds to a tenth: "2.1".
func seconds(s float64) string { return strconv.FormatFloat(s, 'f', 1, 64) }

// StressInjected says what the proxy did: "error×12 timeout×3".
func StressInjected(m map[string]int64) string {
	var parts []string
	for _, k := range []string{"kill", "conflict", "error", "timeout", "stale", "drop", "latency", "burst",
		"poison", "recreate", "blackhole", "restart", "gone", "forbidden", "throttle"} {
		if m[k] > 0 {
			parts = append(parts, k+"×"+strconv.FormatInt(m[k], 10))
		}
	}
	return strings.Join(parts, " ")
}

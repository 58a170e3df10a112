package service

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// startsFile is where process mode's restart loop writes the time of each
// start of a learner's Restart=always unit (restartLoop).
const startsFile = "cnpa-op.starts"

// Starts are the times process mode started the learner's Restart=always
// unit's command since the service last started, oldest first (the last
// 64 at least); ok is false for a manager that keeps none (systemd says
// itself whether it gave up: UnitState).
func Starts(m Manager) (starts []time.Time, ok bool) {
	p, isProcess := m.(*process)
	if !isProcess {
		return nil, false
	}
	f, err := os.Open(filepath.Join(p.dir, startsFile))
	if err != nil {
		return nil, true
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// date +%s.%N; a date(1) without %N leaves it as is: whole seconds.
		s, frac, _ := strings.Cut(strings.TrimSpace(sc.Text()), ".")
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			continue
		}
		ns, err := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
		if err != nil {
			ns = 0
		}
		starts = append(starts, time.Unix(sec, ns))
	}
	return starts, true
}

// UnitState is what systemd says of the unit: ActiveState, SubState,
// Result (start-limit-hit when it gave up restarting it) and NRestarts;
// ok is false for a manager that is not systemd.
type UnitState struct {
	Active, Sub, Result string
	Restarts            int
}

// SystemdState reads UnitState from systemd (ok false for process mode).
func SystemdState(ctx context.Context, m Manager) (st UnitState, ok bool) {
	if _, isSystemd := m.(*systemd); !isSystemd {
		return st, false
	}
	out, _ := output(ctx, "systemctl", "show", "-p", "ActiveState,SubState,Result,NRestarts", Name)
	for _, l := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(l, "=")
		switch k {
		case "ActiveState":
			st.Active = v
		case "SubState":
			st.Sub = v
		case "Result":
			st.Result = v
		case "NRestarts":
			st.Restarts, _ = strconv.Atoi(v)
		}
	}
	return st, true
}

// ResetFailed is `systemctl reset-failed` of the unit under systemd (a
// unit that hit its start limit starts again only after it), nothing in
// process mode.
func ResetFailed(ctx context.Context, m Manager) error {
	if _, isSystemd := m.(*systemd); !isSystemd {
		return nil
	}
	return systemctl(ctx, "reset-failed", Name)
}

// StartLimit is a unit's start limit as systemd reads it: at most burst
// starts within interval; interval 0 turns it off. Unset or unreadable
// values are systemd's defaults, 10 s and 5 (DefaultStartLimitIntervalSec,
// DefaultStartLimitBurst).
func StartLimit(u UnitFile) (interval time.Duration, burst int) {
	interval, burst = 10*time.Second, 5
	if v := strings.TrimSpace(u.StartLimitIntervalSec); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
			interval = time.Duration(f * float64(time.Second))
		} else if d, err := time.ParseDuration(strings.ReplaceAll(strings.ReplaceAll(v, "min", "m"), " ", "")); err == nil && d >= 0 {
			interval = d
		} else if v == "infinity" {
			interval = 0
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(u.StartLimitBurst)); err == nil && n >= 0 {
		burst = n
	}
	return interval, burst
}

// StartLimitHit is the first start systemd would have refused under the
// limit (its ratelimit: a window opens at a start and holds burst starts
// within interval), and how many starts that window had taken; ok is
// false when every start is within the limit.
func StartLimitHit(starts []time.Time, interval time.Duration, burst int) (at time.Time, n int, ok bool) {
	if interval <= 0 {
		return at, 0, false
	}
	var begin time.Time
	for _, t := range starts {
		if begin.IsZero() || t.Sub(begin) > interval {
			begin, n = t, 1
			continue
		}
		n++
		if n > burst {
			return t, n - 1, true
		}
	}
	return at, 0, false
}

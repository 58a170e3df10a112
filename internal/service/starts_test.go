package service

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestStartLimitHit(t *testing.T) {
	at := func(secs ...float64) []time.Time {
		base := time.Unix(1000, 0)
		var out []time.Time
		for _, s := range secs {
			out = append(out, base.Add(time.Duration(s*float64(time.Second))))
		}
		return out
	}
	for _, c := range []struct {
		name   string
		starts []time.Time
		hit    bool
	}{
		{"five in ten seconds", at(0, 1, 2, 3, 4), false},
		{"the sixth within ten seconds", at(0, 1, 2, 3, 4, 5), true},
		{"every 3 s", at(0, 3.2, 6.4, 9.6, 12.8, 16, 19.2, 22.4), false},
		{"a fast loop", at(0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2), true},
		{"one start", at(0), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, _, hit := StartLimitHit(c.starts, 10*time.Second, 5); hit != c.hit {
				t.Errorf("got %v, want %v", hit, c.hit)
			}
		})
	}
	if _, _, hit := StartLimitHit(at(0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6), 0, 5); hit {
		t.Errorf("StartLimitIntervalSec=0 turns the limit off")
	}
}

func TestStartLimitReadsTheUnit(t *testing.T) {
	for _, c := range []struct {
		unit     string
		interval time.Duration
		burst    int
	}{
		{"[Service]\nExecStart=/x\n", 10 * time.Second, 5},
		{"[Unit]\nStartLimitIntervalSec=0\n[Service]\nExecStart=/x\n", 0, 5},
		{"[Unit]\nStartLimitIntervalSec=1min\nStartLimitBurst=20\n[Service]\nExecStart=/x\n", time.Minute, 20},
		{"[Service]\nStartLimitInterval=30s\nStartLimitBurst=3\nExecStart=/x\n", 30 * time.Second, 3},
	} {
		u, err := ParseUnit([]byte(c.unit))
		if err != nil {
			t.Fatal(err)
		}
		if i, b := StartLimit(u); i != c.interval || b != c.burst {
			t.Errorf("%q: got %v, %d; want %v, %d", c.unit, i, b, c.interval, c.burst)
		}
	}
}

// Process mode's restart loop writes each start's time: a command that
// fails at once with RestartSec=100ms is started again and again, as
// systemd would until its start limit, and Starts reads every start.
func TestRestartLoopRecordsStarts(t *testing.T) {
	dir := t.TempDir()
	p := &process{dir: dir}
	argv := restartLoop([]string{"false"}, "100ms", filepath.Join(dir, startsFile))
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var starts []time.Time
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && len(starts) < 6; time.Sleep(50 * time.Millisecond) {
		starts, _ = Starts(p)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if len(starts) < 6 {
		data, _ := os.ReadFile(filepath.Join(dir, startsFile))
		t.Fatalf("%d starts read, want at least 6:\n%s", len(starts), data)
	}
	if _, _, hit := StartLimitHit(starts, 10*time.Second, 5); !hit {
		t.Errorf("starts %v do not hit the default start limit", starts)
	}
	if _, ok := Starts(&systemd{}); ok {
		t.Errorf("systemd keeps no start file: Starts must say so")
	}
}

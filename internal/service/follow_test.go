package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestParseJournalLine(t *testing.T) {
	cases := []struct {
		name, line string
		ok         bool
		want       string
		manager    bool
	}{
		{"text", `{"__REALTIME_TIMESTAMP":"1764579600123456","MESSAGE":"teamspace alpha: finalizer added","_SYSTEMD_UNIT":"cnpa-op.service"}`,
			true, "teamspace alpha: finalizer added", false},
		{"bytes", `{"__REALTIME_TIMESTAMP":"1764579600123456","MESSAGE":[104,105,10]}`, true, "hi", false},
		{"systemd about the unit", `{"__REALTIME_TIMESTAMP":"1764579600123456","MESSAGE":"Started cnpa-op.service.","UNIT":"cnpa-op.service","_PID":"1"}`,
			true, "Started cnpa-op.service.", true},
		{"no time", `{"MESSAGE":"x"}`, false, "", false},
		{"not json", `Dec 01 09:00:00 host cnpa[1]: x`, false, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, ok := ParseJournalLine([]byte(c.line))
			if ok != c.ok || l.Text != c.want || l.Manager != c.manager {
				t.Fatalf("got %v %q manager %v, want %v %q manager %v", ok, l.Text, l.Manager, c.ok, c.want, c.manager)
			}
			if ok && !l.Time.Equal(time.UnixMicro(1764579600123456)) {
				t.Errorf("time: got %v, want %v", l.Time, time.UnixMicro(1764579600123456))
			}
		})
	}
}

// TestFollowFile: only lines written after Follow starts, whole lines only,
// and a file that does not exist yet is waited for.
func TestFollowFile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	path := filepath.Join(dir, "cnpa-op.log")
	lines, err := followFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("first\nhalf"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := (<-lines).Text; got != "first" {
		t.Fatalf("got %q, want %q", got, "first")
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(" a line\n")
	f.Close()
	if got := (<-lines).Text; got != "half a line" {
		t.Fatalf("got %q, want %q", got, "half a line")
	}

	// A second follower starts at the end: the old lines are not repeated.
	ctx2, cancel2 := context.WithCancel(ctx)
	later, err := followFile(ctx2, path)
	if err != nil {
		t.Fatal(err)
	}
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("new\n")
	f.Close()
	if got := (<-later).Text; got != "new" {
		t.Fatalf("second follower: got %q, want %q", got, "new")
	}
	cancel2()
	for range later { // closed once ctx2 ends
	}
}

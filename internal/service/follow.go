package service

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
)

// LogLine is one line of the service's output and when it was written.
type LogLine struct {
	// Time is the journal's own timestamp under systemd; in process mode,
	// the moment the line was read from the log file (which has no
	// timestamps of its own), at most followPoll after it was written.
	Time time.Time
	Text string
	// Manager is true for a line the service manager wrote about the
	// service (systemd's "Started cnpa-op.service"), not the service.
	Manager bool
}

// followPoll is how often process mode looks for new lines in its log file.
const followPoll = 20 * time.Millisecond

// Follow streams the lines the service writes from now on, until ctx ends
// (the channel is then closed). It is how a step sees the controller's own
// account of its passes: journalctl under systemd, the log file in process
// mode.
func Follow(ctx context.Context, m Manager) (<-chan LogLine, error) {
	switch m := m.(type) {
	case *systemd:
		return followJournal(ctx, time.Now())
	case *process:
		return followFile(ctx, filepath.Join(m.dir, logFile))
	}
	return nil, i18n.NewError("service.cannot_follow", i18n.Args{"Manager": m.Name()})
}

// followFile reads the lines appended to path after this call. A file that
// does not exist yet is waited for; one that shrinks (replaced) is read
// again from its start.
func followFile(ctx context.Context, path string) (<-chan LogLine, error) {
	var offset int64
	if fi, err := os.Stat(path); err == nil {
		offset = fi.Size()
	} else if !os.IsNotExist(err) {
		return nil, fmt.Errorf("follow %s: %w", path, err)
	}
	out := make(chan LogLine, 256)
	go func() {
		defer close(out)
		tick := time.NewTicker(followPoll)
		defer tick.Stop()
		var partial string
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			f, err := os.Open(path)
			if err != nil {
				continue // not there yet (or gone for a moment): look again
			}
			if fi, err := f.Stat(); err == nil && fi.Size() < offset {
				offset, partial = 0, ""
			}
			data, _ := io.ReadAll(io.NewSectionReader(f, offset, 1<<30))
			f.Close()
			if len(data) == 0 {
				continue
			}
			offset += int64(len(data))
			now := time.Now()
			lines := strings.Split(partial+string(data), "\n")
			partial = lines[len(lines)-1] // "" when the data ended with a newline
			for _, l := range lines[:len(lines)-1] {
				select {
				case out <- LogLine{Time: now, Text: l}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

// followJournal runs `journalctl -u cnpa-op -f -o json` from since (all
// of it: -f alone shows only the last 10 lines before following): asking
// for everything since a time (rather than "new lines only", -n 0) means no
// line is lost between the call and journalctl's start.
func followJournal(ctx context.Context, since time.Time) (<-chan LogLine, error) {
	cmd := exec.CommandContext(ctx, "journalctl", "-u", Name, "-f", "--lines=all", "-o", "json", "--no-pager",
		"--since", "@"+strconv.FormatInt(since.Unix(), 10))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("follow the journal of %s: %w", Name, err)
	}
	out := make(chan LogLine, 256)
	go func() {
		defer close(out)
		defer cmd.Wait()
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			l, ok := ParseJournalLine(sc.Bytes())
			if !ok || l.Time.Before(since) {
				continue // --since has whole seconds; the rest is before now
			}
			select {
			case out <- l:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// ParseJournalLine reads one entry of `journalctl -o json`: its
// __REALTIME_TIMESTAMP (microseconds since the epoch, as a string),
// MESSAGE, and whether systemd wrote it about the unit (UNIT is set; the
// service's own lines have _SYSTEMD_UNIT instead). A MESSAGE that is not text (journald stores it as an array of
// bytes) is decoded from that array.
func ParseJournalLine(data []byte) (LogLine, bool) {
	var e struct {
		Realtime string          `json:"__REALTIME_TIMESTAMP"`
		Message  json.RawMessage `json:"MESSAGE"`
		// Set (to the unit) on the lines systemd writes about the unit.
		Unit string `json:"UNIT"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return LogLine{}, false
	}
	us, err := strconv.ParseInt(e.Realtime, 10, 64)
	if err != nil {
		return LogLine{}, false
	}
	var text string
	if err := json.Unmarshal(e.Message, &text); err != nil {
		var raw []byte
		var ints []int
		if err := json.Unmarshal(e.Message, &ints); err != nil {
			return LogLine{}, false
		}
		for _, i := range ints {
			raw = append(raw, byte(i))
		}
		text = string(raw)
	}
	return LogLine{Time: time.UnixMicro(us), Text: strings.TrimRight(text, "\n"), Manager: e.Unit != ""}, true
}

package reaction

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/timeline"
)

// ServiceLog follows the service's own output (journal or log file): the
// shell engine's "teamspace <name>: …" lines, the Go engine's structured
// lines other than its events (the Events watch has those), and whatever
// a learner's loop prints.
func ServiceLog(m Match) Watcher {
	return func(ctx context.Context, rx *Recorder) error {
		lines, err := service.Follow(ctx, rx.env.Service)
		if err != nil {
			return err
		}
		rx.wg.Add(1)
		go func() {
			defer rx.wg.Done()
			for l := range lines {
				rx.logLine(l, m)
			}
		}()
		return nil
	}
}

func (rx *Recorder) logLine(l service.LogLine, m Match) {
	if l.Manager { // systemd's own "Started/Stopped cnpa-op.service"
		rx.put(l.Time, "", timeline.Entry{Actor: timeline.ServiceManager, Source: timeline.FromLog, Kind: timeline.KindService, What: l.Text})
		return
	}
	t, text, ok := parseLogLine(rx.env.Engine, l, m)
	if !ok {
		return
	}
	rx.mu.Lock()
	rx.logLines++
	n := rx.logLines
	rx.mu.Unlock()
	what := timeline.Literal(text) // the controller's own words
	switch {
	case n == maxLogLines+1:
		what = timeline.Say("timeline.what.more_output", "N", fmt.Sprint(maxLogLines))
	case n > maxLogLines:
		return
	}
	rx.put(t, "", timeline.Entry{Actor: timeline.Controller, Source: timeline.FromLog, Kind: timeline.KindLog}.Words(what))
}

// parseLogLine reads one line of the service's output as the engine
// writes it; ok is false for lines the timeline leaves out.
func parseLogLine(engine string, l service.LogLine, m Match) (time.Time, string, bool) {
	text := strings.TrimSpace(l.Text)
	if text == "" {
		return l.Time, "", false
	}
	switch engine {
	case labenv.EngineGo:
		kv := parseLogfmt(text)
		msg, ok := kv["msg"]
		if !ok || msg == "event" { // events: the Events watch shows them
			return l.Time, "", false
		}
		if name, about := kv["teamspace"]; about && !m(name) {
			return l.Time, "", false
		}
		t := l.Time
		if at, err := time.Parse(time.RFC3339Nano, kv["time"]); err == nil {
			t = at // the controller's own clock, to the millisecond
		}
		for _, k := range []string{"teamspace", "err", "after"} {
			if v, ok := kv[k]; ok {
				msg += " " + k + "=" + v
			}
		}
		return t, msg, true
	case labenv.EngineShell:
		// reconcile.sh's lines are "teamspace <name>: <what it did>".
		if rest, ok := strings.CutPrefix(text, "teamspace "); ok {
			if name, _, ok := strings.Cut(rest, ": "); ok && !m(name) {
				return l.Time, "", false
			}
		}
		return l.Time, text, true
	}
	// A learner's loop: every line, as it printed it.
	return l.Time, text, true
}

// parseLogfmt splits a log/slog text line (key=value, values quoted when
// they hold spaces) into its keys and values.
func parseLogfmt(line string) map[string]string {
	kv := map[string]string{}
	for line != "" {
		line = strings.TrimLeft(line, " ")
		k, rest, ok := strings.Cut(line, "=")
		if !ok || strings.Contains(k, " ") {
			return kv
		}
		var v string
		if strings.HasPrefix(rest, `"`) {
			end := 1
			for end < len(rest) && (rest[end] != '"' || rest[end-1] == '\\') {
				end++
			}
			v = strings.ReplaceAll(rest[1:min(end, len(rest))], `\"`, `"`)
			rest = rest[min(end+1, len(rest)):]
		} else {
			v, rest, _ = strings.Cut(rest, " ")
		}
		kv[k] = v
		line = rest
	}
	return kv
}

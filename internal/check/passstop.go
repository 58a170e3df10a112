package check

import (
	"bytes"
	"context"
	"regexp"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
)

// A learner's loop often ends its whole pass at the first failed command
// (`set -e`, `|| exit 1`): one TeamSpace it cannot serve then keeps every
// TeamSpace listed after it from ever being served. LAB.md does not say a
// pass must go on, but a probe that waits behind such a TeamSpace fails for
// a reason that is not its own; this file finds that reason in the
// controller's log, so the check can say so.

// stoppedPass is a pass that ends at one TeamSpace.
type stoppedPass struct {
	// at is the TeamSpace whose error ends the pass; err is that error, as
	// the controller's log shows it.
	at, err string
	// after are the TeamSpaces listed after it that are not served.
	after []string
}

func (s *stoppedPass) String() string {
	return i18n.T("check.passstop", i18n.Args{"At": s.at, "Err": s.err, "After": strings.Join(s.after, ", ")})
}

// logLines is how much of the controller's log is searched.
const logLines = 300

// ServiceLog is the end of the running controller's log: the service's
// journal, or process mode's log file ("" when there is none, and from
// another machine than the learner's). A probe reads in it why the
// controller did not serve its TeamSpace.
func (r *Session) ServiceLog(ctx context.Context) string {
	var b bytes.Buffer
	if err := r.svc.Logs(ctx, logLines, &b); err != nil {
		return ""
	}
	return b.String()
}

// LastErrorAbout is the last error line of log that names TeamSpace name
// or its namespace team-<name> as a whole word, shortened for a check's
// found line; "" when there is none.
func LastErrorAbout(log, name string) string {
	word := regexp.MustCompile(`(^|[^A-Za-z0-9-])(` + regexp.QuoteMeta(teamspace.NamespacePrefix) + `)?` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9-])`)
	lines := strings.Split(log, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); service.ErrorLine.MatchString(l) && word.MatchString(l) {
			return ui.Clean(firstChars(l, 2000))
		}
	}
	return ""
}

// StoppedPassAt says how the controller's pass stops at TeamSpace name,
// given that witness, listed right after it, was not served: the log holds
// an error about name. "" when it does not.
func (r *Session) StoppedPassAt(ctx context.Context, name, witness string) string {
	if line := LastErrorAbout(r.ServiceLog(ctx), name); line != "" {
		return (&stoppedPass{at: name, err: line, after: []string{witness}}).String()
	}
	return ""
}

// StopsBefore explains why probe, a TeamSpace that was not served in time,
// waited: a TeamSpace listed before it ends every pass (with the error the
// log shows), or the log's last error about the probe itself. "" when the
// log shows neither.
func (r *Session) StopsBefore(ctx context.Context, probe string) string {
	stop, last := r.stopBefore(ctx, probe)
	switch {
	case stop != nil:
		return "; " + stop.String()
	case last != "":
		return i18n.T("check.passstop.last_error", i18n.Args{"Line": last})
	}
	return ""
}

// PassStopsAt is the TeamSpace listed before probe at which every pass of
// the controller ends, and the error its log shows there; "" when the
// log shows no such TeamSpace.
func (r *Session) PassStopsAt(ctx context.Context, probe string) (at, line string) {
	if stop, _ := r.stopBefore(ctx, probe); stop != nil {
		return stop.at, stop.err
	}
	return "", ""
}

// stopBefore is the pass that ends at a TeamSpace listed before probe,
// else the log's last error about probe itself.
func (r *Session) stopBefore(ctx context.Context, probe string) (*stoppedPass, string) {
	log := r.ServiceLog(ctx)
	if log == "" {
		return nil, ""
	}
	list, err := r.env.Clients.Dynamic.Resource(teamspace.GVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, ""
	}
	names := make([]string, 0, len(list.Items))
	for _, u := range list.Items {
		names = append(names, u.GetName())
	}
	// The order a loop over `kubectl get teamspaces` serves them in.
	sort.Strings(names)
	for i, n := range names {
		if n >= probe {
			break
		}
		if line := LastErrorAbout(log, n); line != "" {
			return &stoppedPass{at: n, err: line, after: between(names[i+1:], probe)}, ""
		}
	}
	return nil, LastErrorAbout(log, probe)
}

// between is the names up to probe (which sorts among or after them), and
// probe itself: at most two before it, the rest elided.
func between(names []string, probe string) []string {
	var out []string
	for _, n := range names {
		if n >= probe {
			break
		}
		out = append(out, n)
	}
	if len(out) > 2 {
		out = append(out[:2], "…")
	}
	return append(out, probe)
}

// firstChars is a log line for a note or a found line: whole, since the
// useful part of a refusal is at its end (review rows 6 and 11); only a
// line beyond n bytes, which no kubectl error is, is shortened after a
// whole sentence (ui.Whole).
func firstChars(s string, n int) string { return ui.Whole(s, n) }

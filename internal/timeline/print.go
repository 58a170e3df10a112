package timeline

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ui"
)

// Print shows tl as aligned lines: the time since the action, who acted,
// what happened and how it was seen, e.g.
//
//	+0 ms  you         deleted team-quota (uid 5f0c1d2e…)
//	+4 ms  controller  DriftCorrected: quota team-quota recreated     event
//	+5 ms  controller  team-quota created (uid 9a8b7c6d…, hard.pods=6) watch
//
// in 80 columns: a long entry wraps in its column.
func Print(p *ui.Printer, tl *Timeline) {
	if tl == nil || len(tl.Entries) == 0 {
		return
	}
	heading := i18n.T("timeline.heading")
	action := ui.Clean(tl.Action)
	if since := i18n.T("timeline.since", i18n.Args{"Action": action}); 2+ui.Width(heading)+1+ui.Width(since) <= ui.Cols {
		p.Line("  %s %s", p.Bold(heading), p.Faint(since))
	} else {
		// The action is a command, often a long one: it goes below,
		// whole (its spaces are no-break ones while it is wrapped), on
		// a line of its own when it does not fit after the words.
		since = i18n.T("timeline.since", i18n.Args{"Action": strings.ReplaceAll(action, " ", "\u00a0")})
		p.Line("  %s", p.Bold(heading))
		for _, l := range strings.Split(ui.Indent("  ", "   ", since, ui.Cols), "\n") {
			p.Line("%s", p.Faint(strings.ReplaceAll(l, "\u00a0", " ")))
		}
	}
	atW, actorW, srcW := 0, 0, 0
	// Every entry's text came from the cluster, a file or a log: cleaned
	// (ui.Clean) before it is measured or printed.
	entries := make([]Entry, len(tl.Entries))
	// The actor and the source are said in the chosen language (the JSON
	// keeps their constants), and the columns are measured in display
	// columns: a Japanese character is two.
	words, sources := make([]string, len(tl.Entries)), make([]string, len(tl.Entries))
	for i, e := range tl.Entries {
		e.Actor, e.What, e.Source = ui.Clean(e.Actor), shortUIDs(ui.Clean(e.Text())), ui.Clean(e.Source)
		entries[i] = e
		words[i], sources[i] = ActorWords(e.Actor), SourceWords(e.Source)
	}
	for i, e := range entries {
		atW = max(atW, len(FormatAt(e.At)))
		actorW = max(actorW, ui.Width(words[i]))
		srcW = max(srcW, ui.Width(sources[i]))
	}
	// What happened gets the rest of 80 columns, wrapped in its column
	// when longer (hanging under itself), the source at the right of its
	// first line: no line is wider than a terminal.
	whatW := 0
	for _, e := range entries {
		whatW = max(whatW, ui.Width(e.What))
	}
	whatW = min(whatW, max(ui.Cols-(2+atW+2+actorW+2)-(2+srcW), 24))
	for i, e := range entries {
		actor := ui.Pad(words[i], actorW)
		switch e.Actor {
		case You:
			actor = p.Bold(actor)
		case Controller:
			actor = p.Accent(actor)
		}
		lines := strings.Split(ui.Wrap(e.What, whatW), "\n")
		for j, l := range lines {
			l = clip(l, whatW)
			if j == 0 {
				pad := strings.Repeat(" ", max(0, whatW-ui.Width(l)))
				p.Line("  %*s  %s  %s%s  %s", atW, FormatAt(e.At), actor, l, pad, p.Faint(sources[i]))
				continue
			}
			p.Line("  %s  %s  %s", strings.Repeat(" ", atW), strings.Repeat(" ", actorW), l)
		}
	}
}

// uidPattern is a Kubernetes uid, as an entry quotes it.
var uidPattern = regexp.MustCompile(`\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)

// shortUIDs is s with each uid cut to its first 8 hex digits and "…":
// enough to tell the old quota from the new one on a screen of 80
// columns; the timeline file keeps them whole.
func shortUIDs(s string) string { return uidPattern.ReplaceAllString(s, "$1…") }

// SourceWords is how an entry was seen, in the chosen language.
func SourceWords(src string) string {
	id, ok := map[string]string{FromWatch: "timeline.source.watch", FromEvent: "timeline.source.event", FromLog: "timeline.source.log",
		FromRead: "timeline.source.read", FromFile: "timeline.source.file"}[src]
	if !ok {
		return src
	}
	return i18n.T(id)
}

// clip is s cut to cols display columns, with … for what it leaves out.
func clip(s string, cols int) string {
	if ui.Width(s) <= cols {
		return s
	}
	var b strings.Builder
	w := 0
	for _, r := range s {
		rw := ui.Width(string(r))
		if w+rw > cols-1 {
			break
		}
		b.WriteRune(r)
		w += rw
	}
	return b.String() + "…"
}

// ActorWords is who acted, in the chosen language: one of the actors the
// steps name, or the recorded text as it is.
func ActorWords(a string) string {
	id, ok := map[string]string{
		You: "timeline.actor.you", Controller: "timeline.actor.controller", GarbageCollector: "timeline.actor.garbage_collector",
		NamespaceController: "timeline.actor.namespace_controller", QuotaController: "timeline.actor.quota_controller",
		ServiceManager: "timeline.actor.service_manager", OtherWriter: "timeline.actor.other_writer",
	}[a]
	if !ok {
		return a
	}
	return i18n.T(id)
}

// FormatAt words a time since the action: milliseconds below ten seconds
// ("+4 ms", "-120 ms", "+2315 ms"), tenths of a second above ("+46.2 s").
func FormatAt(d time.Duration) string {
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	if d < 10*time.Second {
		return fmt.Sprintf("%s%d ms", sign, d.Milliseconds())
	}
	return fmt.Sprintf("%s%.1f s", sign, d.Seconds())
}

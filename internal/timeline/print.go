package timeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/labhub/cnpa/internal/ui"
)

// Print shows tl as aligned lines: the time since the action, who acted,
// what happened and how it was seen, e.g.
//
//	+0 ms  you         deleted team-quota (uid 5f…)
//	+4 ms  controller  DriftCorrected: quota team-quota recreated   event
//	+5 ms  controller  team-quota created (uid 9a…, hard.pods=6)    watch
func Print(p *ui.Printer, tl *Timeline) {
	if tl == nil || len(tl.Entries) == 0 {
		return
	}
	p.Line("  %s %s", p.Bold("timeline"), p.Faint("(times since: "+ui.Clean(tl.Action)+")"))
	atW, actorW, whatW := 0, 0, 0
	// Every entry's text came from the cluster, a file or a log: cleaned
	// (ui.Clean) before it is measured or printed.
	entries := make([]Entry, len(tl.Entries))
	for i, e := range tl.Entries {
		e.Actor, e.What, e.Source = ui.Clean(e.Actor), ui.Clean(e.What), ui.Clean(e.Source)
		entries[i] = e
	}
	for _, e := range entries {
		atW = max(atW, len(FormatAt(e.At)))
		actorW = max(actorW, len(e.Actor))
		whatW = max(whatW, len([]rune(e.What)))
	}
	whatW = min(whatW, 90)
	for _, e := range entries {
		actor := fmt.Sprintf("%-*s", actorW, e.Actor)
		switch e.Actor {
		case You:
			actor = p.Bold(actor)
		case Controller:
			actor = p.Accent(actor)
		}
		what := e.What
		if r := []rune(what); len(r) > 90 {
			what = string(r[:89]) + "…"
		}
		pad := strings.Repeat(" ", max(0, whatW-len([]rune(what))))
		p.Line("  %*s  %s  %s%s  %s", atW, FormatAt(e.At), actor, what, pad, p.Faint(e.Source))
	}
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

package steps

import (
	"context"
	"strings"

	"github.com/labhub/cnpa/internal/reaction"
)

// FinishTimeline ends rx's recording and puts the timeline on r. A
// timeline that cannot be saved is a note, not a failed step: it is
// cnpa's picture of the step, not evidence.
// Exported for the runs that record a timeline (steps 4 to 7).
func (r *Result) FinishTimeline(ctx context.Context, rx *reaction.Recorder) {
	tl, err := rx.Finish(ctx)
	if tl != nil {
		r.Timeline = tl
	}
	if err != nil {
		r.Note("%s", Say("steps.timeline_not_saved", "Err", err))
	}
}

// ServiceCommand is the command a learner types to start or stop the
// service with the lab's service manager.
// Exported for the timelines of steps 4 and 7.
func ServiceCommand(env *Lab, verb string) string {
	if env.Service.Name() == "systemd" {
		return "systemctl " + verb + " " + reaction.UnitName
	}
	if strings.HasPrefix(verb, "enable") {
		verb = "start" // process mode has nothing to enable
	}
	return "cnpa service " + verb
}

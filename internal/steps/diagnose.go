package steps

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
)

// A diagnosis is a failed step's error: what was observed, the likely
// mistakes in the controller under test in the lab text's words, and the
// end of the controller's output. What a TeamSpace lacks after a pass is
// step 3's to diagnose (course/step3).

// MistakeFor says which mistake leaves a TeamSpace with gap g after a
// pass (zero for none): a lookup, each mistake's advice worded once in
// package lab. Exported for the runs of steps 3 and 4, which diagnose what
// a pass or the running controller left.
func MistakeFor(g teamspace.Gap, ts *teamspace.TeamSpace) lab.Mistake {
	switch g.Kind {
	case teamspace.GapNamespace:
		return lab.MistakeNoNamespace
	case teamspace.GapNamespaceLabel:
		return lab.MistakeNoNamespaceLabel
	case teamspace.GapQuota:
		return lab.MistakeNoQuota
	case teamspace.GapQuotaHard:
		return lab.MistakeQuotaSpec
	case teamspace.GapStatus:
		if ts.Status.ObservedGeneration == 0 && ts.Status.Namespace == "" {
			return lab.MistakeStatusMain
		}
		return lab.MistakeStaleStatus
	case teamspace.GapFinalizer:
		return lab.MistakeNoFinalizer
	}
	return lab.Mistake{}
}

// GapAdvice is what the learner reads for gap g of ts after a pass: its
// mistake's advice, after what was observed when that says more (a status
// that never appeared although the pass exited 0).
func GapAdvice(g teamspace.Gap, ts *teamspace.TeamSpace) string {
	m := MistakeFor(g, ts)
	if m == lab.MistakeStatusMain {
		return Say("steps.diag.status_never", "Advice", m.Advise())
	}
	return m.Advise()
}

// ServiceTail is the end of the running service's log (the script's last
// passes), its error lines first, or "" when there is none: the one line
// that says why is often a screen above the last.
// Exported for the diagnoses of steps 5 and 6.
func ServiceTail(ctx context.Context, env *Lab) string {
	var b bytes.Buffer
	if err := env.Service.Logs(ctx, serviceTailLines, &b); err != nil {
		return ""
	}
	// A write refused under --service-identity own, explained whole: the
	// verb or the rule, and the fix (issue 39).
	return identity.ExplainLines(service.ErrorsFirst(b.String(), 12))
}

// serviceTailLines is how much of the service's log serviceTail reads.
const serviceTailLines = 60

// controllerOutput is what a wait that timed out adds to its last
// observation: a refused server-side apply the output shows, explained
// with its fix, and the controller's last output; or that it does not run.
func controllerOutput(ctx context.Context, env *Lab) string {
	if st, err := env.Service.Status(ctx); err != nil || !st.Installed {
		return ""
	} else if !st.Active {
		return Say("steps.diag.not_running")
	}
	out := ServiceTail(ctx, env)
	if out == "" {
		return ""
	}
	var conflict string
	if c := ApplyConflict(ctx, env); c != nil {
		conflict = "\n" + ConflictLines(c)
	}
	return conflict + "\n  " + Say("steps.diag.last_output") + "\n    " + strings.ReplaceAll(out, "\n", "\n    ")
}

// Diagnosis is an error that says what was observed, the likely mistake,
// and the end of the controller's output.
// The runs fail with it (steps 3, 5 and 6), so that every diagnosis reads
// alike.
func Diagnosis(observed string, mistakes []string, output string) error {
	lines := make([]string, len(mistakes))
	for i, m := range mistakes {
		lines[i] = para("  - ", "    ", m)
	}
	return DiagnosisLines(observed, lines, output)
}

// DiagnosisLines is Diagnosis with its mistakes already set out as lines
// (ConflictLines).
// Exported for step 5, whose mistake may be a refused apply.
func DiagnosisLines(observed string, lines []string, output string) error {
	var b strings.Builder
	b.WriteString(observed)
	for _, l := range lines {
		b.WriteString("\n" + l)
	}
	if output = strings.TrimSpace(output); output != "" {
		b.WriteString("\n  " + Say("steps.diag.last_output") + "\n    " + strings.ReplaceAll(output, "\n", "\n    "))
	}
	return errors.New(b.String())
}

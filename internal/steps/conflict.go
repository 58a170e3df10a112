package steps

import (
	"bytes"
	"context"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ssaconflict"
)

// A learner's server-side apply without --force-conflicts fails as soon as
// another field manager owns a field it sets (step 5's `kubectl patch`, a
// hand edit, a grader's probe): every pass is refused from then on, and a
// pass that ends at its first failed command serves no TeamSpace after it.
// The wait that times out on it (step 4's probe, step 5's revert) says so
// from the controller's own output, before its generic verdict.

// ApplyConflict is the refused apply in the running service's recent
// output (as much as ServiceTail shows) whose owners still hold their
// fields, nil when there is none.
// Exported for step 5, whose revert wait names the refusal.
func ApplyConflict(ctx context.Context, env *Lab) *ssaconflict.Conflict {
	var b bytes.Buffer
	if err := env.Service.Logs(ctx, serviceTailLines, &b); err != nil {
		return nil
	}
	// A refusal the log keeps after a fix with --force-conflicts took
	// the fields back says nothing any more.
	return ssaconflict.Current(ctx, env.Clients.Kube.CoreV1(), ssaconflict.Find(b.String()))
}

// ConflictLines is c as a step's diagnosis: what was refused and the fix
// by name after "  - ", wrapped to 80 columns, then the fix as the
// command to type.
// Exported for steps 3 and 5: a refusal said in the same words wherever
// it is met.
func ConflictLines(c *ssaconflict.Conflict) string {
	s := c.Explain()
	if i18n.Current() == i18n.English {
		// English keeps its own breaks (docs/i18n.md); its lines go under
		// the first.
		s = strings.ReplaceAll(s, "\n", "\n    ")
	}
	return para("  - ", "    ", s) + "\n      $ " + ssaconflict.Fix
}

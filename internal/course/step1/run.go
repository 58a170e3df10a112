package step1

import (
	"github.com/labhub/cnpa/internal/steps"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Run drives step 1 against the live cluster and writes its evidence.
var Run = steps.RunCRD

// Again: step 1 measures a TeamSpace no controller has touched, so it can
// run again while alpha is missing or still at its first generation.
func Again(alpha *teamspace.TeamSpace) bool { return alpha == nil || alpha.Generation <= 1 }

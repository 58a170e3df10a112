package step2

import (
	"github.com/labhub/cnpa/internal/steps"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Run drives step 2 against the live cluster and writes its evidence.
var Run = steps.RunGeneration

// Again: step 2 bumps alpha's generation from 1, so it can run again only
// while alpha is there and still at generation 1.
func Again(alpha *teamspace.TeamSpace) bool { return alpha != nil && alpha.Generation == 1 }

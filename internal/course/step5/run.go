package step5

import "github.com/labhub/cnpa/internal/steps"

// Run drives step 5 against the live cluster and writes its evidence.
var Run = steps.RunDrift

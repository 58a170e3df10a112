package step4

import "github.com/labhub/cnpa/internal/steps"

// Run drives step 4 against the live cluster and writes its evidence.
var Run = steps.RunService

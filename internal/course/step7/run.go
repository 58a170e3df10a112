package step7

import "github.com/labhub/cnpa/internal/steps"

// Run drives step 7 against the live cluster and writes its evidence.
var Run = steps.RunCatchup

package step6

import "github.com/labhub/cnpa/internal/steps"

// Run drives step 6 against the live cluster and writes its evidence.
var Run = steps.RunCleanup

package step8

import "github.com/labhub/cnpa/internal/steps"

// Run drives step 8 against the live cluster and writes its evidence.
var Run = steps.RunReport

package step3

import "github.com/labhub/cnpa/internal/steps"

// Run drives step 3 against the live cluster and writes its evidence.
var Run = steps.RunReconcile

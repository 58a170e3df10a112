package check

import "github.com/labhub/cnpa/internal/lab"

// Step 2: what bumps metadata.generation. generation.json alone says it;
// the rules compare its uid with the live alpha.
var step2Checks = &stepChecks{step: lab.Generation}

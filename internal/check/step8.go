package check

import "github.com/labhub/cnpa/internal/lab"

// Step 8: report.json, every key what the other files give
// (lab.ComputeReport).
var step8Checks = &stepChecks{step: lab.Report}

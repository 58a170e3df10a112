package check

import "github.com/labhub/cnpa/internal/evidence"

// Step 8: report.json, every key what the other files give
// (expect.ComputeReport).
var step8Checks = &stepChecks{step: 8, file: evidence.ReportFile}

package judge

import "github.com/labhub/cnpa/internal/lab"

// Step 1: registering a type does nothing by itself. before.json, then the
// CRD on the server field by field (crd.go).
var step1Checks = &stepChecks{step: lab.CRD, facts: crdChecks()}

package check

import "github.com/labhub/cnpa/internal/evidence"

// Step 1: registering a type does nothing by itself. before.json, then the
// CRD on the server field by field (crd.go).
var step1Checks = &stepChecks{step: 1, file: evidence.BeforeFile, live: crdChecks()}

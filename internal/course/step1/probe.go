package step1

import "github.com/labhub/cnpa/internal/judge"

// Probes are step 1's live probes' rows: it has none.
var Probes []*judge.Probe

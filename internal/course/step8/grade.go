package step8

import "github.com/labhub/cnpa/internal/judge"

// Grade is what `cnpa check` grades for step 8: its file says it all, so its
// file is judged by the rules alone (step.go).
var Grade = &judge.Step{Step: Step}

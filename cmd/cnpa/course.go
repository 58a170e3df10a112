package main

import "github.com/labhub/cnpa/internal/course"

// theLab is the lab's one step table, wired in here: every command hands
// it down to the packages that read the steps (check, judge, steps,
// report, reset, watch), which name no step themselves.
var theLab = course.Steps

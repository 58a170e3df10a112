package course_test

import "github.com/labhub/cnpa/internal/course"

// steps is the table the tests read, as the commands hand it down.
var steps = course.Steps.Lab()

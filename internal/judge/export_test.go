package judge

// Test hooks for the external tests (judge_test), which judge by the real
// table (package course imports this one).
var (
	GradeState = gradeState
	Text       = text
)

package service

import "testing"

// The error line comes first however far up it is; the rest are the last
// lines; an escape sequence is shown, not obeyed.
func TestErrorsFirst(t *testing.T) {
	log := "pass 1\nError from server (Conflict): Apply failed with 1 conflict: conflict with \"kubectl-patch\"\npass 2\npass 3\n" +
		"teamspace alpha: not converged\x1b[2J\npass 4\n"
	want := "Error from server (Conflict): Apply failed with 1 conflict: conflict with \"kubectl-patch\"\n" +
		"teamspace alpha: not converged\\x1b[2J\npass 4"
	if got := ErrorsFirst(log, 3); got != want {
		t.Errorf("ErrorsFirst:\n%s\nwant:\n%s", got, want)
	}
	if ErrorsFirst("", 5) != "" {
		t.Error("an empty log has no tail")
	}
}

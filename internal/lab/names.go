package lab

import (
	"crypto/rand"
	"encoding/hex"
)

// The names cnpa stamps on the objects it makes for a moment. Reset, the
// timeline and the grader recognise their own by these, so they are said
// once, here.
const (
	// ProbePrefix starts the name of step 4's temporary TeamSpace.
	ProbePrefix = "cnpa-probe-"
	// TempPrefix starts the name of every TeamSpace `cnpa check` creates.
	TempPrefix = "cnpa-check-"
	// ForeignNamespaceOwner is the value of the label "owner" that marks
	// the grader's stand-in for somebody else's namespace (reset sweeps
	// those an interrupted check left).
	ForeignNamespaceOwner = "someone-else"
)

// TempName is a fresh name for a temporary object: prefix and six random
// hex digits, which keeps it a valid DNS label and the namespace
// team-<name> within 63 characters.
func TempName(prefix string) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

package step6

import (
	"strings"
	"testing"

	"github.com/labhub/cnpa/assets"
)

// TestFinalizerRefusalIsThePolicys: the words the finalizer probe looks
// for in the controller's log are the admission policy's own.
func TestFinalizerRefusalIsThePolicys(t *testing.T) {
	if !strings.Contains(string(assets.Admission), finalizerRefusal) {
		t.Errorf("assets/admission.yaml does not say %q: the finalizer probe would never see the refusal", finalizerRefusal)
	}
}

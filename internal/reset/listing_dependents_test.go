package reset

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/teamspace"
)

// A learner's script may own team-alpha without controller: true; reset
// deletes only what the controller would call ours, but waits for such a
// dependent, which the garbage collector deletes with alpha.
func TestDependentNamespaces(t *testing.T) {
	yes := true
	ns := func(name string, uid types.UID, controller *bool) corev1.Namespace {
		n := corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if uid != "" {
			n.OwnerReferences = []metav1.OwnerReference{{Kind: teamspace.Kind, Name: "x", UID: uid, Controller: controller}}
		}
		return n
	}
	owners := map[string]types.UID{"alpha": "a1", "beta": "b1"}
	all := []corev1.Namespace{
		ns("team-alpha", "a1", nil),  // the learner's owner reference: a dependent
		ns("team-beta", "b1", &yes),  // ours: deleted by reset, not a dependent
		ns("team-gamma", "g1", nil),  // no such TeamSpace
		ns("team-delta", "", nil),    // nobody's
		ns("kube-system", "a1", nil), // not a team namespace
	}
	got := dependentNamespaces(owners, all)
	if want := []string{"team-alpha"}; !reflect.DeepEqual(got, want) {
		t.Errorf("dependentNamespaces = %v, want %v", got, want)
	}
}

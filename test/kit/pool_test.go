package kit

import (
	"slices"
	"testing"
)

// TestStrayNamespaces: the pool deletes a mistake's leftovers only when
// they are namespaces and what those namespaces hold; anything else
// (a cluster-scoped object, an object in a namespace that was there at
// boot) retires the cluster instead.
func TestStrayNamespaces(t *testing.T) {
	for _, tt := range []struct {
		left []string
		want []string
	}{
		{[]string{"configmaps team-alpha/kube-root-ca.crt", "namespaces team-alpha", "resourcequotas team-alpha/team-quota"}, []string{"team-alpha"}},
		{[]string{"namespaces team-alpha", "namespaces team-beta"}, []string{"team-alpha", "team-beta"}},
		{[]string{"namespaces team-alpha", "customresourcedefinitions.apiextensions.k8s.io teamspaces.platform.labhub.io"}, nil},
		{[]string{"namespaces team-alpha", "serviceaccounts.kube-system/cnpa-controller"}, nil},
		{[]string{"namespaces team-alpha", "serviceaccounts kube-system/cnpa-controller"}, nil},
		{[]string{"configmaps team-alpha/x"}, nil},
	} {
		if got := strayNamespaces(tt.left); !slices.Equal(got, tt.want) {
			t.Errorf("strayNamespaces(%q) = %q, want %q", tt.left, got, tt.want)
		}
	}
}

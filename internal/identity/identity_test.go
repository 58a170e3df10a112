package identity

import (
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// The assets parse into the objects reset must remove, each of a kind
// Apply knows, and name what the constants say.
func TestObjects(t *testing.T) {
	objs, err := Objects(Manifests()...)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.String())
	}
	want := []string{
		"ServiceAccount kube-system/cnpa-controller",
		"Secret kube-system/cnpa-controller-token",
		"ClusterRole cnpa-controller",
		"ClusterRoleBinding cnpa-controller",
		"Role kube-system/cnpa-controller-leader-election",
		"RoleBinding kube-system/cnpa-controller-leader-election",
		"ValidatingAdmissionPolicy " + Policy,
		"ValidatingAdmissionPolicyBinding " + Policy,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The service's kubeconfig verifies TLS as the admin's does, and carries
// only the ServiceAccount's token.
func TestKubeconfig(t *testing.T) {
	tests := []struct {
		name     string
		admin    rest.TLSClientConfig
		wantCA   string
		insecure bool
	}{
		{"admin's CA", rest.TLSClientConfig{CAData: []byte("admin-ca")}, "admin-ca", false},
		{"insecure like the admin", rest.TLSClientConfig{Insecure: true}, "", true},
		{"no CA: the Secret's", rest.TLSClientConfig{}, "secret-ca", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kc, err := Kubeconfig(&rest.Config{Host: "https://10.0.0.1:6443", BearerToken: "admin-token", TLSClientConfig: tt.admin}, "sa-token", []byte("secret-ca"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(kc), "admin-token") {
				t.Errorf("the admin's token leaked into the service's kubeconfig:\n%s", kc)
			}
			rc, err := clientcmd.RESTConfigFromKubeConfig(kc)
			if err != nil {
				t.Fatal(err)
			}
			if rc.Host != "https://10.0.0.1:6443" || rc.BearerToken != "sa-token" || string(rc.CAData) != tt.wantCA || rc.Insecure != tt.insecure {
				t.Errorf("got host %s token %q CA %q insecure %v; want the admin's host, sa-token, CA %q, insecure %v",
					rc.Host, rc.BearerToken, rc.CAData, rc.Insecure, tt.wantCA, tt.insecure)
			}
		})
	}
}

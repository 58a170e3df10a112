package identity

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"
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
		"Role default/cnpa-controller-events",
		"RoleBinding default/cnpa-controller-events",
		"ValidatingAdmissionPolicy " + Policy,
		"ValidatingAdmissionPolicyBinding " + Policy,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// LeaderElection renders the Lease and a Role for that name alone, and
// refuses a name that is no Lease name rather than paste it into YAML.
func TestLeaderElection(t *testing.T) {
	le, err := LeaderElection("cnpa-op")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Objects(le)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.String())
	}
	want := "Lease kube-system/cnpa-op\nRole kube-system/" + LeaderElectionRole + "\nRoleBinding kube-system/" + LeaderElectionRole
	if strings.Join(got, "\n") != want {
		t.Errorf("objects:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	if !strings.Contains(string(le), `resourceNames: ["cnpa-op"]`) || strings.Contains(string(le), "LEASE_NAME") {
		t.Errorf("the Role is not narrowed to the Lease cnpa-op:\n%s", le)
	}
	for _, bad := range []string{"", "Bad_Name", "x\"]\n  verbs: [\"*\"]"} {
		if _, err := LeaderElection(bad); err == nil || !strings.Contains(err.Error(), "--leader-elect-name") {
			t.Errorf("LeaderElection(%q): got %v, want a refusal naming --leader-elect-name", bad, err)
		}
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

// KubeconfigJQ, the shell's way that step 4 shows, gives the service the
// kubeconfig Kubeconfig gives it: run through the real jq on the admin
// kubeconfig as `kubectl config view --raw --minify --flatten -o json`
// prints it, and on the token Secret as `kubectl get secret -o json` does.
func TestKubeconfigJQ(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Fatalf("jq, which the lab's shell engine needs too, is not installed: %v", err)
	}
	secret := `{"data":{"token":"` + base64.StdEncoding.EncodeToString([]byte("sa-token")) +
		`","ca.crt":"` + base64.StdEncoding.EncodeToString([]byte("secret-ca")) + `"}}`
	for _, tls := range []rest.TLSClientConfig{
		{CAData: []byte("admin-ca")},
		{CAData: []byte("admin-ca"), ServerName: "kubernetes.default"},
		{Insecure: true},
		{},
	} {
		admin := &rest.Config{Host: "https://10.0.0.1:6443", BearerToken: "admin-token", TLSClientConfig: tls}
		want, err := Kubeconfig(admin, "sa-token", []byte("secret-ca"))
		if err != nil {
			t.Fatal(err)
		}
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters["lab"] = &clientcmdapi.Cluster{Server: admin.Host, CertificateAuthorityData: tls.CAData,
			TLSServerName: tls.ServerName, InsecureSkipTLSVerify: tls.Insecure}
		cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: admin.BearerToken}
		cfg.Contexts["lab"] = &clientcmdapi.Context{Cluster: "lab", AuthInfo: "admin"}
		cfg.CurrentContext = "lab"
		view, err := clientcmd.Write(*cfg)
		if err != nil {
			t.Fatal(err)
		}
		viewJSON, err := yaml.YAMLToJSON(view)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(jq, "--argjson", "secret", secret, KubeconfigJQ)
		cmd.Stdin = bytes.NewReader(viewJSON)
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("jq KubeconfigJQ: %v", err)
		}
		gotRC, err := clientcmd.RESTConfigFromKubeConfig(got)
		if err != nil {
			t.Fatalf("jq's kubeconfig does not load: %v\n%s", err, got)
		}
		wantRC, err := clientcmd.RESTConfigFromKubeConfig(want)
		if err != nil {
			t.Fatal(err)
		}
		summary := func(rc *rest.Config) string {
			return fmt.Sprintf("host %s token %q CA %q server name %q insecure %v", rc.Host, rc.BearerToken, rc.CAData, rc.ServerName, rc.Insecure)
		}
		if summary(gotRC) != summary(wantRC) || strings.Contains(string(got), "admin-token") {
			t.Errorf("admin TLS %+v:\njq gives %s\nKubeconfig %s\n%s", tls, summary(gotRC), summary(wantRC), got)
		}
	}
}

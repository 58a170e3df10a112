package kube

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Objects keeps the stream's order, skips empty documents, names each
// object as kubectl's answers do, and refuses a kind it was not given.
func TestObjects(t *testing.T) {
	kinds := map[string]schema.GroupVersionResource{
		"Secret":                    {Version: "v1", Resource: "secrets"},
		"ValidatingAdmissionPolicy": {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"},
	}
	stream := "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: kube-system}\n---\n# nothing\n---\n" +
		"apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\n"
	objs, err := Objects(kinds, []byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.KubectlName()+" "+o.String())
	}
	want := "secret/s Secret kube-system/s|validatingadmissionpolicy.admissionregistration.k8s.io/p ValidatingAdmissionPolicy p"
	if strings.Join(got, "|") != want {
		t.Errorf("got %q, want %q", strings.Join(got, "|"), want)
	}
	if _, err := Objects(kinds, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")); err == nil || !strings.Contains(err.Error(), "ConfigMap") {
		t.Errorf("a kind not given: err %v, want one naming ConfigMap", err)
	}
}

// Package identity gives cnpa-op.service a Kubernetes identity of its own
// instead of the learner's admin kubeconfig: the cnpa-controller
// ServiceAccount with exactly the verbs the engines use (assets/rbac.yaml), the
// ValidatingAdmissionPolicy that narrows its writes to the TeamSpaces' own
// namespaces and quotas (assets/admission.yaml), and a kubeconfig carrying
// that ServiceAccount's token. `cnpa step 4` provisions it; `cnpa reset`
// removes it.
package identity

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/poll"
)

// The identity flag's values: the ServiceAccount (the default) or the
// learner's own kubeconfig, as before cnpa had an identity for the service.
const (
	Own   = "own"
	Admin = "admin"
)

// Valid tells whether s is a --service-identity value.
func Valid(s string) bool { return s == Own || s == Admin }

// Names of what assets/rbac.yaml creates; the tests and the kubeconfig use
// them, the YAML is their home.
const (
	Namespace      = "kube-system"
	ServiceAccount = "cnpa-controller"
	TokenSecret    = "cnpa-controller-token"
	// Username is how the API server (and the admission policy) names the
	// ServiceAccount.
	Username = "system:serviceaccount:" + Namespace + ":" + ServiceAccount
	// Policy is the ValidatingAdmissionPolicy (and its binding).
	Policy = "cnpa-controller-writes"
)

// FieldManager names the writes of Apply, and of the `kubectl apply`
// that step 4 shows for them.
const FieldManager = "cnpa-identity"

// Manifests are the assets of the identity, in the order Apply applies
// them: the ServiceAccount, its token and roles, then the policy. No
// Lease: the unit does not elect a leader (LeaderElection).
func Manifests() [][]byte { return [][]byte{assets.RBAC, assets.Admission} }

// LeaderElectionRole names the Role (and its binding) of LeaderElection,
// whatever the Lease's name: Remove finds the Lease through it.
const LeaderElectionRole = "cnpa-controller-leader-election"

// LeaderElection renders assets/leader-election.yaml for the Lease lease
// (`cnpa controller --leader-elect-name`): the Lease itself, and a Role
// that may get and update that one Lease and no other. A name that is not
// a DNS subdomain is refused, never pasted into YAML.
func LeaderElection(lease string) ([]byte, error) {
	if errs := validation.IsDNS1123Subdomain(lease); len(errs) > 0 {
		return nil, i18n.NewError("identity.bad_lease", i18n.Args{"Lease": fmt.Sprintf("%q", lease), "Errs": strings.Join(errs, "; ")})
	}
	return bytes.ReplaceAll(assets.LeaderElection, []byte("LEASE_NAME"), []byte(lease)), nil
}

// kinds maps the kinds in the assets to their resources.
var kinds = map[string]schema.GroupVersionResource{
	"ServiceAccount":                   {Version: "v1", Resource: "serviceaccounts"},
	"Secret":                           {Version: "v1", Resource: "secrets"},
	"ClusterRole":                      {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
	"ClusterRoleBinding":               {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"},
	"Role":                             {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
	"RoleBinding":                      {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"},
	"ValidatingAdmissionPolicy":        {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"},
	"ValidatingAdmissionPolicyBinding": {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"},
	"Lease":                            {Group: "coordination.k8s.io", Version: "v1", Resource: "leases"},
}

// Objects parses manifests into the identity's objects, in order.
func Objects(manifests ...[]byte) ([]kube.Object, error) {
	objs, err := kube.Objects(kinds, manifests...)
	if err != nil {
		return nil, fmt.Errorf("identity manifest: %w", err)
	}
	return objs, nil
}

// Apply applies the identity with server-side apply, waits for
// the token controller to fill the token Secret, and returns a kubeconfig
// for the ServiceAccount against the same server, with the same TLS
// settings, as the admin target t. It then waits until the identity works
// as it must: it may list TeamSpaces (RBAC has caught up) and the admission
// policy refuses it a write to kube-system (checked with a dry run).
func Apply(ctx context.Context, t *kube.Target, c *kube.Clients, timeout time.Duration) ([]byte, error) {
	return ApplyFor(ctx, t, c, timeout, "")
}

// ApplyFor is Apply for a controller that elects a leader with the Lease
// lease ("" for none, as the unit): the Lease and a Role for it alone
// (LeaderElection) come with the identity.
func ApplyFor(ctx context.Context, t *kube.Target, c *kube.Clients, timeout time.Duration, lease string) ([]byte, error) {
	manifests := Manifests()
	if lease != "" {
		le, err := LeaderElection(lease)
		if err != nil {
			return nil, err
		}
		manifests = append([][]byte{le}, manifests...)
	}
	objs, err := Objects(manifests...)
	if err != nil {
		return nil, err
	}
	var secret kube.Object
	for _, o := range objs {
		if err := apply(ctx, c, o); err != nil {
			return nil, err
		}
		if o.GetKind() == "Secret" {
			secret = o
		}
	}
	var token, ca []byte
	if _, err := poll.Until(ctx, 200*time.Millisecond, timeout, func(ctx context.Context) (bool, string, error) {
		s, err := c.Kube.CoreV1().Secrets(Namespace).Get(ctx, TokenSecret, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			// The token controller deletes a token Secret whose
			// ServiceAccount it cannot find yet; ask again.
			return false, i18n.T("identity.token_secret_removed", i18n.Args{"Secret": Namespace + "/" + TokenSecret}), apply(ctx, c, secret)
		}
		if err != nil {
			return false, "", err
		}
		token, ca = s.Data["token"], s.Data["ca.crt"]
		return len(token) > 0, i18n.T("identity.token_not_yet", i18n.Args{"Secret": Namespace + "/" + TokenSecret}), nil
	}); err != nil {
		return nil, fmt.Errorf("%s: %w", i18n.T("identity.token_for", i18n.Args{"User": Username}), err)
	}
	kc, err := Kubeconfig(t.Config, string(token), ca)
	if err != nil {
		return nil, err
	}
	if err := waitEffective(ctx, kc, timeout); err != nil {
		return nil, err
	}
	return kc, nil
}

// apply applies one object server-side, forcing our field manager's
// ownership: the assets are what the identity must be.
func apply(ctx context.Context, c *kube.Clients, o kube.Object) error {
	if err := o.Apply(ctx, c.Dynamic, FieldManager); err != nil {
		return fmt.Errorf("%s: %w", i18n.T("identity.apply", i18n.Args{"Object": o.String()}), err)
	}
	return nil
}

// Kubeconfig renders a kubeconfig for token against admin's server. TLS
// is verified as admin verifies it: its CA, its server name, or its
// insecure-skip-tls-verify; with none of those, the token Secret's ca.crt.
func Kubeconfig(admin *rest.Config, token string, secretCA []byte) ([]byte, error) {
	cl := &clientcmdapi.Cluster{Server: admin.Host, TLSServerName: admin.TLSClientConfig.ServerName,
		InsecureSkipTLSVerify: admin.TLSClientConfig.Insecure}
	switch {
	case len(admin.TLSClientConfig.CAData) > 0:
		cl.CertificateAuthorityData = admin.TLSClientConfig.CAData
	case admin.TLSClientConfig.CAFile != "":
		data, err := os.ReadFile(admin.TLSClientConfig.CAFile)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", i18n.T("identity.read_ca", i18n.Args{"Path": admin.TLSClientConfig.CAFile}), err)
		}
		cl.CertificateAuthorityData = data
	case !cl.InsecureSkipTLSVerify:
		cl.CertificateAuthorityData = secretCA
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["cluster"] = cl
	cfg.AuthInfos[ServiceAccount] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[ServiceAccount] = &clientcmdapi.Context{Cluster: "cluster", AuthInfo: ServiceAccount}
	cfg.CurrentContext = ServiceAccount
	return clientcmd.Write(*cfg)
}

// KubeconfigJQ is Kubeconfig as a jq filter, for a learner's shell: its
// input is `kubectl config view --raw --minify --flatten -o json` (the
// admin kubeconfig's current context, its CA file inlined), and $secret is
// the token Secret as `kubectl get secret -o json` gives it. It keeps the
// same cluster fields as Kubeconfig, by the same rule; a test holds the two
// to the same result.
const KubeconfigJQ = `.clusters[0].cluster as $c
| {apiVersion: "v1", kind: "Config",
   clusters: [{name: "cluster", cluster: ({server: $c.server}
     + ($c | with_entries(select(.key == "tls-server-name" or .key == "insecure-skip-tls-verify")))
     + if $c["certificate-authority-data"] then {"certificate-authority-data": $c["certificate-authority-data"]}
       elif $c["insecure-skip-tls-verify"] then {}
       else {"certificate-authority-data": $secret.data["ca.crt"]} end)}],
   users: [{name: "cnpa-controller", user: {token: ($secret.data.token | @base64d)}}],
   contexts: [{name: "cnpa-controller", context: {cluster: "cluster", user: "cnpa-controller"}}],
   "current-context": "cnpa-controller"}`

// waitEffective waits until the authorizer and the admission policy both
// apply to the new identity: each reaches the API server through an
// informer, a moment after the objects were written.
func waitEffective(ctx context.Context, kubeconfig []byte, timeout time.Duration) error {
	rc, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return fmt.Errorf("%s: %w", i18n.T("identity.kubeconfig_parse"), err)
	}
	c, err := kube.NewClients(&kube.Target{Config: rc})
	if err != nil {
		return err
	}
	_, err = poll.Until(ctx, 200*time.Millisecond, timeout, func(ctx context.Context) (bool, string, error) {
		if _, err := c.Dynamic.Resource(schema.GroupVersionResource{Group: "platform.labhub.io", Version: "v1alpha1", Resource: "teamspaces"}).
			List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
			return false, i18n.T("identity.cannot_list_yet", i18n.Args{"User": Username, "Err": err.Error()}), nil
		}
		err := ProbeKubeSystem(ctx, c)
		if IsPolicyDenial(err) {
			return true, "", nil
		}
		return false, i18n.T("identity.policy_not_yet", i18n.Args{"Policy": Policy, "User": Username, "Err": fmt.Sprint(err)}), nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", i18n.T("identity.the_identity", i18n.Args{"User": Username}), err)
	}
	return nil
}

// ProbeLabel is the label ProbeKubeSystem asks to set, as key=value.
const ProbeLabel = "cnpa-identity-probe=x"

// ProbeKubeSystem asks, as a dry run, to label namespace kube-system with
// c's identity, as `kubectl label --dry-run=server` does: the policy must
// refuse it.
func ProbeKubeSystem(ctx context.Context, c *kube.Clients) error {
	key, value, _ := strings.Cut(ProbeLabel, "=")
	body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{key: value}}})
	_, err := c.Kube.CoreV1().Namespaces().Patch(ctx, "kube-system", types.MergePatchType, body,
		metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: FieldManager})
	return err
}

// IsPolicyDenial tells whether err is a refusal by cnpa's admission policy
// (not by RBAC, which never gets that far).
func IsPolicyDenial(err error) bool {
	return err != nil && apierrors.IsForbidden(err) && bytes.Contains([]byte(err.Error()), []byte("ValidatingAdmissionPolicy '"+Policy+"'"))
}

// Remove deletes every object of the identity, in reverse order (the policy first, the ServiceAccount last); objects
// already gone are fine. Deleting the token Secret revokes the token.
func Remove(ctx context.Context, c *kube.Clients) (removed []string, err error) {
	manifests, err := withLeases(ctx, c)
	if err != nil {
		return nil, err
	}
	objs, err := Objects(manifests...)
	if err != nil {
		return nil, err
	}
	var errs []error
	for i := len(objs) - 1; i >= 0; i-- {
		o := objs[i]
		switch derr := o.Resource(c.Dynamic).Delete(ctx, o.GetName(), metav1.DeleteOptions{}); {
		case apierrors.IsNotFound(derr):
		case derr != nil:
			errs = append(errs, fmt.Errorf("delete %s: %w", o, derr))
		default:
			removed = append(removed, o.String())
		}
	}
	return removed, errors.Join(errs...)
}

// Present tells whether any object of the identity exists (for reset's
// plan). It reads through c.Dynamic only.
func Present(ctx context.Context, c *kube.Clients) (bool, error) {
	manifests, err := withLeases(ctx, c)
	if err != nil {
		return false, err
	}
	objs, err := Objects(manifests...)
	if err != nil {
		return false, err
	}
	for _, o := range objs {
		_, gerr := o.Resource(c.Dynamic).Get(ctx, o.GetName(), metav1.GetOptions{})
		if gerr == nil {
			return true, nil
		}
		if !apierrors.IsNotFound(gerr) {
			return false, fmt.Errorf("get %s: %w", o, gerr)
		}
	}
	return false, nil
}

// withLeases is Manifests plus LeaderElection for each Lease the leader
// election Role names, when ApplyFor made one: Remove deletes them too.
func withLeases(ctx context.Context, c *kube.Clients) ([][]byte, error) {
	manifests := Manifests()
	role, err := c.Dynamic.Resource(kinds["Role"]).Namespace(Namespace).Get(ctx, LeaderElectionRole, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return manifests, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get role %s/%s: %w", Namespace, LeaderElectionRole, err)
	}
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	for _, r := range rules {
		names, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "resourceNames")
		for _, n := range names {
			le, err := LeaderElection(n)
			if err != nil {
				continue // not one ApplyFor wrote; the Role goes below anyway
			}
			manifests = append([][]byte{le}, manifests...)
		}
	}
	return manifests, nil
}

package faults

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestPolicyAsTheIdentity holds assets/admission.yaml to what the README
// says, with `kubectl --as=system:serviceaccount:kube-system:cnpa-controller`
// against the real API server: each write RBAC allows but the policy must
// refuse gets Forbidden with the policy's own message and changes nothing
// (same resourceVersion); each write the engines (and a learner's script)
// make is still allowed. One row per point of the review
// (reviews/2026-12-01-security-2.md, M1).
func TestPolicyAsTheIdentity(t *testing.T) {
	c := cluster.Shared(t)
	e := kit.New(t, c)
	admin, err := kube.Resolve(c.Kubeconfig, "")
	if err != nil {
		t.Fatal(err)
	}
	adminClients, err := kube.NewClients(admin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := identity.Apply(e.Ctx, admin, adminClients, 2*time.Minute); err != nil {
		t.Fatalf("identity.Apply: %v", err)
	}
	t.Cleanup(func() { identity.Remove(context.Background(), adminClients) })

	sfx := fmt.Sprint(time.Now().UnixNano() % 1000000)
	// alpha: a TeamSpace and its namespace as the controller leaves them
	// (label, controller ownerReference to alpha's uid) with our finalizer.
	alpha := "pol" + sfx
	ts := e.Create(alpha, 3, "500m", teamspace.Finalizer)
	mkNS := func(name string, labels map[string]string, owners ...metav1.OwnerReference) {
		t.Helper()
		if _, err := e.Kube.CoreV1().Namespaces().Create(e.Ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name: name, Labels: labels, OwnerReferences: owners}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Kube.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	ctrl := true
	alphaNS := teamspace.NamespaceName(alpha)
	mkNS(alphaNS, map[string]string{teamspace.OwnerLabel: alpha}, metav1.OwnerReference{
		APIVersion: teamspace.APIVersion, Kind: teamspace.Kind, Name: alpha, UID: ts.GetUID(), Controller: &ctrl})
	// keep: a team-* namespace an admin labelled by hand, no owner (the
	// review's team-keep).
	keep := "keep" + sfx
	mkNS("team-"+keep, map[string]string{teamspace.OwnerLabel: keep})
	// keyonly: a stranger's team-* namespace carrying our label key with
	// another value.
	keyonly := "keyonly" + sfx
	mkNS("team-"+keyonly, map[string]string{teamspace.OwnerLabel: "someone-else"})
	// adopt: labelled, no owner, for the one ownerReference write allowed.
	adopt := "adopt" + sfx
	adoptTS := e.Create(adopt, 1, "")
	mkNS("team-"+adopt, map[string]string{teamspace.OwnerLabel: adopt})

	ghost := func(name string) string {
		return fmt.Sprintf(`{"metadata":{"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":%q,"uid":"00000000-0000-0000-0000-000000000001","controller":true}]}}`,
			teamspace.APIVersion, teamspace.Kind, name)
	}
	asSA := func(args ...string) (string, error) {
		cmd := exec.CommandContext(e.Ctx, c.Kubectl(), append(args, "--as="+identity.Username)...)
		cmd.Env = c.Env()
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// rv reads what a refused write must leave as it was ("" for absent).
	rv := func(kind, ns, name string) string {
		t.Helper()
		args := []string{"get", kind, name, "--ignore-not-found", "-o", "jsonpath={.metadata.resourceVersion}"}
		if ns != "" {
			args = append(args, "-n", ns)
		}
		return e.Kubectl(nil, args...)
	}

	type target struct{ kind, ns, name string }
	denied := []struct {
		review string
		target target
		args   []string
		msg    string // the policy's message, as the API server returns it
	}{
		{"M1.1 wasOurs accepts the label key with any value", target{"namespace", "", "team-" + keyonly},
			[]string{"label", "--overwrite", "namespace", "team-" + keyonly, teamspace.OwnerLabel + "=" + keyonly},
			"cnpa-controller may not take over namespace team-" + keyonly},
		{"M1.2 a ghost owner on a labelled namespace (GC would delete it)", target{"namespace", "", "team-" + keep},
			[]string{"patch", "namespace", "team-" + keep, "--type=merge", "-p", ghost("ghost")},
			"may not change the ownerReferences of namespace team-" + keep},
		{"M1.2 a ghost owner on a TeamSpace's namespace", target{"namespace", "", alphaNS},
			[]string{"patch", "namespace", alphaNS, "--type=merge", "-p", ghost("ghost")},
			"may not change the ownerReferences of namespace " + alphaNS},
		{"M1.2 its own TeamSpace's name with another uid, replacing the owner", target{"namespace", "", alphaNS},
			[]string{"patch", "namespace", alphaNS, "--type=merge", "-p", ghost(alpha)},
			"may not change the ownerReferences of namespace " + alphaNS},
		{"M1.2 an owner removed", target{"namespace", "", alphaNS},
			[]string{"patch", "namespace", alphaNS, "--type=merge", "-p", `{"metadata":{"ownerReferences":null}}`},
			"may not change the ownerReferences of namespace " + alphaNS},
		{"M1.4 Pod Security's label on a TeamSpace's namespace", target{"namespace", "", alphaNS},
			[]string{"label", "namespace", alphaNS, "pod-security.kubernetes.io/enforce=privileged"},
			"may not set or change labels other than platform.labhub.io/teamspace on namespace " + alphaNS},
		{"M1.4 a finalizer on a TeamSpace's namespace", target{"namespace", "", alphaNS},
			[]string{"patch", "namespace", alphaNS, "--type=merge", "-p", `{"metadata":{"finalizers":["example.com/hold"]}}`},
			"may not set or change the finalizers or annotations of namespace " + alphaNS},
		{"M1.4 an annotation on a TeamSpace's namespace", target{"namespace", "", alphaNS},
			[]string{"annotate", "namespace", alphaNS, "scheduler.alpha.kubernetes.io/node-selector=evil=1"},
			"may not set or change the finalizers or annotations of namespace " + alphaNS},
		{"M1.4 a namespace created with Pod Security's label", target{"namespace", "", "team-psa" + sfx},
			[]string{"create", "-f", "-", "--dry-run=server"}, // stdin below
			"may not set or change labels other than platform.labhub.io/teamspace on namespace team-psa" + sfx},
		{"M1.3 a quota in a team-* namespace labelled for another TeamSpace", target{"resourcequota", "team-" + keyonly, teamspace.QuotaName},
			[]string{"create", "quota", teamspace.QuotaName, "-n", "team-" + keyonly, "--hard=pods=0"},
			"may only write the quota team-quota in a TeamSpace namespace"},
		{"M1.5 a TeamSpace's spec", target{"teamspace", "", alpha},
			[]string{"patch", "teamspace", alpha, "--type=merge", "-p", `{"spec":{"pods":2}}`},
			"cnpa-controller may change only the finalizers of TeamSpace " + alpha},
		{"M1.5 a ghost owner on a TeamSpace", target{"teamspace", "", alpha},
			[]string{"patch", "teamspace", alpha, "--type=merge", "-p", ghost("ghost")},
			"cnpa-controller may change only the finalizers of TeamSpace " + alpha},
		{"M1.5 a label on a TeamSpace", target{"teamspace", "", alpha},
			[]string{"label", "teamspace", alpha, "x=y"},
			"cnpa-controller may change only the finalizers of TeamSpace " + alpha},
		{"M1.5 a foreign finalizer that blocks deletion", target{"teamspace", "", alpha},
			[]string{"patch", "teamspace", alpha, "--type=merge", "-p", fmt.Sprintf(`{"metadata":{"finalizers":[%q,"example.com/forever"]}}`, teamspace.Finalizer)},
			"may only add or remove the finalizer platform.labhub.io/cleanup on TeamSpace " + alpha},
	}
	psa := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-psa%s","labels":{%q:"psa%s","pod-security.kubernetes.io/enforce":"privileged"}}}`, sfx, teamspace.OwnerLabel, sfx)
	for _, tt := range denied {
		t.Run(tt.review, func(t *testing.T) {
			before := rv(tt.target.kind, tt.target.ns, tt.target.name)
			cmd := exec.CommandContext(e.Ctx, c.Kubectl(), append(tt.args, "--as="+identity.Username)...)
			cmd.Env = c.Env()
			if tt.args[0] == "create" && tt.args[1] == "-f" {
				cmd.Stdin = strings.NewReader(psa)
			}
			b, err := cmd.CombinedOutput()
			out := string(b)
			// kubectl says "(Forbidden)", or for `create quota` "is forbidden".
			if err == nil || !(strings.Contains(out, "(Forbidden)") || strings.Contains(out, "is forbidden:")) ||
				!strings.Contains(out, "ValidatingAdmissionPolicy '"+identity.Policy+"'") || !strings.Contains(out, tt.msg) {
				t.Fatalf("kubectl %s --as=%s: err %v, output %q; want Forbidden by %s saying %q",
					strings.Join(tt.args, " "), identity.Username, err, out, identity.Policy, tt.msg)
			}
			if after := rv(tt.target.kind, tt.target.ns, tt.target.name); after != before {
				t.Errorf("%s %s changed although refused: resourceVersion %q → %q", tt.target.kind, tt.target.name, before, after)
			}
		})
	}

	// What the engines (and a learner's kubectl) write is allowed.
	allowed := []struct {
		what string
		args []string
	}{
		{"create team-quota in a TeamSpace's namespace", []string{"create", "quota", teamspace.QuotaName, "-n", alphaNS, "--hard=pods=3"}},
		{"patch it back to the spec", []string{"patch", "quota", teamspace.QuotaName, "-n", alphaNS, "--type=merge", "-p",
			fmt.Sprintf(`{"metadata":{"labels":{%q:%q}},"spec":{"hard":{"pods":"3","requests.cpu":"500m"}}}`, teamspace.OwnerLabel, alpha)}},
		{"set an owner where there is none, naming the namespace's TeamSpace", []string{"patch", "namespace", "team-" + adopt, "--type=merge", "-p",
			fmt.Sprintf(`{"metadata":{"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":%q,"uid":%q,"controller":true}]}}`, teamspace.APIVersion, teamspace.Kind, adopt, adoptTS.GetUID())}},
		{"remove our finalizer", []string{"patch", "teamspace", alpha, "--type=merge", "-p", `{"metadata":{"finalizers":[]}}`}},
		{"add it back", []string{"patch", "teamspace", alpha, "--type=merge", "-p", fmt.Sprintf(`{"metadata":{"finalizers":[%q]}}`, teamspace.Finalizer)}},
		{"write status through /status", []string{"patch", "teamspace", alpha, "--subresource=status", "--type=merge", "-p",
			fmt.Sprintf(`{"status":{"observedGeneration":1,"namespace":%q}}`, alphaNS)}},
	}
	for _, tt := range allowed {
		if out, err := asSA(tt.args...); err != nil {
			t.Errorf("%s: kubectl %s --as=%s: %v\n%s", tt.what, strings.Join(tt.args, " "), identity.Username, err, out)
		}
	}
	// The drift the lab makes: our label removed by hand; the identity puts
	// it back on a namespace that is ours by its owner.
	e.Kubectl(nil, "label", "namespace", alphaNS, teamspace.OwnerLabel+"-")
	if out, err := asSA("label", "namespace", alphaNS, teamspace.OwnerLabel+"="+alpha); err != nil {
		t.Errorf("restore the label on %s: %v\n%s", alphaNS, err, out)
	}
	// And a namespace created as the engines create it.
	created := "new" + sfx
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-%s","labels":{%q:%q},"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":%q,"uid":"%s","controller":true}]}}`,
		created, teamspace.OwnerLabel, created, teamspace.APIVersion, teamspace.Kind, created, ts.GetUID())
	cmd := exec.CommandContext(e.Ctx, c.Kubectl(), "create", "--dry-run=server", "-f", "-", "--as="+identity.Username)
	cmd.Env, cmd.Stdin = c.Env(), strings.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("create namespace team-%s as the engines do: %v\n%s", created, err, out)
	}
	// Release alpha so that the cleanup's delete is not held by nobody.
	e.Dyn.Resource(teamspace.GVR).Patch(e.Ctx, alpha, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
}

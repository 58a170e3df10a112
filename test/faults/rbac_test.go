package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestLeastPrivilege provisions the service's identity exactly as `cnpa
// step 4` does (identity.Apply: assets/rbac.yaml and the admission policy
// of assets/admission.yaml, a kubeconfig with the ServiceAccount's token)
// and holds it to what it must and must not do. Phases:
//   - can-i: a table of `kubectl auth can-i --as=<the ServiceAccount>`,
//     every verb the engines use allowed and the excess denied;
//   - policy: real writes as that identity that RBAC allows but the
//     policy refuses (kube-system, a stranger's namespace, quotas outside
//     team namespaces), each proven to have changed nothing, and the
//     writes the engines make still allowed;
//   - go and shell: both engines converge under it with nothing refused
//     (create, finalizer, quota restored, spec change, archive and release);
//   - removed: identity.Remove (what `cnpa reset` calls) deletes it all,
//     and the token no longer authenticates.
func TestLeastPrivilege(t *testing.T) {
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
	// The go phase elects a leader under the identity: its Lease, and a
	// Role for that Lease alone, come with it (identity.ApplyFor).
	const lease = "cnpa-faults-rbac"
	kc, err := identity.ApplyFor(e.Ctx, admin, adminClients, 2*time.Minute, lease)
	if err != nil {
		t.Fatalf("identity.ApplyFor: %v", err)
	}
	t.Cleanup(func() { identity.Remove(context.Background(), adminClients) })
	kubeconfig := filepath.Join(t.TempDir(), "cnpa-op.kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	rc, err := clientcmd.RESTConfigFromKubeConfig(kc)
	if err != nil {
		t.Fatal(err)
	}
	sa := kubernetes.NewForConfigOrDie(rc)

	t.Run("can-i", func(t *testing.T) {
		const ts = "teamspaces.platform.labhub.io"
		tests := []struct {
			args []string
			want bool
		}{
			// What the engines do.
			{[]string{"get", ts}, true},
			{[]string{"list", ts}, true},
			{[]string{"watch", ts}, true},
			{[]string{"patch", ts}, true},
			{[]string{"get", ts, "--subresource=status"}, true},
			{[]string{"patch", ts, "--subresource=status"}, true},
			{[]string{"get", "namespaces"}, true},
			{[]string{"list", "namespaces"}, true},
			{[]string{"watch", "namespaces"}, true},
			{[]string{"create", "namespaces"}, true},
			{[]string{"patch", "namespaces"}, true},
			{[]string{"get", "resourcequotas", "-n", "team-x"}, true},
			{[]string{"list", "resourcequotas", "-A"}, true},
			{[]string{"watch", "resourcequotas", "-A"}, true},
			{[]string{"create", "resourcequotas", "-n", "team-x"}, true},
			{[]string{"patch", "resourcequotas", "-n", "team-x"}, true},
			{[]string{"create", "events", "-n", "default"}, true},
			{[]string{"patch", "events", "-n", "default"}, true},
			{[]string{"get", "leases.coordination.k8s.io/" + lease, "-n", "kube-system"}, true},
			{[]string{"update", "leases.coordination.k8s.io/" + lease, "-n", "kube-system"}, true},
			// Only that Lease, only events in default, only create (the
			// review's M2).
			{[]string{"get", "leases.coordination.k8s.io/kube-scheduler", "-n", "kube-system"}, false},
			{[]string{"update", "leases.coordination.k8s.io/kube-scheduler", "-n", "kube-system"}, false},
			{[]string{"update", "leases.coordination.k8s.io/kube-controller-manager", "-n", "kube-system"}, false},
			{[]string{"create", "leases.coordination.k8s.io", "-n", "kube-system"}, false},
			{[]string{"create", "events", "-n", "kube-system"}, false},
			{[]string{"create", "events", "-n", "team-x"}, false},
			{[]string{"patch", "events", "-n", "kube-system"}, false},
			// What the old role granted beyond that.
			{[]string{"update", ts}, false},
			{[]string{"update", ts, "--subresource=status"}, false},
			{[]string{"patch", ts, "--subresource=finalizers"}, false},
			{[]string{"update", ts, "--subresource=finalizers"}, false},
			{[]string{"update", "namespaces"}, false},
			{[]string{"update", "resourcequotas", "-n", "team-x"}, false},
			{[]string{"create", "events.events.k8s.io", "-n", "default"}, false},
			{[]string{"patch", "events.events.k8s.io", "-n", "default"}, false},
			// What it must never do.
			{[]string{"create", ts}, false},
			{[]string{"delete", ts}, false},
			{[]string{"delete", "namespaces"}, false},
			{[]string{"delete", "resourcequotas", "-n", "team-x"}, false},
			{[]string{"list", "secrets", "-A"}, false},
			{[]string{"get", "secrets", "-n", "kube-system"}, false},
			{[]string{"create", "serviceaccounts/token", "-n", "kube-system"}, false},
			{[]string{"list", "pods", "-A"}, false},
			{[]string{"create", "pods", "-n", "default"}, false},
			{[]string{"create", "leases.coordination.k8s.io", "-n", "default"}, false},
			{[]string{"delete", "leases.coordination.k8s.io", "-n", "kube-system"}, false},
			{[]string{"list", "clusterrolebindings"}, false},
			{[]string{"bind", "clusterroles"}, false},
			{[]string{"escalate", "clusterroles"}, false},
			{[]string{"impersonate", "users"}, false},
			{[]string{"patch", "validatingadmissionpolicies.admissionregistration.k8s.io"}, false},
			{[]string{"delete", "validatingadmissionpolicybindings.admissionregistration.k8s.io"}, false},
		}
		for _, tt := range tests {
			if got := canI(t, c, tt.args...); got != tt.want {
				t.Errorf("kubectl auth can-i %s --as=%s: got %v, want %v", strings.Join(tt.args, " "), identity.Username, got, tt.want)
			}
		}
	})

	t.Run("policy", func(t *testing.T) {
		suffix := fmt.Sprint(time.Now().UnixNano() % 1000000)
		stranger := "stranger-" + suffix
		strangerTeam := "team-stranger" + suffix // a team-* namespace that is not a TeamSpace's
		for _, ns := range []string{stranger, strangerTeam} {
			if _, err := e.Kube.CoreV1().Namespaces().Create(e.Ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Kube.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
		}
		ghostOwner := fmt.Sprintf(`{"metadata":{"labels":{%q:"ghost"},"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":"ghost","uid":"00000000-0000-0000-0000-000000000000"}]}}`,
			teamspace.OwnerLabel, teamspace.APIVersion, teamspace.Kind)
		quota := func(name string) *corev1.ResourceQuota {
			return &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")}}}
		}
		patchNS := func(name, patch string) error {
			_, err := sa.CoreV1().Namespaces().Patch(e.Ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			return err
		}
		createNS := func(name string, labels map[string]string) error {
			_, err := sa.CoreV1().Namespaces().Create(e.Ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{})
			return err
		}
		denied := []struct {
			what string
			do   func() error
		}{
			{"label kube-system", func() error {
				return patchNS("kube-system", `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"restricted"}}}`)
			}},
			{"give kube-public a ghost TeamSpace owner (the GC would delete it)", func() error { return patchNS("kube-public", ghostOwner) }},
			{"give a stranger's namespace a ghost TeamSpace owner", func() error { return patchNS(stranger, ghostOwner) }},
			{"take over a stranger's team-* namespace with our label", func() error {
				return patchNS(strangerTeam, fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, teamspace.OwnerLabel, strings.TrimPrefix(strangerTeam, "team-")))
			}},
			{"create team-quota in kube-system", func() error {
				_, err := sa.CoreV1().ResourceQuotas("kube-system").Create(e.Ctx, quota(teamspace.QuotaName), metav1.CreateOptions{})
				return err
			}},
			{"create team-quota in a stranger's namespace", func() error {
				_, err := sa.CoreV1().ResourceQuotas(stranger).Create(e.Ctx, quota(teamspace.QuotaName), metav1.CreateOptions{})
				return err
			}},
			{"create team-quota in a stranger's team-* namespace", func() error {
				_, err := sa.CoreV1().ResourceQuotas(strangerTeam).Create(e.Ctx, quota(teamspace.QuotaName), metav1.CreateOptions{})
				return err
			}},
			{"create a namespace not named team-*", func() error {
				return createNS("evil-"+suffix, map[string]string{teamspace.OwnerLabel: "evil-" + suffix})
			}},
			{"create a team-* namespace without the label", func() error { return createNS("team-nolabel"+suffix, nil) }},
			{"create a team-* namespace labelled for another TeamSpace", func() error {
				return createNS("team-mislabel"+suffix, map[string]string{teamspace.OwnerLabel: "other"})
			}},
		}
		for _, tt := range denied {
			if err := tt.do(); !identity.IsPolicyDenial(err) {
				t.Errorf("as %s, %s: got %v, want a refusal by ValidatingAdmissionPolicy %s", identity.Username, tt.what, err, identity.Policy)
			} else {
				t.Logf("refused to %s: %v", tt.what, err)
			}
		}
		// Refused means nothing changed.
		for _, name := range []string{"kube-system", "kube-public", stranger, strangerTeam} {
			ns, err := e.Kube.CoreV1().Namespaces().Get(e.Ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(ns.OwnerReferences) > 0 || ns.Labels[teamspace.OwnerLabel] != "" || ns.Labels["pod-security.kubernetes.io/enforce"] != "" {
				t.Errorf("namespace %s changed although refused: labels %v owners %v", name, ns.Labels, ns.OwnerReferences)
			}
		}
		for _, ns := range []string{"kube-system", stranger, strangerTeam} {
			if _, err := e.Kube.CoreV1().ResourceQuotas(ns).Get(e.Ctx, teamspace.QuotaName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("%s/%s: got %v, want NotFound", ns, teamspace.QuotaName, err)
			}
		}
		for _, ns := range []string{"evil-" + suffix, "team-nolabel" + suffix, "team-mislabel" + suffix} {
			if _, err := e.Kube.CoreV1().Namespaces().Get(e.Ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("namespace %s: got %v, want NotFound", ns, err)
			}
		}
		// RBAC, not the policy, refuses what the role lacks.
		if err := sa.CoreV1().Namespaces().Delete(e.Ctx, stranger, metav1.DeleteOptions{}); !apierrors.IsForbidden(err) || identity.IsPolicyDenial(err) {
			t.Errorf("delete namespace %s as %s: got %v, want Forbidden by RBAC", stranger, identity.Username, err)
		}

		// What the engines write is allowed: a TeamSpace's namespace (our
		// label, a TeamSpace owner), then its quota; and a patch of it.
		own := "team-lp" + suffix
		if err := createNS(own, map[string]string{teamspace.OwnerLabel: strings.TrimPrefix(own, "team-")}); err != nil {
			t.Fatalf("create %s as %s: %v", own, identity.Username, err)
		}
		t.Cleanup(func() { e.Kube.CoreV1().Namespaces().Delete(context.Background(), own, metav1.DeleteOptions{}) })
		if _, err := sa.CoreV1().ResourceQuotas(own).Create(e.Ctx, quota(teamspace.QuotaName), metav1.CreateOptions{}); err != nil {
			t.Errorf("create %s/%s as %s: %v", own, teamspace.QuotaName, identity.Username, err)
		}
		if err := patchNS(own, fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, teamspace.OwnerLabel, strings.TrimPrefix(own, "team-"))); err != nil {
			t.Errorf("patch %s as %s: %v", own, identity.Username, err)
		}
		// But only team-quota, even there.
		if _, err := sa.CoreV1().ResourceQuotas(own).Create(e.Ctx, quota("other"), metav1.CreateOptions{}); !identity.IsPolicyDenial(err) {
			t.Errorf("create %s/other as %s: got %v, want a refusal by the policy", own, identity.Username, err)
		}
	})

	t.Run("go", func(t *testing.T) {
		e := e.For(t)
		dir := t.TempDir()
		mark, err := c.AuditMark()
		if err != nil {
			t.Fatal(err)
		}
		p := e.StartController("least-privilege", kit.CtrlOpts{Kubeconfig: kubeconfig, ArchiveDir: dir, Args: kit.LeaderArgs(lease)})
		e.WaitFor("the ServiceAccount's controller holds the lease", time.Minute, e.LeaseHolder(lease, p.Identity()))
		uid := coreBehaviour(e, "rbac-core")
		rec, _ := readRecord(t, dir, "rbac-core")
		if rec.UID != string(uid) || rec.Pods != 9 {
			t.Errorf("archive under least privilege: got %+v, want uid %s pods 9", rec, uid)
		}
		// Its events were accepted (they go to "default": TeamSpaces are
		// cluster-scoped).
		e.WaitFor("events written by the ServiceAccount's controller", time.Minute, func() error {
			evs, err := e.Kube.CoreV1().Events("default").List(e.Ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=rbac-core"})
			if err != nil {
				return err
			}
			reasons := map[string]bool{}
			for _, ev := range evs.Items {
				if ev.Source.Component == "cnpa-controller" {
					reasons[ev.Reason] = true
				}
			}
			if !reasons["Synced"] || !reasons["DriftCorrected"] || !reasons["Archived"] {
				return fmt.Errorf("events by reason so far: %v", reasons)
			}
			return nil
		})
		// A clean stop releases the lease, also under least privilege.
		p.Stop()
		e.WaitFor("lease released on SIGTERM", time.Minute, e.LeaseHolder(lease, ""))
		// Nothing the controller tried was refused: not a reconcile, not the
		// lease, not an event.
		if refused := kit.GrepLines(p.Log(), `(?i)forbidden|cannot (get|list|watch|create|update|patch)`); len(refused) > 0 {
			t.Errorf("controller under rbac.yaml was refused %d times (rbac.yaml lacks something):\n%s", len(refused), strings.Join(refused, "\n"))
		}
		// The leader election Role, held to the audit log (every request of
		// the identity): each verb it grants was used, on that Lease, and
		// every Lease request it made is one the Role grants.
		evs, err := c.AuditSince(mark, identity.Username)
		if err != nil {
			t.Fatal(err)
		}
		var leaseReqs []cluster.AuditEvent
		for _, ev := range evs {
			if ev.ObjectRef.Resource == "leases" {
				leaseReqs = append(leaseReqs, ev)
			}
		}
		le, _ := identity.LeaderElection(lease)
		grants, err := kit.Grants(le)
		if err != nil {
			t.Fatal(err)
		}
		if unused, uncovered := kit.RBACUnused(grants, leaseReqs); len(unused)+len(uncovered) > 0 || len(leaseReqs) == 0 {
			t.Errorf("leader election under the identity (%d Lease requests): grants unused %v, requests no grant covers %v", len(leaseReqs), unused, uncovered)
		}
		slogErrs, klogErrs, lines := logErrors(p.Log())
		t.Logf("Go engine under the ServiceAccount: %d log lines, %d error lines, lease held by %s", lines, slogErrs+klogErrs, p.Identity())
	})

	t.Run("shell", func(t *testing.T) {
		e := e.For(t)
		dir := t.TempDir()
		script, err := labenv.ScriptFor(labenv.Script{Engine: labenv.EngineShell, Kubeconfig: c.Kubeconfig, Dir: dir, Finalizer: true})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, labenv.ScriptName)
		if err := os.WriteFile(path, script, 0o755); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		pass := func() {
			cmd := exec.CommandContext(e.Ctx, path)
			// The environment wins over the admin kubeconfig pinned in the
			// script, as in the unit.
			cmd.Env = append(c.Env(), "KUBECONFIG="+kubeconfig, "KUBECACHEDIR="+filepath.Join(dir, ".kube-cache"),
				"CNPA_ARCHIVE_DIR="+filepath.Join(dir, evidence.ArchiveDir))
			b, _ := cmd.CombinedOutput()
			out.Write(b)
		}
		// The script is one pass: a loop stands in for the unit's.
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				pass()
				time.Sleep(500 * time.Millisecond)
			}
		}()
		uid := coreBehaviour(e, "rbac-shell")
		close(stop)
		<-done
		rec, _ := readRecord(t, filepath.Join(dir, evidence.ArchiveDir), "rbac-shell")
		if rec.UID != string(uid) || rec.Pods != 9 {
			t.Errorf("shell archive under least privilege: got %+v, want uid %s pods 9", rec, uid)
		}
		if refused := kit.GrepLines(out.String(), `(?i)forbidden|cannot (get|list|watch|create|update|patch)`); len(refused) > 0 {
			t.Errorf("reconcile.sh under rbac.yaml was refused %d times:\n%s", len(refused), strings.Join(refused, "\n"))
		}
	})

	t.Run("removed", func(t *testing.T) {
		removed, err := identity.Remove(e.Ctx, adminClients)
		if err != nil {
			t.Fatal(err)
		}
		le, _ := identity.LeaderElection(lease)
		objs, _ := identity.Objects(append(identity.Manifests(), le)...)
		if len(removed) != len(objs) {
			t.Errorf("identity.Remove deleted %d objects, want all %d: %v", len(removed), len(objs), removed)
		}
		if present, err := identity.Present(e.Ctx, adminClients); err != nil || present {
			t.Errorf("after Remove: present %v, err %v", present, err)
		}
		// The token died with its Secret.
		e.WaitFor("the deleted token no longer authenticates", time.Minute, func() error {
			_, err := sa.CoreV1().Namespaces().List(e.Ctx, metav1.ListOptions{Limit: 1})
			if apierrors.IsUnauthorized(err) {
				return nil
			}
			return fmt.Errorf("list namespaces with the removed token: %v", err)
		})
	})
}

// coreBehaviour drives one TeamSpace through what the lab asks of a
// controller and returns its uid: created → finalizer, namespace, quota,
// status; quota deleted → restored with a new uid; spec changed →
// converged; deleted → archived and gone.
func coreBehaviour(e *kit.Env, name string) types.UID {
	t := e.T
	uid := e.Create(name, 7, "750m").GetUID()
	e.WaitFor(name+" converged under least privilege", 2*time.Minute, e.Converged(name, 7, "750m", true))
	ns := teamspace.NamespaceName(name)
	q, err := e.GetQuota(ns)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Kube.CoreV1().ResourceQuotas(ns).Delete(e.Ctx, teamspace.QuotaName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.WaitFor("deleted quota restored under least privilege", 2*time.Minute, func() error {
		if err := e.Converged(name, 7, "750m", true)(); err != nil {
			return err
		}
		if nq, _ := e.GetQuota(ns); nq.UID == q.UID {
			return fmt.Errorf("quota still has the deleted uid %s", q.UID)
		}
		return nil
	})
	e.PatchSpec(name, map[string]any{"pods": 9})
	e.WaitFor("spec change converged under least privilege", 2*time.Minute, e.Converged(name, 9, "750m", true))
	e.RemoveAll(name)
	return uid
}

// canI asks `kubectl auth can-i ARGS --as=<the service's ServiceAccount>`
// as the admin: exit 0 and "yes" is allowed, exit 1 and "no" denied.
func canI(t *testing.T, c *cluster.Cluster, args ...string) bool {
	t.Helper()
	cmd := exec.Command(c.Kubectl(), append(append([]string{"auth", "can-i"}, args...), "--as="+identity.Username)...)
	cmd.Env = c.Env()
	out, err := cmd.Output()
	answer := strings.TrimSpace(string(out))
	var exit *exec.ExitError
	switch {
	case err == nil && answer == "yes":
		return true
	case errors.As(err, &exit) && exit.ExitCode() == 1 && strings.HasPrefix(answer, "no"):
		return false
	}
	t.Fatalf("kubectl auth can-i %s: %v: %q", strings.Join(args, " "), err, answer)
	return false
}

// TestServiceUnitHardening renders cnpa-op.service as `cnpa step 4`
// installs it, for the lab's own paths and for odd ones (a space, `%`,
// `$(…)`, `}`, a quote: kit.OddDir), and checks the hardening lines the
// lab relies on, each as a whole line of the [Service] section, with the
// evidence dir in ReadWritePaths= escaped as systemd reads it. systemd
// itself then reads each unit offline: `systemd-analyze verify` without a
// word of complaint, and `security --offline=yes` with no warning and the
// same exposure score whatever the paths.
func TestServiceUnitHardening(t *testing.T) {
	self, err := os.Executable() // a program that exists, for verify
	if err != nil {
		t.Fatal(err)
	}
	odd, marker := kit.OddDir(t.TempDir())
	var scores []string
	for _, tt := range []struct{ name, dir, kubeconfig string }{
		{"lab paths", "/root/cnpa-op", "/etc/rancher/k3s/k3s.yaml"},
		{"odd paths", odd, filepath.Join(odd, "kube config")},
	} {
		for _, engine := range []string{"go", "shell"} {
			t.Run(tt.name+"/"+engine, func(t *testing.T) {
				archive := tt.dir + "/archive"
				argv := []string{self, "controller", "--kubeconfig", tt.kubeconfig, "--archive-dir", archive}
				if engine == "shell" {
					argv = []string{"/bin/bash", "-c", "while true; do '" + strings.ReplaceAll(tt.dir, "'", `'\''`) + "/reconcile.sh'; sleep 3; done"}
				}
				u := service.Unit{Engine: engine, Argv: argv, Kubeconfig: tt.kubeconfig, Path: "/usr/local/bin:/usr/bin:/bin", ArchiveDir: archive, Dir: tt.dir}
				b, err := u.Render()
				if err != nil {
					t.Fatal(err)
				}
				section := map[string]string{}
				current := ""
				for _, l := range strings.Split(string(b), "\n") {
					l = strings.TrimSpace(l)
					switch {
					case strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]"):
						current = l
					case l != "" && !strings.HasPrefix(l, "#"):
						section[l] = current
					}
				}
				for _, want := range []string{
					"NoNewPrivileges=yes",
					"ProtectSystem=strict",
					`ReadWritePaths="` + strings.ReplaceAll(tt.dir, "%", "%%") + `"`,
					"PrivateTmp=yes",
					"ProtectHome=read-only",
					"Restart=always",
				} {
					if got, ok := section[want]; !ok || got != "[Service]" {
						t.Errorf("unit line %q: got section %q (present %v), want it in [Service]\n%s", want, got, ok, b)
					}
				}
				kit.VerifyUnit(t, b)
				path := filepath.Join(t.TempDir(), service.Name)
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				out, err := kit.SystemdAnalyze(t, "security", "--offline=yes", path)
				if err != nil || strings.Contains(out, path+":") {
					t.Errorf("systemd-analyze security --offline=yes: %v, want it to read the unit without a warning:\n%s", err, out)
				}
				i := strings.Index(out, "Overall exposure level")
				if i < 0 {
					t.Fatalf("systemd-analyze security printed no exposure level:\n%s", out)
				}
				score, _, _ := strings.Cut(out[i:], "\n")
				t.Logf("%s", score)
				scores = append(scores, engine+": "+score[strings.LastIndex(score, ":")+1:])
			})
		}
	}
	// Odd paths lose no hardening: each engine scores as with the lab's paths.
	if len(scores) == 4 && (scores[0] != scores[2] || scores[1] != scores[3]) {
		t.Errorf("exposure with odd paths differs: got %q (lab go, lab shell, odd go, odd shell)", scores)
	}
	kit.NoMarker(t, marker)
}

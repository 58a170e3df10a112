package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/testcluster"
	"github.com/labhub/cnpa/test/kit"
)

// TestLeastPrivilege runs the controller with nothing but assets/rbac.yaml:
// a token minted for the cnpa-controller ServiceAccount, in a kubeconfig of
// its own. Phases: the whole core behaviour works under leader election
// (create → finalizer, namespace, quota, status; quota deleted → restored;
// delete → archive and release), with no request refused along the way;
// then the same identity is refused what it must never do.
func TestLeastPrivilege(t *testing.T) {
	c := testcluster.Shared(t)
	e := kit.New(t, c)
	e.Kubectl(assets.RBAC, "apply", "-f", "-")
	exp := int64(3600)
	tr, err := e.Kube.CoreV1().ServiceAccounts("kube-system").CreateToken(e.Ctx, "cnpa-controller",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("mint a token for kube-system/cnpa-controller: %v", err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "cnpa-controller.kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(testcluster.KubeconfigFor(c.Server, tr.Status.Token)), 0o600); err != nil {
		t.Fatal(err)
	}
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	sa := kubernetes.NewForConfigOrDie(rc)
	saDyn := dynamic.NewForConfigOrDie(rc)
	// RBAC objects reach the authorizer through its informers: wait until
	// the token can do what the role grants.
	e.WaitFor("the ServiceAccount may list TeamSpaces", time.Minute, func() error {
		_, err := saDyn.Resource(teamspace.GVR).List(e.Ctx, metav1.ListOptions{Limit: 1})
		return err
	})

	const lease = "cnpa-faults-rbac"
	dir := t.TempDir()
	p := e.StartController("least-privilege", kit.CtrlOpts{Kubeconfig: kubeconfig, ArchiveDir: dir, Args: kit.LeaderArgs(lease)})
	e.WaitFor("the ServiceAccount's controller holds the lease", time.Minute, e.LeaseHolder(lease, p.Identity()))

	const name = "rbac-core"
	uid := e.Create(name, 7, "750m").GetUID()
	e.WaitFor(name+" converged under least privilege", time.Minute, e.Converged(name, 7, "750m", true))

	q, err := e.GetQuota(teamspace.NamespaceName(name))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Kube.CoreV1().ResourceQuotas(teamspace.NamespaceName(name)).Delete(e.Ctx, teamspace.QuotaName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.WaitFor("deleted quota restored under least privilege", time.Minute, func() error {
		if err := e.Converged(name, 7, "750m", true)(); err != nil {
			return err
		}
		if nq, _ := e.GetQuota(teamspace.NamespaceName(name)); nq.UID == q.UID {
			return fmt.Errorf("quota still has the deleted uid %s", q.UID)
		}
		return nil
	})

	e.PatchSpec(name, map[string]any{"pods": 9})
	e.WaitFor("spec change converged under least privilege", time.Minute, e.Converged(name, 9, "750m", true))

	e.RemoveAll(name)
	rec, _ := readRecord(t, dir, name)
	if rec.UID != string(uid) || rec.Pods != 9 {
		t.Errorf("archive under least privilege: got %+v, want uid %s pods 9", rec, uid)
	}

	// Its events were accepted (they go to "default": TeamSpaces are
	// cluster-scoped).
	e.WaitFor("events written by the ServiceAccount's controller", time.Minute, func() error {
		evs, err := e.Kube.CoreV1().Events("default").List(e.Ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
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
	slogErrs, klogErrs, lines := logErrors(p.Log())
	t.Logf("core behaviour under the ServiceAccount token: %d log lines, %d error lines, lease held by %s", lines, slogErrs+klogErrs, p.Identity())

	// And what it must never do.
	tests := []struct {
		what string
		do   func() error
	}{
		{"list secrets in every namespace", func() error {
			_, err := sa.CoreV1().Secrets("").List(e.Ctx, metav1.ListOptions{})
			return err
		}},
		{"read a secret in kube-system", func() error {
			_, err := sa.CoreV1().Secrets("kube-system").Get(e.Ctx, "anything", metav1.GetOptions{})
			return err
		}},
		{"delete a namespace", func() error {
			return sa.CoreV1().Namespaces().Delete(e.Ctx, "default", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
		}},
		{"delete a team quota", func() error {
			return sa.CoreV1().ResourceQuotas("default").Delete(e.Ctx, teamspace.QuotaName, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
		}},
		{"delete a TeamSpace", func() error {
			return saDyn.Resource(teamspace.GVR).Delete(e.Ctx, "anything", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
		}},
		{"create a TeamSpace", func() error {
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": teamspace.APIVersion, "kind": teamspace.Kind,
				"metadata": map[string]any{"name": "rbac-forbidden"}, "spec": map[string]any{"pods": int64(1)}}}
			_, err := saDyn.Resource(teamspace.GVR).Create(e.Ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		}},
		{"list pods", func() error {
			_, err := sa.CoreV1().Pods("default").List(e.Ctx, metav1.ListOptions{})
			return err
		}},
		{"list role bindings", func() error {
			_, err := sa.RbacV1().ClusterRoleBindings().List(e.Ctx, metav1.ListOptions{})
			return err
		}},
	}
	for _, tt := range tests {
		if err := tt.do(); !apierrors.IsForbidden(err) {
			t.Errorf("ServiceAccount may %s: got %v, want Forbidden", tt.what, err)
		} else {
			t.Logf("refused to %s: %v", tt.what, err)
		}
	}
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

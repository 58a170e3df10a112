// Package doctor is the preflight behind `cnpa doctor`: one result per thing
// the lab needs, each with a fix.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/safefs"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Result is one preflight line.
type Result struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Needed bool   `json:"needed"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Report is the whole preflight. Unreachable is set when the cluster could
// not be reached at all (exit code 2).
type Report struct {
	Results     []Result `json:"results"`
	Unreachable bool     `json:"unreachable"`
}

// OK tells whether every needed check passed.
func (r *Report) OK() bool {
	for _, x := range r.Results {
		if x.Needed && !x.OK {
			return false
		}
	}
	return true
}

// Run checks, in order: the kubeconfig, the API server, its datastore (a
// fact, never a failure), the CRD, kubectl, jq, systemd and the evidence dir.
// The cluster checks stop at the first that cannot reach it; the local ones
// always run.
func Run(ctx context.Context, kubeconfigFlag, kctx, dir string) *Report {
	r := &Report{}
	add := func(x Result) { r.Results = append(r.Results, x) }

	target, err := kube.Resolve(kubeconfigFlag, kctx)
	if err != nil {
		path, source := kube.Locate(kubeconfigFlag)
		add(Result{Name: "kubeconfig", Needed: true, Detail: fmt.Sprintf("%s (%s): %v", path, source, err),
			Fix: "pass --kubeconfig, set KUBECONFIG, or install k3s (" + kube.K3sKubeconfig + ")"})
		r.Unreachable = true
	} else {
		add(Result{Name: "kubeconfig", OK: true, Needed: true, Detail: fmt.Sprintf("%s (%s, context %s)", target.Path, target.Source, target.Context)})
		clients, err := kube.NewClients(target)
		var version string
		if err == nil {
			var v interface{ String() string }
			v, err = clients.Kube.Discovery().ServerVersion()
			if err == nil {
				version = v.String()
			}
		}
		if err != nil {
			add(Result{Name: "api server", Needed: true, Detail: fmt.Sprintf("%s unreachable (kubeconfig %s): %v", target.Server, target.Path, err),
				Fix: "start the cluster (k3s: systemctl start k3s) or point --kubeconfig at a running one"})
			r.Unreachable = true
		} else {
			add(Result{Name: "api server", OK: true, Needed: true, Detail: fmt.Sprintf("%s, server %s", target.Server, version)})
			add(datastoreCheck(ctx, clients.Kube))
			_, err := clients.Dynamic.Resource(teamspace.CRDGVR).Get(ctx, teamspace.CRDName, metav1.GetOptions{})
			switch {
			case err == nil:
				add(Result{Name: "crd", OK: true, Detail: teamspace.CRDName + " installed"})
			case apierrors.IsNotFound(err):
				add(Result{Name: "crd", OK: true, Detail: teamspace.CRDName + " not installed yet", Fix: "`cnpa step 1` installs it"})
			default:
				add(Result{Name: "crd", Detail: err.Error(), Fix: "the kubeconfig's user must be allowed to read CRDs"})
			}
		}
	}
	add(kubectlCheck(ctx))
	add(toolCheck(ctx, "jq", []string{"--version"}, "apt-get install -y jq"))
	if service.SystemdRunning() {
		add(Result{Name: "systemd", OK: true, Detail: "running: cnpa-op.service will be a systemd unit"})
	} else {
		add(Result{Name: "systemd", OK: true, Detail: "not running: cnpa-op runs as a detached process (--service-manager process)"})
	}
	add(dirCheck(dir))
	add(trustCheck(dir))
	return r
}

// trustCheck: run as root, cnpa executes reconcile.sh and reads the
// kubeconfigs in the evidence dir; the dir, every dir above it and those
// files must be beyond another user's reach (safefs.Trusted).
func trustCheck(dir string) Result {
	res := Result{Name: "evidence dir owner", Needed: true}
	abs, _ := filepath.Abs(dir)
	for _, p := range []string{abs, filepath.Join(abs, "reconcile.sh"), filepath.Join(abs, "cnpa-op.context.kubeconfig"),
		filepath.Join(abs, "cnpa-op.kubeconfig"), filepath.Join(abs, "cnpa-op.argv.json")} {
		var u *safefs.UntrustedError
		if err := safefs.Trusted(p); errors.As(err, &u) {
			res.Detail = err.Error()
			res.Fix = "chmod go-w " + u.Part + "; chown root " + u.Part
			return res
		} else if err != nil {
			res.Detail = err.Error()
			return res
		}
	}
	res.OK, res.Detail = true, abs+": no other user can change what root runs or reads there"
	return res
}

var kubectlVersion = regexp.MustCompile(`v(\d+)\.(\d+)\.(\d+)`)

// kubectlCheck needs kubectl ≥ 1.24, the first with `patch --subresource`.
func kubectlCheck(ctx context.Context) Result {
	res := Result{Name: "kubectl", Needed: true, Fix: "install kubectl ≥ 1.24 (k3s ships one: /usr/local/bin/kubectl)"}
	path, err := exec.LookPath("kubectl")
	if err != nil {
		res.Detail = "not found on PATH"
		return res
	}
	out, _ := exec.CommandContext(ctx, path, "version", "--client").CombinedOutput()
	m := kubectlVersion.FindStringSubmatch(string(out))
	if m == nil {
		res.Detail = path + ": cannot read its version: " + strings.TrimSpace(string(out))
		return res
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	res.Detail = path + " " + m[0]
	if major > 1 || (major == 1 && minor >= 24) {
		res.OK = true
		res.Fix = ""
	} else {
		res.Detail += " is older than v1.24 (no `patch --subresource`)"
	}
	return res
}

func toolCheck(ctx context.Context, name string, versionArgs []string, fix string) Result {
	res := Result{Name: name, Needed: true, Fix: fix}
	path, err := exec.LookPath(name)
	if err != nil {
		res.Detail = "not found on PATH"
		return res
	}
	out, _ := exec.CommandContext(ctx, path, versionArgs...).CombinedOutput()
	res.OK, res.Fix = true, ""
	res.Detail = path + " " + strings.TrimSpace(string(out))
	return res
}

func dirCheck(dir string) Result {
	res := Result{Name: "evidence dir", Needed: true, Fix: "pass --dir to a writable directory"}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		res.Detail = dir + " is a file, not a directory"
		return res
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		res.Detail = err.Error()
		return res
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		res.Detail = dir + " is not writable: " + err.Error()
		return res
	}
	f.Close()
	os.Remove(f.Name())
	abs, _ := filepath.Abs(dir)
	res.OK, res.Fix, res.Detail = true, "", abs+" writable"
	return res
}

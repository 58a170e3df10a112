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

	"golang.org/x/sys/unix"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/labenv"
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
	// Warning is set on a passing result that is outside what is
	// supported (kubectl too far from the server's version).
	Warning string `json:"warning,omitempty"`
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

	var serverVersion string
	target, err := kube.Resolve(kubeconfigFlag, kctx)
	if err != nil {
		// kube.Resolve's message names the path, how it was chosen and
		// the fix that fits: a path the learner passed is to be checked,
		// not passed again.
		add(Result{Name: "kubeconfig", Needed: true, Detail: err.Error()})
		r.Unreachable = true
	} else {
		add(Result{Name: "kubeconfig", OK: true, Needed: true, Detail: i18n.T("doctor.kubeconfig.ok", i18n.Args{"Path": target.Path, "Source": kube.SourceWords(target.Source), "Context": target.Context})})
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
			add(Result{Name: "api server", Needed: true, Detail: i18n.T("doctor.api.unreachable", i18n.Args{"Server": target.Server, "Path": target.Path, "Err": err}),
				Fix: i18n.T("doctor.api.fix")})
			r.Unreachable = true
		} else {
			serverVersion = version
			add(Result{Name: "api server", OK: true, Needed: true, Detail: i18n.T("doctor.api.ok", i18n.Args{"Server": target.Server, "Version": version})})
			add(datastoreCheck(ctx, clients.Kube))
			_, err := clients.Dynamic.Resource(teamspace.CRDGVR).Get(ctx, teamspace.CRDName, metav1.GetOptions{})
			switch {
			case err == nil:
				add(Result{Name: "crd", OK: true, Detail: i18n.T("doctor.crd.installed", i18n.Args{"CRD": teamspace.CRDName})})
			case apierrors.IsNotFound(err):
				add(Result{Name: "crd", OK: true, Detail: i18n.T("doctor.crd.not_yet", i18n.Args{"CRD": teamspace.CRDName}), Fix: i18n.T("doctor.crd.fix")})
			default:
				add(Result{Name: "crd", Detail: err.Error(), Fix: i18n.T("doctor.crd.forbidden")})
			}
		}
	}
	add(kubectlCheck(ctx, serverVersion))
	add(toolCheck(ctx, "jq", []string{"--version"}, "apt-get install -y jq"))
	if service.SystemdRunning() {
		add(Result{Name: "systemd", OK: true, Detail: i18n.T("doctor.systemd.running")})
	} else {
		// Not a failure: process mode runs the whole lab (make cluster,
		// containers). But the lab's VM runs systemd, and a learner on a
		// machine without it should know before step 4 why the lab
		// text's systemctl commands find no cnpa-op.service.
		add(Result{Name: "systemd", OK: true, Detail: i18n.T("doctor.systemd.not_running"), Warning: i18n.T("doctor.systemd.not_the_vm")})
	}
	add(dirCheck(dir))
	add(trustCheck(dir))
	if x, found := stressDropInCheck(ctx, dir); found {
		add(x)
	}
	return r
}

// stressDropInCheck finds a drop-in of a cnpa stress run that ended
// without its cleanup (service.Leftovers) on the service the evidence
// dir's state names, removes it and restarts the service: a warning when
// that worked, a needed failure with the fix when it did not. found is
// false when there is none (no line at all).
func stressDropInCheck(ctx context.Context, dir string) (x Result, found bool) {
	st, err := labenv.LoadState(dir)
	if err != nil || st == nil {
		return x, false
	}
	unitDir := st.UnitDir
	if unitDir == "" {
		unitDir = labenv.DefaultUnitDir
	}
	m, err := service.New(st.ServiceManager, unitDir, dir)
	if err != nil {
		return x, false
	}
	left, err := service.RepairLeftovers(ctx, m)
	if len(left) == 0 {
		return x, false
	}
	x = Result{Name: "stress", Needed: true, OK: err == nil, Detail: service.SayLeftovers(left, err)}
	if err == nil {
		x.Warning = i18n.T("doctor.stress_dropin.repaired")
	}
	return x, true
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
	res.OK, res.Detail = true, i18n.T("doctor.owner.ok", i18n.Args{"Dir": abs})
	return res
}

var kubectlVersion = regexp.MustCompile(`v(\d+)\.(\d+)\.(\d+)`)

// kubectlCheck needs kubectl ≥ 1.24, the first with `patch --subresource`,
// and warns when it is more than one minor version away from the server
// (serverVersion, "" when unknown): kubectl's version skew policy supports
// ±1 minor (https://kubernetes.io/releases/version-skew-policy/#kubectl).
func kubectlCheck(ctx context.Context, serverVersion string) Result {
	res := Result{Name: "kubectl", Needed: true, Fix: i18n.T("doctor.kubectl.fix")}
	path, err := exec.LookPath("kubectl")
	if err != nil {
		res.Detail = i18n.T("doctor.not_on_path")
		return res
	}
	out, _ := exec.CommandContext(ctx, path, "version", "--client").CombinedOutput()
	m := kubectlVersion.FindStringSubmatch(string(out))
	if m == nil {
		res.Detail = i18n.T("doctor.kubectl.no_version", i18n.Args{"Path": path, "Out": strings.TrimSpace(string(out))})
		return res
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	res.Detail = path + " " + m[0]
	if major > 1 || (major == 1 && minor >= 24) {
		res.OK = true
		res.Fix = ""
	} else {
		res.Detail = i18n.T("doctor.kubectl.old", i18n.Args{"Kubectl": res.Detail})
		return res
	}
	res.Warning = Skew(m[0], serverVersion)
	return res
}

// Skew is the warning for a kubectl (client) more than one minor version
// from the API server (server), as kubectl's own skew policy words it, or
// "" when they are within it or either version is unknown.
func Skew(client, server string) string {
	c, s := kubectlVersion.FindStringSubmatch(client), kubectlVersion.FindStringSubmatch(server)
	if c == nil || s == nil {
		return ""
	}
	cMajor, _ := strconv.Atoi(c[1])
	cMinor, _ := strconv.Atoi(c[2])
	sMajor, _ := strconv.Atoi(s[1])
	sMinor, _ := strconv.Atoi(s[2])
	supported := i18n.T("doctor.skew.supported", i18n.Args{"From": fmt.Sprintf("v%d.%d", sMajor, max(sMinor-1, 0)), "To": fmt.Sprintf("v%d.%d", sMajor, sMinor+1)})
	if cMajor != sMajor {
		return i18n.T("doctor.skew.major", i18n.Args{"Client": c[0], "Server": s[0], "Supported": supported})
	}
	d := cMinor - sMinor
	if d >= -1 && d <= 1 {
		return ""
	}
	id := "doctor.skew.older"
	if d > 0 {
		id = "doctor.skew.newer"
	}
	if d < 0 {
		d = -d
	}
	return i18n.T(id, i18n.Args{"Client": c[0], "N": d, "Server": s[0], "Supported": supported})
}

func toolCheck(ctx context.Context, name string, versionArgs []string, fix string) Result {
	res := Result{Name: name, Needed: true, Fix: fix}
	path, err := exec.LookPath(name)
	if err != nil {
		res.Detail = i18n.T("doctor.not_on_path")
		return res
	}
	out, _ := exec.CommandContext(ctx, path, versionArgs...).CombinedOutput()
	res.OK, res.Fix = true, ""
	res.Detail = path + " " + strings.TrimSpace(string(out))
	return res
}

// dirCheck tells whether the evidence dir can be used, and creates nothing:
// a dir that does not exist yet is fine when step 1 can create it, that is
// when its nearest existing parent is a writable directory.
func dirCheck(dir string) Result {
	res := Result{Name: "evidence dir", Needed: true, Fix: i18n.T("doctor.dir.fix")}
	if dir == "" {
		res.Detail = i18n.T("doctor.dir.empty")
		return res
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		res.Detail = fmt.Sprintf("%s: %v", dir, err)
		return res
	}
	fi, err := os.Stat(abs)
	switch {
	case err == nil && !fi.IsDir():
		res.Detail = i18n.T("doctor.dir.file", i18n.Args{"Dir": abs})
		return res
	case err == nil:
		if err := unix.Access(abs, unix.W_OK|unix.X_OK); err != nil {
			res.Detail = i18n.T("doctor.dir.not_writable", i18n.Args{"Dir": abs, "Err": err})
			return res
		}
		res.OK, res.Fix, res.Detail = true, "", i18n.T("doctor.dir.writable", i18n.Args{"Dir": abs})
		return res
	case !errors.Is(err, os.ErrNotExist) && !errors.Is(err, unix.ENOTDIR):
		res.Detail = i18n.T("doctor.dir.unreadable", i18n.Args{"Dir": abs, "Err": err})
		return res
	}
	parent := filepath.Dir(abs)
	for {
		fi, err := os.Stat(parent)
		if err == nil {
			if !fi.IsDir() {
				res.Detail = i18n.T("doctor.dir.parent_file", i18n.Args{"Dir": abs, "Parent": parent})
				return res
			}
			break
		}
		if parent == filepath.Dir(parent) {
			break
		}
		parent = filepath.Dir(parent)
	}
	if err := unix.Access(parent, unix.W_OK|unix.X_OK); err != nil {
		res.Detail = i18n.T("doctor.dir.parent_not_writable", i18n.Args{"Dir": abs, "Parent": parent, "Err": err})
		return res
	}
	res.OK, res.Fix, res.Detail = true, "", i18n.T("doctor.dir.not_yet", i18n.Args{"Dir": abs})
	return res
}

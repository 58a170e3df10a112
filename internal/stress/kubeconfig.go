package stress

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/safefs"
	"github.com/labhub/cnpa/internal/service"
)

// kubeconfigDir is where a run keeps the proxy's kubeconfig: a directory
// no other local user can create a name in, so that a drop-in left by a
// run that died (kill -9, a reboot) never points at a path someone else
// can fill. Under systemd, /run (root's, emptied at boot; the hardened
// unit reads it, its /tmp being private); in process mode the evidence
// dir's own .cnpa, whose service runs as the user running cnpa. Never /tmp.
func kubeconfigDir(env *labenv.Env) (string, error) {
	if env.Service.Name() == "systemd" {
		return "/run", nil
	}
	dir := filepath.Join(env.Dir, lab.OwnDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, nil
}

// writeKubeconfig writes the kubeconfig that reaches the proxy at server:
// TLS pinned to the proxy's own certificate (ca) and the run's bearer
// token, no path and no command. The file is 0600 in a fresh 0700
// directory, both the service user's (root, the user running cnpa, or
// cnpa-op under systemd with the own identity): no other local user can
// read the token. It returns the directory, for the cleanup.
func writeKubeconfig(ctx context.Context, env *labenv.Env, server string, ca []byte, token string) (string, error) {
	base, err := kubeconfigDir(env)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(base, "cnpa-stress-") // 0700
	if err != nil {
		return "", err
	}
	if err := safefs.Trusted(dir); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	name := "cnpa-stress"
	if env.Target.Context != "" {
		// The same name: a unit that passes --context still finds it.
		name = env.Target.Context
	}
	c := clientcmdapi.NewConfig()
	c.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	c.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: token}
	c.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	c.CurrentContext = name
	data, err := clientcmd.Write(*c)
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	path := filepath.Join(dir, "kubeconfig")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil && env.SystemUser() {
		// The unit runs as cnpa-op: the directory and the file are its,
		// still 0700 and 0600.
		var uid, gid int
		if uid, gid, err = service.EnsureUser(ctx); err == nil {
			if err = os.Chown(dir, uid, gid); err == nil {
				err = os.Chown(path, uid, gid)
			}
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", i18n.NewError("stress.kubeconfig.write", i18n.Args{"Dir": dir, "Err": err.Error()})
	}
	return dir, nil
}

// LoadKubeconfig reads the kubeconfig `cnpa stress`'s drop-in names
// (KubeconfigVar) for `cnpa controller`, as data only: the file and every
// directory above it must be root's or this user's and writable by no
// one else (safefs.Trusted), and it must be what writeKubeconfig writes:
// an https server on 127.0.0.1, the proxy's CA as data, a bearer token as
// data. A command to run (exec, auth-provider), a file to read
// (tokenFile, client-certificate, client-key, certificate-authority), an
// impersonation, another host or TLS without verification is refused
// with a line naming the field and the fix: the service may run as root,
// and a drop-in left by a run that died must not let anyone else choose
// what it runs or where it connects.
func LoadKubeconfig(path string) (*kube.Target, error) {
	refuse := func(why string) error {
		return &kube.ConfigError{Msg: i18n.T("stress.kubeconfig.refused", i18n.Args{"Var": KubeconfigVar, "Path": path, "Why": why})}
	}
	if err := safefs.Trusted(path); err != nil {
		return nil, refuse(err.Error())
	}
	data, err := safefs.ReadFile(path, kube.MaxKubeconfig)
	if err != nil {
		return nil, refuse(err.Error())
	}
	raw, err := clientcmd.Load(data)
	if err != nil {
		return nil, refuse(err.Error())
	}
	kctx := raw.Contexts[raw.CurrentContext]
	if kctx == nil {
		return nil, refuse(i18n.T("stress.kubeconfig.no_context", i18n.Args{"Context": fmt.Sprintf("%q", raw.CurrentContext)}))
	}
	cl, user := raw.Clusters[kctx.Cluster], raw.AuthInfos[kctx.AuthInfo]
	if cl == nil || user == nil {
		return nil, refuse(i18n.T("stress.kubeconfig.no_context", i18n.Args{"Context": fmt.Sprintf("%q", raw.CurrentContext)}))
	}
	fields := kube.Refused(cl, user)
	if cl.InsecureSkipTLSVerify {
		fields = append(fields, "insecure-skip-tls-verify")
	}
	if len(fields) > 0 {
		return nil, refuse(i18n.T("stress.kubeconfig.fields", i18n.Args{"Fields": strings.Join(fields, i18n.T("stress.kubeconfig.sep"))}))
	}
	u, err := url.Parse(cl.Server)
	if err != nil || u.Scheme != "https" || u.Hostname() != "127.0.0.1" || u.Port() == "" || (u.Path != "" && u.Path != "/") {
		return nil, refuse(i18n.T("stress.kubeconfig.server", i18n.Args{"Server": fmt.Sprintf("%q", cl.Server)}))
	}
	if len(cl.CertificateAuthorityData) == 0 || user.Token == "" {
		return nil, refuse(i18n.T("stress.kubeconfig.incomplete"))
	}
	rc := &rest.Config{
		Host:            "https://" + net.JoinHostPort(u.Hostname(), u.Port()),
		BearerToken:     user.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: cl.CertificateAuthorityData},
		// Loopback, straight: no proxy from the environment.
		Proxy: func(*http.Request) (*url.URL, error) { return nil, nil },
		QPS:   100,
		Burst: 200,
	}
	return &kube.Target{Path: path, Source: KubeconfigVar, Context: raw.CurrentContext, Server: rc.Host, Config: rc}, nil
}
